{{/* NOTES.txt is this, so a test can render it with helm template (helm install --dry-run needs a cluster). */}}
{{- define "netns-holder.notes" -}}
{{- $holders := (include "netns-holder.holders" . | fromJson).holders -}}
{{- /* nvmeof / nfs drivers: the shim, the clusters with targets and those without. */ -}}
{{- $byTarget := dict -}}
{{- range $h := $holders }}{{ if has $h.kind (list "nvmeof" "nfs") }}
{{- $e := get $byTarget $h.driver | default (dict "tool" (ternary "nvme" "mount.nfs" (eq $h.kind "nvmeof")) "with" list "without" list) }}
{{- if $h.targets }}{{ $_ := set $e "with" (append $e.with $h.cluster) }}{{ else }}{{ $_ := set $e "without" (append $e.without $h.cluster) }}{{ end }}
{{- $_ := set $byTarget $h.driver $e }}
{{- end }}{{ end -}}
{{- /* The holders' Multus networks: a hint for the plugin's own. */ -}}
{{- $networks := list -}}
{{- range .Values.clusters }}{{ with .multus }}{{ $networks = append $networks . }}{{ end }}{{ end -}}
{{- $networks = uniq $networks -}}
netns-holder ({{ .Values.mode }} mode): {{ len $holders }} holder DaemonSet(s) in namespace {{ .Release.Namespace }}:
{{- range $holders }}
  {{ .name }}  cluster {{ .cluster }}, {{ .driver }} -> {{ .path }}
{{- end }}

{{- if eq .Values.mode "library" }}

1. Library mode: the node plugin is ceph-csi's patched plugin (the library plugin image:
   build-plugin-image.sh --library, the patch series integrations/ceph-csi),
   which calls the library in-process for rbd map / mount -t ceph / mount -t nfs: no shims,
   no nsenter, no hostPID. Give ceph-csi the holder sockets as netNamespaceFilePath:
     kubectl -n {{ .Release.Namespace }} get configmap {{ .Release.Name }}-ceph-csi -o jsonpath='{.data.csi-values\.yaml}' > netns-csi-values.yaml
   and copy each netNamespaceFilePath into your own csiConfig entry (a second -f replaces
   the whole list, and with it your subvolumeGroup / radosNamespace). Plain YAML: merge the
   config.json key of the same ConfigMap
   {{- if .Values.cephCsiConfig.create }} (this release also manages ConfigMap {{ .Values.cephCsiConfig.name }}){{ end }}.
   The plugin DaemonSet: the Kustomize component manifests/kustomize/library, which needs
   the plugin pod's own storage network (ConfigMap netns-exec-plugin-network, key
   networks, in your kustomization): ceph-csi opens RADOS in-process from the plugin pod;
   only the kernel sessions live in the holders.
   See manifests/README.md, "Library mode: ceph-csi's patched plugin".
{{- else }}

1. The node plugin (ceph-csi's image with netns-exec as rbd / mount.ceph, and the Kustomize
   component manifests/kustomize/plugin, plus manifests/kustomize/socket-mode in socket mode):
   it reads the held clusters and the holder directory of its driver from ConfigMap
   netns-exec-env of this release, and picks the holder by the monitors each command names.
   ceph-csi's config needs no netNamespaceFilePath then: keep your csiConfig as it is.
   See manifests/README.md, "Deploying next to ceph-csi".
{{- range $driver := keys $byTarget | sortAlpha }}
{{- $e := get $byTarget $driver }}
{{- if $e.with }}
   {{ $driver }}: netns-exec as {{ $e.tool }} picks the holder by the address each command
   names, from key {{ $driver }}.targets of netns-exec-env (NETNS_EXEC_TARGETS).
   {{- with $e.without }}
   Clusters without targets ({{ join ", " . }}): no command is routed to their holders.
   {{- end }}
{{- else }}
   WARNING: {{ $driver }} has holders but none of its clusters has targets, so
   netns-exec-env has no key {{ $driver }}.targets and the component's node plugin for
   it does not start (CreateContainerConfigError). Give those clusters targets: the
   NVMe-oF gateways / NFS servers their holders serve.
{{- end }}
{{- end }}

   Required for ceph-csi: the node plugin pod's own storage network (a Multus attachment with
   the route to the Ceph public network). ceph-csi opens RADOS connections in-process from
   the plugin pod (CreateVolume, and NodeStageVolume before any rbd map); only the kernel
   sessions live in the holders. The component takes it from ConfigMap
   netns-exec-plugin-network (key networks) in your kustomization, and fails without it.
   {{- with $networks }}
   This release's holders use: {{ join "; " . }}.
   {{- end }}
   Where the pod network routes to Ceph, list manifests/kustomize/plugin-pod-network-reaches-ceph
   instead.

2. Or the nsenter form (netNamespaceFilePath for every cluster and kind):
     kubectl -n {{ .Release.Namespace }} get configmap {{ .Release.Name }}-ceph-csi -o jsonpath='{.data.csi-values\.yaml}' > netns-csi-values.yaml
   Copy its netNamespaceFilePath entries into your own csiConfig (a second -f replaces the
   whole list, and with it your subvolumeGroup / radosNamespace). Plain YAML: merge the
   config.json key of the same ConfigMap
   {{- if .Values.cephCsiConfig.create }} (this release also manages ConfigMap {{ .Values.cephCsiConfig.name }}){{ end }}.
   The node plugin then: the component above, or every helm install/upgrade of ceph-csi with
     --post-renderer manifests/plugin/post-renderer --post-renderer-args --mode={{ .Values.mode }} \
     --post-renderer-args --multus=NAMESPACE/NETWORK
   (or --pod-network-reaches-ceph where the pod network routes to Ceph; one is required).
{{- end }}

3. Upgrading the holders needs no drain. updateStrategy is OnDelete, so `helm upgrade`
   changes only the DaemonSet templates and the controller never replaces a running
   holder (a new pod is a new network namespace: every mount of its cluster on the node
   would hang). Upgrade the plugin (netns-exec) first; then, after the helm upgrade that
   set the new image, move the running holders to it in place, one pod at a time (only a
   running pod's image can change; the kubelet replaces the container inside the same
   pod sandbox, so the namespace and every kernel session in it stay):
     scripts/upgrade-holders.sh -n {{ .Release.Namespace }} --image {{ include "netns-holder.image" . }}
   prints what it would do; add --apply to do it. By hand, per pod: announce the
   replacement to its preStop guard (so that it does not hold the stop while Ceph
   sessions are live), then patch the image:
     kubectl -n {{ .Release.Namespace }} exec <holder pod> -c holder -- /usr/bin/netns-exec guard \
       --announce-replacement 2m --netns /proc/self/ns/net --allow-own-netns \
       --holder-record <dir>/<ID>.holder.json
     kubectl -n {{ .Release.Namespace }} set image pod/<holder pod> holder={{ include "netns-holder.image" . }}
   (<dir>, <ID>: the pod's netns-holder/dir and netns-holder/cluster-id annotations).
   The guard's lines are in `kubectl logs <holder pod> -c holder` (--previous after the
   replacement). Holder pods created before the chart passed --holder-record to the
   guard ignore the announcement: on a busy node their guard holds the replacement up
   to its --max-wait, then lets it go ahead (harmless: the sandbox stays).
   The runbook: design/OPERATIONS.md, "Upgrading holders in place". A drain is needed only
   for a change that forces a new pod sandbox: the pod's network (Multus), its volumes
   (kubeletDir, driver), the mode, or any pod field other than the image. Such a change
   reaches a node only when its holder pod is deleted on purpose, after draining it.
{{- end -}}
