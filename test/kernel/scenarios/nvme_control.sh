# shellcheck shell=bash
# NVMe/TCP control: the same `nvme connect` made from the plugin's own namespace (net1 on storage,
# no holder), as ceph-csi's nvmeof node plugin does it. At the first plugin restart the namespace
# the controller's queues live in loses its interfaces and is deleted: the keep-alive times out,
# the kernel's reconnects fail (no route), and with -l 1800 the I/O is requeued, not failed, so
# the workload must stall, for that reason and no other (ktest_control). The target still serves
# a fresh client (`nvme discover` from a new storage pod). Cleanup: `nvme disconnect`, bounded.
# figure: kernel.nvme.control
# shellcheck source=../guest/targets.sh
. "$KTEST_SRC/guest/targets.sh"
ktest_nvmet_up nvmectl
ktest_plugin_start ctl storage
# shellcheck disable=SC2046
ktest_plugin_call "$KTEST_PLUGIN_NS" timeout 60 nvme $(ktest_nvme_connect_args)
dev=$(ktest_nvme_wait_disk)
[ -n "$(ss -N "$KTEST_PLUGIN_NS" -Htn state established "dport = :$KTEST_NVME_PORT")" ] ||
  e2e_die "no NVMe/TCP queue in the plugin's namespace $KTEST_PLUGIN_NS after nvme connect there"
e2e_log "nvme connect from the plugin's own namespace $KTEST_PLUGIN_NS gave $dev"
ktest_workload_start nvmectl "$dev"
# What nvme-tcp logs when its queues are cut off: the keep-alive's timeout and failure, error
# recovery, sends that fail, reconnects that find no route (-101 ENETUNREACH, -113, -110); and the
# target, in the same kernel, seeing the host's keep-alives stop (its controller's fatal error).
KTEST_CONTROL_KMSG_OK='nvme nvme[0-9]+: (starting error recovery|failed nvme_keep_alive_end_io error=[0-9]+|failed to connect socket: -(101|110|113)|Failed reconnect attempt [0-9]+|failed to send request -[0-9]+|queue [0-9]+: timeout)|nvmet: ctrl [0-9]+ (keep-alive timer [(][0-9]+ seconds[)] expired!|fatal error occurred!)'
KTEST_CONTROL_PROBE=ktest__probe_nvme
KTEST_CONTROL_SERVER=target
ktest__probe_nvme() {
  nsenter --net="/run/netns/$1" -- timeout 60 nvme discover -t tcp -a "$KTEST_TARGET_IP" -s "$KTEST_NVME_PORT" |
    grep -qF "$KTEST_NVME_NQN"
}
ktest_control kernel.nvme.control nvmectl ktest_plugin_restart ctl storage
