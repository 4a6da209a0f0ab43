// manifests/examples is exactly what manifests/examples/render.sh renders from
// the chart and the plugin templates with the real helm: nobody edited the
// output by hand, and nobody changed the chart without re-rendering.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, test } from "node:test";
import { SOURCE_DIR, helmPath, yamlFiles } from "./lib/helm.mjs";

const examples = join(SOURCE_DIR, "manifests", "examples");
const out = mkdtempSync(join(tmpdir(), "netns-examples-"));
after(() => rmSync(out, { recursive: true, force: true }));
const rendered = (dir) => ["symlink", "socket"].flatMap((m) => yamlFiles(join(dir, m))).map((p) => relative(dir, p));
const fix = "run manifests/examples/render.sh $(test/manifests/find-helm.sh)";

test("render.sh output equals the committed examples", () => {
  execFileSync(join(examples, "render.sh"), [helmPath(), out], { stdio: ["ignore", "inherit", "inherit"] });
  const want = rendered(out);
  assert.ok(want.length >= 6, want.join());
  assert.deepEqual(rendered(examples), want, `file lists differ: ${fix}`);
  for (const name of want) {
    assert.equal(readFileSync(join(examples, name), "utf8"), readFileSync(join(out, name), "utf8"), `${name} is stale: ${fix}`);
  }
});
