// For the privileged tests (C++): what the chart renders for one cluster, as
// JSON, so they run exactly the holder, probe and preStop commands and read
// exactly the ceph-csi config the chart produces.
//   node chart-facts.mjs ID symlink|socket KUBELET_DIR GUARD_SECONDS [MONITOR]
// prints {"holders": [{"driver", "dir", "command", "check", "guard"}], "config": [...]}
import { configMapOf, holdersOf, render } from "./lib/helm.mjs";
import { holderFacts } from "./lib/rules.mjs";

const [id, mode, kubeletDir, guard, monitor] = process.argv.slice(2);
if (!guard) {
  console.error("usage: chart-facts.mjs ID symlink|socket KUBELET_DIR GUARD_SECONDS [MONITOR]");
  process.exit(2);
}
const cluster = monitor ? { id, monitors: [monitor] } : { id };
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
process.stdout.write(JSON.stringify({ holders, config }));
