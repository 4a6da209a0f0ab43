// The chart as an operator meets it: `helm lint` passes over the value matrix;
// a bad value (a bad cluster ID first of all) fails the render with a message
// that names it; DaemonSet names are the ones netns-manifest gave, so installs
// made with it are adopted, not renamed; NOTES says what to do next.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { CHART, FIXTURES, IMAGE, PLUGIN, SAMPLE_CLUSTERS, configMapOf, helm, holdersOf, lint, render, renderFails, renderText, sampleValues } from "./lib/helm.mjs";
import { parseYaml } from "./lib/load.mjs";
import { holderFacts } from "./lib/rules.mjs";
import { VALUE_MATRIX } from "./lib/matrix.mjs";

const one = (extra = {}) => ({ mode: "symlink", image: IMAGE, clusters: [{ id: "ceph-a" }], ...extra });

describe("helm lint --strict", () => {
  for (const [name, values] of Object.entries(VALUE_MATRIX)) {
    test(name, () => {
      const r = lint(values);
      assert.equal(r.status, 0, r.stdout + r.stderr);
    });
  }
  test("manifests/plugin (never installed) lints with its defaults", () => {
    const r = helm(["lint", "--strict", PLUGIN]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });
  test("lint fails on a bad value too (control)", () => {
    const r = lint(one({ clusters: [{ id: "../etc" }] }));
    assert.notEqual(r.status, 0);
  });
});

const refusals = [
  ["a cluster ID with '/'", one({ clusters: [{ id: "../etc" }] }), /clusters\/0\/id/],
  ["a cluster ID starting with '-'", one({ clusters: [{ id: "-a" }] }), /clusters\/0\/id/],
  ["the cluster ID '..'", one({ clusters: [{ id: ".." }] }), /clusters\/0\/id/],
  ["a 65-character cluster ID", one({ clusters: [{ id: "a".repeat(65) }] }), /clusters\/0\/id/],
  ["an empty cluster ID", one({ clusters: [{ id: "" }] }), /clusters\/0\/id/],
  ["a cluster without an ID", one({ clusters: [{ multus: "a/b" }] }), /id/],
  ["no clusters", one({ clusters: [] }), /clusters/],
  ["allowUids in symlink mode", one({ allowUids: [0] }), /allowUids/],
  ["an unknown mode", one({ mode: "sockets" }), /mode/],
  ["an nvmeof driver in library mode", one({ mode: "library", clusters: [{ id: "a", drivers: ["rbd.csi.ceph.com", "nvmeof.csi.ceph.com"] }] }),
    /cluster "a": driver nvmeof\.csi\.ceph\.com is nvmeof, and library mode has none/],
  ["a driver of kind nvmeof in library mode", one({ mode: "library", defaultDrivers: [{ name: "gw.example.com", kind: "nvmeof" }] }),
    /driver gw\.example\.com is nvmeof, and library mode has none/],
  ["a misspelled value", one({ tolerationz: [] }), /tolerationz/],
  ["no image repository", one({ image: { tag: "1" } }), /repository/],
  ["an image with a space", one({ image: { repository: "a b" } }), /repository/],
  ["a guard wait of 0", one({ guardMaxWait: 0 }), /guardMaxWait/],
  ["a fractional guard wait", one({ guardMaxWait: 1.5 }), /guardMaxWait/],
  ["a relative kubelet dir", one({ kubeletDir: "var/lib/kubelet" }), /kubeletDir/],
  ["a kubelet dir with ..", one({ kubeletDir: "/var/../etc" }), /kubeletDir/],
  ["a bad driver name", one({ clusters: [{ id: "a", drivers: ["RBD"] }] }), /drivers/],
  ["a monitor with a comma", one({ clusters: [{ id: "a", monitors: ["a:1,b:2"] }] }), /monitors/],
  ["the same cluster twice", one({ clusters: [{ id: "a" }, { id: "a" }] }), /cluster "a" is listed twice/],
  ["a driver of unknown kind", one({ clusters: [{ id: "a", drivers: ["example.com"] }] }), /kind: rbd\|cephfs\|nfs/],
  ["two drivers of one kind", one({ clusters: [{ id: "a", drivers: ["rbd.csi.ceph.com", "x.rbd.csi.ceph.com"] }] }), /two drivers of kind rbd/],
  ["a socket path over 107 bytes",
    one({ mode: "socket", kubeletDir: `/${"k".repeat(40)}`, clusters: [{ id: "c".repeat(40) }] }), /unix socket path holds at most 107/],
  ["cephCsiConfig.create without monitors", one({ cephCsiConfig: { create: true } }), /has no monitors/],
  ["a label the selector uses", one({ labels: { "app.kubernetes.io/instance": "x" } }), /which the chart sets itself/],
  ["a monitor to reach without a port", one({ clusters: [{ id: "a", requireReachable: ["198.18.0.1"] }] }), /requireReachable/],
  ["a monitor to reach by name", one({ clusters: [{ id: "a", requireReachable: ["mon.example:3300"] }] }), /requireReachable/],
  ["an interface name with '/'", one({ clusters: [{ id: "a", requireInterfaces: ["a/b"] }] }), /requireInterfaces/],
  ["a fence class without its secret", one({ fencing: { networkFenceClass: { create: true } } }), /needs fencing\.networkFenceClass\.secretName/],
  ["a fence of a cluster that is not held", one({ fencing: { networkFences: [{ node: "n1", cluster: "other", cidrs: ["198.18.0.1/32"] }] } }), /cluster "other" has no rbd holder/],
  ["a fence without CIDRs", one({ fencing: { networkFences: [{ node: "n1", cluster: "ceph-a", cidrs: [] }] } }), /cidrs/],
  ["a fence CIDR without a prefix", one({ fencing: { networkFences: [{ node: "n1", cluster: "ceph-a", cidrs: ["198.18.0.1"] }] } }), /cidrs/],
  ["a fence state that is not one", one({ fencing: { networkFences: [{ node: "n1", cluster: "ceph-a", cidrs: ["198.18.0.1/32"], fenceState: "Off" }] } }), /fenceState/],
];

describe("bad values fail the render", () => {
  for (const [name, values, message] of refusals) {
    test(name, () => {
      const { status, stderr } = renderFails(values);
      assert.notEqual(status, 0);
      assert.match(stderr, message);
    });
  }
  test("the control renders", () => {
    assert.equal(holdersOf(render(one())).length, 2);
  });
  test("allowUids renders in socket mode, and defaults to 0", () => {
    const argv = (values) => holdersOf(render(values))[0].spec.template.spec.containers[0].command;
    assert.deepEqual(argv(one({ mode: "socket", allowUids: [0, 1000] })).slice(-5), ["--socket", "--allow-uid", "0", "--allow-uid", "1000"]);
    assert.deepEqual(argv(one({ mode: "socket" })).slice(-3), ["--socket", "--allow-uid", "0"]);
    assert.ok(!argv(one()).includes("--allow-uid"));
  });
  test("a 107-byte socket path is fine", () => {
    // /kkk.../plugins/rbd.csi.ceph.com/<id>.net.sock = 107 bytes
    const kubeletDir = `/${"k".repeat(40)}`;
    const id = "c".repeat(107 - `${kubeletDir}/plugins/rbd.csi.ceph.com/.net.sock`.length);
    const [ds] = holdersOf(render(one({ mode: "socket", kubeletDir, clusters: [{ id, drivers: ["rbd.csi.ceph.com"] }] })));
    assert.equal(`${holderFacts(ds).dir}/${id}.net.sock`.length, 107);
  });
});

describe("names: the same as netns-manifest gave", () => {
  // fixtures/netns-manifest-names.json: what netns-manifest holder printed as
  // metadata.name for these IDs and kinds (see fixtures/README.md).
  const legacy = JSON.parse(readFileSync(join(FIXTURES, "netns-manifest-names.json"), "utf8"));
  const ids = [...new Set(legacy.map((e) => e.id))];
  const docs = render({
    mode: "symlink",
    image: IMAGE,
    clusters: ids.map((id) => ({ id, drivers: ["rbd.csi.ceph.com", "cephfs.csi.ceph.com", "nfs.csi.ceph.com"] })),
  });
  const names = new Map(holdersOf(docs).map((d) => [`${holderFacts(d).clusterId} ${d.metadata.labels["app.kubernetes.io/component"]}`, d.metadata.name]));
  for (const { id, kind, name } of legacy) {
    test(`${kind} ${id}`, () => {
      assert.equal(names.get(`${id} ${kind}`), name);
      assert.match(name, /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "a DNS-1123 label");
    });
  }
  test("the selector names the DaemonSet, not the release (a DaemonSet's selector cannot change)", () => {
    for (const d of holdersOf(docs)) {
      assert.deepEqual(d.spec.selector.matchLabels, { "app.kubernetes.io/name": "netns-holder", "netns-holder/daemonset": d.metadata.name });
    }
  });
  test("no two holders share a name", () => {
    assert.equal(new Set(names.values()).size, legacy.length);
  });
});

describe("library mode: socket-mode holders, netNamespaceFilePath names each socket, no shim environment", () => {
  const values = sampleValues("library", { defaultDrivers: ["rbd.csi.ceph.com", "cephfs.csi.ceph.com", "nfs.csi.ceph.com"] });
  const docs = render(values);
  const socket = render({ ...values, mode: "socket" });
  test("the holders are socket mode's, but for the mode annotation (no hostPID, --socket, uid 0)", () => {
    const strip = (ds) => {
      const d = structuredClone(ds);
      for (const m of [d.metadata, d.spec.template.metadata]) delete m.annotations["netns-holder/mode"];
      return d;
    };
    const lib = holdersOf(docs);
    assert.equal(lib.length, 9);
    assert.deepEqual(lib.map(strip), holdersOf(socket).map(strip));
    for (const ds of lib) {
      assert.equal(ds.spec.template.spec.hostPID, false, ds.metadata.name);
      assert.equal(ds.metadata.annotations["netns-holder/mode"], "library");
      const argv = ds.spec.template.spec.containers[0].command;
      assert.deepEqual(argv.slice(argv.indexOf("--socket"), argv.indexOf("--socket") + 3), ["--socket", "--allow-uid", "0"]);
    }
  });
  test("config.json: every cluster's rbd, cephFS and nfs entry names <ID>.net.sock; csi-values.yaml says the same", () => {
    const cm = configMapOf(docs, "netns-ceph-csi");
    const config = JSON.parse(cm.data["config.json"]);
    assert.deepEqual(config.map((e) => e.clusterID), SAMPLE_CLUSTERS.map((c) => c.id));
    for (const e of config) {
      for (const [section, driver] of [["rbd", "rbd"], ["cephFS", "cephfs"], ["nfs", "nfs"]])
        assert.equal(e[section].netNamespaceFilePath, `/var/lib/kubelet/plugins/${driver}.csi.ceph.com/${e.clusterID}.net.sock`);
    }
    assert.deepEqual(parseYaml(cm.data["csi-values.yaml"])[0].csiConfig, config);
    assert.match(cm.data["csi-values.yaml"], /patched plugin \(library mode\)/);
    assert.doesNotMatch(cm.data["csi-values.yaml"], /netns-exec-env|nsenter/);
  });
  test("no netns-exec-env (no shim reads it); socket mode renders it (control)", () => {
    assert.equal(configMapOf(docs, "netns-exec-env"), undefined);
    assert.ok(configMapOf(socket, "netns-exec-env"));
    assert.deepEqual(docs.map((d) => d.kind).sort(), [...Array(9).fill("DaemonSet"), "ConfigMap"].sort());
  });
  test("ceph-csi's own ConfigMap (cephCsiConfig.create) says who reads the sockets", () => {
    const text = renderText({ ...values, cephCsiConfig: { create: true } });
    assert.match(text, /netNamespaceFilePath names each holder's socket: ceph-csi's patched plugin/);
    const own = configMapOf(parseYaml(text), "ceph-csi-config");
    assert.equal(own.data["config.json"], configMapOf(docs, "netns-ceph-csi").data["config.json"]);
  });
  test("allowUids applies as in socket mode", () => {
    const [ds] = holdersOf(render({ ...values, clusters: [{ id: "ceph-a" }], allowUids: [0, 1000] }));
    assert.deepEqual(ds.spec.template.spec.containers[0].command.slice(-5), ["--socket", "--allow-uid", "0", "--allow-uid", "1000"]);
  });
});

describe("the csi-values.yaml snippet", () => {
  for (const mode of ["symlink", "socket", "library"]) {
    test(`${mode}: csiConfig is config.json`, () => {
      const cm = configMapOf(render(sampleValues(mode)), "netns-ceph-csi");
      const values = parseYaml(cm.data["csi-values.yaml"])[0];
      assert.deepEqual(values.csiConfig, JSON.parse(cm.data["config.json"]));
    });
  }
  test("clusters without monitors give entries to merge", () => {
    const cm = configMapOf(render(one()), "netns-ceph-csi");
    assert.deepEqual(JSON.parse(cm.data["config.json"]), [{
      clusterID: "ceph-a",
      rbd: { netNamespaceFilePath: "/var/lib/kubelet/plugins/rbd.csi.ceph.com/ceph-a.net.ns" },
      cephFS: { netNamespaceFilePath: "/var/lib/kubelet/plugins/cephfs.csi.ceph.com/ceph-a.net.ns" },
    }]);
  });
});

describe("targets for the nvme and mount.nfs shims", () => {
  const values = {
    mode: "symlink", image: IMAGE, clusters: [
      { id: "ceph-a", monitors: ["198.18.0.10:6789"], drivers: ["rbd.csi.ceph.com", "nvmeof.csi.ceph.com"],
        targets: ["198.18.4.0/24", "gw-b.example"] },
      { id: "nfs-a", drivers: ["nfs.csi.ceph.com"], targets: ["198.18.6.2", "fd00:6::/64"] },
    ],
  };
  test("render NETNS_EXEC_TARGETS per nvmeof/nfs driver, and no config.json entry for nvmeof", () => {
    const docs = render(values);
    const env = configMapOf(docs, "netns-exec-env").data;
    assert.equal(env["nvmeof.csi.ceph.com.targets"], "ceph-a=198.18.4.0/24,gw-b.example");
    assert.equal(env["nvmeof.csi.ceph.com.holder-dir"], "/var/lib/kubelet/plugins/nvmeof.csi.ceph.com");
    assert.equal(env["nfs.csi.ceph.com.targets"], "nfs-a=198.18.6.2,fd00:6::/64");
    assert.equal(env["rbd.csi.ceph.com.targets"], undefined, "rbd runs no nvme or mount.nfs");
    const config = JSON.parse(configMapOf(docs, "netns-ceph-csi").data["config.json"]);
    assert.deepEqual(Object.keys(config[0]), ["clusterID", "monitors", "rbd"]);
    assert.equal(holdersOf(docs).length, 3);
  });
  test("reject what is no address", () => {
    for (const bad of ["198.18.4.256", "198.18.4.0/33", "not valid!!", "-a"]) {
      const { stderr } = renderFails({ ...values, clusters: [{ id: "nfs-a", drivers: ["nfs.csi.ceph.com"], targets: [bad] }] });
      assert.match(stderr, /targets/, bad);
    }
  });
  test("reject one target declared for two clusters; an overlapping, more specific one is fine", () => {
    const two = (a, b) => ({ ...values, clusters: [
      { id: "nfs-a", drivers: ["nfs.csi.ceph.com"], targets: [a] },
      { id: "nfs-b", drivers: ["nfs.csi.ceph.com"], targets: [b] }] });
    for (const [a, b] of [["198.18.4.0/24", "198.18.4.0/24"], ["nfs.example", "nfs.example"]]) {
      const { stderr } = renderFails(two(a, b));
      assert.match(stderr, /is declared for clusters "nfs-a" and "nfs-b"/, `${a} ${b}`);
    }
    const env = configMapOf(render(two("198.18.0.0/16", "198.18.4.0/24")), "netns-exec-env").data;
    assert.equal(env["nfs.csi.ceph.com.targets"], "nfs-a=198.18.0.0/16;nfs-b=198.18.4.0/24");
  });
});

describe("NOTES.txt", () => {
  // helm install --dry-run needs a cluster; NOTES.txt is the template
  // netns-holder.notes, rendered here through a copy of the chart with one
  // more template that puts it in a ConfigMap.
  test("lists the holders and points at the config, the plugin and the upgrade runbook", () => {
    const copy = mkdtempSync(join(tmpdir(), "netns-notes-"));
    try {
      cpSync(CHART, copy, { recursive: true });
      writeFileSync(join(copy, "templates", "notes-test.yaml"),
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes}\ndata:\n  notes: {{ include "netns-holder.notes" . | quote }}\n');
      const docs = render({ mode: "socket", image: IMAGE, clusters: [{ id: "Ceph_West.2" }] },
        { chart: copy, showOnly: ["templates/notes-test.yaml"] });
      const notes = docs[0].data.notes;
      assert.equal(readFileSync(join(CHART, "templates", "NOTES.txt"), "utf8").trim(), '{{ include "netns-holder.notes" . }}');
      assert.match(notes, /netns-holder-rbd-ceph-west-2-28b8be01 +cluster Ceph_West\.2, rbd\.csi\.ceph\.com -> \/var\/lib\/kubelet\/plugins\/rbd\.csi\.ceph\.com\/Ceph_West\.2\.net\.sock/);
      assert.match(notes, /get configmap netns-ceph-csi/);
      assert.match(notes, /--post-renderer manifests\/plugin\/post-renderer --post-renderer-args --mode=socket \\\n +--post-renderer-args --multus=NAMESPACE\/NETWORK\n/);
      // The plugin pod's own storage network: required, and how to give it.
      assert.match(notes, /Required for ceph-csi: the node plugin pod's own storage network/);
      assert.match(notes, /ConfigMap\n +netns-exec-plugin-network \(key networks\)/);
      assert.match(notes, /list manifests\/kustomize\/plugin-pod-network-reaches-ceph/);
      assert.doesNotMatch(notes, /holders use/, "no cluster with multus, no hint");
      const multus = render({ mode: "socket", image: IMAGE, clusters: [{ id: "a", multus: "ceph-csi/ceph-public" }, { id: "b", multus: "ceph-csi/ceph-public" }] },
        { chart: copy, showOnly: ["templates/notes-test.yaml"] })[0].data.notes;
      assert.match(multus, /\n +This release's holders use: ceph-csi\/ceph-public\.\n/);
      const image = `${IMAGE.repository}:${IMAGE.tag}`;
      assert.ok(notes.includes(`scripts/upgrade-holders.sh -n ceph-csi --image ${image}\n`), notes);
      assert.ok(notes.includes(`kubectl -n ceph-csi set image pod/<holder pod> holder=${image}\n`), notes);
      assert.match(notes, /--announce-replacement 2m .*\n.*--holder-record <dir>\/<ID>\.holder\.json/);
      assert.match(notes, /Upgrading holders in place/);
      // A drain only for what needs a new sandbox, never for an image.
      for (const line of notes.split("\n").filter((l) => /drain/i.test(l)))
        assert.match(line, /needs no drain|drain is needed only|after draining it/, line);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe("NOTES.txt in library mode", () => {
  test("points at the patched plugin, the sockets for csiConfig and the library component; no shim, no nsenter form", () => {
    const copy = mkdtempSync(join(tmpdir(), "netns-notes-"));
    try {
      cpSync(CHART, copy, { recursive: true });
      writeFileSync(join(copy, "templates", "notes-test.yaml"),
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes}\ndata:\n  notes: {{ include "netns-holder.notes" . | quote }}\n');
      const notes = render({ mode: "library", image: IMAGE, clusters: [{ id: "ceph-a", drivers: ["rbd.csi.ceph.com", "nfs.csi.ceph.com"] }] },
        { chart: copy, showOnly: ["templates/notes-test.yaml"] })[0].data.notes;
      assert.match(notes, /^netns-holder \(library mode\): 2 holder DaemonSet/);
      assert.match(notes, /rbd\.csi\.ceph\.com -> \/var\/lib\/kubelet\/plugins\/rbd\.csi\.ceph\.com\/ceph-a\.net\.sock/);
      assert.match(notes, /\n\n1\. Library mode: the node plugin is ceph-csi's patched plugin/);
      assert.match(notes, /get configmap netns-ceph-csi -o jsonpath='\{\.data\.csi-values\\\.yaml\}'/);
      assert.match(notes, /manifests\/kustomize\/library/);
      assert.match(notes, /netns-exec-plugin-network/);
      assert.doesNotMatch(notes, /netns-exec-env|post-renderer|mount\.nfs picks|WARNING/);
      assert.match(notes, /\n\n3\. Upgrading the holders needs no drain/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe("NOTES.txt for the nvmeof and nfs drivers", () => {
  const notesOf = (clusters) => {
    const copy = mkdtempSync(join(tmpdir(), "netns-notes-"));
    try {
      cpSync(CHART, copy, { recursive: true });
      writeFileSync(join(copy, "templates", "notes-test.yaml"),
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes}\ndata:\n  notes: {{ include "netns-holder.notes" . | quote }}\n');
      return render({ mode: "socket", image: IMAGE, clusters }, { chart: copy, showOnly: ["templates/notes-test.yaml"] })[0].data.notes;
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  };
  test("with targets: which key the shim reads; clusters without targets are named", () => {
    const notes = notesOf([
      { id: "gw-a", drivers: ["nvmeof.csi.ceph.com", "nfs.csi.ceph.com"], targets: ["198.18.4.0/24"] },
      { id: "nfs-b", drivers: ["nfs.csi.ceph.com"] },
    ]);
    assert.match(notes, /nvmeof\.csi\.ceph\.com: netns-exec as nvme picks the holder .*\n.*key nvmeof\.csi\.ceph\.com\.targets of netns-exec-env/);
    assert.match(notes, /nfs\.csi\.ceph\.com: netns-exec as mount\.nfs picks .*\n.*\n +Clusters without targets \(nfs-b\)/);
    assert.doesNotMatch(notes, /WARNING/);
  });
  test("without targets: a warning that the plugin will not start; rbd/cephfs alone: nothing", () => {
    const notes = notesOf([{ id: "nfs-b", drivers: ["nfs.csi.ceph.com"] }]);
    assert.match(notes, /WARNING: nfs\.csi\.ceph\.com has holders but none of its clusters has targets.*\n.*no key nfs\.csi\.ceph\.com\.targets.*\n.*does not start/);
    const plain = notesOf([{ id: "ceph-a" }]);
    assert.doesNotMatch(plain, /targets|WARNING/);
  });
});

describe("the storage network: --require-interface and --require-reachable", () => {
  const argvOf = (values) => {
    const c = holdersOf(render(values))[0].spec.template.spec.containers[0];
    const required = (argv) => argv.filter((a, i) => /^--require-/.test(argv[i - 1] ?? "") || /^--require-/.test(a));
    return { holder: required(c.command), ready: required(c.readinessProbe.exec.command), live: required(c.livenessProbe.exec.command) };
  };
  test("Multus's interfaces are required by default: net1, net2, ... or NAME@IF's IF", () => {
    const r = argvOf(one({ clusters: [{ id: "ceph-a", multus: "storage/a, storage/b@stor9" }] }));
    assert.deepEqual(r.holder, ["--require-interface", "net1", "--require-interface", "stor9"]);
    assert.deepEqual(r.ready, r.holder);
    assert.deepEqual(r.live, []);
    const json = argvOf(one({ clusters: [{ id: "ceph-a", multus: '[{"name":"x","interface":"eth5"},{"name":"y"}]' }] }));
    assert.deepEqual(json.holder, ["--require-interface", "eth5", "--require-interface", "net2"]);
  });
  test("requireInterfaces replaces the default, [] turns it off, and no Multus requires nothing", () => {
    assert.deepEqual(argvOf(one({ clusters: [{ id: "ceph-a", multus: "storage/a", requireInterfaces: ["bond0"] }] })).holder, ["--require-interface", "bond0"]);
    assert.deepEqual(argvOf(one({ clusters: [{ id: "ceph-a", multus: "storage/a", requireInterfaces: [] }] })).holder, []);
    assert.deepEqual(argvOf(one()).holder, []);
  });
  test("requireReachable goes to the holder and its readiness probe, never to liveness", () => {
    const r = argvOf(one({ clusters: [{ id: "ceph-a", requireReachable: ["198.18.0.10:3300", "[2001:db8::1]:6789"] }] }));
    assert.deepEqual(r.holder, ["--require-reachable", "198.18.0.10:3300", "--require-reachable", "[2001:db8::1]:6789"]);
    assert.deepEqual(r.ready, r.holder);
    assert.deepEqual(r.live, []);
  });
});

describe("fencing: NetworkFenceClass and NetworkFence (csiaddons.openshift.io/v1alpha1)", () => {
  const values = one({
    clusters: [{ id: "ceph-a" }, { id: "Ceph_West.2", drivers: ["rbd.csi.ceph.com"] }],
    fencing: {
      networkFenceClass: { create: true, secretName: "csi-rbd-secret" },
      networkFences: [{ node: "Worker-3.example", cluster: "ceph-a", cidrs: ["198.18.0.21/32", "198.18.4.7/32"] }],
    },
  });
  const docs = render(values);
  const classes = docs.filter((d) => d.kind === "NetworkFenceClass");
  const fences = docs.filter((d) => d.kind === "NetworkFence");
  test("nothing is rendered unless asked for", () => {
    assert.deepEqual(render(one()).filter((d) => d.apiVersion === "csiaddons.openshift.io/v1alpha1"), []);
  });
  test("one class per cluster and driver kind, named like its holder DaemonSet", () => {
    assert.deepEqual(classes.map((c) => c.metadata.name).sort(),
      ["netns-holder-cephfs-ceph-a", "netns-holder-rbd-ceph-a", "netns-holder-rbd-ceph-west-2-28b8be01"]);
    const rbd = classes.find((c) => c.metadata.name === "netns-holder-rbd-ceph-a");
    assert.equal(rbd.metadata.namespace, undefined);  // cluster-scoped
    assert.deepEqual(rbd.spec, {
      provisioner: "rbd.csi.ceph.com",
      parameters: {
        clusterID: "ceph-a",
        "csiaddons.openshift.io/networkfence-secret-name": "csi-rbd-secret",
        "csiaddons.openshift.io/networkfence-secret-namespace": "ceph-csi",
      },
    });
    const holderNames = holdersOf(docs).map((d) => d.metadata.name);
    for (const c of classes) assert.ok(holderNames.includes(c.metadata.name), c.metadata.name);
  });
  test("a fence lists exactly the CIDRs given (fence-info's) and names its class", () => {
    assert.equal(fences.length, 1);
    assert.equal(fences[0].metadata.name, "netns-holder-rbd-ceph-a-worker-3-example");
    assert.deepEqual(fences[0].spec, {
      networkFenceClassName: "netns-holder-rbd-ceph-a",
      fenceState: "Fenced",
      cidrs: ["198.18.0.21/32", "198.18.4.7/32"],
    });
    assert.ok(classes.some((c) => c.metadata.name === fences[0].spec.networkFenceClassName));
  });
  test("Unfenced, a kind, a name and a class of one's own are kept", () => {
    const f = render(one({
      fencing: { networkFences: [{ node: "n1", cluster: "ceph-a", kind: "cephfs", cidrs: ["2001:db8::7/128"], fenceState: "Unfenced", name: "n1-cephfs", networkFenceClassName: "mine" }] },
    })).filter((d) => d.kind === "NetworkFence");
    assert.deepEqual(f.map((d) => [d.metadata.name, d.spec.networkFenceClassName, d.spec.fenceState, d.spec.cidrs]),
      [["n1-cephfs", "mine", "Unfenced", ["2001:db8::7/128"]]]);
  });
});
