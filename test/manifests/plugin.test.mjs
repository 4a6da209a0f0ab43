// The plugin side for ceph-csi Helm installs: manifests/plugin/post-renderer
// under the real `helm template --post-renderer`, on a chart in the shape of
// ceph-csi's (DaemonSet <release>-nodeplugin, container csi-rbdplugin /
// csi-cephfsplugin, hostNetwork hard-coded to true). What it renders passes the
// plugin rules and the schema, touches nothing else, renders the same on every
// upgrade, and makes the same changes as the plain-YAML strategic-merge patch.
import assert from "node:assert/strict";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { DRIVERS, configMapOf, postRender, postRenderFails, render, renderPatch, renderPatchFails, sampleValues } from "./lib/helm.mjs";
import { parseYaml } from "./lib/load.mjs";
import { applyPatch, nodePlugin, renderCephCsi } from "./lib/plugin.mjs";
import { configProblems, pluginRules, runRules } from "./lib/rules.mjs";
import { validateObject } from "./lib/schema.mjs";

const scratch = mkdtempSync(join(tmpdir(), "netns-plugin-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const KINDS = { rbd: DRIVERS.rbd, cephfs: DRIVERS.cephfs };
const IMAGE = "registry.example.com/cephcsi-netns-exec:v3.14.0";
const options = (driver, socket, extra = {}) => ({ socket, holderDirs: [`/var/lib/kubelet/plugins/${driver}`], ...extra });
const withoutPlugin = (docs) => docs.filter((d) => !(d.kind === "DaemonSet" && d.metadata.name.endsWith("-nodeplugin")));
// The plugin pod's own storage network, which both scripts require.
const NET = "--multus=ceph-csi/ceph-public";
const MULTUS_KEY = "k8s.v1.cni.cncf.io/networks";

describe("ceph-csi chart + post-renderer", () => {
  for (const [kind, driver] of Object.entries(KINDS)) {
    const plain = renderCephCsi(kind, null);
    test(`${kind}: the chart alone fails the plugin rules (control)`, () => {
      const failures = runRules(pluginRules, nodePlugin(plain.docs), options(driver, false));
      assert.match(failures.join(), /plugin-host-network: hostNetwork is true/);
      assert.match(failures.join(), /plugin-liveness-sidecar/);
    });
    for (const mode of ["symlink", "socket"]) {
      const socket = mode === "socket";
      const flags = [`--mode=${mode}`, `--plugin-image=${IMAGE}`, "--multus=ceph-csi/ceph-public,storage/extra"];
      const out = renderCephCsi(kind, flags);
      test(`${kind} ${mode}: the node plugin passes every rule`, () => {
        const ds = nodePlugin(out.docs);
        assert.equal(ds.metadata.name, `ceph-csi-${kind}-nodeplugin`);
        assert.deepEqual(runRules(pluginRules, ds, options(driver, socket)), []);
        const c = ds.spec.template.spec.containers.find((x) => x.name === `csi-${kind}plugin`);
        assert.equal(c.image, IMAGE);
        assert.equal(ds.spec.template.metadata.annotations[MULTUS_KEY], "ceph-csi/ceph-public,storage/extra");
        assert.equal(ds.spec.template.spec.dnsPolicy, "ClusterFirst");
        // ceph-csi's own liveness-prometheus container and its metrics port stay.
        const names = ds.spec.template.spec.containers.map((x) => x.name);
        assert.deepEqual(names, [`csi-${kind}plugin`, "driver-registrar", "liveness-prometheus", "liveness-probe"]);
      });
      test(`${kind} ${mode}: every object is valid and nothing else changed`, async () => {
        for (const doc of out.docs) assert.deepEqual(await validateObject(doc), [], `${doc.kind} ${doc.metadata.name}`);
        assert.deepEqual(withoutPlugin(out.docs), withoutPlugin(plain.docs));
      });
      test(`${kind} ${mode}: an upgrade renders the same (post-rendering is idempotent)`, () => {
        assert.deepEqual(renderCephCsi(kind, flags).docs, out.docs, "a second helm template --post-renderer");
        assert.deepEqual(parseYaml(postRender(out.text, flags)), out.docs, "post-rendering its own output");
      });
      test(`${kind} ${mode}: the same changes as the strategic-merge patch`, () => {
        const base = nodePlugin(plain.docs);
        const [patch] = renderPatch([
          `--driver=${driver}`, `--mode=${mode}`, `--plugin-image=${IMAGE}`, "--multus=ceph-csi/ceph-public,storage/extra",
          `--daemonset=${base.metadata.name}`, `--container=csi-${kind}plugin`,
        ]);
        const merged = applyPatch(patch, base);
        assert.deepEqual(merged.spec, nodePlugin(out.docs).spec);
      });
    }
  }
  test("--host-network keeps the host network", () => {
    const ds = nodePlugin(renderCephCsi("rbd", ["--host-network"]).docs);
    assert.equal(ds.spec.template.spec.hostNetwork, true);
    assert.deepEqual(runRules(pluginRules, ds, options(DRIVERS.rbd, false, { hostNetwork: true })), []);
  });
  test("--pod-network-reaches-ceph: pod networking without a Multus attachment, as render-patch does it", () => {
    const flags = ["--mode=socket", "--pod-network-reaches-ceph"];
    const plain = nodePlugin(renderCephCsi("rbd", null).docs);
    const ds = nodePlugin(renderCephCsi("rbd", flags).docs);
    assert.equal(ds.spec.template.spec.hostNetwork, false);
    assert.equal(ds.spec.template.metadata?.annotations?.[MULTUS_KEY], undefined);
    assert.deepEqual(ds.spec.template.metadata, plain.spec.template.metadata, "the pod template's metadata stays as ceph-csi's");
    assert.deepEqual(runRules(pluginRules, ds, options(DRIVERS.rbd, true)), []);
    const [patch] = renderPatch([`--driver=${DRIVERS.rbd}`, ...flags, `--daemonset=${plain.metadata.name}`, "--container=csi-rbdplugin"]);
    assert.equal(patch.spec.template.metadata, undefined, "the patch adds no annotation");
    assert.deepEqual(applyPatch(patch, plain).spec, ds.spec);
  });
  test("another release name is found too", () => {
    const ds = nodePlugin(renderCephCsi("rbd", ["--mode=socket", NET], { release: "storage-rbd" }).docs);
    // ceph-csi's naming rule: the chart's name is added when the release's lacks it.
    assert.equal(ds.metadata.name, "storage-rbd-ceph-csi-rbd-nodeplugin");
    assert.deepEqual(runRules(pluginRules, ds, options(DRIVERS.rbd, true)), []);
  });
});

describe("post-renderer refusals", () => {
  const input = renderCephCsi("rbd", null).text;
  const refusals = [
    [["--mode=sockets"], /mode/],
    [["--host-network", "--multus=a/b"], /hostNetwork pod gets no Multus/],
    // The plugin's own route to Ceph is required, and said once.
    [["--mode=socket"], /the node plugin pod needs its own route to Ceph: ceph-csi opens RADOS connections in-process .* Pass --multus=NAMESPACE\/NETWORK .* or --pod-network-reaches-ceph if the cluster's pod network routes to the Ceph public network/],
    [["--pod-network-reaches-ceph", "--multus=a/b"], /--pod-network-reaches-ceph with --multus or --host-network: say one way/],
    [["--pod-network-reaches-ceph", "--host-network"], /--pod-network-reaches-ceph with --multus or --host-network: say one way/],
    [["--liveness-port=http"], /not a port number/],
    [["--nope=1"], /unknown flag '--nope'/],
    [["socket"], /unknown argument 'socket'/],
  ];
  for (const [flags, message] of refusals) {
    test(flags.join(" "), () => {
      const { status, stderr } = postRenderFails(input, flags);
      assert.notEqual(status, 0);
      assert.match(stderr, message);
    });
  }
  test("manifests without a ceph-csi node plugin", () => {
    const { stderr } = postRenderFails("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", [NET]);
    assert.match(stderr, /no ceph-csi node plugin DaemonSet/);
  });
  test("render-patch needs a driver and a known kind", () => {
    assert.match(renderPatchFails([NET]).stderr, /--driver is required/);
    assert.match(renderPatchFails(["--driver=block.example.com", NET]).stderr, /--kind rbd\|cephfs\|nfs/);
    const [patch] = renderPatch(["--driver=block.example.com", "--kind=rbd", NET]);
    assert.equal(patch.metadata.name, "csi-rbdplugin");
  });
  test("render-patch needs the plugin's own route to Ceph too (the same rule)", () => {
    const { stderr } = renderPatchFails([`--driver=${DRIVERS.rbd}`, "--mode=socket"]);
    assert.match(stderr, /the node plugin pod needs its own route to Ceph: .* Pass --multus=NAMESPACE\/NETWORK .* or --pod-network-reaches-ceph/);
  });
});

describe("the holders' csi-values.yaml configures ceph-csi's chart", () => {
  for (const mode of ["symlink", "socket"]) {
    test(mode, () => {
      const cm = configMapOf(render(sampleValues(mode)), "netns-ceph-csi");
      const file = join(scratch, `csi-values-${mode}.yaml`);
      writeFileSync(file, cm.data["csi-values.yaml"]);
      const { docs } = renderCephCsi("rbd", [`--mode=${mode}`, NET], { valuesFiles: [file] });
      const config = configMapOf(docs, "ceph-csi-config");
      assert.deepEqual(
        configProblems(config, { kubeletDir: "/var/lib/kubelet", socket: mode === "socket", drivers: DRIVERS }), []);
      assert.deepEqual(JSON.parse(config.data["config.json"]), JSON.parse(cm.data["config.json"]));
    });
  }
});
