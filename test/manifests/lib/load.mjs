// Reading YAML the way the API server's decoder would refuse it: duplicate
// keys, tabs and any parse warning are errors, not silently resolved.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

export function parseYaml(text, name = "<text>") {
  const docs = parseAllDocuments(text, { uniqueKeys: true, prettyErrors: true, strict: true });
  const out = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    const problems = [...doc.errors, ...doc.warnings];
    if (problems.length > 0) {
      throw new Error(`${name}: ${problems.map((p) => p.message).join("; ")}`);
    }
    const value = doc.toJS({ maxAliasCount: 0 });
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

export function loadYaml(path) {
  return parseYaml(readFileSync(path, "utf8"), path);
}
