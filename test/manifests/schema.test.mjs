// Every manifest under manifests/ and the generated ones for three sample
// clusters validate against the upstream Kubernetes schemas (plus strict
// field checking). Plugin patches are validated after applying them to a
// ceph-csi node plugin DaemonSet.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { DRIVERS, SAMPLE_CLUSTERS, SOURCE_DIR, generate, holderArgs, yamlFiles } from "./lib/generate.mjs";
import { loadYaml, parseYaml } from "./lib/load.mjs";
import { applyPatch, isPatch } from "./lib/plugin.mjs";
import { validateObject } from "./lib/schema.mjs";

async function assertValid(doc, where) {
  const target = isPatch(doc) ? applyPatch(doc) : doc;
  const errors = await validateObject(target);
  assert.deepEqual(errors, [], `${where}: ${errors.join("\n")}`);
}

describe("committed manifests", () => {
  const files = yamlFiles(join(SOURCE_DIR, "manifests"));
  test("there are manifests to check", () => assert.ok(files.length >= 10, files.join(", ")));
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
  for (const file of yamlFiles(new URL("./fixtures/", import.meta.url).pathname)) {
    test(file.split("/").pop(), async () => {
      for (const doc of loadYaml(file)) await assertValid(doc, file);
    });
  }
});

describe("generated manifests for three sample clusters", () => {
  for (const socket of [false, true]) {
    const mode = socket ? "socket" : "symlink";
    for (const cluster of SAMPLE_CLUSTERS) {
      for (const driver of Object.values(DRIVERS)) {
        test(`holder ${driver} ${cluster.id} (${mode})`, async () => {
          for (const doc of generate(holderArgs(cluster, driver, socket))) await assertValid(doc, mode);
        });
      }
    }
    for (const driver of Object.values(DRIVERS)) {
      test(`plugin patch ${driver} (${mode})`, async () => {
        const args = ["plugin-patch", "--driver", driver, "--multus", "storage/ceph-east"];
        if (socket) args.push("--socket");
        for (const doc of generate(args)) await assertValid(doc, mode);
      });
    }
    test(`ceph-csi config (${mode})`, async () => {
      const args = ["config", ...SAMPLE_CLUSTERS.flatMap((c) => ["--cluster", `${c.id}=${c.mons}`])];
      if (socket) args.push("--socket");
      for (const doc of generate(args)) await assertValid(doc, mode);
    });
  }
});

// The validator itself must be able to say no, or the tests above prove nothing.
describe("the schema check rejects", () => {
  const good = () =>
    generate(holderArgs(SAMPLE_CLUSTERS[0], DRIVERS.rbd, false))[0];

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
