// Offline checks of the csi-addons objects the chart renders (no published
// JSON schema of them is vendored): the fields and types of
// csiaddons.openshift.io/v1alpha1 NetworkFence and NetworkFenceClass as the
// CRDs define them (kubernetes-csi-addons api/csiaddons/v1alpha1), and
// nothing else, as the API server's strict field validation would.

const DNS1123_SUBDOMAIN = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;

const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function only(obj, allowed, path, errors) {
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) errors.push(`${path}/${k}: unknown field (not in the CRD)`);
}

function stringMap(v, path, errors) {
  if (v === undefined) return;
  if (!isMap(v)) return errors.push(`${path}: not a map`);
  for (const [k, val] of Object.entries(v)) if (typeof val !== "string") errors.push(`${path}/${k}: not a string`);
}

function metadata(m, errors) {
  if (!isMap(m)) return errors.push("/metadata: missing");
  only(m, ["name", "labels", "annotations"], "/metadata", errors);
  if (typeof m.name !== "string" || !DNS1123_SUBDOMAIN.test(m.name)) errors.push(`/metadata/name: ${m.name} is not a DNS-1123 subdomain`);
  if ("namespace" in m) errors.push("/metadata/namespace: the csi-addons fencing objects are cluster-scoped");
  stringMap(m.labels, "/metadata/labels", errors);
  stringMap(m.annotations, "/metadata/annotations", errors);
}

const SPECS = {
  NetworkFenceClass(spec, errors) {
    only(spec, ["provisioner", "parameters"], "/spec", errors);
    if (typeof spec.provisioner !== "string" || spec.provisioner === "") errors.push("/spec/provisioner: required string");
    stringMap(spec.parameters, "/spec/parameters", errors);
  },
  NetworkFence(spec, errors) {
    only(spec, ["networkFenceClassName", "driver", "fenceState", "cidrs", "secret", "parameters"], "/spec", errors);
    if (!spec.networkFenceClassName && !spec.driver) errors.push("/spec: one of driver or networkFenceClassName must be present");
    for (const k of ["networkFenceClassName", "driver"]) if (k in spec && typeof spec[k] !== "string") errors.push(`/spec/${k}: not a string`);
    if (!["Fenced", "Unfenced"].includes(spec.fenceState)) errors.push(`/spec/fenceState: ${spec.fenceState} is not Fenced or Unfenced`);
    if (!Array.isArray(spec.cidrs) || spec.cidrs.some((c) => typeof c !== "string")) errors.push("/spec/cidrs: required list of strings");
    if (spec.secret !== undefined) {
      if (!isMap(spec.secret)) errors.push("/spec/secret: not a map");
      else only(spec.secret, ["name", "namespace"], "/spec/secret", errors);
    }
    stringMap(spec.parameters, "/spec/parameters", errors);
  },
};

// null when `obj` is not a csi-addons object this file knows; else the errors.
export function validateCsiAddons(obj) {
  if (obj.apiVersion !== "csiaddons.openshift.io/v1alpha1" || !(obj.kind in SPECS)) return null;
  const errors = [];
  only(obj, ["apiVersion", "kind", "metadata", "spec"], "", errors);
  metadata(obj.metadata, errors);
  if (!isMap(obj.spec)) errors.push("/spec: missing");
  else SPECS[obj.kind](obj.spec, errors);
  return errors;
}
