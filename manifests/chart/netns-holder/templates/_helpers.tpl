{{/*
Names and paths every object shares, derived in one place so a holder's --dir,
its probes, its hostPath and ceph-csi's netNamespaceFilePath can never disagree.
*/}}

{{/*
FNV-1a (32 bit) of a string, as 8 hex digits: the hash netns-manifest used
(its names.cpp, before the chart replaced it), so existing DaemonSets keep their
names. Templates have no XOR: the low byte is XORed bit by bit.
*/}}
{{- define "netns-holder.fnv1a" -}}
{{- $h := 2166136261 -}}
{{- $s := . -}}
{{- range $i := until (len $s) -}}
{{- $c := int (index $s $i) -}}
{{- $lo := int (mod $h 256) -}}
{{- $x := 0 -}}
{{- range $bit := list 1 2 4 8 16 32 64 128 -}}
{{- if ne (mod (div $lo $bit) 2) (mod (div $c $bit) 2) -}}{{- $x = add $x $bit -}}{{- end -}}
{{- end -}}
{{- $h = mod (mul (add (sub $h $lo) $x) 16777619) 4294967296 -}}
{{- end -}}
{{- printf "%08x" (int64 $h) -}}
{{- end -}}

{{/*
The DaemonSet name, a DNS-1123 label: netns-holder-<kind>-<id>, the ID lower-cased
and every character outside [a-z0-9-] replaced by '-'. When that loses information
(upper case, '.', '_', a trailing '-') or is too long, the FNV-1a of the exact ID is
appended, so two IDs never share a name. Input: dict "kind" "id".
*/}}
{{- define "netns-holder.dsName" -}}
{{- $prefix := printf "netns-holder-%s-" .kind -}}
{{- $part := regexReplaceAll "[^a-z0-9-]" (lower .id) "-" -}}
{{- $lossy := or (ne $part .id) (hasSuffix "-" $part) -}}
{{- $room := sub 63 (len $prefix) -}}
{{- if or $lossy (gt (len $part) (int $room)) -}}
{{- $hash := include "netns-holder.fnv1a" .id -}}
{{- $part = trunc (int (min (len $part) (sub $room 9))) $part -}}
{{- $part = regexReplaceAll "-+$" $part "" -}}
{{- $part = ternary $hash (printf "%s-%s" $part $hash) (eq $part "") -}}
{{- end -}}
{{- printf "%s%s" $prefix $part -}}
{{- end -}}

{{/* The kind of a driver: given, or from ceph-csi's name suffix. Input: dict "driver". */}}
{{- define "netns-holder.kind" -}}
{{- $d := .driver -}}
{{- if kindIs "map" $d -}}
{{- $d.kind -}}
{{- else if or (eq $d "rbd.csi.ceph.com") (hasSuffix ".rbd.csi.ceph.com" $d) -}}rbd
{{- else if or (eq $d "cephfs.csi.ceph.com") (hasSuffix ".cephfs.csi.ceph.com" $d) -}}cephfs
{{- else if or (eq $d "nfs.csi.ceph.com") (hasSuffix ".nfs.csi.ceph.com" $d) -}}nfs
{{- else if or (eq $d "nvmeof.csi.ceph.com") (hasSuffix ".nvmeof.csi.ceph.com" $d) -}}nvmeof
{{- else -}}
{{- fail (printf "cannot tell the kind of CSI driver %q: ceph-csi drivers end in rbd.csi.ceph.com, cephfs.csi.ceph.com, nfs.csi.ceph.com or nvmeof.csi.ceph.com; for another name write {name: %s, kind: rbd|cephfs|nfs|nvmeof}" $d $d) -}}
{{- end -}}
{{- end -}}

{{/*
"true" when the holders hand the namespace fd out over <ID>.net.sock: socket
mode, and library mode (socket-mode holders for ceph-csi's patched plugin,
which calls the library in-process with netNamespaceFilePath naming the socket).
*/}}
{{- define "netns-holder.socket" -}}
{{- has .Values.mode (list "socket" "library") -}}
{{- end -}}

{{/*
Every holder the values ask for, checked, as JSON {"holders": [...]}: cluster,
driver, kind, name, dir, path (ceph-csi's netNamespaceFilePath), record (the
holder's <ID>.holder.json, for the preStop guard), multus, requireInterfaces
(given, or the interfaces Multus creates for the networks), requireReachable.
*/}}
{{- define "netns-holder.holders" -}}
{{- $v := .Values -}}
{{- $socket := include "netns-holder.socket" . | eq "true" -}}
{{- if and (not $socket) $v.allowUids -}}
{{- fail (printf "allowUids %v is set but mode is %q: allowUids applies to socket and library mode only (set mode: socket, or remove allowUids)" $v.allowUids $v.mode) -}}
{{- end -}}
{{- $kubelet := ternary "" $v.kubeletDir (eq $v.kubeletDir "/") -}}
{{- $holders := list -}}
{{- $ids := dict -}}
{{- $targets := dict -}}
{{- $names := dict -}}
{{- range $c := $v.clusters -}}
{{- if hasKey $ids $c.id -}}
{{- fail (printf "cluster %q is listed twice in clusters: each Ceph cluster has one entry (list all its drivers there)" $c.id) -}}
{{- end -}}
{{- $_ := set $ids $c.id true -}}
{{- range $t := ($c.targets | default list) -}}
{{- $key := lower (trimSuffix "." $t) -}}
{{- if and (hasKey $targets $key) (ne (get $targets $key) $c.id) -}}
{{- fail (printf "target %q is declared for clusters %q and %q: netns-exec cannot tell whose holder serves it and refuses every call to it (declare each address, network or name for one cluster; an overlapping, more specific network is fine: the most specific wins)" $t (get $targets $key) $c.id) -}}
{{- end -}}
{{- $_ := set $targets $key $c.id -}}
{{- end -}}
{{- $kinds := dict -}}
{{- range $d := ($c.drivers | default $v.defaultDrivers) -}}
{{- $driver := $d -}}
{{- if kindIs "map" $d }}{{ $driver = $d.name }}{{ end -}}
{{- $kind := include "netns-holder.kind" (dict "driver" $d) -}}
{{- if hasKey $kinds $kind -}}
{{- fail (printf "cluster %q: two drivers of kind %s (%s and %s): ceph-csi's config has one netNamespaceFilePath per kind and cluster" $c.id $kind (get $kinds $kind) $driver) -}}
{{- end -}}
{{- if and (eq $v.mode "library") (eq $kind "nvmeof") -}}
{{- fail (printf "cluster %q: driver %s is nvmeof, and library mode has none: the ceph-csi patch series (integrations/ceph-csi) covers rbd, cephfs and nfs (ceph-csi v3.12.2 has no nvmeof driver); hold nvmeof in a socket-mode release" $c.id $driver) -}}
{{- end -}}
{{- $_ := set $kinds $kind $driver -}}
{{- $name := include "netns-holder.dsName" (dict "kind" $kind "id" $c.id) -}}
{{- if hasKey $names $name -}}
{{- fail (printf "clusters %q and %q would both be served by DaemonSet %s" (get $names $name) $c.id $name) -}}
{{- end -}}
{{- $_ := set $names $name $c.id -}}
{{- $dir := printf "%s/plugins/%s" $kubelet $driver -}}
{{- $path := printf "%s/%s.%s" $dir $c.id (ternary "net.sock" "net.ns" $socket) -}}
{{- if and $socket (gt (len $path) 107) -}}
{{- fail (printf "socket path %q is %d bytes; a unix socket path holds at most 107: use a shorter cluster ID, driver name or kubeletDir, or symlink mode" $path (len $path)) -}}
{{- end -}}
{{- $ifaces := list -}}
{{- if hasKey $c "requireInterfaces" -}}
{{- $ifaces = $c.requireInterfaces | default list -}}
{{- else if $c.multus -}}
{{- $ifaces = (include "netns-holder.multusInterfaces" $c.multus | fromJson).interfaces -}}
{{- end -}}
{{- $holders = append $holders (dict "cluster" $c.id "driver" $driver "kind" $kind "name" $name "dir" $dir "path" $path "record" (printf "%s/%s.holder.json" $dir $c.id) "multus" ($c.multus | default "") "monitors" ($c.monitors | default list) "requireInterfaces" $ifaces "requireReachable" ($c.requireReachable | default list) "targets" ($c.targets | default list)) -}}
{{- end -}}
{{- end -}}
{{- toJson (dict "holders" $holders) -}}
{{- end -}}

{{/*
The interfaces Multus adds to a pod for a k8s.v1.cni.cncf.io/networks value, as
JSON {"interfaces": [...]}: an entry's own name (NAME@IFNAME, or "interface" in
the JSON form), else net1, net2, ... by its position (Multus's default names).
*/}}
{{- define "netns-holder.multusInterfaces" -}}
{{- $entries := list -}}
{{- $m := trim . -}}
{{- if hasPrefix "[" $m -}}
{{- range $i, $e := fromJsonArray $m -}}
{{- $entries = append $entries (ternary (get $e "interface") (printf "net%d" (add1 $i)) (and (kindIs "map" $e) (hasKey $e "interface"))) -}}
{{- end -}}
{{- else -}}
{{- range $i, $e := splitList "," $m -}}
{{- $parts := splitList "@" (trim $e) -}}
{{- $entries = append $entries (ternary (last $parts) (printf "net%d" (add1 $i)) (gt (len $parts) 1)) -}}
{{- end -}}
{{- end -}}
{{- toJson (dict "interfaces" $entries) -}}
{{- end -}}

{{- define "netns-holder.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* Labels of every object; the holder's own are added per DaemonSet. */}}
{{- define "netns-holder.commonLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service | quote }}
{{- range $k, $val := .Values.labels }}
{{ $k }}: {{ $val | quote }}
{{- end }}
{{- end -}}
