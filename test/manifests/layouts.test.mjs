// The examples (manifests/kustomize/examples: Argo CD, Flux, plain YAML) as
// whole installs next to the holder chart, over ceph-csi's charts at each
// release the fixture renders (v3.12.x without nodeplugin.podAnnotations,
// devel with) and in both namespace layouts (rbd and CephFS in one namespace;
// ceph-csi's README layout, ceph-csi-rbd and ceph-csi-cephfs): no object
// twice (kind, namespace, name), every ConfigMap a node plugin needs rendered
// in its own namespace, and the plugin's Multus annotation on every node
// plugin whatever the chart's values can do.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
  LAYOUTS, SHARED_ONLY_VALUES, UPSTREAMS, argoWorkdir, duplicates, fixtureTemplate, keyOf, localComponents, missingConfigMaps, upstreamOf,
} from "./lib/examples.mjs";
import { DRIVERS, FIXTURES, render, sampleValues } from "./lib/helm.mjs";
import { EXAMPLES, MULTUS_KEY, build, pluginNetworkOf, readYaml, workdir, writeYaml } from "./lib/kustomize.mjs";
import { parseYaml } from "./lib/load.mjs";

const KINDS = ["rbd", "cephfs"];
// The releases the examples are built against here: the newest v3.12 and devel.
const BUILT = ["v3.12.2", "devel"];
const nodePlugins = (docs) =>
  docs.filter((d) => d.kind === "DaemonSet" && d.spec.template.spec.containers.some((c) => (c.args ?? []).includes("--nodeserver=true")));
// The plugin pod's own storage network, as the Argo CD example gives it.
const networkOf = () => pluginNetworkOf(readYaml(join(EXAMPLES, "argocd", "kustomization.yaml"))[0]);

// The holder chart as each layout installs it: one release per namespace
// that has node plugins (the plugin reads netns-exec-env from its own
// namespace), holding the drivers whose plugins run there.
function holders(layout) {
  const byNs = new Map();
  for (const kind of KINDS) byNs.set(LAYOUTS[layout][kind], [...(byNs.get(LAYOUTS[layout][kind]) ?? []), DRIVERS[kind]]);
  return [...byNs].flatMap(([namespace, drivers]) => render(sampleValues("socket", { defaultDrivers: drivers }), { namespace }));
}

// What a whole install must be.
function checkInstall(docs, layout) {
  assert.deepEqual(duplicates(docs), [], "objects rendered twice");
  assert.deepEqual(missingConfigMaps(docs), []);
  const plugins = nodePlugins(docs);
  assert.deepEqual(plugins.map((d) => d.metadata.namespace).sort(), KINDS.map((k) => LAYOUTS[layout][k]).sort());
  for (const ds of plugins) {
    assert.equal(ds.spec.template.metadata.annotations?.[MULTUS_KEY], networkOf(), `${keyOf(ds)}: the plugin's own storage network`);
    assert.equal(ds.spec.template.spec.hostNetwork, false, keyOf(ds));
  }
}

describe("the fixture renders what ceph-csi's charts render, per release", () => {
  for (const upstream of UPSTREAMS) {
    for (const kind of KINDS) {
      test(`${kind} ${upstream}: its ConfigMaps, and nodeplugin.podAnnotations only where the chart has it`, () => {
        const dir = workdir();
        const values = join(dir, "values.yaml");
        writeYaml(values, { nodeplugin: { annotations: { a: "ds" }, podAnnotations: { [MULTUS_KEY]: "x/y" } } });
        const docs = parseYaml(fixtureTemplate(kind, `ceph-csi-${kind}`, { upstream, valuesFiles: [values] }));
        const configMaps = docs.filter((d) => d.kind === "ConfigMap").map((d) => d.metadata.name).sort();
        const want = ["ceph-config", "ceph-csi-config", ...(kind === "rbd" ? ["ceph-csi-encryption-kms-config"] : [])].sort();
        assert.deepEqual(configMaps, want);
        const [ds] = nodePlugins(docs);
        const devel = upstream === "devel";
        assert.equal(ds.spec.template.metadata.annotations?.[MULTUS_KEY], devel ? "x/y" : undefined, "pod annotation");
        assert.equal(ds.metadata.annotations?.a, devel ? "ds" : undefined, "DaemonSet annotation");
        // The plugin mounts both ConfigMaps by their (value) names.
        const volumes = Object.fromEntries(ds.spec.template.spec.volumes.filter((v) => v.configMap).map((v) => [v.name, v.configMap.name]));
        assert.equal(volumes["ceph-config"], "ceph-config");
        assert.equal(volumes["ceph-csi-config"], "ceph-csi-config");
      });
    }
  }
  test("an unknown release is refused, not guessed", () => {
    assert.throws(() => fixtureTemplate("rbd", "r", { upstream: "v9.9.9" }), /upstream "v9.9.9": this fixture knows/);
  });
  test("control: rbd and cephfs with their defaults in one namespace collide on ceph-config and ceph-csi-config", () => {
    const docs = KINDS.flatMap((k) => parseYaml(fixtureTemplate(k, `ceph-csi-${k}`)));
    assert.deepEqual(duplicates(docs), ["ConfigMap/ceph-csi/ceph-config (2 times)", "ConfigMap/ceph-csi/ceph-csi-config (2 times)"]);
  });
  test("control: a ConfigMap the plugin needs and nothing renders is found", () => {
    const docs = parseYaml(fixtureTemplate("rbd", "ceph-csi-rbd", { namespace: "ceph-csi-rbd" })).filter((d) => d.metadata.name !== "ceph-config");
    assert.deepEqual(missingConfigMaps(docs), [
      "DaemonSet ceph-csi-rbd/ceph-csi-rbd-nodeplugin: volume ceph-config needs ConfigMap ceph-csi-rbd/ceph-config, which nothing renders",
    ]);
  });
});

describe("the examples pin a release of ceph-csi's charts the fixture renders", () => {
  test("Argo CD helmCharts and Flux HelmReleases", () => {
    const argo = readYaml(join(EXAMPLES, "argocd", "kustomization.yaml"))[0].helmCharts.map((c) => c.version);
    const flux = parseYaml(readFileSync(join(EXAMPLES, "flux", "helmreleases.yaml"), "utf8")).map((r) => r.spec.chart.spec.version);
    for (const v of [...argo, ...flux]) assert.ok(UPSTREAMS.includes(upstreamOf(v)), `${v}: the fixture renders ${UPSTREAMS.join(", ")} (fixtures/README.md)`);
  });
});

describe("Argo CD (kustomize build --enable-helm) with the holder chart", () => {
  for (const upstream of BUILT) {
    for (const layout of Object.keys(LAYOUTS)) {
      test(`${upstream}, ${layout} namespace layout: nothing twice, nothing missing, the plugin's network on both`, () => {
        const out = build(argoWorkdir({ upstream, layout }), { enableHelm: true });
        checkInstall([...out, ...holders(layout)], layout);
      });
    }
  }
  test("control: without the cephfs chart's ConfigMap names, one namespace fails (as with ceph-csi's real charts)", () => {
    const dir = argoWorkdir({});
    const k = readYaml(join(dir, "kustomization.yaml"))[0];
    for (const chart of k.helmCharts) for (const v of SHARED_ONLY_VALUES) delete chart.valuesInline?.[v];
    writeYaml(join(dir, "kustomization.yaml"), k);
    assert.throws(() => build(dir, { enableHelm: true }), /ceph-config/);
  });
  test("control: ceph-csi's layout with the holders in a third namespace leaves the plugins without netns-exec-env", () => {
    const out = build(argoWorkdir({ layout: "split" }), { enableHelm: true });
    const docs = [...out, ...render(sampleValues("socket"), { namespace: "ceph-csi" })];
    const missing = missingConfigMaps(docs).filter((m) => m.includes("netns-exec-env"));
    assert.equal(missing.length, 4, missing.join("\n"));
    assert.match(missing.join("\n"), /needs ConfigMap ceph-csi-rbd\/netns-exec-env/);
  });
});

describe("Flux (each HelmRelease: helm template, then its postRenderers) with the holder chart", () => {
  const releases = parseYaml(readFileSync(join(EXAMPLES, "flux", "helmreleases.yaml"), "utf8"));
  const yours = join(EXAMPLES, "argocd", "ceph-csi-values.yaml"); // valuesFrom: your values
  // What helm-controller installs for `hr` in `namespace`.
  function install(hr, upstream, namespace, { renames = true } = {}) {
    const kind = /^ceph-csi-(rbd|cephfs)$/.exec(hr.spec.chart.spec.chart)[1];
    const dir = workdir();
    const values = structuredClone(hr.spec.values);
    if (!renames) for (const v of SHARED_ONLY_VALUES) delete values[v];
    writeYaml(join(dir, "values.yaml"), values);
    writeFileSync(join(dir, "rendered.yaml"), fixtureTemplate(kind, hr.metadata.name, { namespace, upstream, valuesFiles: [yours, join(dir, "values.yaml")] }));
    writeYaml(join(dir, "kustomization.yaml"), { resources: ["rendered.yaml"], patches: hr.spec.postRenderers[0].kustomize.patches });
    return build(dir);
  }
  for (const upstream of BUILT) {
    for (const layout of Object.keys(LAYOUTS)) {
      test(`${upstream}, ${layout} namespace layout: nothing twice, nothing missing, the plugin's network on both`, () => {
        const docs = releases.flatMap((hr) => {
          const kind = hr.metadata.name.replace(/^ceph-csi-/, "");
          return install(hr, upstream, layout === "shared" ? hr.metadata.namespace : LAYOUTS.split[kind], { renames: layout === "shared" });
        });
        checkInstall([...docs, ...holders(layout)], layout);
      });
    }
  }
  test("control: both releases with the charts' default ConfigMap names in one namespace own the same objects", () => {
    const docs = releases.flatMap((hr) => install(hr, "v3.12.2", "ceph-csi", { renames: false }));
    assert.deepEqual(duplicates(docs), ["ConfigMap/ceph-csi/ceph-config (2 times)", "ConfigMap/ceph-csi/ceph-csi-config (2 times)"]);
  });
});

describe("plain YAML with the holder chart", () => {
  test("nothing twice", () => {
    const dir = workdir(join(EXAMPLES, "plain-yaml"));
    const k = readYaml(join(dir, "kustomization.yaml"))[0];
    k.resources = k.resources.map((url) => {
      const m = /\/deploy\/(rbd|cephfs|nvmeof|nfs)\/kubernetes\/(csi-[a-z]+plugin\.yaml)$/.exec(url);
      assert.ok(m, url);
      writeFileSync(join(dir, m[2]), readFileSync(join(FIXTURES, `ceph-csi-${m[1]}-nodeplugin.yaml`)));
      return m[2];
    });
    k.components = localComponents(dir, k.components);
    writeYaml(join(dir, "kustomization.yaml"), k);
    const docs = [...build(dir), ...render(sampleValues("socket"), { namespace: "ceph-csi" })];
    assert.deepEqual(duplicates(docs), []);
    assert.equal(nodePlugins(docs).length, 4);
  });
});
