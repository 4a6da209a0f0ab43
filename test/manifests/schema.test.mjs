// Everything the chart renders over a matrix of values, the committed
// examples, the post-rendered ceph-csi chart output and the fixtures validate
// against the upstream Kubernetes schemas (plus strict field checking). Plugin
// patches are validated after applying them to a ceph-csi node plugin DaemonSet.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { DRIVERS, FIXTURES, SOURCE_DIR, holdersOf, render, renderPatch, sampleValues, yamlFiles } from "./lib/helm.mjs";
import { loadYaml, parseYaml } from "./lib/load.mjs";
import { applyPatch, isPatch } from "./lib/plugin.mjs";
import { validateObject } from "./lib/schema.mjs";
import { VALUE_MATRIX } from "./lib/matrix.mjs";

async function assertValid(doc, where) {
  const target = isPatch(doc) ? applyPatch(doc) : doc;
  const errors = await validateObject(target);
  assert.deepEqual(errors, [], `${where}: ${errors.join("\n")}`);
}

describe("committed examples", () => {
  const files = ["symlink", "socket"].flatMap((m) => yamlFiles(join(SOURCE_DIR, "manifests", "examples", m)));
  test("there are manifests to check", () => assert.ok(files.length >= 6, files.join(", ")));
  for (const file of files) {
    test(file.slice(SOURCE_DIR.length), async () => {
      const docs = loadYaml(file);
      assert.ok(docs.length > 0, "no documents");
      for (const doc of docs) await assertValid(doc, file);
    });
  }
});

describe("test fixtures", () => {
  // The ceph-csi DaemonSets the patches are applied to must be valid
  // themselves, or a valid merge result would prove little.
  for (const file of yamlFiles(FIXTURES).filter((f) => !f.includes("/ceph-csi-chart/"))) {
    test(file.split("/").pop(), async () => {
      for (const doc of loadYaml(file)) await assertValid(doc, file);
    });
  }
});

describe("the chart over a matrix of values", () => {
  for (const [name, values] of Object.entries(VALUE_MATRIX)) {
    test(name, async () => {
      const docs = render(values);
      assert.ok(holdersOf(docs).length > 0, "no holders rendered");
      for (const doc of docs) await assertValid(doc, name);
    });
  }
});

describe("plugin patches", () => {
  for (const mode of ["symlink", "socket"]) {
    for (const driver of Object.values(DRIVERS)) {
      test(`${driver} (${mode})`, async () => {
        const flags = [`--driver=${driver}`, `--mode=${mode}`, "--multus=storage/ceph-east"];
        for (const doc of renderPatch(flags)) await assertValid(doc, mode);
      });
    }
  }
});

// The validator itself must be able to say no, or the tests above prove nothing.
describe("the schema check rejects", () => {
  const good = () => holdersOf(render(sampleValues("symlink")))[0];

  test("a good holder is accepted (baseline)", async () => {
    assert.deepEqual(await validateObject(good()), []);
  });
  test("a field of the wrong type", async () => {
    const ds = good();
    ds.spec.template.spec.terminationGracePeriodSeconds = "330";
    assert.match((await validateObject(ds)).join("\n"), /terminationGracePeriodSeconds must be integer/);
  });
  test("a misspelled field", async () => {
    const ds = good();
    const sc = ds.spec.template.spec.containers[0].securityContext;
    sc.readOnlyRootFileSystem = sc.readOnlyRootFilesystem;
    delete sc.readOnlyRootFilesystem;
    assert.match((await validateObject(ds)).join("\n"), /readOnlyRootFileSystem: unknown field/);
  });
  test("a missing required field", async () => {
    const ds = good();
    delete ds.spec.template.spec.containers[0].name;
    assert.match((await validateObject(ds)).join("\n"), /required property 'name'|required property name/);
  });
  test("a value outside an enum", async () => {
    const ds = good();
    ds.spec.template.spec.containers[0].imagePullPolicy = "Sometimes";
    assert.notDeepEqual(await validateObject(ds), []);
  });
  test("an unknown kind", async () => {
    assert.match((await validateObject({ apiVersion: "apps/v1", kind: "Holder" })).join(), /unknown apiVersion\/kind/);
  });
  test("YAML with a duplicate key", () => {
    assert.throws(() => parseYaml("a: 1\na: 2\n"), /[Dd]uplicate|unique/);
  });
});
