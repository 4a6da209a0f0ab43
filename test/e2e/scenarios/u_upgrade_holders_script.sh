# shellcheck shell=bash
# u. scripts/upgrade-holders.sh, run as an operator would, against the simulated node: its kubectl
#    calls are answered from the scenario's runc pods (lib/kubectl-sim.sh: `set image` on a pod is
#    the kubelet's in-place replacement, preStop hook included). A dry run changes nothing; --apply
#    replaces the holder container from the second image tree in the same sandbox while a
#    kernel-owned vxlan flow runs in the holder's namespace (0 pings lost), the new holder passes
#    `netns-holder check`, the OnDelete DaemonSet's template gets the new image, and a second
#    --apply has nothing left to do. Control: a DaemonSet with a RollingUpdate strategy (changing
#    its template would delete holder pods) makes the script stop with an error.
e2e_require_holder
e2e_require_exec run
e2e_require_exec guard
e2e_holder_next_image

cid=u-c1
cfg=$E2E_RUN/csi/u/config.json
st=$(e2e_cluster_var c1 E2E_CEPH_NETNS)
st_ip=$(e2e_cluster_var c1 E2E_CEPH_IP)
holder=$E2E_ID-u-holder
plugin=$E2E_ID-u-plugin
record=$E2E_HOLDER_DIR/$cid.holder.json
script=$E2E_LIB/../../../scripts/upgrade-holders.sh
export E2E_SCOPE E2E_KUBE=$E2E_SCOPE/kube
mkdir -p "$E2E_KUBE/pods" "$E2E_KUBE/images" "$E2E_KUBE/daemonsets" "$E2E_SCOPE/bin"
ln -sf "$E2E_LIB/kubectl-sim.sh" "$E2E_SCOPE/bin/kubectl"
upgrade() { PATH=$E2E_SCOPE/bin:$PATH "$script" -n ceph-csi --timeout 60 "$@"; }
run() { e2e_plugin_exec "$plugin" run --cluster-id "$cid" --config "$cfg" "$@"; }
reachable() { nsenter --net="/run/netns/$st" -- ping -n -c 2 -i 0.2 -W 1 "$1" >/dev/null 2>&1; }
field() { jq -r ".$1" "$record"; }
ds_image() { jq -r .image "$E2E_KUBE/daemonsets/netns-holder-rbd.json"; }

e2e_section "holder pod from image netns-holder:1, registered with the simulated API server"
e2e_holder_start "$E2E_SCOPE" "$holder" "$cid" c1
ns=$E2E_HOLDER_NS
e2e_csi_config "$cfg" "$cid" c1 "$E2E_HOLDER_DIR/$cid.net.ns"
e2e_plugin_start "$E2E_SCOPE" "$plugin"
echo "$E2E_HOLDER_IMAGE" >"$E2E_KUBE/images/netns-holder:1"
echo "$E2E_HOLDER_NEXT_IMAGE" >"$E2E_KUBE/images/netns-holder:2"
jq -n --arg name "$holder" --arg cid "$cid" --arg dir "$E2E_HOLDER_DIR" \
  '{name: $name, container: $name, image: "netns-holder:1", restarts: 0, node: "sim-node",
    annotations: {"netns-holder/cluster-id": $cid, "netns-holder/dir": $dir}}' >"$E2E_KUBE/pods/$holder.json"
jq -n '{image: "netns-holder:1", strategy: "OnDelete"}' >"$E2E_KUBE/daemonsets/netns-holder-rbd.json"
old_version=$(e2e_pod_exec "$holder" "$E2E_HOLDER_CMD" --version)
old_pid=$(field pid)
old_ino=$(field netns_ino)

ip -n "$st" link add uvx-h type vxlan id 4311 remote "$E2E_HOLDER_ADDR" dstport 4789 dev storage0
e2e_track_link "$E2E_SCOPE" "$st" uvx-h
ip -n "$st" addr add 198.19.212.1/24 dev uvx-h
ip -n "$st" link set uvx-h up
run --timeout 10s -- sh -c \
  "ip link add vx0 type vxlan id 4311 remote $st_ip dstport 4789 dev net1 && ip addr add 198.19.212.2/24 dev vx0 && ip link set vx0 up"
e2e_link_in_holder_only vx0
e2e_wait_until 10 "the vxlan peer in the holder to answer" reachable 198.19.212.2 ||
  e2e_die "no answer across the vxlan link created through the executor"

e2e_section "dry run: nothing changes"
upgrade --image netns-holder:2 | tee "$E2E_SCOPE/dry.out"
grep -q "dry run: would run: kubectl -n ceph-csi set image pod/$holder holder=netns-holder:2" "$E2E_SCOPE/dry.out" ||
  e2e_die "the dry run does not say it would patch $holder"
[ "$(field pid)" = "$old_pid" ] || e2e_die "the dry run replaced the holder (pid $old_pid -> $(field pid))"
[ "$(ds_image)" = netns-holder:1 ] || e2e_die "the dry run changed the DaemonSet's image to $(ds_image)"

e2e_section "--apply while the flow runs"
e2e_ping_start "$E2E_SCOPE" ping-upgrade "$st" 198.19.212.2
e2e_wait_until 10 "the first answered ping" grep -q 'icmp_seq=' "$E2E_SCOPE/ping-upgrade.log" ||
  e2e_die "no ping answered before the upgrade"
t0=$SECONDS
upgrade --image netns-holder:2 --apply | tee "$E2E_SCOPE/apply.out"
took=$((SECONDS - t0))
# Stopped once the flow has answered again after the replacement: a ping answered in the new
# holder's time, not a pause before stopping.
seq_after=$(($(sed -n 's/.*icmp_seq=\([0-9]*\) .*/\1/p' "$E2E_SCOPE/ping-upgrade.log" | tail -n 1) + 5))
e2e_wait_until 10 "ping $seq_after to be answered" grep -q "icmp_seq=$seq_after " "$E2E_SCOPE/ping-upgrade.log" ||
  e2e_die "the flow did not answer after the upgrade: $(tail -n 3 "$E2E_SCOPE/ping-upgrade.log")"
e2e_ping_stop "$E2E_SCOPE" ping-upgrade
read -r u_sent u_recv u_lost < <(e2e_ping_stats "$E2E_SCOPE/ping-upgrade.log")
grep -q "upgrade-holders: done" "$E2E_SCOPE/apply.out" || e2e_die "the script did not finish"
new_container=$(jq -r .container "$E2E_KUBE/pods/$holder.json")
new_pid=$(field pid)
new_ino=$(field netns_ino)
new_version=$(e2e_pod_exec "$new_container" "$E2E_HOLDER_CMD" --version)
[ "$new_pid" != "$old_pid" ] && [ "$new_pid" = "$(e2e_pod_pid "$new_container")" ] ||
  e2e_die "the record names pid $new_pid, not the new container's holder"
[ "$new_version" != "$old_version" ] || e2e_die "the new container runs the same holder ($new_version)"
[ "$new_ino" = "$old_ino" ] || e2e_die "the namespace changed: net:[$old_ino] -> net:[$new_ino]"
[ "$(ds_image)" = netns-holder:2 ] || e2e_die "the DaemonSet's template image is $(ds_image), not netns-holder:2"
e2e_figure upgrade.script "scripts/upgrade-holders.sh --apply in ${took}s ($old_version -> $new_version, pid $old_pid -> $new_pid, net:[$new_ino] kept), pings sent $u_sent, received $u_recv, LOST $u_lost"
[ "$u_sent" -gt 0 ] || e2e_die "no pings were sent"
[ "$u_lost" -eq 0 ] || e2e_die "the flow lost $u_lost pings over the scripted upgrade"

e2e_section "a second --apply has nothing to do"
upgrade --image netns-holder:2 --apply | tee "$E2E_SCOPE/again.out"
grep -q "$holder (node sim-node): already runs netns-holder:2" "$E2E_SCOPE/again.out" ||
  e2e_die "the second run does not see the pod as upgraded"
[ "$(jq -r .container "$E2E_KUBE/pods/$holder.json")" = "$new_container" ] || e2e_die "the second run replaced the container again"

e2e_section "control: a DaemonSet that is not OnDelete stops the script"
jq '.strategy = "RollingUpdate"' "$E2E_KUBE/daemonsets/netns-holder-rbd.json" >"$E2E_SCOPE/ds.json"
mv "$E2E_SCOPE/ds.json" "$E2E_KUBE/daemonsets/netns-holder-rbd.json"
rc=0
upgrade --image netns-holder:2 --apply >"$E2E_SCOPE/control.out" 2>&1 || rc=$?
cat "$E2E_SCOPE/control.out"
[ "$rc" -ne 0 ] || e2e_die "control: the script accepted a RollingUpdate DaemonSet"
grep -q "updateStrategy RollingUpdate, not OnDelete" "$E2E_SCOPE/control.out" ||
  e2e_die "control: the refusal does not name the DaemonSet's strategy"
[ "$(ds_image)" = netns-holder:2 ] || e2e_die "control: the refused run changed the DaemonSet's image"
e2e_holder_stop "$E2E_SCOPE" "$(jq -r .container "$E2E_KUBE/pods/$holder.json")" TERM
