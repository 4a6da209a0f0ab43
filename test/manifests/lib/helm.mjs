// Runs the real helm on the project's charts and parses what it renders.
// Which helm: test/manifests/find-helm.sh ($NETNS_HELM, PATH, or the one
// scripts/setup.d/helm.sh built).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseYaml } from "./load.mjs";

export const SOURCE_DIR = process.env.NETNS_SOURCE_DIR ?? new URL("../../..", import.meta.url).pathname;
export const CHART = join(SOURCE_DIR, "manifests", "chart", "netns-holder");
export const PLUGIN = join(SOURCE_DIR, "manifests", "plugin");
export const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
// The project states its address once: the Go module path (executor/go/go.mod,
// github.com/OWNER/NAME/executor/go). Its repository is what the chart's home
// and sources and the docs' remote paths must name.
export const GO_MODULE = /^module (\S+)$/m.exec(readFileSync(join(SOURCE_DIR, "executor", "go", "go.mod"), "utf8"))?.[1] ?? "";
export const PROJECT_REPOSITORY = `https://${GO_MODULE.split("/").slice(0, 3).join("/")}`;
export const VERSION = readFileSync(join(SOURCE_DIR, "VERSION"), "utf8").trim();

let helmBin;
export function helmPath() {
  helmBin ??= execFileSync(new URL("../find-helm.sh", import.meta.url).pathname, { encoding: "utf8" }).trim();
  return helmBin;
}

// Environment for the plugin scripts: the same helm.
export function scriptEnv() {
  return { ...process.env, NETNS_HELM: helmPath() };
}

const scratch = mkdtempSync(join(tmpdir(), "netns-helm-test-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
let seq = 0;
function valuesFile(values) {
  const file = join(scratch, `values-${process.pid}-${seq++}.json`);
  writeFileSync(file, JSON.stringify(values));
  return file;
}

// Runs helm; returns {status, stdout, stderr}.
export function helm(args, input, env = process.env) {
  const r = spawnSync(helmPath(), args, { encoding: "utf8", input, env, maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return r;
}

function templateArgs(values, { release = "netns", namespace = "ceph-csi", showOnly = [], chart = CHART } = {}) {
  const args = ["template", release, chart, "--namespace", namespace, "-f", valuesFile(values)];
  for (const s of showOnly) args.push("--show-only", s);
  return args;
}

// `helm template` of the netns-holder chart with these values; the parsed documents.
export function render(values, options) {
  const args = templateArgs(values, options);
  const r = helm(args);
  if (r.status !== 0) throw new Error(`helm ${args.join(" ")} failed (${r.status}):\n${r.stderr}`);
  return parseYaml(r.stdout, `helm template (${JSON.stringify(values)})`);
}

export function renderText(values, options) {
  const args = templateArgs(values, options);
  const r = helm(args);
  if (r.status !== 0) throw new Error(`helm ${args.join(" ")} failed (${r.status}):\n${r.stderr}`);
  return r.stdout;
}

// Renders expecting helm to refuse; returns {status, stderr}.
export function renderFails(values, options) {
  const r = helm(templateArgs(values, options));
  if (r.status === 0) throw new Error(`helm template succeeded but should have failed: ${JSON.stringify(values)}`);
  return { status: r.status, stderr: r.stderr };
}

export function lint(values) {
  return helm(["lint", CHART, "--strict", "-f", valuesFile(values)]);
}

// manifests/plugin/post-renderer with `input` on stdin.
export function postRender(input, flags = []) {
  const r = spawnSync(join(PLUGIN, "post-renderer"), flags, { encoding: "utf8", input, env: scriptEnv() });
  if (r.status !== 0) throw new Error(`post-renderer ${flags.join(" ")} failed (${r.status}):\n${r.stderr}`);
  return r.stdout;
}

export function postRenderFails(input, flags = []) {
  const r = spawnSync(join(PLUGIN, "post-renderer"), flags, { encoding: "utf8", input, env: scriptEnv() });
  if (r.status === 0) throw new Error(`post-renderer ${flags.join(" ")} succeeded but should have failed`);
  return { status: r.status, stderr: r.stderr };
}

// manifests/plugin/render-patch; the parsed patch.
export function renderPatch(flags) {
  const r = spawnSync(join(PLUGIN, "render-patch"), flags, { encoding: "utf8", env: scriptEnv() });
  if (r.status !== 0) throw new Error(`render-patch ${flags.join(" ")} failed (${r.status}):\n${r.stderr}`);
  return parseYaml(r.stdout, `render-patch ${flags.join(" ")}`);
}

export function renderPatchFails(flags) {
  const r = spawnSync(join(PLUGIN, "render-patch"), flags, { encoding: "utf8", env: scriptEnv() });
  if (r.status === 0) throw new Error(`render-patch ${flags.join(" ")} succeeded but should have failed`);
  return { status: r.status, stderr: r.stderr };
}

// Three sample clusters: a Multus one, one whose ID is not a DNS label, and a
// UUID (the usual ceph fsid).
export const SAMPLE_CLUSTERS = [
  { id: "ceph-east", monitors: ["198.18.10.1:6789", "198.18.10.2:6789", "198.18.10.3:6789"], multus: "storage/ceph-east" },
  { id: "Ceph_West.2", monitors: ["198.18.11.1:3300"] },
  { id: "0b8f3a52-6d2e-4c71-9e0a-3f5d1c7b2a94", monitors: ["198.18.12.1:6789"], multus: "ceph-csi/public@storage0" },
];
export const DRIVERS = { rbd: "rbd.csi.ceph.com", cephfs: "cephfs.csi.ceph.com" };
export const IMAGE = { repository: "registry.example.com/netns-holder", tag: "test" };

export function sampleValues(mode, extra = {}) {
  return { mode, image: IMAGE, clusters: SAMPLE_CLUSTERS, ...extra };
}

export const holdersOf = (docs) => docs.filter((d) => d.kind === "DaemonSet");
export const configMapOf = (docs, name) => docs.find((d) => d.kind === "ConfigMap" && d.metadata.name === name);

// Every *.yaml below `dir`, recursively.
export function yamlFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === "node_modules" || name === "templates") continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(name)) out.push(p);
  }
  return out;
}
