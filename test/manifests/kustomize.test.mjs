// The node plugin changes as a Kustomize component (manifests/kustomize), with
// the real kustomize and helm, in each way people install ceph-csi:
//   - Flux: the chart rendered by helm, then the HelmRelease's
//     postRenderers[].kustomize.patches (examples/flux), as helm-controller does;
//   - Argo CD / kustomize --enable-helm: helmCharts + components (examples/argocd);
//   - plain YAML: ceph-csi's DaemonSets + components (examples/plain-yaml).
// Each result: the node plugin has the transparent-mode environment (from the
// holder chart's ConfigMap netns-exec-env: rbd and cephfs route by monitors,
// nvmeof and nfs by NETNS_EXEC_TARGETS), pod networking, the Multus
// annotation from the component's one value (and the image from ceph-csi's),
// sees the holder directories through ceph-csi's own mounts, passes the plugin
// rules, and nothing else changed. Without that value the build fails; the
// plugin-pod-network-reaches-ceph component is the same without it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { stringify } from "yaml";
import { DRIVERS, FIXTURES, SAMPLE_CLUSTERS, SOURCE_DIR, configMapOf, render, sampleValues } from "./lib/helm.mjs";
import { argoWorkdir, fixtureTemplate, localComponents } from "./lib/examples.mjs";
import {
  EXAMPLES, KUSTOMIZE_DIR, MULTUS_KEY, PLUGIN_NETWORK, build, buildFails, componentPath, networkGenerator, pluginNetworkOf, readYaml,
  withoutComponents, workdir, writeYaml,
} from "./lib/kustomize.mjs";
import { parseYaml } from "./lib/load.mjs";
import { nodePlugin, renderCephCsi } from "./lib/plugin.mjs";
import { pluginRules, runRules, seesHostPath } from "./lib/rules.mjs";
import { validateObject } from "./lib/schema.mjs";

const IMAGE = "registry.example.com/cephcsi-netns-exec:v3.12.2";
const MULTUS = "ceph-csi/ceph-public";
// The changes without the network, and the component that adds it.
const PATCHES = "plugin-pod-network-reaches-ceph";
// ceph-csi's charts: rbd and cephfs; its plain YAML has nvmeof and nfs too.
const KINDS = ["rbd", "cephfs"];
const ALL_KINDS = [...KINDS, "nvmeof", "nfs"];
const DRIVER_OF = { ...DRIVERS, nvmeof: "nvmeof.csi.ceph.com", nfs: "nfs.csi.ceph.com" };
const ENV_NAMES = ["NETNS_EXEC_CONFIG", "NETNS_EXEC_HOLDER_DIR", "NETNS_EXEC_HELD_CLUSTERS", "NETNS_EXEC_TARGETS"];
// What each shim reads, and from which key of netns-exec-env: rbd and
// mount.ceph match the monitors in ceph-csi's config; nvme and mount.nfs the
// server address in NETNS_EXEC_TARGETS (declaring is holding: no held list).
const BY_MONITORS = { NETNS_EXEC_HOLDER_DIR: "holder-dir", NETNS_EXEC_HELD_CLUSTERS: "held-clusters" };
const BY_TARGET = { NETNS_EXEC_HOLDER_DIR: "holder-dir", NETNS_EXEC_TARGETS: "targets" };
const ENV_KEYS = { rbd: BY_MONITORS, cephfs: BY_MONITORS, nvmeof: BY_TARGET, nfs: BY_TARGET };
const keyOf = (d) => `${d.kind}/${d.metadata.namespace ?? ""}/${d.metadata.name}`;
const byKey = (docs) => new Map(docs.map((d) => [keyOf(d), d]));
const pluginName = (kind) => `csi-${kind}plugin`;
const isNodePlugin = (d) =>
  d.kind === "DaemonSet" && (d.spec?.template?.spec?.containers ?? []).some((c) => (c.args ?? []).includes("--nodeserver=true"));
const pluginsOf = (docs) => docs.filter(isNodePlugin);
const kindOf = (ds) => ALL_KINDS.find((k) => ds.spec.template.spec.containers.some((c) => c.name === pluginName(k)));

// The holders (socket mode, the sample clusters) and the ConfigMap the
// component reads its environment from.
const holderDocs = render(sampleValues("socket"));
const pluginEnv = configMapOf(holderDocs, "netns-exec-env");
// The same clusters with holders for all four drivers, and the NVMe-oF
// gateways / NFS servers they serve.
const TARGETS = [["198.18.4.0/24"], ["nfs-west.example"], ["198.18.6.2", "fd00:6::/64"]];
const allDriversValues = () =>
  sampleValues("socket", {
    defaultDrivers: ALL_KINDS.map((k) => DRIVER_OF[k]),
    clusters: SAMPLE_CLUSTERS.map((c, i) => ({ ...c, targets: TARGETS[i] })),
  });
const allDriversEnv = configMapOf(render(allDriversValues()), "netns-exec-env");

// The node plugin DaemonSet `ds` (kind rbd|cephfs|nvmeof|nfs) as the component
// must leave it, with `envMap` the holder chart's netns-exec-env.
function checkPlugin(ds, kind, { socket, image = IMAGE, multus = MULTUS, envMap = pluginEnv }) {
  const driver = DRIVER_OF[kind];
  const spec = ds.spec.template.spec;
  assert.equal(spec.hostNetwork, false, "hostNetwork");
  assert.equal(spec.dnsPolicy, "ClusterFirst", "dnsPolicy");
  assert.equal(spec.hostPID, !socket, "hostPID");
  assert.equal(ds.spec.template.metadata.annotations?.[MULTUS_KEY], multus, "Multus annotation");
  const c = spec.containers.find((x) => x.name === pluginName(kind));
  assert.equal(c.image, image);
  const env = Object.fromEntries(c.env.map((e) => [e.name, e]));
  const keys = ENV_KEYS[kind];
  // Exactly what this kind's shim reads; nothing another kind's reads.
  const added = c.env.map((e) => e.name).filter((n) => ENV_NAMES.includes(n)).sort();
  const wanted = Object.keys(keys).concat(kind === "rbd" || kind === "cephfs" ? ["NETNS_EXEC_CONFIG"] : []).sort();
  assert.deepEqual(added, wanted, `${c.name}: the netns-exec environment`);
  if (env.NETNS_EXEC_CONFIG) {
    assert.equal(env.NETNS_EXEC_CONFIG.value, "/etc/ceph-csi-config/config.json");
    // The config file is ceph-csi's own ConfigMap volume, at that directory.
    assert.ok(c.volumeMounts.some((m) => m.name === "ceph-csi-config" && m.mountPath.replace(/\/$/, "") === "/etc/ceph-csi-config"));
  }
  for (const [name, key] of Object.entries(keys)) {
    const ref = env[name]?.valueFrom?.configMapKeyRef;
    assert.deepEqual(ref, { name: "netns-exec-env", key: `${driver}.${key}` }, name);
    // Not optional, and the holder chart renders that key.
    assert.equal(typeof envMap.data[ref.key], "string", `netns-exec-env has no ${ref.key}`);
  }
  // (ceph-csi's own environment stays: nothingElseChanged.)
  // The sidecar's /csi is the volume with this driver's csi.sock: the
  // registrar's, the hostPath <kubelet>/plugins/<driver>.
  const volumes = new Map(spec.volumes.map((v) => [v.name, v]));
  const csiDir = (name) => {
    const m = spec.containers.find((x) => x.name === name).volumeMounts.find((v) => v.mountPath === "/csi");
    return volumes.get(m?.name)?.hostPath?.path?.replace(/\/+$/, "");
  };
  assert.equal(csiDir("liveness-probe"), `/var/lib/kubelet/plugins/${driver}`, "the liveness sidecar's /csi");
  assert.equal(csiDir("liveness-probe"), csiDir("driver-registrar"));
  const holderDir = envMap.data[`${driver}.holder-dir`];
  assert.ok(seesHostPath(ds, c, holderDir), `${c.name} does not see ${holderDir} through a hostPath mount`);
  assert.deepEqual(runRules(pluginRules, ds, { socket, holderDirs: [holderDir] }), []);
}

// `after` with what the component adds taken out again; must equal `before`
// (the image is the install's own: values or the example's patch, in `before`
// too; so is Flux's network patch).
function undo(after, before) {
  const ds = structuredClone(after);
  const meta = ds.spec.template.metadata;
  const was = before.spec.template.metadata?.annotations;
  if (was?.[MULTUS_KEY] !== undefined) meta.annotations[MULTUS_KEY] = was[MULTUS_KEY];
  else delete meta.annotations?.[MULTUS_KEY];
  if (was === undefined && Object.keys(meta.annotations ?? {}).length === 0) delete meta.annotations;
  const spec = ds.spec.template.spec;
  const base = before.spec.template.spec;
  for (const f of ["hostNetwork", "dnsPolicy", "hostPID"]) spec[f] = base[f];
  spec.containers = spec.containers.filter((c) => c.name !== "liveness-probe");
  const kind = kindOf(after);
  const c = spec.containers.find((x) => x.name === pluginName(kind));
  const orig = base.containers.find((x) => x.name === pluginName(kind));
  c.env = c.env.filter((e) => !ENV_NAMES.includes(e.name));
  c.ports = (c.ports ?? []).filter((p) => p.name !== "healthz");
  if (c.ports.length === 0 && orig.ports === undefined) delete c.ports;
  delete c.livenessProbe;
  // Strategic merge keeps the containers, not their order.
  const order = base.containers.map((x) => x.name);
  spec.containers.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  return ds;
}

function nothingElseChanged(afterDocs, beforeDocs) {
  const before = byKey(beforeDocs);
  const after = byKey(afterDocs);
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), "the same objects");
  for (const [key, doc] of after) {
    if (isNodePlugin(doc)) assert.deepEqual(undo(doc, before.get(key)), before.get(key), key);
    else assert.deepEqual(doc, before.get(key), key);
  }
}

async function allValid(docs) {
  for (const doc of docs) assert.deepEqual(await validateObject(doc), [], keyOf(doc));
}

// helm template of the fixture chart standing for ceph-csi-<kind> (the
// release the examples pin).
const helmTemplate = (kind, release, valuesFiles) => fixtureTemplate(kind, release, { valuesFiles });

describe("the holder chart renders the plugin's environment", () => {
  test("netns-exec-env: held clusters and holder directory per driver", () => {
    const ids = sampleValues("socket").clusters.map((c) => c.id).join(",");
    assert.deepEqual(pluginEnv.data, {
      "rbd.csi.ceph.com.held-clusters": ids,
      "rbd.csi.ceph.com.holder-dir": "/var/lib/kubelet/plugins/rbd.csi.ceph.com",
      "cephfs.csi.ceph.com.held-clusters": ids,
      "cephfs.csi.ceph.com.holder-dir": "/var/lib/kubelet/plugins/cephfs.csi.ceph.com",
    });
  });
  test("nvmeof and nfs: targets and holder directory per driver; no targets, no key", () => {
    assert.equal(allDriversEnv.data["nvmeof.csi.ceph.com.holder-dir"], "/var/lib/kubelet/plugins/nvmeof.csi.ceph.com");
    assert.equal(allDriversEnv.data["nfs.csi.ceph.com.targets"], `ceph-east=198.18.4.0/24;Ceph_West.2=nfs-west.example;${SAMPLE_CLUSTERS[2].id}=198.18.6.2,fd00:6::/64`);
    // Without targets nothing says which server a holder serves: the key is
    // missing, and the plugin, whose reference is not optional, does not start
    // (rather than mount a held server from its own namespace).
    const values = allDriversValues();
    values.clusters = values.clusters.map(({ targets, ...c }) => c);
    const cm = configMapOf(render(values), "netns-exec-env");
    assert.equal(cm.data["nvmeof.csi.ceph.com.targets"], undefined);
    assert.equal(cm.data["nfs.csi.ceph.com.targets"], undefined);
    assert.equal(cm.data["nfs.csi.ceph.com.holder-dir"], "/var/lib/kubelet/plugins/nfs.csi.ceph.com");
  });
  test("a cluster without a CephFS holder is not held for CephFS; kubeletDir moves the directory", () => {
    const values = sampleValues("symlink", { kubeletDir: "/data/kubelet" });
    values.clusters = [{ id: "ceph-a" }, { id: "ceph-b", drivers: ["rbd.csi.ceph.com"] }];
    const cm = configMapOf(render(values), "netns-exec-env");
    assert.equal(cm.data["rbd.csi.ceph.com.held-clusters"], "ceph-a,ceph-b");
    assert.equal(cm.data["cephfs.csi.ceph.com.held-clusters"], "ceph-a");
    assert.equal(cm.data["rbd.csi.ceph.com.holder-dir"], "/data/kubelet/plugins/rbd.csi.ceph.com");
  });
});

describe("Flux: helm, then the HelmRelease's postRenderers kustomize patches", () => {
  const releases = parseYaml(readFileSync(join(EXAMPLES, "flux", "helmreleases.yaml"), "utf8"));
  const component = readYaml(join(KUSTOMIZE_DIR, PATCHES, "kustomization.yaml"))[0];
  const hostPid = readYaml(join(KUSTOMIZE_DIR, "socket-mode", "host-pid.yaml"))[0];
  for (const kind of KINDS) {
    const hr = releases.find((r) => r.metadata.name === `ceph-csi-${kind}`);
    const dir = workdir();
    // helm-controller: the chart with the release's values, then kustomize.
    const valuesFile = join(dir, "values.yaml");
    writeYaml(valuesFile, hr.spec.values);
    writeFileSync(join(dir, "rendered.yaml"), helmTemplate(kind, hr.metadata.name, [valuesFile]));
    const patches = hr.spec.postRenderers[0].kustomize.patches;
    writeYaml(join(dir, "kustomization.yaml"), { resources: ["rendered.yaml"], patches });
    const out = build(dir);
    // The chart and the install's own network patch, without the component.
    const ndir = workdir();
    cpSync(join(dir, "rendered.yaml"), join(ndir, "rendered.yaml"));
    writeYaml(join(ndir, "kustomization.yaml"), { resources: ["rendered.yaml"], patches: [patches[2]] });
    const before = build(ndir);
    // The plugin's network, as Flux's third patch gives it.
    const [network] = parseYaml(patches[2].patch);
    test(`${kind}: the inline patches are the component's, then the plugin's network`, () => {
      const chartTarget = component.patches.find((p) => p.path === `${kind}.yaml` && p.target.labelSelector);
      assert.equal(patches.length, 3);
      assert.deepEqual(patches[0].target, chartTarget.target);
      assert.deepEqual(parseYaml(patches[0].patch), readYaml(join(KUSTOMIZE_DIR, PATCHES, `${kind}.yaml`)));
      assert.deepEqual(parseYaml(patches[1].patch), [hostPid]);
      // Only the annotation, with the Argo CD example's value.
      assert.deepEqual(network.spec, { template: { metadata: { annotations: { [MULTUS_KEY]: MULTUS } } } });
      assert.equal(pluginNetworkOf(readYaml(join(EXAMPLES, "argocd", "kustomization.yaml"))[0]), MULTUS);
      assert.deepEqual(patches[2].target, chartTarget.target);
    });
    test(`${kind}: the chart alone keeps the host network (control)`, () => {
      const [ds] = pluginsOf(before);
      assert.equal(ds.spec.template.spec.hostNetwork, true);
      assert.ok(!ds.spec.template.spec.containers.some((c) => (c.env ?? []).some((e) => ENV_NAMES.includes(e.name))));
    });
    test(`${kind}: the node plugin is changed, nothing else`, async () => {
      const plugins = pluginsOf(out);
      assert.equal(plugins.length, 1);
      assert.equal(plugins[0].metadata.name, `ceph-csi-${kind}-nodeplugin`);
      checkPlugin(plugins[0], kind, { socket: true });
      nothingElseChanged(out, before);
      await allValid(out);
    });
    test(`${kind}: the same result as the components themselves (with the network as their value)`, () => {
      const cdir = workdir();
      cpSync(join(dir, "rendered.yaml"), join(cdir, "rendered.yaml"));
      writeYaml(join(cdir, "kustomization.yaml"), {
        resources: ["rendered.yaml"], components: [componentPath(cdir, "plugin"), componentPath(cdir, "socket-mode")],
        configMapGenerator: [networkGenerator(network.spec.template.metadata.annotations[MULTUS_KEY])],
      });
      assert.deepEqual(byKey(build(cdir)), byKey(out));
    });
  }
});

describe("Argo CD: helmCharts + the component (kustomize build --enable-helm)", () => {
  const out = build(argoWorkdir({ withComponents: true }), { enableHelm: true });
  const before = build(argoWorkdir({ withComponents: false }), { enableHelm: true });
  test("without the component both node plugins keep the host network (control)", () => {
    const plugins = pluginsOf(before);
    assert.equal(plugins.length, 2);
    for (const ds of plugins) assert.equal(ds.spec.template.spec.hostNetwork, true, ds.metadata.name);
  });
  test("both node plugins are changed, nothing else", async () => {
    const plugins = pluginsOf(out);
    assert.deepEqual(plugins.map((d) => d.metadata.name).sort(), ["ceph-csi-cephfs-nodeplugin", "ceph-csi-rbd-nodeplugin"]);
    for (const ds of plugins) checkPlugin(ds, kindOf(ds), { socket: true });
    nothingElseChanged(out, before);
    await allValid(out);
  });
  test("your csiConfig stays as you wrote it (subvolumeGroup, radosNamespace)", () => {
    // (ceph-csi-encryption-kms-config has a config.json too: not a csiConfig.)
    const configs = out.filter((d) => d.kind === "ConfigMap" && d.data?.["config.json"]?.startsWith("["));
    assert.deepEqual(configs.map((d) => d.metadata.name).sort(), ["ceph-csi-cephfs-config", "ceph-csi-config"]);
    for (const cm of configs) {
      const ceph = JSON.parse(cm.data["config.json"]).find((e) => e.clusterID === "ceph-a");
      assert.equal(ceph.cephFS.subvolumeGroup, "csi-custom");
      assert.equal(ceph.rbd.radosNamespace, "tenant1");
      assert.ok(!JSON.stringify(ceph).includes("netNamespaceFilePath"), "transparent mode needs none");
    }
  });
  test("control: the old -f yours.yaml -f netns-csi-values.yaml loses them", () => {
    const dir = workdir();
    const netns = join(dir, "netns-csi-values.yaml");
    const values = sampleValues("socket");
    values.clusters = [{ id: "ceph-a", monitors: ["198.18.0.10:6789", "198.18.0.11:6789"] }];
    writeFileSync(netns, configMapOf(render(values), "netns-ceph-csi").data["csi-values.yaml"]);
    const docs = parseYaml(helmTemplate("rbd", "ceph-csi-rbd", [join(EXAMPLES, "argocd", "ceph-csi-values.yaml"), netns]));
    const ceph = JSON.parse(configMapOf(docs, "ceph-csi-config").data["config.json"]).find((e) => e.clusterID === "ceph-a");
    assert.equal(ceph.rbd.netNamespaceFilePath, "/var/lib/kubelet/plugins/rbd.csi.ceph.com/ceph-a.net.sock");
    assert.equal(ceph.rbd.radosNamespace, undefined);
    assert.equal(ceph.cephFS.subvolumeGroup, undefined);
  });
  test("the same changes as the post-renderer, plus the environment", () => {
    const plugin = nodePlugin(out.filter((d) => d.metadata.name === "ceph-csi-rbd-nodeplugin"));
    const post = nodePlugin(renderCephCsi("rbd", ["--mode=socket", `--plugin-image=${IMAGE}`, `--multus=${MULTUS}`]).docs);
    const mine = structuredClone(plugin.spec.template.spec);
    const c = mine.containers.find((x) => x.name === "csi-rbdplugin");
    c.env = c.env.filter((e) => !ENV_NAMES.includes(e.name));
    // The chart's image value is also liveness-prometheus's (it runs cephcsi
    // too); the post-renderer's --plugin-image sets the plugin container's.
    post.spec.template.spec.containers.find((x) => x.name === "liveness-prometheus").image = IMAGE;
    const sort = (s) => ({ ...s, containers: [...s.containers].sort((a, b) => a.name.localeCompare(b.name)) });
    assert.deepEqual(sort(mine), sort(post.spec.template.spec));
  });
});

describe("plain YAML: ceph-csi's DaemonSets + the component", () => {
  const FIXTURE_OF = Object.fromEntries(ALL_KINDS.map((k) => [`csi-${k}plugin.yaml`, `ceph-csi-${k}-nodeplugin.yaml`]));
  // The image each plugin gets from the example's own patch.
  const imageOf = (kind) =>
    readYaml(join(EXAMPLES, "plain-yaml", `${kind}-plugin.yaml`))[0].spec.template.spec.containers.find((c) => c.name === pluginName(kind)).image;
  function plainWorkdir({ withComponents }) {
    const dir = workdir(join(EXAMPLES, "plain-yaml"));
    const k = readYaml(join(dir, "kustomization.yaml"))[0];
    k.resources = k.resources.map((url) => {
      const m = /^https:\/\/raw\.githubusercontent\.com\/ceph\/ceph-csi\/v[0-9.]+\/deploy\/(rbd|cephfs|nvmeof|nfs)\/kubernetes\/(csi-([a-z]+)plugin\.yaml)$/.exec(url);
      assert.ok(m && m[1] === m[3], `${url}: not ceph-csi's plain-YAML node plugin`);
      // kustomize reads files only below the kustomization: a copy.
      cpSync(join(FIXTURES, FIXTURE_OF[m[2]]), join(dir, m[2]));
      return m[2];
    });
    if (withComponents) k.components = localComponents(dir, k.components);
    else withoutComponents(k);
    writeYaml(join(dir, "kustomization.yaml"), k);
    return dir;
  }
  // Without the component: only the example's own image patches.
  const before = build(plainWorkdir({ withComponents: false }));
  const out = build(plainWorkdir({ withComponents: true }));
  const names = ALL_KINDS.map(pluginName).sort();
  test("without the component the node plugins keep the host network (control)", () => {
    assert.deepEqual(pluginsOf(before).map((d) => d.metadata.name).sort(), names);
    for (const ds of pluginsOf(before)) {
      assert.equal(ds.spec.template.spec.hostNetwork, true, ds.metadata.name);
      const c = ds.spec.template.spec.containers.find((x) => x.name === pluginName(kindOf(ds)));
      assert.ok(!(c.env ?? []).some((e) => ENV_NAMES.includes(e.name)), ds.metadata.name);
    }
  });
  test("all four node plugins (rbd, cephfs, nvmeof, nfs) are changed, nothing else", async () => {
    const plugins = pluginsOf(out);
    assert.deepEqual(plugins.map((d) => d.metadata.name).sort(), names);
    for (const ds of plugins) {
      assert.equal(ds.metadata.namespace, "ceph-csi");
      const kind = kindOf(ds);
      checkPlugin(ds, kind, { socket: true, image: imageOf(kind), envMap: allDriversEnv });
    }
    nothingElseChanged(out, before);
    await allValid(out);
  });
  test("nvmeof and nfs: NETNS_EXEC_TARGETS names the key with the chart's targets", () => {
    for (const kind of ["nvmeof", "nfs"]) {
      const ds = pluginsOf(out).find((d) => d.metadata.name === pluginName(kind));
      const c = ds.spec.template.spec.containers.find((x) => x.name === pluginName(kind));
      const { key } = c.env.find((e) => e.name === "NETNS_EXEC_TARGETS").valueFrom.configMapKeyRef;
      const ids = SAMPLE_CLUSTERS.map((cl) => cl.id);
      assert.equal(allDriversEnv.data[key], ids.map((id, i) => `${id}=${TARGETS[i].join(",")}`).join(";"), key);
      assert.equal(allDriversEnv.data[`${DRIVER_OF[kind]}.holder-dir`], `/var/lib/kubelet/plugins/${DRIVER_OF[kind]}`);
    }
  });
  test("symlink mode: without socket-mode, hostPID stays", () => {
    const dir = plainWorkdir({ withComponents: true });
    const k = readYaml(join(dir, "kustomization.yaml"))[0];
    k.components = k.components.filter((c) => !c.endsWith("socket-mode"));
    writeYaml(join(dir, "kustomization.yaml"), k);
    const plugins = pluginsOf(build(dir));
    assert.equal(plugins.length, ALL_KINDS.length);
    for (const ds of plugins) checkPlugin(ds, kindOf(ds), { socket: false, image: imageOf(kindOf(ds)), envMap: allDriversEnv });
  });
});

describe("the component touches nothing that is not a ceph-csi node plugin", () => {
  test("the provisioner, a foreign DaemonSet and a node plugin of another name stay", () => {
    const dir = workdir();
    const rendered = helmTemplate("rbd", "ceph-csi-rbd", []);
    const foreign = {
      apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "csi-rbdplugin-other", namespace: "ceph-csi", labels: { app: "csi-rbdplugin" } },
      spec: {
        selector: { matchLabels: { app: "x" } },
        template: { metadata: { labels: { app: "x" } }, spec: { hostNetwork: true, containers: [{ name: "csi-rbdplugin", image: "busybox" }] } },
      },
    };
    writeFileSync(join(dir, "rendered.yaml"), `${rendered}\n---\n${stringify(foreign)}`);
    writeYaml(join(dir, "kustomization.yaml"), {
      resources: ["rendered.yaml"], components: [componentPath(dir, "plugin")], configMapGenerator: [networkGenerator(MULTUS)],
    });
    const out = byKey(build(dir));
    assert.deepEqual(out.get("DaemonSet/ceph-csi/csi-rbdplugin-other"), foreign);
    const provisioner = out.get("Deployment/ceph-csi/ceph-csi-rbd-provisioner");
    assert.deepEqual(provisioner, parseYaml(rendered).find((d) => d.kind === "Deployment"));
    assert.equal(out.get("DaemonSet/ceph-csi/ceph-csi-rbd-nodeplugin").spec.template.spec.hostNetwork, false);
  });
});

describe("the plugin's storage network is the plugin component's one value", () => {
  const PLUGIN_KEY = "DaemonSet/ceph-csi/ceph-csi-rbd-nodeplugin";
  // ceph-csi-rbd's chart output with `components` and the kustomization's `extra`.
  function chartDir(components, extra = {}, rendered = helmTemplate("rbd", "ceph-csi-rbd", [])) {
    const dir = workdir();
    writeFileSync(join(dir, "rendered.yaml"), rendered);
    writeYaml(join(dir, "kustomization.yaml"), {
      resources: ["rendered.yaml"], components: components.map((c) => componentPath(dir, c)), ...extra,
    });
    return dir;
  }
  const networkOf = (docs) => byKey(docs).get(PLUGIN_KEY).spec.template.metadata.annotations?.[MULTUS_KEY];
  const applied = (docs) => docs.filter((d) => d.kind === "ConfigMap" && d.metadata.name.startsWith(PLUGIN_NETWORK));
  test("without the ConfigMap the build fails, naming it and its key", () => {
    const stderr = buildFails(chartDir(["plugin", "socket-mode"]));
    assert.match(stderr, /nothing selected by ConfigMap\.\[noVer\]\.\[noGrp\]\/netns-exec-plugin-network\.\[noNs\]:data\.networks/);
  });
  test("a ConfigMap without the key fails too", () => {
    const stderr = buildFails(chartDir(["plugin"], { configMapGenerator: [{ name: PLUGIN_NETWORK, literals: ["network=a/b"] }] }));
    assert.match(stderr, /fieldPath `data\.networks` is missing for replacement source ConfigMap\.\[noVer\]\.\[noGrp\]\/netns-exec-plugin-network/);
  });
  test("the value becomes the annotation, on a pod template that had none; the ConfigMap is never applied", () => {
    const before = parseYaml(helmTemplate("rbd", "ceph-csi-rbd", [])).find((d) => d.kind === "DaemonSet");
    assert.equal(before.spec.template.metadata.annotations, undefined, "v3.12.2's pod template has no annotations");
    const out = build(chartDir(["plugin"], { configMapGenerator: [networkGenerator("storage/a,storage/b@net9")] }));
    assert.equal(networkOf(out), "storage/a,storage/b@net9");
    assert.deepEqual(applied(out), []);
  });
  test("a ConfigMap resource serves as well as a generator, and is not applied either", () => {
    const dir = chartDir(["plugin"]);
    writeYaml(join(dir, "network.yaml"), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: PLUGIN_NETWORK }, data: { networks: MULTUS } });
    const k = readYaml(join(dir, "kustomization.yaml"))[0];
    k.resources.push("network.yaml");
    writeYaml(join(dir, "kustomization.yaml"), k);
    const out = build(dir);
    assert.equal(networkOf(out), MULTUS);
    assert.deepEqual(applied(out), []);
  });
  test("it replaces a Multus annotation from the chart's nodeplugin.podAnnotations (devel) and keeps the others", () => {
    const dir = workdir();
    writeYaml(join(dir, "values.yaml"), { nodeplugin: { podAnnotations: { [MULTUS_KEY]: "x/y", team: "storage" } } });
    const rendered = fixtureTemplate("rbd", "ceph-csi-rbd", { upstream: "devel", valuesFiles: [join(dir, "values.yaml")] });
    const out = build(chartDir(["plugin"], { configMapGenerator: [networkGenerator(MULTUS)] }, rendered));
    assert.deepEqual(byKey(out).get(PLUGIN_KEY).spec.template.metadata.annotations, { [MULTUS_KEY]: MULTUS, team: "storage" });
  });
  test(`${PATCHES}: the same changes without the network, and no ConfigMap to give`, () => {
    const opt = build(chartDir([PATCHES, "socket-mode"]));
    const full = byKey(build(chartDir(["plugin", "socket-mode"], { configMapGenerator: [networkGenerator(MULTUS)] })));
    assert.equal(networkOf(opt), undefined);
    assert.equal(byKey(opt).get(PLUGIN_KEY).spec.template.spec.hostNetwork, false);
    delete full.get(PLUGIN_KEY).spec.template.metadata.annotations;
    assert.deepEqual(byKey(opt), full);
  });
});

describe("the nsenter form: the merge manifests/README.md gives keeps your entries", () => {
  test("jq: ceph-a keeps subvolumeGroup and radosNamespace and gains netNamespaceFilePath", () => {
    const readme = readFileSync(join(SOURCE_DIR, "manifests", "README.md"), "utf8");
    const m = /^jq -s '([^']+)' \\\n +yours\.json ours\.json$/m.exec(readme);
    assert.ok(m, "manifests/README.md has no `jq -s '...' yours.json ours.json` merge");
    const dir = workdir();
    const yours = readYaml(join(EXAMPLES, "argocd", "ceph-csi-values.yaml"))[0].csiConfig;
    const values = sampleValues("symlink");
    values.clusters = [{ id: "ceph-a", monitors: ["198.18.0.10:6789"] }];
    writeFileSync(join(dir, "yours.json"), JSON.stringify(yours));
    writeFileSync(join(dir, "ours.json"), configMapOf(render(values), "netns-ceph-csi").data["config.json"]);
    const r = spawnSync("jq", ["-s", m[1], "yours.json", "ours.json"], { cwd: dir, encoding: "utf8" });
    assert.equal(r.error, undefined, "jq not found: ./dev setup installs it");
    assert.equal(r.status, 0, r.stderr);
    const [ceph] = JSON.parse(r.stdout);
    assert.equal(ceph.cephFS.subvolumeGroup, "csi-custom");
    assert.equal(ceph.rbd.radosNamespace, "tenant1");
    assert.equal(ceph.rbd.netNamespaceFilePath, "/var/lib/kubelet/plugins/rbd.csi.ceph.com/ceph-a.net.ns");
    assert.equal(ceph.cephFS.netNamespaceFilePath, "/var/lib/kubelet/plugins/cephfs.csi.ceph.com/ceph-a.net.ns");
    assert.deepEqual(ceph.monitors, yours[0].monitors, "your monitors win");
  });
});
