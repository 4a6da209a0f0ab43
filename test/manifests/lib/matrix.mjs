// The values the chart is rendered, linted and validated with: every knob at
// least once, in every mode.
import { IMAGE, SAMPLE_CLUSTERS, sampleValues } from "./helm.mjs";

export const VALUE_MATRIX = {
  "symlink, three clusters": sampleValues("symlink"),
  "socket, three clusters": sampleValues("socket"),
  "socket, allowUids 0 and 1000": sampleValues("socket", { allowUids: [0, 1000] }),
  "one driver per cluster, a rook driver name": {
    mode: "symlink",
    image: IMAGE,
    clusters: [
      { id: "rook-ceph", drivers: ["rook-ceph.rbd.csi.ceph.com"] },
      { id: "other", drivers: [{ name: "block.example.com", kind: "rbd" }, "cephfs.csi.ceph.com"] },
    ],
  },
  "library, three clusters, rbd cephfs nfs": sampleValues("library", { defaultDrivers: ["rbd.csi.ceph.com", "cephfs.csi.ceph.com", "nfs.csi.ceph.com"] }),
  "nfs driver": { mode: "socket", image: IMAGE, clusters: [{ id: "c1", drivers: ["nfs.csi.ceph.com"] }] },
  "placement, resources and metadata": sampleValues("symlink", {
    image: { ...IMAGE, pullPolicy: "Always" },
    imagePullSecrets: [{ name: "regcred" }],
    tolerations: [{ operator: "Exists" }, { key: "storage", operator: "Equal", value: "ceph", effect: "NoSchedule" }],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "storage", operator: "In", values: ["ceph"] }] }],
        },
      },
    },
    nodeSelector: { "kubernetes.io/os": "linux", "node-role.kubernetes.io/storage": "true" },
    resources: { requests: { cpu: "10m", memory: "16Mi" }, limits: { cpu: "200m", memory: "64Mi" } },
    labels: { team: "storage", "example.com/tier": "1" },
    annotations: { "example.com/owner": "storage-team" },
    podLabels: { "example.com/pod": "holder" },
    podAnnotations: { "example.com/scrape": "false" },
  }),
  "kubelet dir, guard wait, ceph-csi ConfigMap": sampleValues("symlink", {
    kubeletDir: "/var/data/kubelet",
    guardMaxWait: 600,
    cephCsiConfig: { create: true, name: "my-ceph-csi-config" },
  }),
  "storage-network readiness and fencing": sampleValues("socket", {
    clusters: [
      { id: "ceph-east", multus: "storage/ceph-east, storage/backup@bk0", requireReachable: ["198.18.10.1:3300", "[2001:db8::1]:6789"] },
      { id: "Ceph_West.2", requireInterfaces: ["storage0"] },
    ],
    fencing: {
      networkFenceClass: { create: true, secretName: "csi-rbd-secret", secretNamespace: "ceph-csi" },
      networkFences: [
        { node: "worker-3", cluster: "ceph-east", cidrs: ["198.18.0.21/32", "198.18.10.7/32"] },
        { node: "worker-3", cluster: "Ceph_West.2", kind: "cephfs", cidrs: ["2001:db8::7/128"], fenceState: "Unfenced" },
      ],
    },
  }),
  "no tag: the chart's appVersion": { mode: "symlink", image: { repository: IMAGE.repository }, clusters: SAMPLE_CLUSTERS },
};
