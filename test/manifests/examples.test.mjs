// manifests/examples is exactly what manifests/examples/render.sh produces
// with the netns-manifest just built: nobody edited the output by hand, and
// nobody changed the generator without re-rendering.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, test } from "node:test";
import { SOURCE_DIR, generatorPath, yamlFiles } from "./lib/generate.mjs";

const examples = join(SOURCE_DIR, "manifests", "examples");
const out = mkdtempSync(join(tmpdir(), "netns-examples-"));
after(() => rmSync(out, { recursive: true, force: true }));

test("render.sh output equals the committed examples", () => {
  execFileSync(join(examples, "render.sh"), [generatorPath(), out], { stdio: "inherit" });
  const want = yamlFiles(out).map((p) => relative(out, p));
  const have = yamlFiles(examples).map((p) => relative(examples, p));
  assert.deepEqual(have, want, "file lists differ: run manifests/examples/render.sh build/manifests/netns-manifest");
  for (const name of want) {
    assert.equal(
      readFileSync(join(examples, name), "utf8"),
      readFileSync(join(out, name), "utf8"),
      `${name} is stale: run manifests/examples/render.sh build/manifests/netns-manifest`,
    );
  }
});
