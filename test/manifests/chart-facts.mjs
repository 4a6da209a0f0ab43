// For the privileged tests (C++): what the chart renders for one cluster, as
// JSON, so they run exactly the holder, probe and preStop commands and read
// exactly the ceph-csi config the chart produces.
//   node chart-facts.mjs ID symlink|socket KUBELET_DIR GUARD_SECONDS [MONITOR]
//        [--drivers=D,...] [--targets=ADDR,...]
// prints {"holders": [{"driver", "dir", "command", "check", "guard"}], "config": [...],
//         "pluginEnv": {DRIVER: {NAME: VALUE}}}
// pluginEnv is the netns-exec environment of each driver's node plugin as the
// kubelet gives it: the env of the Kustomize components' patch for that kind
// (manifests/kustomize/plugin-pod-network-reaches-ceph/<kind>.yaml, which
// ../plugin includes), its configMapKeyRefs resolved in the netns-exec-env
// this chart renders (a missing key is an error, as for the kubelet: the refs
// are not optional).
import { join } from "node:path";
import { SOURCE_DIR, configMapOf, holdersOf, render } from "./lib/helm.mjs";
import { readYaml } from "./lib/kustomize.mjs";
import { holderFacts } from "./lib/rules.mjs";

const flags = Object.fromEntries(
  process.argv.slice(2).filter((a) => a.startsWith("--")).map((a) => a.slice(2).split(/=(.*)/s).slice(0, 2)),
);
const [id, mode, kubeletDir, guard, monitor] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
if (!guard) {
  console.error("usage: chart-facts.mjs ID symlink|socket KUBELET_DIR GUARD_SECONDS [MONITOR] [--drivers=D,...] [--targets=ADDR,...]");
  process.exit(2);
}
const cluster = monitor ? { id, monitors: [monitor] } : { id };
if (flags.drivers) cluster.drivers = flags.drivers.split(",");
if (flags.targets) cluster.targets = flags.targets.split(",");
const docs = render({
  mode,
  image: { repository: "netns-holder", tag: "test" },
  clusters: [cluster],
  kubeletDir,
  guardMaxWait: Number(guard),
});
const holders = holdersOf(docs).map((ds) => {
  const f = holderFacts(ds);
  return {
    driver: f.dir.split("/").pop(),
    dir: f.dir,
    command: f.container.command,
    check: f.container.readinessProbe.exec.command,
    guard: f.container.lifecycle.preStop.exec.command,
  };
});
const config = JSON.parse(configMapOf(docs, "netns-ceph-csi").data["config.json"]);

const KIND_OF = /^(rbd|cephfs|nvmeof|nfs)\.csi\.ceph\.com$/;
const envMap = configMapOf(docs, "netns-exec-env").data;
const pluginEnv = {};
for (const { driver } of holders) {
  const kind = KIND_OF.exec(driver)?.[1];
  if (!kind) continue;
  const patch = readYaml(join(SOURCE_DIR, "manifests", "kustomize", "plugin-pod-network-reaches-ceph", `${kind}.yaml`))[0];
  const container = patch.spec.template.spec.containers.find((c) => c.name === `csi-${kind}plugin`);
  pluginEnv[driver] = Object.fromEntries(
    container.env.map((e) => {
      const ref = e.valueFrom?.configMapKeyRef;
      if (!ref) return [e.name, e.value];
      if (ref.name !== "netns-exec-env" || typeof envMap[ref.key] !== "string") {
        console.error(`${kind}.yaml: ${e.name} refers to ${ref.name}/${ref.key}, which the chart does not render`);
        process.exit(1);
      }
      return [e.name, envMap[ref.key]];
    }),
  );
}
process.stdout.write(JSON.stringify({ holders, config, pluginEnv }));
