// ceph-csi's node plugin as the tests meet it: the plain-YAML fixtures the
// strategic-merge patch is applied to, and the fixture chart in the shape of
// ceph-csi's charts that the post-renderer runs on.
import { join } from "node:path";
import { FIXTURES, PLUGIN, helm, scriptEnv } from "./helm.mjs";
import { loadYaml, parseYaml } from "./load.mjs";
import { strategicMerge } from "./smp.mjs";

const BY_NAME = {
  "csi-rbdplugin": "ceph-csi-rbd-nodeplugin.yaml",
  "csi-cephfsplugin": "ceph-csi-cephfs-nodeplugin.yaml",
};

export function isPatch(doc) {
  return doc?.kind === "DaemonSet" && doc?.spec?.selector === undefined;
}

export function fixtureFor(name) {
  const file = BY_NAME[name];
  if (!file) throw new Error(`no ceph-csi fixture for DaemonSet ${name}`);
  return loadYaml(join(FIXTURES, file))[0];
}

export function applyPatch(patch, base = fixtureFor(patch.metadata.name)) {
  return strategicMerge(base, patch);
}

export const CEPH_CSI_CHART = join(FIXTURES, "ceph-csi-chart");

// `helm template` of the ceph-csi-shaped chart as release `release`, through
// manifests/plugin/post-renderer with `flags` (null: no post-renderer).
export function renderCephCsi(kind, flags, { release = `ceph-csi-${kind}`, valuesFiles = [] } = {}) {
  const args = ["template", release, CEPH_CSI_CHART, "--namespace", "ceph-csi", "--set", `kind=${kind}`];
  for (const f of valuesFiles) args.push("-f", f);
  if (flags) {
    args.push("--post-renderer", join(PLUGIN, "post-renderer"));
    for (const f of flags) args.push("--post-renderer-args", f);
  }
  const r = helm(args, undefined, scriptEnv());
  if (r.status !== 0) throw new Error(`helm ${args.join(" ")} failed (${r.status}):\n${r.stderr}`);
  return { text: r.stdout, docs: parseYaml(r.stdout, `helm ${args.join(" ")}`) };
}

export const nodePlugin = (docs) =>
  docs.find((d) => d.kind === "DaemonSet" && d.metadata.name.endsWith("-nodeplugin"));
