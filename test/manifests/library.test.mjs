// Library mode as an operator installs it (manifests/kustomize/library with the
// real kustomize, over the fixture that renders what ceph-csi's charts render,
// and over ceph-csi's plain-YAML node plugins; the holder chart in mode
// library): each rbd / cephfs / nfs node plugin has pod networking, the plugin
// pod's own storage network (netns-exec-plugin-network, required as for
// ../plugin), the liveness sidecar, no hostPID and none of the shims'
// environment; nothing else changes; and ceph-csi's config, from your
// csiConfig with the chart's csi-values.yaml entries copied in, names each
// holder's <ID>.net.sock, which the plugin container sees through ceph-csi's
// own mounts. The whole install needs no ConfigMap it does not render, in
// either namespace layout, even with the holders in a namespace of their own.
import assert from "node:assert/strict";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { LAYOUTS, argoWorkdir, duplicates, fixtureTemplate, missingConfigMaps } from "./lib/examples.mjs";
import { DRIVERS, FIXTURES, configMapOf, holdersOf, render, sampleValues } from "./lib/helm.mjs";
import {
  KUSTOMIZE_DIR, MULTUS_KEY, build, buildFails, componentPath, networkGenerator, readYaml, workdir, writeYaml,
} from "./lib/kustomize.mjs";
import { parseYaml } from "./lib/load.mjs";
import { pluginRules, runRules, seesHostPath } from "./lib/rules.mjs";
import { validateObject } from "./lib/schema.mjs";

const MULTUS = "ceph-csi/ceph-public";
const LIBRARY_IMAGE = "registry.example.com/cephcsi-netns-library:v3.12.2";
const KINDS = ["rbd", "cephfs", "nfs"];
const DRIVER_OF = { ...DRIVERS, nfs: "nfs.csi.ceph.com" };
const SHIM_ENV = /^NETNS_EXEC_/;
const pluginName = (kind) => `csi-${kind}plugin`;
const isNodePlugin = (d) =>
  d.kind === "DaemonSet" && (d.spec?.template?.spec?.containers ?? []).some((c) => (c.args ?? []).includes("--nodeserver=true"));
const kindOf = (ds) => KINDS.find((k) => ds.spec.template.spec.containers.some((c) => c.name === pluginName(k)));
const keyOf = (d) => `${d.kind}/${d.metadata.namespace ?? ""}/${d.metadata.name}`;
const byKey = (docs) => new Map(docs.map((d) => [keyOf(d), d]));
const libraryValues = (extra = {}) => sampleValues("library", { defaultDrivers: KINDS.map((k) => DRIVER_OF[k]), ...extra });

// A kustomization of `resources` (files written into the directory) with `components`.
function kustomization(files, components, extra = {}) {
  const dir = workdir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  writeYaml(join(dir, "kustomization.yaml"), {
    resources: Object.keys(files), components: components.map((c) => componentPath(dir, c)), ...extra,
  });
  return dir;
}
const withNetwork = { configMapGenerator: [networkGenerator(MULTUS)] };

// What library mode must leave of a node plugin.
function checkLibraryPlugin(ds, holderDirs) {
  const spec = ds.spec.template.spec;
  assert.equal(spec.hostNetwork, false, "hostNetwork");
  assert.equal(spec.hostPID, false, "hostPID");
  assert.equal(spec.dnsPolicy, "ClusterFirst");
  assert.equal(ds.spec.template.metadata.annotations?.[MULTUS_KEY], MULTUS, "the plugin pod's own storage network");
  const c = spec.containers.find((x) => x.name === pluginName(kindOf(ds)));
  assert.deepEqual((c.env ?? []).map((e) => e.name).filter((n) => SHIM_ENV.test(n)), [], `${c.name}: no shim environment`);
  assert.ok(!JSON.stringify(ds).includes("netns-exec-env"), "nothing reads netns-exec-env");
  for (const dir of holderDirs) assert.ok(seesHostPath(ds, c, dir), `${c.name} does not see ${dir}`);
  assert.deepEqual(runRules(pluginRules, ds, { socket: true, holderDirs }), []);
}

describe("the library component over ceph-csi's chart output (v3.12.2 fixture)", () => {
  for (const kind of ["rbd", "cephfs"]) {
    const rendered = fixtureTemplate(kind, `ceph-csi-${kind}`);
    const out = build(kustomization({ "rendered.yaml": rendered }, ["library"], withNetwork));
    const shims = build(kustomization({ "rendered.yaml": rendered }, ["plugin", "socket-mode"], withNetwork));
    test(`${kind}: the node plugin in library mode, valid`, async () => {
      const plugins = out.filter(isNodePlugin);
      assert.equal(plugins.length, 1);
      checkLibraryPlugin(plugins[0], [`/var/lib/kubelet/plugins/${DRIVER_OF[kind]}`]);
      for (const d of out) assert.deepEqual(await validateObject(d), [], keyOf(d));
    });
    test(`${kind}: exactly plugin + socket-mode without the shims' environment`, () => {
      const want = byKey(shims);
      for (const d of want.values()) {
        if (!isNodePlugin(d)) continue;
        const c = d.spec.template.spec.containers.find((x) => x.name === pluginName(kind));
        assert.ok(c.env.some((e) => SHIM_ENV.test(e.name)), "control: plugin gives the shims' environment");
        c.env = c.env.filter((e) => !SHIM_ENV.test(e.name));
      }
      assert.deepEqual(byKey(out), want);
    });
    test(`${kind}: ceph-csi's own environment stays`, () => {
      const before = parseYaml(rendered).find(isNodePlugin).spec.template.spec.containers.find((x) => x.name === pluginName(kind));
      const after = out.find(isNodePlugin).spec.template.spec.containers.find((x) => x.name === pluginName(kind));
      assert.deepEqual(after.env, before.env);
    });
  }
  test("without netns-exec-plugin-network the build fails, as with ../plugin", () => {
    const stderr = buildFails(kustomization({ "rendered.yaml": fixtureTemplate("rbd", "ceph-csi-rbd") }, ["library"]));
    assert.match(stderr, /nothing selected by ConfigMap\.\[noVer\]\.\[noGrp\]\/netns-exec-plugin-network\.\[noNs\]:data\.networks/);
  });
});

describe("the library component over ceph-csi's plain YAML (rbd, cephfs, nfs)", () => {
  const files = Object.fromEntries(KINDS.map((k) => [`csi-${k}plugin.yaml`, readFileSync(join(FIXTURES, `ceph-csi-${k}-nodeplugin.yaml`), "utf8")]));
  const before = build(kustomization(files, []));
  const out = build(kustomization(files, ["library"], withNetwork));
  test("control: ceph-csi's DaemonSets have host network and host PID", () => {
    for (const ds of before.filter(isNodePlugin)) {
      assert.equal(ds.spec.template.spec.hostNetwork, true, ds.metadata.name);
      assert.equal(ds.spec.template.spec.hostPID, true, ds.metadata.name);
    }
  });
  test("all three in library mode, valid; nothing else is rendered", async () => {
    const plugins = out.filter(isNodePlugin);
    assert.deepEqual(plugins.map((d) => d.metadata.name).sort(), KINDS.map(pluginName).sort());
    for (const ds of plugins) checkLibraryPlugin(ds, [`/var/lib/kubelet/plugins/${DRIVER_OF[kindOf(ds)]}`]);
    assert.deepEqual([...byKey(out).keys()].sort(), [...byKey(before).keys()].sort());
    for (const d of out) assert.deepEqual(await validateObject(d), [], keyOf(d));
  });
});

describe("a whole library-mode install: the Argo CD example with the library component and the chart's sockets", () => {
  // The example, its components replaced by library, its plugin image the
  // library plugin image, and its csiConfig entries given the chart's
  // netNamespaceFilePath (the copy NOTES.txt asks for).
  // The holders for the example's cluster.
  const exampleHolders = (namespace) => render(libraryValues({ clusters: [{ id: "ceph-a", monitors: ["198.18.0.10:6789"], multus: MULTUS }] }), { namespace });
  function libraryWorkdir(layout) {
    const dir = argoWorkdir({ layout });
    const k = readYaml(join(dir, "kustomization.yaml"))[0];
    k.components = [componentPath(dir, "library")];
    const sockets = JSON.parse(configMapOf(exampleHolders("netns-holder"), "netns-ceph-csi").data["config.json"]);
    for (const chart of k.helmCharts) {
      chart.valuesInline.nodeplugin.plugin.image = { repository: LIBRARY_IMAGE.split(":")[0], tag: LIBRARY_IMAGE.split(":")[1] };
      const yours = readYaml(join(dir, chart.valuesFile))[0].csiConfig;
      chart.valuesInline.csiConfig = yours.map((e) => {
        const ours = sockets.find((s) => s.clusterID === e.clusterID);
        return ours ? { ...e, rbd: { ...e.rbd, ...ours.rbd }, cephFS: { ...e.cephFS, ...ours.cephFS } } : e;
      });
    }
    writeYaml(join(dir, "kustomization.yaml"), k);
    return dir;
  }
  for (const layout of Object.keys(LAYOUTS)) {
    test(`${layout} layout, the holders in a namespace of their own: nothing twice, nothing missing; config.json names the sockets`, () => {
      const out = build(libraryWorkdir(layout), { enableHelm: true });
      const holders = exampleHolders("netns-holder");
      const docs = [...out, ...holders];
      assert.deepEqual(duplicates(docs), []);
      assert.deepEqual(missingConfigMaps(docs), []);
      const plugins = out.filter(isNodePlugin);
      assert.equal(plugins.length, 2);
      for (const ds of plugins) {
        checkLibraryPlugin(ds, [`/var/lib/kubelet/plugins/${DRIVER_OF[kindOf(ds)]}`]);
        assert.equal(ds.spec.template.spec.containers.find((c) => c.name === pluginName(kindOf(ds))).image, LIBRARY_IMAGE);
      }
      const served = new Set(holdersOf(holders).map((ds) => `${ds.metadata.annotations["netns-holder/dir"]}/${ds.metadata.annotations["netns-holder/cluster-id"]}.net.sock`));
      const configs = out.filter((d) => d.kind === "ConfigMap" && d.data?.["config.json"]?.startsWith("["));
      assert.equal(configs.length, 2);
      for (const cm of configs) {
        const ceph = JSON.parse(cm.data["config.json"]).find((e) => e.clusterID === "ceph-a");
        assert.equal(ceph.rbd.radosNamespace, "tenant1", "your entries keep their fields");
        assert.equal(ceph.cephFS.subvolumeGroup, "csi-custom");
      }
      const named = configs.flatMap((cm) => JSON.parse(cm.data["config.json"]).flatMap((e) => [e.rbd?.netNamespaceFilePath, e.cephFS?.netNamespaceFilePath])).filter(Boolean);
      assert.equal(named.length, 4, "rbd and cephFS of ceph-a, in both charts' config");
      for (const p of named) assert.ok(served.has(p), `${p}: no holder publishes it`);
    });
  }
  test("control: the transparent-mode components with the library-mode chart miss netns-exec-env", () => {
    const dir = argoWorkdir({});
    const out = build(dir, { enableHelm: true });
    const missing = missingConfigMaps([...out, ...render(libraryValues(), { namespace: "ceph-csi" })]);
    assert.ok(missing.some((m) => m.includes("netns-exec-env")), missing.join("\n"));
  });
});
