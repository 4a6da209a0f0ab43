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

{{- define "netns-plugin.validate" -}}
{{- if and .Values.hostNetwork .Values.multus -}}
{{- fail "--multus with --host-network: a hostNetwork pod gets no Multus interfaces; drop one of the two" -}}
{{- end -}}
{{- end -}}
