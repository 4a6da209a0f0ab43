# shellcheck shell=bash
# g. `netns-exec map` (krbd) on a node without the rbd module fails fast with a specific
#    message that the rbd kernel module is not available — no hang, no generic error.
#    Hermetic: the plugin pod sees an empty /sys/bus (a tmpfs over it, in the pod's own mount
#    namespace only), so the node looks module-less even where rbd is loaded; the positive path,
#    with the real module, is the kernel suite's (test/kernel).
e2e_require_holder
e2e_require_exec run
e2e_require_exec map

cid=g-c1
cfg=$E2E_RUN/csi/g/config.json
conf=$E2E_RUN/c1/ceph.conf
holder=$E2E_ID-g-holder
plugin=$E2E_ID-g-plugin

e2e_holder_start "$E2E_SCOPE" "$holder" "$cid" c1
e2e_csi_config "$cfg" "$cid" c1 "$E2E_HOLDER_DIR/$cid.net.ns"
e2e_plugin_start "$E2E_SCOPE" "$plugin"
nsenter -t "$(e2e_pod_pid "$plugin")" -m -- mount -t tmpfs -o ro,mode=0755 none /sys/bus ||
  e2e_die "could not hide /sys/bus in the plugin pod"
e2e_plugin_exec "$plugin" run --cluster-id "$cid" --config "$cfg" --timeout 60s -- \
  rbd -c "$conf" --client-mount-timeout 5 create --size 64 rbd/g-img-$E2E_TAG

e2e_section "netns-exec map of an existing image: the kernel has no rbd module"
rc=0
t0=$(date +%s%N)
e2e_plugin_exec "$plugin" map --cluster-id "$cid" --config "$cfg" --timeout 60s \
  --id admin --keyfile "$E2E_RUN/c1/admin.key" --mon "$(e2e_cluster_var c1 E2E_CEPH_MON)" \
  --pool rbd --image g-img-$E2E_TAG >"$E2E_SCOPE/map.out" 2>&1 || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
cat "$E2E_SCOPE/map.out"
e2e_log "map exited $rc after ${ms} ms"
[ "$rc" -ne 0 ] || e2e_die "netns-exec map succeeded on a kernel without the rbd module?"
[ "$rc" -ne 124 ] || e2e_die "netns-exec map timed out instead of failing fast"
[ "$ms" -lt 10000 ] || e2e_die "netns-exec map took ${ms} ms to fail (limit 10 s)"
grep -qi 'rbd kernel module' "$E2E_SCOPE/map.out" ||
  e2e_die "the failure does not say that the rbd kernel module is not available"
if [ -d /sys/bus/rbd/devices ]; then
  # A node with the module: other mappings may exist, this image must not be one of them.
  ! grep -qx g-img-$E2E_TAG /sys/bus/rbd/devices/*/name 2>/dev/null || e2e_die "g-img-$E2E_TAG is mapped although the map failed"
elif ls /dev/rbd[0-9]* >/dev/null 2>&1; then
  e2e_die "a /dev/rbd device exists after a failed map"
fi
