// The project's rules hold for every holder the chart renders, every patched
// or post-rendered plugin and the config, and each rule can fail: for every
// rule there is a manifest broken on purpose that this rule (and only a rule
// about that thing) rejects.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { basename, dirname, join, relative } from "node:path";
import {
  DRIVERS, SAMPLE_CLUSTERS, SOURCE_DIR, configMapOf, holdersOf, render, renderPatch, sampleValues, yamlFiles,
} from "./lib/helm.mjs";
import { loadYaml } from "./lib/load.mjs";
import { VALUE_MATRIX } from "./lib/matrix.mjs";
import { applyPatch, fixtureFor, isPatch } from "./lib/plugin.mjs";
import { configProblems, holderFacts, holderRules, pluginRules, runRules } from "./lib/rules.mjs";

const podSpec = (ds) => ds.spec.template.spec;
const holderC = (ds) => podSpec(ds).containers[0];
const MODES = ["symlink", "socket"];

describe("rendered holders pass every rule", () => {
  for (const mode of MODES) {
    const docs = render(sampleValues(mode));
    const holders = holdersOf(docs);
    test(`${mode}: one DaemonSet per cluster and driver`, () => {
      assert.equal(holders.length, SAMPLE_CLUSTERS.length * 2);
    });
    for (const cluster of SAMPLE_CLUSTERS) {
      for (const driver of Object.values(DRIVERS)) {
        test(`${driver} ${cluster.id} ${mode}`, () => {
          const ds = holders.find((d) => holderFacts(d).clusterId === cluster.id && holderFacts(d).dir.endsWith(driver));
          assert.ok(ds, "no holder for this cluster and driver");
          assert.deepEqual(runRules(holderRules, ds), []);
          const f = holderFacts(ds);
          assert.equal(f.dir, `/var/lib/kubelet/plugins/${driver}`);
          assert.equal(f.socket, mode === "socket");
          const networks = ds.spec.template.metadata.annotations?.["k8s.v1.cni.cncf.io/networks"];
          assert.equal(networks, cluster.multus, "Multus annotation on the pod template");
          assert.equal(ds.metadata.namespace, "ceph-csi");
        });
      }
    }
  }
});

describe("every holder of the value matrix passes every rule, and the config names what they publish", () => {
  for (const [name, values] of Object.entries(VALUE_MATRIX)) {
    test(name, () => {
      const docs = render(values);
      const served = [];
      for (const ds of holdersOf(docs)) {
        assert.deepEqual(runRules(holderRules, ds), [], ds.metadata.name);
        const f = holderFacts(ds);
        // What the holder publishes, from its own argv (socket and library mode: --socket).
        served.push(`${f.dir}/${f.clusterId}.${f.socket ? "net.sock" : "net.ns"}`);
      }
      const entries = JSON.parse(configMapOf(docs, "netns-ceph-csi").data["config.json"]);
      const named = entries.flatMap((e) => ["rbd", "cephFS", "nfs"].map((k) => e[k]?.netNamespaceFilePath).filter(Boolean));
      assert.deepEqual(named.sort(), served.sort());
    });
  }
});

// One breakage per rule. A rule without an entry here fails the last test.
const holderBreakages = {
  "holder-is-daemonset": (ds) => { ds.kind = "Deployment"; },
  "holder-identity-flags": (ds) => { holderC(ds).command[2] = "../etc"; },
  "holder-no-host-network": (ds) => { podSpec(ds).hostNetwork = true; },
  "holder-no-ports": (ds) => { holderC(ds).ports = [{ containerPort: 8080 }]; },
  "holder-on-delete": (ds) => { ds.spec.updateStrategy = { type: "RollingUpdate" }; },
  "holder-node-critical": (ds) => { delete podSpec(ds).priorityClassName; },
  "holder-tolerates-every-taint": (ds) => {
    podSpec(ds).tolerations = [{ key: "node-role.kubernetes.io/control-plane", operator: "Exists" }];
  },
  "holder-small-resources": (ds) => { holderC(ds).resources.limits.memory = "1Gi"; },
  "holder-not-privileged": (ds) => { holderC(ds).securityContext.privileged = true; },
  "holder-capabilities-dropped": (ds) => { holderC(ds).securityContext.capabilities.add = ["SYS_ADMIN"]; },
  "holder-read-only-root": (ds) => { holderC(ds).securityContext.readOnlyRootFilesystem = false; },
  "holder-seccomp-runtime-default": (ds) => {
    holderC(ds).securityContext.seccompProfile = { type: "Unconfined" };
  },
  "holder-host-pid-only-in-symlink-mode": (ds) => { podSpec(ds).hostPID = false; },
  "holder-host-path-dir": (ds) => { podSpec(ds).volumes[0].hostPath.path = "/var/lib/other"; },
  "holder-probes-check": (ds) => { holderC(ds).livenessProbe.exec.command = ["/bin/true"]; },
  // The first sample cluster has Multus, so its holder requires net1.
  "holder-readiness-follows-the-storage-network": (ds) => {
    const probe = holderC(ds).readinessProbe.exec;
    probe.command = probe.command.slice(0, probe.command.indexOf("--require-interface"));
  },
  "holder-pre-stop-guard": (ds) => { delete holderC(ds).lifecycle; },
  "holder-grace-covers-guard": (ds) => { podSpec(ds).terminationGracePeriodSeconds = 30; },
  "holder-no-api-token": (ds) => { delete podSpec(ds).automountServiceAccountToken; },
};

describe("each holder rule can fail", () => {
  const symlink = holdersOf(render(sampleValues("symlink")));
  const socket = holdersOf(render(sampleValues("socket")));
  for (const rule of holderRules) {
    test(rule.id, () => {
      const breakIt = holderBreakages[rule.id];
      assert.ok(breakIt, `no breakage for rule ${rule.id}`);
      const ds = structuredClone(symlink[0]);
      assert.deepEqual(runRules(holderRules, ds), [], "baseline");
      breakIt(ds);
      const failures = runRules(holderRules, ds);
      assert.ok(
        failures.some((f) => f.startsWith(`${rule.id}:`)),
        `rule ${rule.id} did not fire; got: ${failures.join("; ")}`,
      );
    });
  }
  test("socket mode with hostPID is refused", () => {
    const ds = structuredClone(socket[0]);
    podSpec(ds).hostPID = true;
    assert.match(runRules(holderRules, ds).join(), /holder-host-pid-only-in-symlink-mode: socket mode/);
  });
  test("a guard that looks at another namespace is refused", () => {
    const ds = structuredClone(socket[0]);
    const cmd = holderC(ds).lifecycle.preStop.exec.command;
    cmd[cmd.indexOf("/proc/self/ns/net")] = "/run/netns/elsewhere";
    assert.match(runRules(holderRules, ds).join(), /holder-pre-stop-guard: preStop guard does not watch/);
  });
  test("a guard without --holder-record is refused", () => {
    const ds = structuredClone(socket[0]);
    assert.deepEqual(runRules(holderRules, ds), [], "baseline");
    const cmd = holderC(ds).lifecycle.preStop.exec.command;
    cmd.splice(cmd.indexOf("--holder-record"), 2);
    assert.match(runRules(holderRules, ds).join(), /holder-pre-stop-guard: preStop guard does not pass --holder-record/);
  });
  test("a guard with another holder's record is refused", () => {
    const ds = structuredClone(symlink[0]);
    const cmd = holderC(ds).lifecycle.preStop.exec.command;
    const i = cmd.indexOf("--holder-record") + 1;
    cmd[i] = cmd[i].replace(/[^/]*\.holder\.json$/, "some-other-cluster.holder.json");
    assert.match(runRules(holderRules, ds).join(), /holder-pre-stop-guard: preStop guard does not pass --holder-record/);
  });
  test("a liveness probe that requires the storage network is refused", () => {
    const ds = structuredClone(symlink[0]);
    holderC(ds).livenessProbe.exec.command = [...holderC(ds).readinessProbe.exec.command];
    assert.match(runRules(holderRules, ds).join(), /holder-readiness-follows-the-storage-network: the liveness probe requires \[--require-interface net1\]/);
  });
  test("every rule has a breakage and no breakage is orphaned", () => {
    assert.deepEqual(Object.keys(holderBreakages).sort(), holderRules.map((r) => r.id).sort());
  });
});

// The plugin's own storage network is required: Multus unless the host's.
function patched(driver, { mode = "symlink", hostNetwork = false, multus = hostNetwork ? "" : "storage/ceph-east" } = {}) {
  const flags = [`--driver=${driver}`, `--mode=${mode}`];
  if (hostNetwork) flags.push("--host-network");
  if (multus) flags.push(`--multus=${multus}`);
  const [patch] = renderPatch(flags);
  return applyPatch(patch);
}

const pluginOptions = (driver, extra = {}) => ({
  holderDirs: [`/var/lib/kubelet/plugins/${driver}`],
  ...extra,
});

describe("patched ceph-csi node plugins (plain YAML) pass every rule", () => {
  for (const driver of Object.values(DRIVERS)) {
    for (const mode of MODES) {
      test(`${driver} ${mode}`, () => {
        const ds = patched(driver, { mode, multus: "storage/ceph-east" });
        assert.deepEqual(runRules(pluginRules, ds, pluginOptions(driver, { socket: mode === "socket" })), []);
        assert.equal(ds.spec.template.metadata.annotations["k8s.v1.cni.cncf.io/networks"], "storage/ceph-east");
        // The patch adds; it does not lose what ceph-csi had.
        const names = podSpec(ds).containers.map((c) => c.name);
        assert.ok(names.includes("driver-registrar") && names.includes("liveness-probe"), names.join());
      });
    }
    test(`${driver} --host-network keeps the host network`, () => {
      const ds = patched(driver, { hostNetwork: true });
      assert.deepEqual(runRules(pluginRules, ds, pluginOptions(driver, { hostNetwork: true })), []);
    });
  }
  test("the unpatched ceph-csi DaemonSet fails them (baseline)", () => {
    const failures = runRules(pluginRules, fixtureFor("csi-rbdplugin"), pluginOptions(DRIVERS.rbd));
    assert.match(failures.join(), /plugin-host-network/);
    assert.match(failures.join(), /plugin-liveness-sidecar/);
  });
});

const pluginBreakages = {
  "plugin-host-network": (ds) => { podSpec(ds).hostNetwork = true; },
  "plugin-no-host-ports": (ds) => { podSpec(ds).containers[1].ports[0].hostPort = 9808; },
  "plugin-host-pid-only-in-symlink-mode": (ds) => { podSpec(ds).hostPID = false; },
  "plugin-sees-holder-dirs": (ds) => {
    const c = podSpec(ds).containers.find((x) => x.name === "csi-rbdplugin");
    c.volumeMounts = c.volumeMounts.filter((m) => m.name !== "plugin-dir");
  },
  "plugin-liveness-sidecar": (ds) => {
    podSpec(ds).containers = podSpec(ds).containers.filter((c) => c.name !== "liveness-probe");
  },
};

describe("each plugin rule can fail", () => {
  for (const rule of pluginRules) {
    test(rule.id, () => {
      const breakIt = pluginBreakages[rule.id];
      assert.ok(breakIt, `no breakage for rule ${rule.id}`);
      const ds = patched(DRIVERS.rbd);
      breakIt(ds);
      const failures = runRules(pluginRules, ds, pluginOptions(DRIVERS.rbd));
      assert.ok(failures.some((f) => f.startsWith(`${rule.id}:`)), failures.join("; "));
    });
  }
  test("every rule has a breakage", () => {
    assert.deepEqual(Object.keys(pluginBreakages).sort(), pluginRules.map((r) => r.id).sort());
  });
});

describe("ceph-csi config", () => {
  const options = (socket) => ({ kubeletDir: "/var/lib/kubelet", socket, drivers: DRIVERS });
  const rendered = (mode) => render(sampleValues(mode, { cephCsiConfig: { create: true } }));
  for (const mode of MODES) {
    const socket = mode === "socket";
    test(`points every cluster and kind at its holder (${mode})`, () => {
      const docs = rendered(mode);
      for (const name of ["ceph-csi-config", "netns-ceph-csi"]) {
        const cm = configMapOf(docs, name);
        assert.ok(cm, `no ConfigMap ${name}`);
        assert.deepEqual(configProblems(cm, options(socket)), [], name);
        const entries = JSON.parse(cm.data["config.json"]);
        assert.deepEqual(entries.map((e) => e.clusterID), SAMPLE_CLUSTERS.map((c) => c.id));
        assert.deepEqual(entries[0].monitors, SAMPLE_CLUSTERS[0].monitors);
      }
      // The paths are the ones the holders were told to publish.
      const served = holdersOf(docs).map((d) => {
        const f = holderFacts(d);
        return `${f.dir}/${f.clusterId}.${socket ? "net.sock" : "net.ns"}`;
      });
      const entries = JSON.parse(configMapOf(docs, "ceph-csi-config").data["config.json"]);
      const wanted = entries.flatMap((e) => [e.rbd.netNamespaceFilePath, e.cephFS.netNamespaceFilePath]);
      assert.deepEqual(wanted.sort(), served.sort());
    });
  }
  test("a path to the wrong cluster is caught", () => {
    const cm = configMapOf(rendered("symlink"), "ceph-csi-config");
    const entries = JSON.parse(cm.data["config.json"]);
    entries[1].rbd.netNamespaceFilePath = entries[0].rbd.netNamespaceFilePath;
    cm.data["config.json"] = JSON.stringify(entries);
    assert.match(configProblems(cm, options(false)).join(), /Ceph_West\.2: rbd\.netNamespaceFilePath/);
  });
  test("a symlink path in socket mode is caught", () => {
    const cm = configMapOf(rendered("symlink"), "ceph-csi-config");
    assert.notDeepEqual(configProblems(cm, options(true)), []);
  });
});

// The committed examples: every holder passes the holder rules, every patch
// the plugin rules, and within one mode directory the config points at exactly
// the holders that are there.
describe("committed examples", () => {
  const root = join(SOURCE_DIR, "manifests", "examples");
  for (const mode of MODES) {
    test(`${mode}: holders, patches and config agree`, () => {
      const socket = mode === "socket";
      const docs = yamlFiles(join(root, mode)).flatMap((f) => loadYaml(f).map((d) => ({ f, d })));
      const holders = docs.filter(({ d }) => d.kind === "DaemonSet" && !isPatch(d));
      const patches = docs.filter(({ d }) => isPatch(d));
      const configs = docs.filter(({ d }) => d.kind === "ConfigMap" && d.metadata.name === "ceph-csi-config");
      assert.ok(holders.length >= 6 && patches.length === 2 && configs.length === 1,
        `${holders.length} holders, ${patches.length} patches, ${configs.length} configs`);
      const served = new Set();
      for (const { f, d } of holders) {
        assert.deepEqual(runRules(holderRules, d), [], relative(root, f));
        const facts = holderFacts(d);
        assert.equal(facts.socket, socket, relative(root, f));
        served.add(`${facts.dir}/${facts.clusterId}.${socket ? "net.sock" : "net.ns"}`);
      }
      const dirs = [...served].map((p) => dirname(p));
      for (const { f, d } of patches) {
        const ds = applyPatch(d);
        const driver = basename(f) === "csi-rbdplugin.yaml" ? DRIVERS.rbd : DRIVERS.cephfs;
        assert.deepEqual(
          runRules(pluginRules, ds, { socket, holderDirs: dirs.filter((x) => x.endsWith(driver)) }),
          [], relative(root, f));
      }
      const entries = JSON.parse(configs[0].d.data["config.json"]);
      const wanted = new Set(entries.flatMap((e) => [e.rbd.netNamespaceFilePath, e.cephFS.netNamespaceFilePath]));
      assert.deepEqual([...wanted].sort(), [...served].sort(), "config paths == published paths");
      assert.deepEqual(configProblems(configs[0].d, { kubeletDir: "/var/lib/kubelet", socket, drivers: DRIVERS }), []);
    });
  }
});
