#include "plugin_patch.hpp"

#include <fmt/format.h>

#include "netns/error.hpp"

namespace netns::manifest {

namespace {

Kind kind_of(const PluginPatchOptions& o) {
  return o.kind ? *o.kind : kind_from_driver(o.driver);
}

std::string daemonset_of(const PluginPatchOptions& o) {
  return o.daemonset.empty() ? default_plugin_daemonset(kind_of(o)) : o.daemonset;
}

std::string container_of(const PluginPatchOptions& o) {
  return o.plugin_container.empty() ? daemonset_of(o) : o.plugin_container;
}

Node plugin_container(const PluginPatchOptions& o) {
  Node port = Node::map();
  port.set("name", Node::str("healthz"));
  port.set("containerPort", Node::integer(o.liveness_port));
  port.set("protocol", Node::str("TCP"));

  Node http_get = Node::map();
  http_get.set("path", Node::str("/healthz"));
  http_get.set("port", Node::str("healthz"));
  Node probe = Node::map();
  probe.set("httpGet", std::move(http_get));
  probe.set("initialDelaySeconds", Node::integer(10));
  probe.set("periodSeconds", Node::integer(20));
  probe.set("timeoutSeconds", Node::integer(5));
  probe.set("failureThreshold", Node::integer(3));

  Node c = Node::map();
  c.set("name", Node::str(container_of(o)));
  if (!o.plugin_image.empty()) {
    c.set("image", Node::str(o.plugin_image),
          "ceph-csi plus netns-exec (manifests/images/Containerfile.plugin).");
  }
  c.set("ports", Node::seq().push(std::move(port)),
        o.host_network
            ? "The port the livenessprobe sidecar serves. With hostNetwork it is a port on\n"
              "the node: make sure no other CSI driver's sidecar uses it."
            : "Declared for the probe only: with pod networking this port lives in the\n"
              "plugin pod's own namespace, never on the node (no hostPort).");
  c.set("livenessProbe", std::move(probe),
        "The kubelet asks the sidecar, which calls the driver's CSI Probe().");
  return c;
}

Node liveness_sidecar(const PluginPatchOptions& o) {
  Node caps = Node::map();
  caps.set("drop", Node::strings({"ALL"}));
  Node sc = Node::map();
  sc.set("privileged", Node::boolean(false));
  sc.set("allowPrivilegeEscalation", Node::boolean(false));
  sc.set("readOnlyRootFilesystem", Node::boolean(true));
  sc.set("capabilities", std::move(caps));

  Node requests = Node::map();
  requests.set("cpu", Node::str("5m"));
  requests.set("memory", Node::str("16Mi"));
  Node limits = Node::map();
  limits.set("cpu", Node::str("50m"));
  limits.set("memory", Node::str("64Mi"));
  Node resources = Node::map();
  resources.set("requests", std::move(requests));
  resources.set("limits", std::move(limits));

  Node mount = Node::map();
  mount.set("name", Node::str("socket-dir"));
  mount.set("mountPath", Node::str("/csi"));

  Node c = Node::map();
  c.set("name", Node::str("liveness-probe"));
  c.set("image", Node::str(o.livenessprobe_image));
  c.set("args", Node::strings({"--csi-address=/csi/csi.sock",
                               fmt::format("--health-port={}", o.liveness_port)}));
  c.set("securityContext", std::move(sc));
  c.set("resources", std::move(resources));
  c.set("volumeMounts", Node::seq().push(std::move(mount)),
        "ceph-csi's socket-dir volume: <kubelet>/plugins/<driver>, where csi.sock is.");
  return c;
}

}  // namespace

std::string default_plugin_daemonset(Kind kind) {
  switch (kind) {
    case Kind::rbd: return "csi-rbdplugin";
    case Kind::cephfs: return "csi-cephfsplugin";
    case Kind::nfs: return "csi-nfsplugin";
  }
  return "csi-rbdplugin";
}

void validate(const PluginPatchOptions& o) {
  validate_driver(o.driver);
  if (!o.kind) (void)kind_from_driver(o.driver);
  validate_dns_label("namespace", o.ns);
  if (!o.daemonset.empty()) validate_dns_label("DaemonSet name", o.daemonset);
  if (!o.plugin_container.empty()) validate_dns_label("container name", o.plugin_container);
  if (!o.plugin_image.empty()) validate_image(o.plugin_image);
  validate_image(o.livenessprobe_image);
  if (o.liveness_port == 0 || o.liveness_port > 65535) {
    throw Error(Errc::invalid_argument, fmt::format("invalid liveness port {}", o.liveness_port),
                "pass a TCP port between 1 and 65535");
  }
  if (o.host_network && !o.multus.empty()) {
    throw Error(Errc::invalid_argument, "--multus with --host-network",
                "a hostNetwork pod gets no Multus interfaces; drop one of the two");
  }
}

Node plugin_patch(const PluginPatchOptions& o) {
  validate(o);

  Node meta = Node::map();
  meta.set("name", Node::str(daemonset_of(o)));
  meta.set("namespace", Node::str(o.ns));

  Node pod_spec = Node::map();
  if (o.host_network) {
    pod_spec.set("hostNetwork", Node::boolean(true),
                 "Kept on the host network by request: kernel sessions still go through the\n"
                 "holders (netNamespaceFilePath), the plugin's own Ceph calls use the host's.");
  } else {
    pod_spec.set("hostNetwork", Node::boolean(false),
                 "Pod networking: restarting this pod no longer matters to kernel RBD/CephFS\n"
                 "sessions, which live in the holders' namespaces.");
    pod_spec.set("dnsPolicy", Node::str("ClusterFirst"),
                 "ceph-csi ships ClusterFirstWithHostNet, which only means something with\n"
                 "hostNetwork.");
  }
  if (o.socket) {
    pod_spec.set("hostPID", Node::boolean(false),
                 "Socket mode: the namespace fd comes over the holder socket, no /proc/<pid>\n"
                 "of another pod is ever looked up.");
  } else {
    pod_spec.set("hostPID", Node::boolean(true),
                 "Symlink mode: <ID>.net.ns resolves to /proc/<holder pid>/ns/net, a path\n"
                 "that names the holder only in the host's pid namespace.");
  }
  pod_spec.set("containers",
               Node::seq().push(plugin_container(o)).push(liveness_sidecar(o),
                   "The CSI livenessprobe sidecar: an HTTP /healthz that calls Probe() on\n"
                   "csi.sock, so no host port is needed to check the plugin."));

  Node template_node = Node::map();
  if (!o.multus.empty()) {
    Node annotations = Node::map();
    annotations.set("k8s.v1.cni.cncf.io/networks", Node::str(o.multus),
                    "The plugin's own librados/librbd calls (not the kernel client) reach\n"
                    "Ceph through this network.");
    Node template_meta = Node::map();
    template_meta.set("annotations", std::move(annotations));
    template_node.set("metadata", std::move(template_meta));
  }
  template_node.set("spec", std::move(pod_spec));

  Node spec = Node::map();
  spec.set("template", std::move(template_node));

  Node patch = Node::map();
  patch.set("apiVersion", Node::str("apps/v1"));
  patch.set("kind", Node::str("DaemonSet"));
  patch.set("metadata", std::move(meta));
  patch.set("spec", std::move(spec));
  return patch;
}

std::string plugin_invocation(const PluginPatchOptions& o) {
  std::string s = fmt::format("netns-manifest plugin-patch --driver {}", o.driver);
  if (o.kind) s += fmt::format(" --kind {}", kind_name(*o.kind));
  if (o.ns != "ceph-csi") s += fmt::format(" --namespace {}", o.ns);
  if (!o.daemonset.empty()) s += fmt::format(" --daemonset {}", o.daemonset);
  if (!o.plugin_container.empty()) s += fmt::format(" --container {}", o.plugin_container);
  if (!o.plugin_image.empty()) s += fmt::format(" --plugin-image {}", o.plugin_image);
  if (o.host_network) s += " --host-network";
  if (o.socket) s += " --socket";
  if (!o.multus.empty()) s += fmt::format(" --multus {}", quote_scalar(o.multus));
  if (o.livenessprobe_image != PluginPatchOptions{}.livenessprobe_image)
    s += fmt::format(" --livenessprobe-image {}", o.livenessprobe_image);
  if (o.liveness_port != 9808) s += fmt::format(" --liveness-port {}", o.liveness_port);
  return s;
}

}  // namespace netns::manifest
