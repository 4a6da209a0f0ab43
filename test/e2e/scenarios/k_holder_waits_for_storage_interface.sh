# shellcheck shell=bash
# k. A holder publishes only a namespace that has its storage network. The holder pod's
#    Multus-like interface (net1) arrives late, as when the Multus daemon restarts while the
#    pod is created: the holder (--require-interface net1, as the chart runs it) publishes
#    nothing until net1 is up with an address, and a plugin request made meanwhile waits
#    (--wait-holder) and runs only afterwards, seeing net1. When net1 is removed later, the
#    readiness probe (netns-holder check --require-interface net1, in the holder's container)
#    fails naming it, the holder's log says so, and the files stay for the mappings made
#    through the namespace. Control: a holder without --require-interface in the same kind of
#    pod publishes at once, without any storage network.
e2e_require_holder
e2e_require_exec run

cid=k-c1
cfg=$E2E_RUN/csi/k/config.json
holder=$E2E_ID-k-holder
control=$E2E_ID-k-control
plugin=$E2E_ID-k-plugin
link=$E2E_HOLDER_DIR/$cid.net.ns
record=$E2E_HOLDER_DIR/$cid.holder.json
e2e_images

probe() { e2e_pod_exec "$holder" "$E2E_HOLDER_CMD" check --cluster-id "$cid" --dir "$E2E_HOLDER_DIR" --require-interface net1; }
holder_log() { cat "$E2E_RUN/pods/$holder/log"; }

e2e_section "the holder pod starts with only its pod network (eth0): it publishes nothing"
ns=$(e2e_podnet_create "$E2E_SCOPE" "h-$cid")
e2e_pod_run "$E2E_SCOPE" "$holder" "/run/netns/$ns" --unprivileged --image "$E2E_HOLDER_IMAGE" \
  --rw "$E2E_HOLDER_DIR:$E2E_HOLDER_DIR" -- \
  "$E2E_HOLDER_CMD" --cluster-id "$cid" --dir "$E2E_HOLDER_DIR" --require-interface net1
# Its own log line is the event: it has looked at the namespace and decided not to publish.
e2e_wait_until 20 "the holder to say it waits for net1" grep -q "not publishing yet: net1 does not exist" "$E2E_RUN/pods/$holder/log" ||
  e2e_die "the holder did not say it waits for net1: $(holder_log)"
e2e_csi_config "$cfg" "$cid" c1 "$link"
e2e_plugin_start "$E2E_SCOPE" "$plugin"

# A plugin request made now (a NodeStageVolume during the gap) waits for the holder instead of
# running anywhere: the command prints the interfaces it sees.
e2e_bg "$E2E_SCOPE" waiter "$E2E_SCOPE/waiter.log" \
  e2e_plugin_exec "$plugin" run --cluster-id "$cid" --config "$cfg" --wait-holder 120s --timeout 20s -- \
  sh -c 'echo ran; ip -o -4 addr show net1'
# The absence of an early publish or an early run cannot be waited for as an event: watch a
# window long enough for either to show.
sleep 3
published_early=no
[ -e "$link" ] || [ -e "$record" ] && published_early=yes
[ "$published_early" = no ] || e2e_die "the holder published before net1 existed: $(ls -l "$E2E_HOLDER_DIR/$cid".*)"
e2e_pid_gone "$E2E_SCOPE" waiter && e2e_die "the request did not wait for the holder: $(cat "$E2E_SCOPE/waiter.log")"
grep -q '^ran' "$E2E_SCOPE/waiter.log" && e2e_die "a command ran before the holder published: $(cat "$E2E_SCOPE/waiter.log")"
rc=0
probe >"$E2E_SCOPE/probe-early.log" 2>&1 || rc=$?
cat "$E2E_SCOPE/probe-early.log"
[ "$rc" -ne 0 ] || e2e_die "the readiness probe passed before the holder published"
e2e_log "nothing published, the request waits, nothing ran, the probe fails"

e2e_section "net1 arrives (Multus catches up): the holder publishes, the waiting request runs there"
addr=$(e2e_podnet_attach_storage "$ns" "$E2E_RUN/c1/env")
e2e_wait_until 20 "the holder to publish $link" test -e "$link" ||
  e2e_die "the holder did not publish after net1 arrived: $(holder_log)"
e2e_wait_until 40 "the waiting request to finish" e2e_pid_gone "$E2E_SCOPE" waiter ||
  e2e_die "the request still waits after the holder published: $(cat "$E2E_SCOPE/waiter.log")"
cat "$E2E_SCOPE/waiter.log"
[ "$(cat "$E2E_SCOPE/waiter.log.rc")" = 0 ] || e2e_die "the waiting request failed: $(cat "$E2E_SCOPE/waiter.log")"
grep -q "$addr/" "$E2E_SCOPE/waiter.log" || e2e_die "the request did not run in the holder's namespace with net1 ($addr)"
probe || e2e_die "the readiness probe fails with net1 up: $(holder_log)"
e2e_log "published once net1 ($addr) was there; the request ran in that namespace; the probe passes"

e2e_section "net1 is removed later: the probe fails naming it, the files stay"
ip -n "$ns" link del net1
e2e_wait_until 20 "the holder to log the loss" grep -q "storage network lost: net1" "$E2E_RUN/pods/$holder/log" ||
  e2e_die "the holder did not log the lost interface: $(holder_log)"
rc=0
probe >"$E2E_SCOPE/probe-lost.log" 2>&1 || rc=$?
cat "$E2E_SCOPE/probe-lost.log"
unready_on_loss=no
[ "$rc" -eq 1 ] && grep -q "storage network not ready: net1 does not exist" "$E2E_SCOPE/probe-lost.log" && unready_on_loss=yes
[ "$unready_on_loss" = yes ] || e2e_die "the readiness probe exited $rc after net1 was removed, expected 1 naming net1"
[ -e "$link" ] && [ -e "$record" ] || e2e_die "the holder withdrew its files when net1 was lost"
e2e_pod_exec "$holder" "$E2E_HOLDER_CMD" check --cluster-id "$cid" --dir "$E2E_HOLDER_DIR" ||
  e2e_die "the plain check (liveness) fails: the holder itself should still be healthy"
e2e_log "unready (net1 named), the liveness check passes, $link and $record stay"

e2e_figure readiness.storage_interface "published_early $published_early, unready_on_loss $unready_on_loss"

e2e_section "control: a holder without --require-interface publishes without any storage network"
cns=$(e2e_podnet_create "$E2E_SCOPE" "h-$cid-ctl")
e2e_pod_run "$E2E_SCOPE" "$control" "/run/netns/$cns" --unprivileged --image "$E2E_HOLDER_IMAGE" \
  --rw "$E2E_HOLDER_DIR:$E2E_HOLDER_DIR" -- \
  "$E2E_HOLDER_CMD" --cluster-id "$cid-ctl" --dir "$E2E_HOLDER_DIR"
e2e_wait_until 20 "the control holder to publish" test -e "$E2E_HOLDER_DIR/$cid-ctl.net.ns" ||
  e2e_die "the control holder did not publish: $(cat "$E2E_RUN/pods/$control/log")"
ip -n "$cns" link show net1 >/dev/null 2>&1 && e2e_die "the control pod has net1"
e2e_figure readiness.storage_interface.control "published_early yes"
e2e_log "the control published a namespace with no storage network: what --require-interface prevents"
e2e_pod_delete "$E2E_SCOPE" "$control" TERM
e2e_pod_delete "$E2E_SCOPE" "$holder" TERM
