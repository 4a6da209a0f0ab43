// ceph-csi's charts as the examples (manifests/kustomize/examples) meet them:
// the fixture chart, standing for ceph-csi-rbd / ceph-csi-cephfs at one
// release, served in place of ceph-csi's chart repository; the two namespace
// layouts; and the checks every rendered install must pass as a whole (the
// examples' objects together with the holder chart's): no two objects of the
// same kind, namespace and name, and every ConfigMap a node plugin mounts or
// reads rendered in the plugin's own namespace.
import assert from "node:assert/strict";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { helm } from "./helm.mjs";
import { EXAMPLES, KUSTOMIZE_DIR, REMOTE, REMOTE_FORM, localComponent, readYaml, withoutComponents, workdir, writeYaml } from "./kustomize.mjs";
import { CEPH_CSI_CHART } from "./plugin.mjs";

// The releases of ceph-csi's charts the fixture renders (fixtures/README.md):
// v3.12.x have no nodeplugin.podAnnotations, devel (after v3.12.2) has.
export const UPSTREAMS = ["v3.12.0", "v3.12.1", "v3.12.2", "devel"];
// The version the examples pin, as the fixture's name for it.
export const upstreamOf = (chartVersion) => `v${chartVersion}`;

// Where each namespace layout puts each chart's release: ceph-csi's README
// installs ceph-csi-rbd and ceph-csi-cephfs into namespaces of those names;
// the examples put both into ceph-csi.
export const LAYOUTS = {
  shared: { rbd: "ceph-csi", cephfs: "ceph-csi" },
  split: { rbd: "ceph-csi-rbd", cephfs: "ceph-csi-cephfs" },
};
// The cephfs values the examples set for the shared layout only.
export const SHARED_ONLY_VALUES = ["cephConfConfigMapName", "configMapName"];

// A copy of the fixture chart in `home`/`name` that renders ceph-csi-<kind>
// at `upstream` with its defaults.
export function fixtureChart(home, name, upstream) {
  const kind = /^ceph-csi-(rbd|cephfs)$/.exec(name)?.[1];
  assert.ok(kind, `${name}: not one of ceph-csi's charts (ceph-csi-rbd, ceph-csi-cephfs)`);
  assert.ok(UPSTREAMS.includes(upstream), `${upstream}: the fixture knows ${UPSTREAMS.join(", ")}`);
  const dir = join(home, name);
  cpSync(CEPH_CSI_CHART, dir, { recursive: true });
  const file = join(dir, "values.yaml");
  const values = readFileSync(file, "utf8")
    .replace(/^kind: rbd /m, `kind: ${kind} `)
    .replace(/^upstream: \S+$/m, `upstream: ${upstream}`);
  writeFileSync(file, values);
  return dir;
}

// helm template of the fixture standing for ceph-csi-<kind> at `upstream`.
export function fixtureTemplate(kind, release, { namespace = "ceph-csi", upstream = "v3.12.2", valuesFiles = [] } = {}) {
  const args = ["template", release, CEPH_CSI_CHART, "--namespace", namespace, "--set", `kind=${kind}`, "--set", `upstream=${upstream}`];
  for (const f of valuesFiles) args.push("-f", f);
  const r = helm(args);
  if (r.status !== 0) throw new Error(`helm ${args.join(" ")} failed (${r.status}):\n${r.stderr}`);
  return r.stdout;
}

// The example's remote component paths, checked to name this repository's
// component directories, as local paths from `dir`.
export function localComponents(dir, components) {
  return components.map((ref) => {
    const m = REMOTE.exec(ref);
    assert.ok(m, `${ref}: not a remote path into this repository at this release (${REMOTE_FORM}: the Go module's repository, VERSION)`);
    assert.ok(existsSync(join(KUSTOMIZE_DIR, m[1], "kustomization.yaml")), `${ref} names no component here`);
    return localComponent(dir, ref);
  });
}

// The Argo CD example with its charts served locally: each helmCharts entry's
// chart is the fixture at `upstream` (by default the release the example
// pins), found in helmGlobals.chartHome instead of ceph-csi's repository.
// `layout`: as the example is (shared), or moved into ceph-csi's namespaces
// (split: each chart in its own, without the shared layout's renames).
export function argoWorkdir({ withComponents = true, upstream, layout = "shared" } = {}) {
  const dir = workdir(join(EXAMPLES, "argocd"));
  const k = readYaml(join(dir, "kustomization.yaml"))[0];
  for (const chart of k.helmCharts) {
    fixtureChart(join(dir, "charts"), chart.name, upstream ?? upstreamOf(chart.version));
    delete chart.repo;
    delete chart.version;
    if (layout === "split") {
      chart.namespace = LAYOUTS.split[chart.name.replace(/^ceph-csi-/, "")];
      for (const v of SHARED_ONLY_VALUES) delete chart.valuesInline?.[v];
    }
  }
  k.helmGlobals = { chartHome: "charts" };
  if (withComponents) k.components = localComponents(dir, k.components);
  else withoutComponents(k);
  writeYaml(join(dir, "kustomization.yaml"), k);
  return dir;
}

export const keyOf = (d) => `${d.kind}/${d.metadata.namespace ?? ""}/${d.metadata.name}`;

// kind/namespace/name of every object rendered more than once.
export function duplicates(docs) {
  const seen = new Map();
  for (const d of docs) seen.set(keyOf(d), (seen.get(keyOf(d)) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([k, n]) => `${k} (${n} times)`);
}

// Every ConfigMap a DaemonSet's pods need (volumes, env valueFrom and envFrom
// that are not optional) that `docs` do not render in the DaemonSet's
// namespace: such a pod never starts (a ConfigMap reference does not cross
// namespaces).
export function missingConfigMaps(docs) {
  const have = new Set(docs.filter((d) => d.kind === "ConfigMap").map((d) => `${d.metadata.namespace}/${d.metadata.name}`));
  const out = [];
  for (const ds of docs.filter((d) => d.kind === "DaemonSet")) {
    const ns = ds.metadata.namespace;
    const spec = ds.spec.template.spec;
    const wanted = [];
    for (const v of spec.volumes ?? []) if (v.configMap && !v.configMap.optional) wanted.push([`volume ${v.name}`, v.configMap.name]);
    for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.configMapKeyRef;
        if (ref && !ref.optional) wanted.push([`${c.name} env ${e.name}`, ref.name]);
      }
      for (const e of c.envFrom ?? []) if (e.configMapRef && !e.configMapRef.optional) wanted.push([`${c.name} envFrom`, e.configMapRef.name]);
    }
    for (const [what, name] of wanted) {
      if (!have.has(`${ns}/${name}`)) out.push(`DaemonSet ${ns}/${ds.metadata.name}: ${what} needs ConfigMap ${ns}/${name}, which nothing renders`);
    }
  }
  return out;
}
