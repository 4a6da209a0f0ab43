{{/*
The pieces both outputs share, so the post-rendered DaemonSet and the
strategic-merge patch make exactly the same changes. Each takes the root
context; the sidecar also "csiAddress".
*/}}

{{- define "netns-plugin.port" -}}
name: healthz
containerPort: {{ .Values.livenessprobe.port }}
protocol: TCP
{{- end -}}

{{- define "netns-plugin.livenessProbe" -}}
httpGet:
  path: /healthz
  port: healthz
initialDelaySeconds: 10
periodSeconds: 20
timeoutSeconds: 5
failureThreshold: 3
{{- end -}}

{{- define "netns-plugin.sidecar" -}}
name: liveness-probe
image: {{ .root.Values.livenessprobe.image | quote }}
args:
  - {{ printf "--csi-address=%s" .csiAddress | quote }}
  - {{ printf "--health-port=%d" (int64 .root.Values.livenessprobe.port) | quote }}
securityContext:
  privileged: false
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  capabilities:
    drop:
      - ALL
resources:
  requests:
    cpu: 5m
    memory: 16Mi
  limits:
    cpu: 50m
    memory: 64Mi
volumeMounts:
  - name: socket-dir
    mountPath: /csi
{{- end -}}

{{- /*
The plugin pod's own route to Ceph. ceph-csi opens RADOS connections
in-process from the plugin pod (CreateVolume, and NodeStageVolume before any
`rbd map`); only the kernel sessions live in the holders. So the pod needs the
storage network itself: exactly one of a Multus attachment, a pod network that
routes to Ceph (said explicitly), or the host's network.
*/ -}}
{{- define "netns-plugin.validate" -}}
{{- $v := .Values -}}
{{- if and $v.hostNetwork $v.multus -}}
{{- fail "--multus with --host-network: a hostNetwork pod gets no Multus interfaces; drop one of the two" -}}
{{- end -}}
{{- if and $v.podNetworkReachesCeph (or $v.multus $v.hostNetwork) -}}
{{- fail "--pod-network-reaches-ceph with --multus or --host-network: say one way the plugin pod reaches Ceph; drop the others" -}}
{{- end -}}
{{- if not (or $v.hostNetwork $v.multus $v.podNetworkReachesCeph) -}}
{{- fail "the node plugin pod needs its own route to Ceph: ceph-csi opens RADOS connections in-process from the plugin pod (CreateVolume, and NodeStageVolume before any rbd map), and only the kernel sessions live in the holders. Pass --multus=NAMESPACE/NETWORK (the storage network, as the holders' multus), or --pod-network-reaches-ceph if the cluster's pod network routes to the Ceph public network (--host-network keeps the plugin on the host's)" -}}
{{- end -}}
{{- end -}}
