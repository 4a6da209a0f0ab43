// Applying a plugin patch to the matching ceph-csi fixture.
import { join } from "node:path";
import { loadYaml } from "./load.mjs";
import { strategicMerge } from "./smp.mjs";

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
const BY_NAME = {
  "csi-rbdplugin": "ceph-csi-rbd-nodeplugin.yaml",
  "csi-cephfsplugin": "ceph-csi-cephfs-nodeplugin.yaml",
};

export function isPatch(doc) {
  return doc?.kind === "DaemonSet" && doc?.spec?.selector === undefined;
}

export function fixtureFor(name) {
  const file = BY_NAME[name];
  if (!file) throw new Error(`no ceph-csi fixture for DaemonSet ${name}`);
  return loadYaml(join(FIXTURES, file))[0];
}

export function applyPatch(patch) {
  return strategicMerge(fixtureFor(patch.metadata.name), patch);
}
