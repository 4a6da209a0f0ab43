{{/*
ceph-csi's cluster config (config.json), one entry per cluster with
netNamespaceFilePath for every kind it has a holder for (nvmeof has no entry:
ceph-csi's nvmeof driver reads none; its holders are found through
NETNS_EXEC_TARGETS). Written out by hand so
the keys keep ceph-csi's documented order. Input: the root context.
*/}}
{{- define "netns-holder.configJson" -}}
{{- $holders := (include "netns-holder.holders" . | fromJson).holders -}}
{{- $sections := dict "rbd" "rbd" "cephfs" "cephFS" "nfs" "nfs" -}}
[
{{- range $i, $c := .Values.clusters }}
{{- if $i }},{{ end }}
  {
    "clusterID": {{ toJson $c.id }}
    {{- with $c.monitors }},
    "monitors": {{ toJson . }}
    {{- end }}
    {{- range $h := $holders }}
    {{- if and (eq $h.cluster $c.id) (hasKey $sections $h.kind) }},
    "{{ get $sections $h.kind }}": {
      "netNamespaceFilePath": {{ toJson $h.path }}
    }
    {{- end }}
    {{- end }}
  }
{{- end }}
]
{{ end -}}

{{/* The same entries as values for the ceph-csi charts (csiConfig). */}}
{{- define "netns-holder.csiValues" -}}
{{- $holders := (include "netns-holder.holders" . | fromJson).holders -}}
{{- $sections := dict "rbd" "rbd" "cephfs" "cephFS" "nfs" "nfs" -}}
{{- if eq .Values.mode "library" }}
# The holder sockets for the ceph-csi-rbd / ceph-csi-cephfs charts' csiConfig:
# ceph-csi's patched plugin (library mode) calls the library with each.
{{- else }}
# The nsenter form's paths for the ceph-csi-rbd / ceph-csi-cephfs charts' csiConfig
# (transparent mode needs none: see netns-exec-env).
{{- end }}
# Not as a second -f: Helm replaces the whole list, and your entries lose their
# subvolumeGroup, radosNamespace, ... Copy each netNamespaceFilePath into your
# own entry.
csiConfig:
{{- range $c := .Values.clusters }}
  - clusterID: {{ $c.id | quote }}
    {{- with $c.monitors }}
    monitors:
      {{- range . }}
      - {{ . | quote }}
      {{- end }}
    {{- end }}
    {{- range $h := $holders }}
    {{- if and (eq $h.cluster $c.id) (hasKey $sections $h.kind) }}
    {{ get $sections $h.kind }}:
      netNamespaceFilePath: {{ $h.path | quote }}
    {{- end }}
    {{- end }}
{{- end }}
{{ end -}}
