// Offline validation of Kubernetes objects against the upstream OpenAPI
// schemas compiled into the kubernetes-models package.
//
// kubernetes-models' validators check types, enums, formats and required
// fields, but (like the OpenAPI schemas) they allow unknown fields, and the API
// server's strict field validation would reject a typo such as
// "readOnlyRootFileSystem". We add that check without a second copy of the
// schemas: the compiled validators read every property they know from the
// object, so we hand them a Proxy that records which keys were read, and any
// key nobody read is unknown to the schema.

import { validateCsiAddons } from "./csiaddons.mjs";

const modelCache = new Map();

// apiVersion "apps/v1" + kind "DaemonSet" -> kubernetes-models/apps/v1/DaemonSet
function modulePath(apiVersion, kind) {
  if (typeof apiVersion !== "string" || typeof kind !== "string") return null;
  if (!/^[A-Za-z0-9.\-/]+$/.test(apiVersion) || !/^[A-Za-z0-9]+$/.test(kind)) return null;
  return `kubernetes-models/${apiVersion}/${kind}`;
}

export async function modelFor(apiVersion, kind) {
  const path = modulePath(apiVersion, kind);
  if (!path) return null;
  if (!modelCache.has(path)) {
    let model = null;
    try {
      const mod = await import(path);
      model = mod[kind] ?? null;
    } catch {
      model = null;
    }
    modelCache.set(path, model);
  }
  return modelCache.get(path);
}

function isPlainObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

// Wraps `value` so every property read is recorded in `seen` (a Map from an
// object to the Set of keys read from it). Objects reached by enumeration
// (maps such as labels) count as fully read.
function tracked(value, seen) {
  if (value === null || typeof value !== "object") return value;
  if (!seen.has(value)) seen.set(value, new Set());
  const keys = seen.get(value);
  return new Proxy(value, {
    get(target, key, receiver) {
      if (typeof key === "string") keys.add(key);
      return tracked(Reflect.get(target, key, receiver), seen);
    },
    has(target, key) {
      if (typeof key === "string") keys.add(key);
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      for (const k of Reflect.ownKeys(target)) if (typeof k === "string") keys.add(k);
      return Reflect.ownKeys(target);
    },
    getOwnPropertyDescriptor(target, key) {
      if (typeof key === "string") keys.add(key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
  });
}

function unknownFields(value, seen, path, out) {
  if (Array.isArray(value)) {
    value.forEach((item, i) => unknownFields(item, seen, `${path}/${i}`, out));
    return;
  }
  if (!isPlainObject(value)) return;
  const read = seen.get(value) ?? new Set();
  for (const key of Object.keys(value)) {
    if (!read.has(key)) {
      out.push(`${path}/${key}: unknown field (not in the ${"Kubernetes"} schema)`);
      continue;
    }
    unknownFields(value[key], seen, `${path}/${key}`, out);
  }
}

// Returns a list of error strings; empty means valid.
export async function validateObject(obj) {
  if (!isPlainObject(obj)) return ["document is not a mapping"];
  const crd = validateCsiAddons(obj);
  if (crd) return crd;
  const Model = await modelFor(obj.apiVersion, obj.kind);
  if (!Model) return [`unknown apiVersion/kind ${obj.apiVersion}/${obj.kind}`];
  const errors = [];
  // structuredClone: the validators see exactly the parsed data, and the
  // Proxy bookkeeping is keyed on these private copies.
  const data = structuredClone(obj);
  const seen = new Map();
  try {
    Model.prototype.validate.call(tracked(data, seen));
  } catch (e) {
    for (const line of String(e.message).split(/,\s*(?=data)/)) errors.push(line.trim());
  }
  unknownFields(data, seen, "", errors);
  return errors;
}
