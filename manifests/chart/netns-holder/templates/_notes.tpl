{{/* NOTES.txt is this, so a test can render it with helm template (helm install --dry-run needs a cluster). */}}
{{- define "netns-holder.notes" -}}
{{- $holders := (include "netns-holder.holders" . | fromJson).holders -}}
netns-holder ({{ .Values.mode }} mode): {{ len $holders }} holder DaemonSet(s) in namespace {{ .Release.Namespace }}:
{{- range $holders }}
  {{ .name }}  cluster {{ .cluster }}, {{ .driver }} -> {{ .path }}
{{- end }}

1. Point ceph-csi at the holders (netNamespaceFilePath for every cluster and kind):
     kubectl -n {{ .Release.Namespace }} get configmap {{ .Release.Name }}-ceph-csi -o jsonpath='{.data.csi-values\.yaml}' > netns-csi-values.yaml
   ceph-csi installed with its chart: add `-f netns-csi-values.yaml` to its helm upgrade
   (merge with your own csiConfig). Plain YAML: use the config.json key of the same ConfigMap
   {{- if .Values.cephCsiConfig.create }} (this release also manages ConfigMap {{ .Values.cephCsiConfig.name }}){{ end }}.

2. Move the node plugin off the host network (and, in socket mode, off hostPID):
   ceph-csi's chart: every helm install/upgrade of it with
     --post-renderer manifests/plugin/post-renderer --post-renderer-args --mode={{ .Values.mode }}
   plain YAML: the strategic-merge patch from manifests/plugin/render-patch.
   See manifests/README.md, "Deploying next to ceph-csi".

3. Upgrading the holders: updateStrategy is OnDelete, so `helm upgrade` changes only
   the DaemonSet templates and the controller never replaces a running holder (that
   would hang every mount of its cluster on the node). Roll a new image out without a
   drain, one holder pod at a time:
     kubectl -n {{ .Release.Namespace }} set image pod/<holder pod> holder=<new image>
   (only the image of a running pod can change in place; the namespace stays), after the
   DaemonSet template already carries it (this upgrade), so a pod the controller
   recreates later gets the same image. The runbook: design/DESIGN.md,
   "Upgrading holders in place". Any other change reaches a node only when its holder
   pod is deleted on purpose, after draining the node.
{{- end -}}
