#include "holder_daemonset.hpp"

#include <fmt/format.h>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"

namespace netns::manifest {

namespace {

// The preStop guard may wait this long; the kubelet's grace period must cover
// it plus the holder's own SIGTERM clean-up (compare-then-delete of its files).
constexpr std::chrono::seconds kShutdownMargin{30};
constexpr std::chrono::seconds kMaxGuardWait{3600};

Kind kind_of(const HolderOptions& o) { return o.kind ? *o.kind : kind_from_driver(o.driver); }

std::string name_of(const HolderOptions& o) {
  return o.name.empty() ? holder_name(kind_of(o), o.cluster_id) : o.name;
}

std::string dir_of(const HolderOptions& o) { return holder_dir(o.kubelet_dir, o.driver); }

Node labels(const HolderOptions& o) {
  Node l = Node::map();
  l.set("app.kubernetes.io/name", Node::str("netns-holder"));
  l.set("app.kubernetes.io/instance", Node::str(name_of(o)));
  l.set("app.kubernetes.io/component", Node::str(kind_name(kind_of(o))));
  l.set("app.kubernetes.io/managed-by", Node::str("netns-manifest"));
  return l;
}

// Cluster IDs may contain '.', '_' and upper case and may be 64 characters
// long, so they go in annotations (no format limits), not labels.
Node annotations(const HolderOptions& o, bool pod) {
  Node a = Node::map();
  a.set("netns-holder/cluster-id", Node::str(o.cluster_id));
  a.set("netns-holder/mode", Node::str(o.socket ? "socket" : "symlink"));
  a.set("netns-holder/dir", Node::str(dir_of(o)));
  if (pod && !o.multus.empty()) {
    a.set("k8s.v1.cni.cncf.io/networks", Node::str(o.multus),
          "Multus: the storage network is attached to the holder's namespace, and every\n"
          "kernel RBD/CephFS session of this cluster on the node will use it.");
  }
  return a;
}

Node exec_probe(const HolderOptions& o, int period, int failure_threshold) {
  Node exec = Node::map();
  exec.set("command", Node::strings(holder_check_command(o)));
  Node probe = Node::map();
  probe.set("exec", std::move(exec));
  probe.set("periodSeconds", Node::integer(period));
  probe.set("timeoutSeconds", Node::integer(5));
  probe.set("failureThreshold", Node::integer(failure_threshold));
  return probe;
}

Node container_security_context() {
  Node caps = Node::map();
  caps.set("drop", Node::strings({"ALL"}));
  Node seccomp = Node::map();
  seccomp.set("type", Node::str("RuntimeDefault"));
  Node sc = Node::map();
  sc.set("privileged", Node::boolean(false));
  sc.set("allowPrivilegeEscalation", Node::boolean(false));
  sc.set("readOnlyRootFilesystem", Node::boolean(true));
  sc.set("capabilities", std::move(caps),
         "Nothing is added back: the holder creates files and a socket in a directory\n"
         "owned by uid 0 (owner permission, no CAP_DAC_OVERRIDE), takes a flock and\n"
         "sleeps. Nothing in this container calls setns(): the probe and the preStop\n"
         "guard work in the pod's namespace, which is their own.");
  sc.set("seccompProfile", std::move(seccomp));
  return sc;
}

Node pod_security_context() {
  Node seccomp = Node::map();
  seccomp.set("type", Node::str("RuntimeDefault"));
  Node sc = Node::map();
  sc.set("runAsUser", Node::integer(0),
         "uid 0 only so the holder can write into the root-owned kubelet plugin\n"
         "directory; with every capability dropped it cannot override permissions,\n"
         "read other root processes' memory or enter other namespaces.");
  sc.set("runAsGroup", Node::integer(0));
  sc.set("seccompProfile", std::move(seccomp));
  return sc;
}

Node resources() {
  Node requests = Node::map();
  requests.set("cpu", Node::str("5m"));
  requests.set("memory", Node::str("8Mi"));
  Node limits = Node::map();
  limits.set("cpu", Node::str("100m"));
  limits.set("memory", Node::str("32Mi"));
  Node r = Node::map();
  r.set("requests", std::move(requests));
  r.set("limits", std::move(limits),
        "The holder itself needs well under 1 MiB; the limit leaves room for the\n"
        "exec probe and the preStop guard, which run inside this container.");
  return r;
}

Node holder_container(const HolderOptions& o) {
  const std::string dir = dir_of(o);

  Node mount = Node::map();
  mount.set("name", Node::str("holder-dir"));
  mount.set("mountPath", Node::str(dir));

  Node pre_stop_exec = Node::map();
  pre_stop_exec.set("command", Node::strings(guard_command(o)));
  Node pre_stop = Node::map();
  pre_stop.set("exec", std::move(pre_stop_exec));
  Node lifecycle = Node::map();
  lifecycle.set("preStop", std::move(pre_stop),
                "Deleting a holder pod tears down the namespace every kernel session of\n"
                "this cluster on the node uses. The guard, run in this container and so in\n"
                "that very namespace, logs the live Ceph sessions and waits (bounded by\n"
                "--max-wait) until they are gone; if they are not, it fails, and the kubelet\n"
                "records a FailedPreStopHook event on the pod.");

  Node c = Node::map();
  c.set("name", Node::str("holder"));
  c.set("image", Node::str(o.image));
  c.set("imagePullPolicy", Node::str("IfNotPresent"));
  c.set("command", Node::strings(holder_command(o)));
  c.set("readinessProbe", exec_probe(o, 10, 3));
  c.set("livenessProbe", exec_probe(o, 30, 3),
        "A failed liveness check restarts only this container: the namespace belongs\n"
        "to the pod sandbox and survives, and the new holder re-publishes it.");
  c.set("lifecycle", std::move(lifecycle));
  c.set("resources", resources());
  c.set("securityContext", container_security_context());
  c.set("terminationMessagePolicy", Node::str("FallbackToLogsOnError"));
  c.set("volumeMounts", Node::seq().push(std::move(mount)));
  return c;
}

Node pod_spec(const HolderOptions& o) {
  const auto grace = o.guard_max_wait + kShutdownMargin;

  Node tolerate_all = Node::map();
  tolerate_all.set("operator", Node::str("Exists"));

  Node host_path = Node::map();
  host_path.set("path", Node::str(dir_of(o)));
  host_path.set("type", Node::str("DirectoryOrCreate"));
  Node volume = Node::map();
  volume.set("name", Node::str("holder-dir"));
  volume.set("hostPath", std::move(host_path));

  Node spec = Node::map();
  spec.set("hostNetwork", Node::boolean(false),
           "The whole point: the namespace is the pod's own, with the pod network (and\n"
           "the Multus storage network, when given), not the host's.");
  if (o.socket) {
    spec.set("hostPID", Node::boolean(false),
             "Socket mode: the plugin receives the namespace fd over the holder socket,\n"
             "so no /proc/<pid> path has to mean the same thing in both pods.");
  } else {
    spec.set("hostPID", Node::boolean(true),
             "Symlink mode: <ID>.net.ns points at /proc/<holder pid>/ns/net, which only\n"
             "names this process for readers in the same pid namespace: the host's.");
  }
  spec.set("automountServiceAccountToken", Node::boolean(false),
           "The holder never talks to the API server.");
  spec.set("enableServiceLinks", Node::boolean(false));
  spec.set("priorityClassName", Node::str(o.priority_class),
           "Evicting a holder under pressure would hang every volume of the cluster\n"
           "on the node.");
  spec.set("terminationGracePeriodSeconds", Node::integer(grace.count()),
           fmt::format("The preStop guard may wait {}s; {}s more for the holder to remove its\n"
                       "files after SIGTERM.",
                       o.guard_max_wait.count(), kShutdownMargin.count()));
  if (!o.node_selector.empty()) {
    Node selector = Node::map();
    for (const auto& [key, value] : o.node_selector) selector.set(key, Node::str(value));
    spec.set("nodeSelector", std::move(selector));
  }
  spec.set("tolerations", Node::seq().push(std::move(tolerate_all)),
           "Every taint: wherever the node plugin runs, its holder must run too.");
  spec.set("securityContext", pod_security_context());
  spec.set("containers", Node::seq().push(holder_container(o)));
  spec.set("volumes", Node::seq().push(std::move(volume)));
  return spec;
}

}  // namespace

void validate(const HolderOptions& o) {
  validate_cluster_id(o.cluster_id);
  validate_driver(o.driver);
  if (!o.kind) (void)kind_from_driver(o.driver);
  validate_image(o.image);
  validate_dns_label("namespace", o.ns);
  if (!o.name.empty()) validate_dns_label("DaemonSet name", o.name);
  validate_abs_path("kubelet directory", o.kubelet_dir);
  validate_dns_label("priority class", o.priority_class);
  if (o.guard_max_wait.count() <= 0 || o.guard_max_wait > kMaxGuardWait) {
    throw Error(Errc::invalid_argument,
                fmt::format("invalid guard wait {}s", o.guard_max_wait.count()),
                "pass --guard-max-wait between 1s and 1h");
  }
  // The same path ceph-csi's config will name (checks the socket path length).
  (void)net_namespace_file_path(o.kubelet_dir, o.driver, o.cluster_id, o.socket);
  if (o.socket && o.allow_uids.empty()) {
    throw Error(Errc::invalid_argument, "socket mode without any --allow-uid",
                "pass the uid the node plugin runs as (0 for ceph-csi)");
  }
  if (!o.multus.empty()) {
    // Multus takes "net", "ns/net", "net@iface", comma lists or JSON; we only
    // refuse what cannot be right in an annotation.
    for (char c : o.multus) {
      if (static_cast<unsigned char>(c) < 0x20) {
        throw Error(Errc::invalid_argument,
                    fmt::format("invalid Multus network {}", quote(o.multus)),
                    "pass a NetworkAttachmentDefinition name such as storage/ceph-public");
      }
    }
  }
}

std::vector<std::string> holder_command(const HolderOptions& o) {
  std::vector<std::string> cmd = {kHolderBinary, "--cluster-id", o.cluster_id, "--dir", dir_of(o)};
  if (o.socket) {
    cmd.emplace_back("--socket");
    for (unsigned uid : o.allow_uids) {
      cmd.emplace_back("--allow-uid");
      cmd.push_back(std::to_string(uid));
    }
  }
  return cmd;
}

std::vector<std::string> holder_check_command(const HolderOptions& o) {
  return {kHolderBinary, "check", "--cluster-id", o.cluster_id, "--dir", dir_of(o)};
}

std::vector<std::string> guard_command(const HolderOptions& o) {
  // The preStop exec runs inside the holder container, so its own network
  // namespace *is* the pod's, the one whose teardown is at stake. Reading it
  // directly (rather than through the published link or socket) still works
  // when the holder process has crashed and its files are stale.
  return {kExecBinary, "guard", "--wait-idle", "--netns", "/proc/self/ns/net", "--allow-own-netns",
          "--max-wait", fmt::format("{}s", o.guard_max_wait.count())};
}

std::string holder_invocation(const HolderOptions& o) {
  std::string s = fmt::format("netns-manifest holder --cluster-id {} --driver {} --image {}",
                              quote_scalar(o.cluster_id), o.driver, o.image);
  if (o.kind) s += fmt::format(" --kind {}", kind_name(*o.kind));
  if (o.ns != "ceph-csi") s += fmt::format(" --namespace {}", o.ns);
  if (!o.multus.empty()) s += fmt::format(" --multus {}", quote_scalar(o.multus));
  if (o.socket) {
    s += " --socket";
    if (o.allow_uids != std::vector<unsigned>{0}) {
      for (unsigned uid : o.allow_uids) s += fmt::format(" --allow-uid {}", uid);
    }
  }
  if (o.kubelet_dir != "/var/lib/kubelet") s += fmt::format(" --kubelet-dir {}", o.kubelet_dir);
  if (!o.name.empty()) s += fmt::format(" --name {}", o.name);
  if (o.guard_max_wait != std::chrono::seconds{300})
    s += fmt::format(" --guard-max-wait {}s", o.guard_max_wait.count());
  for (const auto& [k, v] : o.node_selector) s += fmt::format(" --node-selector {}={}", k, v);
  if (o.priority_class != "system-node-critical")
    s += fmt::format(" --priority-class {}", o.priority_class);
  return s;
}

Node holder_daemonset(const HolderOptions& o) {
  validate(o);

  Node meta = Node::map();
  meta.set("name", Node::str(name_of(o)));
  meta.set("namespace", Node::str(o.ns));
  meta.set("labels", labels(o));
  meta.set("annotations", annotations(o, false));

  Node match = Node::map();
  match.set("app.kubernetes.io/name", Node::str("netns-holder"));
  match.set("app.kubernetes.io/instance", Node::str(name_of(o)));
  Node selector = Node::map();
  selector.set("matchLabels", std::move(match));

  Node strategy = Node::map();
  strategy.set("type", Node::str("OnDelete"));

  Node template_meta = Node::map();
  template_meta.set("labels", labels(o));
  template_meta.set("annotations", annotations(o, true));
  Node pod_template = Node::map();
  pod_template.set("metadata", std::move(template_meta));
  pod_template.set("spec", pod_spec(o));

  Node spec = Node::map();
  spec.set("selector", std::move(selector));
  spec.set("updateStrategy", std::move(strategy),
           "OnDelete, never RollingUpdate: replacing a holder pod destroys the network\n"
           "namespace that every mapped RBD image and mounted CephFS of this cluster on\n"
           "the node talks through, and those mounts would hang. A new image or setting\n"
           "reaches a node only when someone deletes its holder pod on purpose, after\n"
           "draining the node (see design/DESIGN.md, \"Upgrading\").");
  spec.set("template", std::move(pod_template));

  Node ds = Node::map();
  ds.set("apiVersion", Node::str("apps/v1"));
  ds.set("kind", Node::str("DaemonSet"));
  ds.set("metadata", std::move(meta));
  ds.set("spec", std::move(spec));
  return ds;
}

}  // namespace netns::manifest
