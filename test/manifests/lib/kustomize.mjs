// Runs the real kustomize (test/manifests/find-kustomize.sh: $NETNS_KUSTOMIZE
// or the one scripts/setup.d/kustomize.sh built) on kustomizations the tests
// write into a scratch directory, with the same helm as the chart tests.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { stringify } from "yaml";
import { PROJECT_REPOSITORY, SOURCE_DIR, VERSION, helmPath } from "./helm.mjs";
import { parseYaml } from "./load.mjs";

export const KUSTOMIZE_DIR = join(SOURCE_DIR, "manifests", "kustomize");
export const EXAMPLES = join(KUSTOMIZE_DIR, "examples");
// How the examples name the component: a remote path into this repository
// (the Go module's), at this release's tag.
const quote = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
export const REMOTE_FORM = `${PROJECT_REPOSITORY}//manifests/kustomize/NAME?ref=v${VERSION}`;
export const REMOTE = new RegExp(`^${quote(PROJECT_REPOSITORY)}//manifests/kustomize/([a-z-]+)\\?ref=v${quote(VERSION)}$`);

let bin;
export function kustomizePath() {
  bin ??= execFileSync(new URL("../find-kustomize.sh", import.meta.url).pathname, { encoding: "utf8" }).trim();
  return bin;
}

const scratch = mkdtempSync(join(tmpdir(), "netns-kustomize-test-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
let seq = 0;

// A fresh directory below the scratch directory (a copy of `from` when given).
export function workdir(from) {
  const dir = join(scratch, `k${seq++}`);
  if (from) cpSync(from, dir, { recursive: true });
  else mkdirSync(dir);
  return dir;
}

export function writeYaml(file, value) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, typeof value === "string" ? value : stringify(value));
}

export const readYaml = (file) => parseYaml(readFileSync(file, "utf8"), file);

// The component directory `name` (plugin, plugin-pod-network-reaches-ceph,
// socket-mode) as a path relative to
// `dir`: kustomize takes no absolute component paths.
export const componentPath = (dir, name) => relative(dir, join(KUSTOMIZE_DIR, name));

// A remote component reference of an example, as the local directory it names.
export function localComponent(dir, ref) {
  const m = REMOTE.exec(ref);
  if (!m) throw new Error(`component ${ref} is not a remote path into this repository (${REMOTE_FORM})`);
  return componentPath(dir, m[1]);
}

// The plugin component's one input: the ConfigMap whose `networks` becomes
// the node plugins' Multus annotation (the plugin pod's own storage network).
export const MULTUS_KEY = "k8s.v1.cni.cncf.io/networks";
export const PLUGIN_NETWORK = "netns-exec-plugin-network";
export const networkGenerator = (networks) => ({ name: PLUGIN_NETWORK, literals: [`networks=${networks}`] });

// The `networks` value a kustomization `k` gives the plugin component.
export function pluginNetworkOf(k) {
  const gen = (k.configMapGenerator ?? []).find((g) => g.name === PLUGIN_NETWORK);
  const literal = gen?.literals?.find((l) => l.startsWith("networks="));
  if (!literal) throw new Error(`no configMapGenerator ${PLUGIN_NETWORK} with a networks= literal`);
  return literal.slice("networks=".length);
}

// Kustomization `k` without the netns-holder components and their input.
export function withoutComponents(k) {
  delete k.components;
  k.configMapGenerator = (k.configMapGenerator ?? []).filter((g) => g.name !== PLUGIN_NETWORK);
  if (k.configMapGenerator.length === 0) delete k.configMapGenerator;
  return k;
}

// `kustomize build dir`, expecting it to fail; its stderr.
export function buildFails(dir) {
  const r = spawnSync(kustomizePath(), ["build", dir], { encoding: "utf8" });
  if (r.error) throw r.error;
  if (r.status === 0) throw new Error(`kustomize build ${dir} succeeded but should have failed`);
  return r.stderr;
}

// `kustomize build dir` (with --enable-helm and the tests' helm when asked).
export function build(dir, { enableHelm = false } = {}) {
  const args = ["build", dir];
  if (enableHelm) args.push("--enable-helm", "--helm-command", helmPath());
  const r = spawnSync(kustomizePath(), args, { encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`kustomize ${args.join(" ")} failed (${r.status}):\n${r.stderr}`);
  return parseYaml(r.stdout, `kustomize ${args.join(" ")}`);
}
