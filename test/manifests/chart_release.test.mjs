// The chart as a release: its labels say which Helm release and which version
// an object belongs to, its metadata points nowhere false, the ci/ values
// (what chart-testing's `ct lint`/`ct install` use) lint strictly and render
// valid objects, and the schema turns away the values an operator gets wrong
// most (a Multus network name, a monitor, a resource quantity) with a message
// that names the value.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { CHART, GO_MODULE, IMAGE, PROJECT_REPOSITORY, configMapOf, helm, holdersOf, render, renderFails } from "./lib/helm.mjs";
import { loadYaml, parseYaml } from "./lib/load.mjs";
import { holderRules, runRules } from "./lib/rules.mjs";
import { validateObject } from "./lib/schema.mjs";

const chart = parseYaml(readFileSync(join(CHART, "Chart.yaml"), "utf8"))[0];
const one = (cluster = {}, extra = {}) => ({ mode: "symlink", image: IMAGE, clusters: [{ id: "ceph-a", ...cluster }], ...extra });

describe("labels: the release and the version", () => {
  const docs = render(one({ monitors: ["198.18.0.10:6789"] }, { cephCsiConfig: { create: true } }), { release: "storage-holders" });
  const holders = holdersOf(docs);
  const configMaps = docs.filter((d) => d.kind === "ConfigMap");
  test("there are holders and config maps to look at", () => {
    assert.equal(holders.length, 2);
    assert.equal(configMaps.length, 3);  // two of ceph-csi's config, and netns-exec-env
  });
  test("app.kubernetes.io/instance is the release name on every object and pod", () => {
    for (const d of [...holders, ...configMaps]) {
      assert.equal(d.metadata.labels["app.kubernetes.io/instance"], "storage-holders", `${d.kind} ${d.metadata.name}`);
    }
    for (const d of holders) {
      assert.equal(d.spec.template.metadata.labels["app.kubernetes.io/instance"], "storage-holders", d.metadata.name);
    }
  });
  test("another release name gives another instance label, the same DaemonSet names", () => {
    const other = holdersOf(render(one(), { release: "other" }));
    assert.deepEqual(other.map((d) => d.metadata.name), holders.map((d) => d.metadata.name));
    for (const d of other) assert.equal(d.metadata.labels["app.kubernetes.io/instance"], "other");
  });
  test("app.kubernetes.io/version is the chart's appVersion on every object, not on the pods", () => {
    for (const d of [...holders, ...configMaps]) {
      assert.equal(d.metadata.labels["app.kubernetes.io/version"], String(chart.appVersion), `${d.kind} ${d.metadata.name}`);
    }
    // A new version alone must not make running holder pods look outdated
    // (people delete outdated pods, and deleting a holder pod hangs mounts).
    for (const d of holders) assert.equal(d.spec.template.metadata.labels["app.kubernetes.io/version"], undefined);
  });
  test("each DaemonSet selects only its own pods", () => {
    for (const d of holders) {
      const sel = d.spec.selector.matchLabels;
      assert.equal(sel["netns-holder/daemonset"], d.metadata.name);
      for (const [k, v] of Object.entries(sel)) assert.equal(d.spec.template.metadata.labels[k], v, `${d.metadata.name}: ${k}`);
      for (const other of holders.filter((o) => o !== d)) {
        assert.ok(Object.entries(sel).some(([k, v]) => other.spec.template.metadata.labels[k] !== v), `${d.metadata.name} would select ${other.metadata.name}'s pods`);
      }
    }
  });
  for (const key of ["app.kubernetes.io/version", "netns-holder/daemonset"]) {
    test(`labels may not set ${key}`, () => {
      const { stderr } = renderFails(one({}, { labels: { [key]: "x" } }));
      assert.match(stderr, new RegExp(`labels/podLabels set ${key}, which the chart sets itself`));
    });
  }
});

describe("Chart.yaml", () => {
  test("the Go module path names a GitHub repository", () => {
    assert.match(GO_MODULE, /^github\.com\/[^/]+\/[^/]+\//, `executor/go/go.mod: module ${GO_MODULE}`);
  });
  test("home is the repository of the Go module path", () => {
    assert.equal(chart.home, PROJECT_REPOSITORY, `Chart.yaml home; executor/go/go.mod says module ${GO_MODULE}`);
  });
  test("sources is that repository, and only it", () => {
    assert.deepEqual(chart.sources, [PROJECT_REPOSITORY], `Chart.yaml sources; executor/go/go.mod says module ${GO_MODULE}`);
  });
  test("no placeholder address", () => {
    for (const url of [chart.home, ...(chart.sources ?? [])]) {
      assert.doesNotMatch(url, /example\.(com|org|net)|localhost|TODO|placeholder/i, url);
    }
  });
  test("appVersion is a version, not a word", () => {
    assert.match(String(chart.appVersion), /^[0-9]+\.[0-9]+\.[0-9]+$/);
  });
});

describe("ci/ values (chart-testing)", () => {
  const dir = join(CHART, "ci");
  const files = readdirSync(dir).filter((f) => f.endsWith("-values.yaml")).sort();
  test("there are ci values files, and all are named *-values.yaml as ct wants", () => {
    assert.ok(files.length >= 3, files.join(", "));
    assert.deepEqual(readdirSync(dir).sort(), files);
  });
  for (const file of files) {
    const path = join(dir, file);
    test(`${file}: helm lint --strict`, () => {
      const r = helm(["lint", "--strict", CHART, "-f", path]);
      assert.equal(r.status, 0, r.stdout + r.stderr);
    });
    test(`${file}: every rendered object is valid, every holder passes the rules`, async () => {
      const r = helm(["template", "ci", CHART, "--namespace", "ceph-csi", "-f", path]);
      assert.equal(r.status, 0, r.stderr);
      const docs = parseYaml(r.stdout, file);
      const values = loadYaml(path)[0];
      assert.ok(holdersOf(docs).length >= values.clusters.length, "a holder per cluster at least");
      assert.ok(configMapOf(docs, "ci-ceph-csi"), "the ceph-csi config map");
      for (const doc of docs) {
        const errors = await validateObject(doc);
        assert.deepEqual(errors, [], `${file}: ${doc.kind} ${doc.metadata.name}: ${errors.join("\n")}`);
      }
      for (const ds of holdersOf(docs)) assert.deepEqual(runRules(holderRules, ds), [], ds.metadata.name);
    });
  }
});

describe("the schema names what is wrong", () => {
  const refused = [
    ["a Multus network name with spaces and '!'", one({ multus: "not valid!!" }), /at '\/clusters\/0\/multus': 'not valid!!' does not match/],
    ["a Multus name with upper case", one({ multus: "Ceph-Public" }), /at '\/clusters\/0\/multus': 'Ceph-Public' does not match/],
    ["a Multus list with an empty element", one({ multus: "a,,b" }), /at '\/clusters\/0\/multus'/],
    ["a monitor without a port", one({ monitors: ["notamon"] }), /at '\/clusters\/0\/monitors\/0': 'notamon' does not match/],
    ["a monitor with port 0", one({ monitors: ["198.18.0.1:0"] }), /at '\/clusters\/0\/monitors\/0': '198.18.0.1:0' does not match/],
    ["a monitor with port 70000", one({ monitors: ["198.18.0.1:70000"] }), /monitors\/0': '198.18.0.1:70000'/],
    ["a monitor with a bad IPv4 address", one({ monitors: ["198.18.0.256:6789"] }), /monitors\/0': '198.18.0.256:6789'/],
    ["memory: lots", one({}, { resources: { requests: { memory: "lots" } } }), /at '\/resources\/requests\/memory': 'lots' does not match/],
    ["cpu: 1 core", one({}, { resources: { limits: { cpu: "1 core" } } }), /at '\/resources\/limits\/cpu': '1 core' does not match/],
    ["a negative quantity", one({}, { resources: { limits: { memory: -1 } } }), /\/resources\/limits\/memory/],
    ["a misspelled resources key", one({}, { resources: { request: { cpu: "1" } } }), /\/resources.*request/],
  ];
  for (const [name, values, message] of refused) {
    test(name, () => {
      const { stderr } = renderFails(values);
      assert.match(stderr, message);
    });
  }
  const accepted = [
    ["Multus ns/name@iface, a list", one({ multus: "ceph-csi/ceph-public@storage0, ceph-csi/ceph-cluster" })],
    ["Multus JSON", one({ multus: '[{"name": "ceph-public", "namespace": "rook-ceph"}]' })],
    ["monitors: IPv4, [IPv6], a DNS name, v1:/v2: prefixes", one({ monitors: ["198.18.0.1:6789", "[2001:db8::1]:3300", "mon-a.ceph.example:6789", "v2:198.18.0.1:3300", "v1:198.18.0.1:6789"] })],
    ["quantities: 5m, 0.5, 32Mi, 1G, 1e3, a number", one({}, { resources: { requests: { cpu: "5m", memory: "32Mi" }, limits: { cpu: "0.5", memory: "1G", "ephemeral-storage": "1e3", "hugepages-2Mi": 0 } } })],
  ];
  for (const [name, values] of accepted) {
    test(`control: ${name}`, () => {
      assert.equal(holdersOf(render(values)).length, 2);
    });
  }
});
