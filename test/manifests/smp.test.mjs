// The strategic-merge subset the plugin tests rely on behaves like kubectl's.
import assert from "node:assert/strict";
import { test } from "node:test";
import { strategicMerge } from "./lib/smp.mjs";

const base = {
  spec: {
    hostNetwork: true,
    containers: [
      { name: "a", image: "a:1", args: ["--x"], ports: [{ containerPort: 1, name: "p" }] },
      { name: "b", image: "b:1" },
    ],
    volumes: [{ name: "v", emptyDir: {} }],
    tolerations: [{ operator: "Exists" }],
  },
};

test("maps merge and scalars replace", () => {
  const out = strategicMerge(base, { spec: { hostNetwork: false, hostPID: true } });
  assert.equal(out.spec.hostNetwork, false);
  assert.equal(out.spec.hostPID, true);
  assert.equal(out.spec.containers.length, 2);
});

test("containers merge by name, new ones are appended", () => {
  const out = strategicMerge(base, {
    spec: { containers: [{ name: "a", image: "a:2" }, { name: "c", image: "c:1" }] },
  });
  assert.deepEqual(out.spec.containers.map((c) => [c.name, c.image]), [["a", "a:2"], ["b", "b:1"], ["c", "c:1"]]);
  assert.deepEqual(out.spec.containers[0].args, ["--x"], "untouched fields stay");
});

test("ports merge by containerPort; args and tolerations are replaced", () => {
  const out = strategicMerge(base, {
    spec: {
      containers: [{ name: "a", args: ["--y"], ports: [{ containerPort: 1, protocol: "TCP" }, { containerPort: 2 }] }],
      tolerations: [{ key: "k", operator: "Exists" }],
    },
  });
  assert.deepEqual(out.spec.containers[0].args, ["--y"]);
  assert.deepEqual(out.spec.containers[0].ports, [{ containerPort: 1, name: "p", protocol: "TCP" }, { containerPort: 2 }]);
  assert.deepEqual(out.spec.tolerations, [{ key: "k", operator: "Exists" }]);
});

test("null deletes a key and $patch: delete removes a list item", () => {
  const out = strategicMerge(base, { spec: { hostNetwork: null, containers: [{ name: "b", $patch: "delete" }] } });
  assert.equal("hostNetwork" in out.spec, false);
  assert.deepEqual(out.spec.containers.map((c) => c.name), ["a"]);
});

test("the base is not modified", () => {
  const before = structuredClone(base);
  strategicMerge(base, { spec: { containers: [{ name: "a", image: "z" }] } });
  assert.deepEqual(base, before);
});
