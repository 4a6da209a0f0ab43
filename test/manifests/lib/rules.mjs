// The project's rules for the holder DaemonSet, the patched ceph-csi node
// plugin and ceph-csi's config, as data: each rule has an id, what it protects
// and a check that returns null (ok) or a message. Tests run every rule on the
// generated manifests and, for each rule, on a manifest broken on purpose.

const HOLDER_DIR_FLAG = "--dir";

function podSpec(ds) {
  return ds?.spec?.template?.spec ?? {};
}

function containers(spec) {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
}

function argAfter(argv, flag) {
  const i = argv.indexOf(flag);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : undefined;
}

function holderContainer(ds) {
  return (podSpec(ds).containers ?? []).find((c) =>
    [...(c.command ?? []), ...(c.args ?? [])].some((a) => /(^|\/)netns-holder$/.test(a)),
  );
}

// What the holder was told: cluster ID, directory, mode.
export function holderFacts(ds) {
  const c = holderContainer(ds);
  if (!c) return null;
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  return {
    container: c,
    clusterId: argAfter(argv, "--cluster-id"),
    dir: argAfter(argv, HOLDER_DIR_FLAG),
    socket: argv.includes("--socket"),
  };
}

function effectiveSeccomp(spec, c) {
  return c.securityContext?.seccompProfile?.type ?? spec.securityContext?.seccompProfile?.type;
}

function parseQuantity(q) {
  const m = /^([0-9.]+)(m|Ki|Mi|Gi|k|M|G)?$/.exec(String(q));
  if (!m) return NaN;
  const n = Number(m[1]);
  const unit = { m: 1e-3, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 }[m[2]] ?? 1;
  return n * unit;
}

// Go-style durations as the guard takes them: 300s, 5m, 1h30m.
export function parseSeconds(text) {
  const re = /([0-9.]+)(h|m|s|ms)/g;
  let total = 0;
  let consumed = "";
  for (const m of String(text).matchAll(re)) {
    total += Number(m[1]) * { h: 3600, m: 60, s: 1, ms: 0.001 }[m[2]];
    consumed += m[0];
  }
  return consumed === String(text) && consumed !== "" ? total : NaN;
}

const fail = (msg) => msg;
const ok = null;

export const holderRules = [
  {
    id: "holder-is-daemonset",
    why: "one holder per node, managed by Kubernetes",
    check: (ds) =>
      ds.apiVersion === "apps/v1" && ds.kind === "DaemonSet" && holderFacts(ds)
        ? ok
        : fail("not an apps/v1 DaemonSet running netns-holder"),
  },
  {
    id: "holder-identity-flags",
    why: "the holder needs a valid cluster ID and an absolute directory",
    check: (ds) => {
      const f = holderFacts(ds);
      if (!f?.clusterId || !/^[A-Za-z0-9._-]{1,64}$/.test(f.clusterId) || f.clusterId.startsWith("-"))
        return fail(`bad or missing --cluster-id: ${f?.clusterId}`);
      if (!f.dir?.startsWith("/")) return fail(`bad or missing --dir: ${f?.dir}`);
      return ok;
    },
  },
  {
    id: "holder-no-host-network",
    why: "the holder's namespace must be the pod's own, never the host's",
    check: (ds) => (podSpec(ds).hostNetwork === false ? ok : fail("hostNetwork is not false")),
  },
  {
    id: "holder-no-ports",
    why: "a namespace holder serves nothing and must not claim node ports",
    check: (ds) => {
      for (const c of containers(podSpec(ds))) {
        if ((c.ports ?? []).length > 0) return fail(`container ${c.name} declares ports`);
      }
      return ok;
    },
  },
  {
    id: "holder-on-delete",
    why: "a rolling update would delete holders under live mounts",
    check: (ds) =>
      ds.spec?.updateStrategy?.type === "OnDelete" ? ok : fail("updateStrategy is not OnDelete"),
  },
  {
    id: "holder-node-critical",
    why: "eviction of a holder hangs every volume of its cluster on the node",
    check: (ds) =>
      podSpec(ds).priorityClassName === "system-node-critical"
        ? ok
        : fail(`priorityClassName is ${podSpec(ds).priorityClassName}`),
  },
  {
    id: "holder-tolerates-every-taint",
    why: "wherever the plugin runs, its holder must run",
    check: (ds) =>
      (podSpec(ds).tolerations ?? []).some(
        (t) => t.operator === "Exists" && t.key === undefined && t.effect === undefined,
      )
        ? ok
        : fail("no toleration {operator: Exists} without key and effect"),
  },
  {
    id: "holder-small-resources",
    why: "requests and limits are set and small (a pause-like process)",
    check: (ds) => {
      for (const c of containers(podSpec(ds))) {
        const r = c.resources ?? {};
        for (const res of ["cpu", "memory"]) {
          if (r.requests?.[res] === undefined) return fail(`${c.name}: no ${res} request`);
          if (r.limits?.[res] === undefined) return fail(`${c.name}: no ${res} limit`);
        }
        if (!(parseQuantity(r.limits.memory) <= 64 * 1024 ** 2))
          return fail(`${c.name}: memory limit ${r.limits.memory} is over 64Mi`);
        if (!(parseQuantity(r.limits.cpu) <= 0.2))
          return fail(`${c.name}: cpu limit ${r.limits.cpu} is over 200m`);
      }
      return ok;
    },
  },
  {
    id: "holder-not-privileged",
    why: "the holder needs no privilege at all",
    check: (ds) => {
      for (const c of containers(podSpec(ds))) {
        const sc = c.securityContext ?? {};
        if (sc.privileged !== false) return fail(`${c.name}: privileged is not false`);
        if (sc.allowPrivilegeEscalation !== false)
          return fail(`${c.name}: allowPrivilegeEscalation is not false`);
      }
      const spec = podSpec(ds);
      if (spec.hostIPC === true) return fail("hostIPC is true");
      return ok;
    },
  },
  {
    id: "holder-capabilities-dropped",
    why: "every capability is dropped and none is added back",
    check: (ds) => {
      for (const c of containers(podSpec(ds))) {
        const caps = c.securityContext?.capabilities ?? {};
        if (!(caps.drop ?? []).includes("ALL")) return fail(`${c.name}: capabilities.drop lacks ALL`);
        if ((caps.add ?? []).length > 0)
          return fail(`${c.name}: capabilities.add ${JSON.stringify(caps.add)}`);
      }
      return ok;
    },
  },
  {
    id: "holder-read-only-root",
    why: "the holder writes only into its hostPath directory",
    check: (ds) => {
      for (const c of containers(podSpec(ds))) {
        if (c.securityContext?.readOnlyRootFilesystem !== true)
          return fail(`${c.name}: readOnlyRootFilesystem is not true`);
      }
      return ok;
    },
  },
  {
    id: "holder-seccomp-runtime-default",
    why: "the runtime's default seccomp filter applies",
    check: (ds) => {
      const spec = podSpec(ds);
      for (const c of containers(spec)) {
        if (effectiveSeccomp(spec, c) !== "RuntimeDefault")
          return fail(`${c.name}: seccomp is ${effectiveSeccomp(spec, c)}`);
      }
      return ok;
    },
  },
  {
    id: "holder-host-pid-only-in-symlink-mode",
    why: "symlink mode needs the host pid namespace; socket mode must not have it",
    check: (ds) => {
      const f = holderFacts(ds);
      const hostPID = podSpec(ds).hostPID === true;
      if (f?.socket && hostPID) return fail("socket mode with hostPID: true");
      if (f && !f.socket && !hostPID) return fail("symlink mode without hostPID: true");
      return ok;
    },
  },
  {
    id: "holder-host-path-dir",
    why: "the holder publishes into the kubelet plugin directory, at the same path",
    check: (ds) => {
      const f = holderFacts(ds);
      const spec = podSpec(ds);
      const hostPaths = (spec.volumes ?? []).filter((v) => v.hostPath);
      const vol = hostPaths.find((v) => v.hostPath.path === f?.dir);
      if (!vol) return fail(`no hostPath volume for ${f?.dir}`);
      if (hostPaths.length !== 1) return fail("hostPath volumes other than the holder directory");
      const mount = (f.container.volumeMounts ?? []).find((m) => m.name === vol.name);
      if (!mount || mount.mountPath !== f.dir)
        return fail(`holder directory not mounted at ${f.dir}`);
      if (mount.readOnly === true) return fail("holder directory mounted read-only");
      return ok;
    },
  },
  {
    id: "holder-probes-check",
    why: "liveness and readiness run `netns-holder check` for the same cluster and directory",
    check: (ds) => {
      const f = holderFacts(ds);
      for (const probe of ["livenessProbe", "readinessProbe"]) {
        const cmd = f?.container?.[probe]?.exec?.command ?? [];
        if (!/(^|\/)netns-holder$/.test(cmd[0] ?? "") || cmd[1] !== "check")
          return fail(`${probe} is not an exec of netns-holder check`);
        if (argAfter(cmd, "--cluster-id") !== f.clusterId || argAfter(cmd, "--dir") !== f.dir)
          return fail(`${probe} checks another cluster or directory`);
      }
      return ok;
    },
  },
  {
    id: "holder-readiness-follows-the-storage-network",
    why: "the readiness probe checks every --require-interface/--require-reachable the holder waits for; liveness none (a restart cannot bring a network back, and the stopping holder would withdraw its files)",
    check: (ds) => {
      const f = holderFacts(ds);
      const required = (argv) => {
        const out = [];
        argv.forEach((a, i) => {
          if (a === "--require-interface" || a === "--require-reachable") out.push(`${a} ${argv[i + 1]}`);
        });
        return out.join(", ");
      };
      const holder = required([...(f.container.command ?? []), ...(f.container.args ?? [])]);
      const ready = required(f.container.readinessProbe?.exec?.command ?? []);
      const live = required(f.container.livenessProbe?.exec?.command ?? []);
      if (ready !== holder) return fail(`the holder requires [${holder}], its readiness probe [${ready}]`);
      if (live !== "") return fail(`the liveness probe requires [${live}]`);
      return ok;
    },
  },
  {
    id: "holder-pre-stop-guard",
    why: "deleting a holder waits for (and reports, in the holder's log) live Ceph sessions in the pod's namespace",
    check: (ds) => {
      const f = holderFacts(ds);
      const cmd = f?.container?.lifecycle?.preStop?.exec?.command ?? [];
      if (!/(^|\/)netns-exec$/.test(cmd[0] ?? "") || cmd[1] !== "guard" || !cmd.includes("--wait-idle"))
        return fail("preStop is not netns-exec guard --wait-idle");
      // The hook runs in the holder container: its own namespace is the pod's.
      if (argAfter(cmd, "--netns") !== "/proc/self/ns/net" || !cmd.includes("--allow-own-netns"))
        return fail("preStop guard does not watch its own namespace (--netns /proc/self/ns/net --allow-own-netns)");
      if (Number.isNaN(parseSeconds(argAfter(cmd, "--max-wait"))))
        return fail("preStop guard has no valid --max-wait");
      // This holder's record: the guard's lines reach the holder's log
      // (kubectl logs) and an announced in-place replacement is honoured.
      const record = `${f.dir}/${f.clusterId}.holder.json`;
      if (argAfter(cmd, "--holder-record") !== record)
        return fail(`preStop guard does not pass --holder-record ${record} (its lines would miss the holder's log, an announced replacement would be held)`);
      return ok;
    },
  },
  {
    id: "holder-grace-covers-guard",
    why: "the kubelet must not kill the guard before its --max-wait",
    check: (ds) => {
      const f = holderFacts(ds);
      const cmd = f?.container?.lifecycle?.preStop?.exec?.command ?? [];
      const wait = parseSeconds(argAfter(cmd, "--max-wait"));
      const grace = podSpec(ds).terminationGracePeriodSeconds;
      if (typeof grace !== "number") return fail("no terminationGracePeriodSeconds");
      if (!(grace >= wait + 10)) return fail(`grace ${grace}s leaves no room after a ${wait}s guard`);
      return ok;
    },
  },
  {
    id: "holder-no-api-token",
    why: "the holder never talks to the API server",
    check: (ds) =>
      podSpec(ds).automountServiceAccountToken === false
        ? ok
        : fail("automountServiceAccountToken is not false"),
  },
];

// --- the patched ceph-csi node plugin -------------------------------------

function cephCsiContainer(ds) {
  return (podSpec(ds).containers ?? []).find((c) =>
    [...(c.command ?? []), ...(c.args ?? [])].some((a) => a === "--nodeserver=true"),
  );
}

// The plugin sees `path` at the same path as the host when some hostPath
// volume is mounted at a prefix of it with the same host path.
export function seesHostPath(ds, container, path) {
  const volumes = new Map((podSpec(ds).volumes ?? []).map((v) => [v.name, v]));
  return (container?.volumeMounts ?? []).some((m) => {
    const v = volumes.get(m.name);
    if (!v?.hostPath) return false;
    const mp = m.mountPath.replace(/\/+$/, "");
    const hp = v.hostPath.path.replace(/\/+$/, "");
    return mp === hp && (path === mp || path.startsWith(mp + "/"));
  });
}

// options: { hostNetwork: bool (allowed), socket: bool, holderDirs: [paths] }
export const pluginRules = [
  {
    id: "plugin-host-network",
    why: "the plugin uses pod networking unless asked to keep the host's",
    check: (ds, o) =>
      (podSpec(ds).hostNetwork === true) === Boolean(o.hostNetwork)
        ? ok
        : fail(`hostNetwork is ${podSpec(ds).hostNetwork}, wanted ${Boolean(o.hostNetwork)}`),
  },
  {
    id: "plugin-no-host-ports",
    why: "nothing of the plugin is published on the node",
    check: (ds) => {
      for (const c of containers(podSpec(ds))) {
        for (const p of c.ports ?? []) {
          if (p.hostPort !== undefined) return fail(`${c.name}: hostPort ${p.hostPort}`);
        }
      }
      return ok;
    },
  },
  {
    id: "plugin-host-pid-only-in-symlink-mode",
    why: "hostPID only where /proc/<holder pid> must resolve",
    check: (ds, o) => {
      const hostPID = podSpec(ds).hostPID === true;
      if (o.socket && hostPID) return fail("socket mode with hostPID: true");
      if (!o.socket && !hostPID) return fail("symlink mode without hostPID: true");
      return ok;
    },
  },
  {
    id: "plugin-sees-holder-dirs",
    why: "netNamespaceFilePath must resolve inside the plugin container",
    check: (ds, o) => {
      const c = cephCsiContainer(ds);
      if (!c) return fail("no ceph-csi node server container (--nodeserver=true)");
      for (const dir of o.holderDirs ?? []) {
        if (!seesHostPath(ds, c, dir)) return fail(`${c.name} does not see ${dir}`);
      }
      return ok;
    },
  },
  {
    id: "plugin-liveness-sidecar",
    why: "liveness through the CSI livenessprobe sidecar, no host port",
    check: (ds) => {
      const spec = podSpec(ds);
      const sidecar = (spec.containers ?? []).find((c) => /livenessprobe/.test(c.image ?? ""));
      if (!sidecar) return fail("no livenessprobe sidecar");
      const args = sidecar.args ?? [];
      if (!args.some((a) => a.startsWith("--csi-address="))) return fail("sidecar has no --csi-address");
      const portArg = args.find((a) => a.startsWith("--health-port=") || a.startsWith("--http-endpoint="));
      const port = Number(portArg ? portArg.split(/[=:]/).pop() : 9808);
      const plugin = cephCsiContainer(ds);
      const probe = plugin?.livenessProbe?.httpGet;
      if (!probe) return fail("the ceph-csi container has no httpGet liveness probe");
      const named = (plugin.ports ?? []).find((p) => p.name === probe.port);
      const probePort = typeof probe.port === "number" ? probe.port : named?.containerPort;
      if (probePort !== port) return fail(`liveness probe port ${probe.port} is not the sidecar's ${port}`);
      return ok;
    },
  },
];

// --- ceph-csi's config.json ------------------------------------------------

const SECTIONS = { rbd: "rbd", cephfs: "cephFS", nfs: "nfs" };

// options: { kubeletDir, socket, drivers: {rbd: "rbd.csi.ceph.com", ...} }
export function configProblems(configMap, o) {
  const problems = [];
  let entries;
  try {
    entries = JSON.parse(configMap?.data?.["config.json"] ?? "");
  } catch (e) {
    return [`config.json is not JSON: ${e.message}`];
  }
  if (!Array.isArray(entries) || entries.length === 0) return ["config.json is not a non-empty array"];
  const ids = new Set();
  for (const e of entries) {
    if (typeof e.clusterID !== "string" || e.clusterID === "") problems.push("an entry has no clusterID");
    if (ids.has(e.clusterID)) problems.push(`clusterID ${e.clusterID} twice`);
    ids.add(e.clusterID);
    if (!Array.isArray(e.monitors) || e.monitors.length === 0)
      problems.push(`${e.clusterID}: no monitors`);
    for (const [kind, driver] of Object.entries(o.drivers)) {
      const path = e[SECTIONS[kind]]?.netNamespaceFilePath;
      const want = `${o.kubeletDir}/plugins/${driver}/${e.clusterID}.${o.socket ? "net.sock" : "net.ns"}`;
      if (path !== want) problems.push(`${e.clusterID}: ${SECTIONS[kind]}.netNamespaceFilePath is ${path}, want ${want}`);
    }
  }
  return problems;
}

export function runRules(rules, obj, options = {}) {
  const out = [];
  for (const r of rules) {
    const msg = r.check(obj, options);
    if (msg) out.push(`${r.id}: ${msg}`);
  }
  return out;
}
