# shellcheck shell=bash
# NVMe/TCP through the holder in transparent mode, as ceph-csi's nvmeof node plugin calls nvme: the
# plugin's PATH has netns-exec as `nvme` first (the real /usr/sbin/nvme after it) and
# NETNS_EXEC_TARGETS declares the target's address as the holder's (ktest_target_shims_install).
# From the plugin's pod namespace (no route to storage) `nvme connect -t tcp -n NQN -a ADDR -s 4420
# -l 1800` goes through the shim, which execs the real nvme in the holder's namespace, so the
# controller's TCP queues live there; `nvme list-subsys DEV -o json` and `nvme disconnect -d
# /dev/nvmeN` pass through untouched (sysfs). A workload writes and fsyncs the raw namespace
# /dev/nvmeXnY while the plugin restarts 10 times: 0 I/O errors, no write over 5 s, checksums
# verified; then the disconnect, and the target's backing file read directly (guest/targets.sh).
# figure: kernel.nvme.holder
# shellcheck source=../guest/targets.sh
. "$KTEST_SRC/guest/targets.sh"
ktest_holder_start
ktest_plugin_start plugin
ktest_nvmet_up nvme
ktest_target_shims_install
# shellcheck disable=SC2046
ktest_plugin_call "$KTEST_PLUGIN_NS" timeout 60 nvme $(ktest_nvme_connect_args)
dev=$(ktest_nvme_wait_disk)
ctrl=$(ktest_nvme_ctrls "$KTEST_NVME_NQN")
queues=$(ss -N "$KTEST_HOLDER_NS" -Htn state established "dport = :$KTEST_NVME_PORT" | wc -l)
[ "$queues" -gt 0 ] || e2e_die "no NVMe/TCP queue to $KTEST_TARGET_IP:$KTEST_NVME_PORT in the holder's namespace $KTEST_HOLDER_NS"
[ -z "$(ss -N "$KTEST_PLUGIN_NS" -Htan "dport = :$KTEST_NVME_PORT")" ] ||
  e2e_die "NVMe/TCP sockets in the plugin's namespace $KTEST_PLUGIN_NS: the connect did not go through the holder"
subsys=$(ktest_plugin_call "$KTEST_PLUGIN_NS" timeout 30 nvme list-subsys "$dev" -o json)
[[ $subsys == *"$KTEST_NVME_NQN"* && $subsys == *"traddr=$KTEST_TARGET_IP"* ]] ||
  e2e_die "nvme list-subsys $dev -o json (through the shim) names neither $KTEST_NVME_NQN nor traddr=$KTEST_TARGET_IP: $subsys"
e2e_log "nvme connect through the nvme shim: controller $ctrl, $queues queues in $KTEST_HOLDER_NS, namespace $dev"
ktest_workload_start nvme "$dev"
ktest_holder_restarts nvme 10

ktest_plugin_call "$KTEST_PLUGIN_NS" timeout 60 nvme disconnect -d "/dev/$ctrl"
[ -z "$(ktest_nvme_ctrls "$KTEST_NVME_NQN")" ] || e2e_die "controller $ctrl still there after nvme disconnect -d /dev/$ctrl"
ktest_expect_nvme_file
[ "$KTEST_T_VERIFIED" = yes ] || e2e_die "the target's backing file does not hold what the workload wrote"
echo "FIGURE kernel.nvme.holder: restarts $KTEST_RESTARTS, writes $KTEST_W_WRITES, errors $KTEST_W_ERRORS, max_stall_ms $KTEST_W_STALL, verified $KTEST_W_VERIFIED, verified_from_target $KTEST_T_VERIFIED"
