# shellcheck shell=bash
# Benchmark (measured, never asserted): what `nvme connect` through the holder costs against the
# same connect made where the target is reached directly. Against the guest's nvmet target,
# KTEST_NVME_BENCH_PAIRS paired rounds, the order alternating within each pair; each arm one
# `nvme connect -t tcp -n NQN -a ADDR -s 4420 -l 1800` (ceph-csi's argv) from a pod namespace, with
# the same environment and the same nsenter/env/timeout in front:
#   own     from a pod with net1 on storage, the real nvme (no shim on PATH);
#   holder  from the plugin's pod (no route to storage), netns-exec as `nvme` first on PATH
#           (ktest_target_shims_install): it resolves the holder, enters its namespace and execs
#           the real nvme there.
# Timed: the connect command, from its start to its exit (the controller is live then; the block
# device, which the kernel scans for afterwards, is waited for untimed). Then `nvme disconnect`
# (untimed). One unpaired warm-up round of each arm first (the guest reads the host's files over
# 9p on first use). Asserted: every connect succeeded, its queues are in the arm's namespace (the
# holder's for the shim), and the block device appeared. The figure: per-arm medians of the
# connect (ms) and the median of the per-pair ratios holder/own. In the same pairs, what the shim's
# own start costs there: `nvme version` from the plugin's pod with the real nvme vs through the
# shim (untouched: it names no target, so netns-exec starts, decides and execs the real nvme, no
# holder resolved); the second figure, kernel.nvme.bench_startup, has their medians.
# figure: kernel.nvme.bench
# figure: kernel.nvme.bench_startup
# shellcheck source=../guest/targets.sh
. "$KTEST_SRC/guest/targets.sh"
pairs=${KTEST_NVME_BENCH_PAIRS:-12}
ktest_holder_start
ktest_plugin_start own storage
own_ns=$KTEST_PLUGIN_NS
ktest_plugin_start plugin
ktest_nvmet_up bench
ktest_target_shims_install

# bench_round ARM — one connect (timed, in bench_ms) and its disconnect.
bench_round() {
  local arm=$1 ns path t0 t1 ctrl queues_ns
  case $arm in
    own) ns=$own_ns path=$KTEST_PLUGIN_PATH queues_ns=$own_ns ;;
    holder) ns=$KTEST_PLUGIN_NS path=$KTEST_SHIM_DIR:$KTEST_PLUGIN_PATH queues_ns=$KTEST_HOLDER_NS ;;
  esac
  t0=$(date +%s%N)
  # shellcheck disable=SC2046
  nsenter --net="/run/netns/$ns" -- env "PATH=$path" "NETNS_EXEC_HOLDER_DIR=$KTEST_HOLDER_DIR" \
    "${KTEST_SHIM_ENV[@]}" timeout 60 nvme $(ktest_nvme_connect_args) >/dev/null ||
    e2e_die "bench: nvme connect ($arm arm, from $ns) failed"
  t1=$(date +%s%N)
  bench_ms=$(awk -v n="$((t1 - t0))" 'BEGIN { printf "%.1f", n / 1e6 }')
  ktest_nvme_wait_disk >/dev/null
  ctrl=$(ktest_nvme_ctrls "$KTEST_NVME_NQN")
  [ -n "$(ss -N "$queues_ns" -Htn state established "dport = :$KTEST_NVME_PORT")" ] ||
    e2e_die "bench: no NVMe/TCP queue in $queues_ns after the $arm arm's connect"
  [ "$arm" = own ] || [ -z "$(ss -N "$ns" -Htan "dport = :$KTEST_NVME_PORT")" ] ||
    e2e_die "bench: NVMe/TCP sockets in the plugin's namespace $ns: the shim's connect did not go through the holder"
  timeout 60 nvme disconnect -d "/dev/$ctrl" >/dev/null || e2e_die "bench: nvme disconnect -d /dev/$ctrl failed"
  [ -z "$(ktest_nvme_ctrls "$KTEST_NVME_NQN")" ] || e2e_die "bench: controller $ctrl still there after nvme disconnect"
}

# bench_version real|shim — `nvme version` from the plugin's pod (timed, in bench_ms), with the
# real nvme first on PATH or the shim.
bench_version() {
  local path=$KTEST_PLUGIN_PATH t0 t1 out
  [ "$1" = real ] || path=$KTEST_SHIM_DIR:$KTEST_PLUGIN_PATH
  t0=$(date +%s%N)
  out=$(nsenter --net="/run/netns/$KTEST_PLUGIN_NS" -- env "PATH=$path" "NETNS_EXEC_HOLDER_DIR=$KTEST_HOLDER_DIR" \
    "${KTEST_SHIM_ENV[@]}" timeout 60 nvme version) || e2e_die "bench: nvme version ($1) failed: $out"
  t1=$(date +%s%N)
  [[ $out == "nvme version "* ]] || e2e_die "bench: nvme version ($1) printed no version: $out"
  bench_ms=$(awk -v n="$((t1 - t0))" 'BEGIN { printf "%.1f", n / 1e6 }')
}

ktest_bench_pairs "$pairs" connect "nvme version"

# The own arm's pod is deleted with the scenario: its queues' sockets must have finished closing
# first (test/kernel/README.md, "Kernel sockets do not pin their namespace").
e2e_wait_until 30 "the own arm's sockets to finish closing" ktest__no_closing_sockets "$own_ns" ||
  e2e_log "bench: sockets still closing in $own_ns after 30 s: $(ss -N "$own_ns" -tanoe)"

ktest_bench_figures kernel.nvme.bench
