// Runs the netns-manifest binary the build produced (ctest passes its path in
// NETNS_MANIFEST_BIN) and parses what it prints.
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseYaml } from "./load.mjs";

export const SOURCE_DIR = process.env.NETNS_SOURCE_DIR ?? new URL("../../..", import.meta.url).pathname;

export function generatorPath() {
  const bin = process.env.NETNS_MANIFEST_BIN;
  if (!bin) throw new Error("NETNS_MANIFEST_BIN is not set: run these tests through ctest");
  return bin;
}

export function generate(args) {
  const text = execFileSync(generatorPath(), args, { encoding: "utf8" });
  return parseYaml(text, `netns-manifest ${args.join(" ")}`);
}

// Runs the generator expecting it to refuse; returns its stderr.
export function generateFails(args) {
  try {
    execFileSync(generatorPath(), args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    return { status: e.status, stderr: String(e.stderr) };
  }
  throw new Error(`netns-manifest ${args.join(" ")} succeeded but should have failed`);
}

// Three sample clusters: a Multus one, one whose ID is not a DNS label, and a
// UUID (the usual ceph fsid).
export const SAMPLE_CLUSTERS = [
  { id: "ceph-east", mons: "198.18.10.1:6789,198.18.10.2:6789,198.18.10.3:6789", multus: "storage/ceph-east" },
  { id: "Ceph_West.2", mons: "198.18.11.1:3300", multus: "" },
  { id: "0b8f3a52-6d2e-4c71-9e0a-3f5d1c7b2a94", mons: "198.18.12.1:6789", multus: "ceph-csi/public@storage0" },
];
export const DRIVERS = { rbd: "rbd.csi.ceph.com", cephfs: "cephfs.csi.ceph.com" };
export const IMAGE = "registry.example.com/netns-holder:test";

export function holderArgs(cluster, driver, socket) {
  const args = ["holder", "--cluster-id", cluster.id, "--driver", driver, "--image", IMAGE];
  if (cluster.multus) args.push("--multus", cluster.multus);
  if (socket) args.push("--socket");
  return args;
}

// Every *.yaml below `dir`, recursively.
export function yamlFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === "node_modules") continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(name)) out.push(p);
  }
  return out;
}
