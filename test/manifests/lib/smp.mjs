// The part of Kubernetes' strategic merge patch that pod templates use, so a
// test can apply the plugin patch to a ceph-csi DaemonSet the way
// `kubectl patch --type strategic` (or a kustomize patch) would, and validate
// the result. Lists merge by their patchMergeKey from the API types; every
// other list is replaced. `null` deletes a key; `$patch: delete` in a list item
// deletes the matching item; `$patch: replace` in a map replaces it.

// field name -> merge key (the API types' patchMergeKey for the fields a
// workload's pod template has).
const MERGE_KEYS = {
  containers: "name",
  initContainers: "name",
  ephemeralContainers: "name",
  volumes: "name",
  volumeMounts: "mountPath",
  volumeDevices: "devicePath",
  env: "name",
  ports: "containerPort",
  imagePullSecrets: "name",
  hostAliases: "ip",
  topologySpreadConstraints: "topologyKey",
  resourceClaims: "name",
};

function isMap(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function mergeList(base, patch, key) {
  const out = base.map((item) => structuredClone(item));
  for (const item of patch) {
    if (!isMap(item) || !(key in item)) {
      throw new Error(`strategic merge: list item without merge key "${key}"`);
    }
    const at = out.findIndex((b) => isMap(b) && b[key] === item[key]);
    if (item.$patch === "delete") {
      if (at >= 0) out.splice(at, 1);
      continue;
    }
    if (at >= 0) out[at] = mergeValue(out[at], item);
    else out.push(mergeValue(undefined, item));
  }
  return out;
}

function mergeMap(base, patch) {
  if (patch.$patch === "replace") {
    const { $patch, ...rest } = patch;
    return structuredClone(rest);
  }
  const out = isMap(base) ? structuredClone(base) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith("$")) continue;
    if (v === null) {
      delete out[k];
    } else if (Array.isArray(v) && MERGE_KEYS[k] && Array.isArray(out[k])) {
      out[k] = mergeList(out[k], v, MERGE_KEYS[k]);
    } else {
      out[k] = mergeValue(out[k], v);
    }
  }
  return out;
}

function mergeValue(base, patch) {
  if (isMap(patch)) return mergeMap(base, patch);
  if (Array.isArray(patch)) {
    return patch.filter((i) => !(isMap(i) && i.$patch === "delete")).map((i) => mergeValue(undefined, i));
  }
  return patch;
}

export function strategicMerge(base, patch) {
  return mergeValue(base, patch);
}
