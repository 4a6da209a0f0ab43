# shellcheck shell=bash
# a. The routing alone. In the field the plugin pod has its own storage interface (ceph-csi opens
#    its own RADOS connection) and every other scenario's plugin has one; here it has none, so
#    nothing but the executor's routing can take a command to the storage network. From that
#    plugin pod `netns-exec run --cluster-id` runs ceph -s, rbd create, rbd ls, rbd info in the
#    holder's namespace, as does ceph-csi's unchanged `nsenter --net=` call; the same commands
#    without the executor fail within a bounded time. `netns-exec doctor` from that pod passes
#    every check of the holder and flags the plugin's missing route as its one failure.
e2e_require_holder
e2e_require_exec run

cid=a-c1
cfg=$E2E_RUN/csi/a/config.json
conf=$E2E_RUN/c1/ceph.conf
holder=$E2E_ID-a-holder
plugin=$E2E_ID-a-plugin

e2e_section "holder pod for cluster $cid: pod network + Multus storage interface, hostPID"
e2e_holder_start "$E2E_SCOPE" "$holder" "$cid" c1
ls -l "$E2E_HOLDER_DIR/$cid".*
# The DaemonSet's readiness/liveness probe, inside the holder's container.
e2e_pod_exec "$holder" "$E2E_HOLDER_CMD" check --cluster-id "$cid" --dir "$E2E_HOLDER_DIR" ||
  e2e_die "the holder's exec probe (netns-holder check) fails in its own pod"
e2e_csi_config "$cfg" "$cid" c1 "$E2E_HOLDER_DIR/$cid.net.ns"

e2e_section "plugin pod without a storage interface (the routing alone): no route to 198.18.0.0/20"
e2e_plugin_start "$E2E_SCOPE" "$plugin" --no-storage
e2e_pod_exec "$plugin" ip route
! e2e_pod_exec "$plugin" ip route get "$(e2e_cluster_var c1 E2E_CEPH_IP)" >/dev/null 2>&1 ||
  e2e_die "the plugin pod has a route to the storage network: this scenario shows the routing alone"

run() { e2e_plugin_exec "$plugin" run --cluster-id "$cid" --config "$cfg" --timeout 60s -- "$@"; }

e2e_section "through the executor"
run ceph -c "$conf" --connect-timeout 5 -s
run rbd -c "$conf" --client-mount-timeout 5 create --size 64 rbd/a-img-$E2E_TAG
run rbd -c "$conf" --client-mount-timeout 5 ls rbd | tee "$E2E_SCOPE/ls"
grep -qx a-img-$E2E_TAG "$E2E_SCOPE/ls" || e2e_die "rbd ls through the executor does not list a-img-$E2E_TAG"
run rbd -c "$conf" --client-mount-timeout 5 info rbd/a-img-$E2E_TAG | tee "$E2E_SCOPE/info"
grep -q 'size 64 MiB' "$E2E_SCOPE/info" || e2e_die "rbd info through the executor does not show the 64 MiB image"
# The commands ran in the holder's namespace: its Multus interface is what they see.
run ip -o -4 addr show net1 | grep "$E2E_HOLDER_ADDR/" >/dev/null ||
  e2e_die "a command run through the executor does not see the holder's net1 ($E2E_HOLDER_ADDR)"

e2e_section "netns-exec doctor --cluster-id $cid: the holder's checks pass; the plugin's own route is the one failure"
# Monitors from the ceph-csi config. This pod stands for the misconfiguration the field must not
# have (ceph-csi's own RADOS connection needs the storage network): doctor says so, exit 1, and
# that is its only failing line.
rc=0
e2e_plugin_exec "$plugin" doctor --cluster-id "$cid" --config "$cfg" >"$E2E_SCOPE/doctor" || rc=$?
cat "$E2E_SCOPE/doctor"
[ "$rc" -eq 1 ] || e2e_die "netns-exec doctor in a plugin pod with no storage route exited $rc, not 1"
grep "^FAIL  plugin's route to " "$E2E_SCOPE/doctor" >/dev/null ||
  e2e_die "netns-exec doctor does not flag the plugin pod's missing route to the monitors"
grep "^FAIL " "$E2E_SCOPE/doctor" | grep -v "^FAIL  plugin's route to " >"$E2E_SCOPE/doctor.other" || true
[ ! -s "$E2E_SCOPE/doctor.other" ] ||
  e2e_die "netns-exec doctor reports a problem with a healthy holder: $(cat "$E2E_SCOPE/doctor.other")"
grep "^PASS  lock held by the holder " "$E2E_SCOPE/doctor" >/dev/null ||
  e2e_die "netns-exec doctor did not check the holder through to its lock"

e2e_section "ceph-csi's unchanged call: nsenter --net=<netNamespaceFilePath> -- rbd ... (nsenter is netns-exec)"
e2e_pod_exec "$plugin" sh -c 'command -v nsenter'
e2e_pod_exec "$plugin" nsenter --net="$E2E_HOLDER_DIR/$cid.net.ns" -- \
  rbd -c "$conf" --client-mount-timeout 5 ls rbd | grep -x a-img-$E2E_TAG >/dev/null ||
  e2e_die "nsenter --net=<holder link> -- rbd ls in the plugin pod does not list a-img-$E2E_TAG"

e2e_section "the same commands without the executor (plugin's own namespace): must fail, bounded"
direct() { e2e_pod_exec "$plugin" timeout 60 "$@"; }
e2e_expect_fail_fast 20 "ceph -s without the executor" direct ceph -c "$conf" --connect-timeout 5 -s
e2e_expect_fail_fast 20 "rbd create without the executor" direct rbd -c "$conf" --client-mount-timeout 5 create --size 64 rbd/a-img2-$E2E_TAG
e2e_expect_fail_fast 20 "rbd ls without the executor" direct rbd -c "$conf" --client-mount-timeout 5 ls rbd
e2e_expect_fail_fast 20 "rbd info without the executor" direct rbd -c "$conf" --client-mount-timeout 5 info rbd/a-img-$E2E_TAG
