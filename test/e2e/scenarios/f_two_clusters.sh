# shellcheck shell=bash
# f. Two Ceph clusters (two storage namespaces, two holders, one ceph-csi config): each cluster's
#    commands land in its own holder's namespace. The plugin has a storage interface on each
#    network (net1, net2), so it reaches both clusters itself; each holder reaches only its own,
#    and that is what a command through the executor must see.
e2e_require_holder
e2e_require_exec run

cfg=$E2E_RUN/csi/f/config.json
plugin=$E2E_ID-f-plugin
declare -A ns fsid conf
for c in c1 c2; do
  e2e_section "holder pod for cluster f-$c (storage network of $c)"
  e2e_holder_start "$E2E_SCOPE" "$E2E_ID-f-holder-$c" "f-$c" "$c"
  ns[$c]=$(e2e_ns_id "/run/netns/$E2E_HOLDER_NS")
  fsid[$c]=$(e2e_cluster_var "$c" E2E_CEPH_FSID)
  conf[$c]=$E2E_RUN/$c/ceph.conf
done
e2e_csi_config "$cfg" f-c1 c1 "$E2E_HOLDER_DIR/f-c1.net.ns" f-c2 c2 "$E2E_HOLDER_DIR/f-c2.net.ns"
cat "$cfg"
e2e_plugin_start "$E2E_SCOPE" "$plugin"

run() {
  local cid=$1
  shift
  e2e_plugin_exec "$plugin" run --cluster-id "$cid" --config "$cfg" --timeout 30s -- "$@"
}

for c in c1 c2; do
  e2e_section "cluster f-$c through the executor"
  got=$(run "f-$c" stat -L -c %i /proc/self/ns/net)
  [ "$got" = "${ns[$c]}" ] || e2e_die "f-$c: the command ran in namespace $got, not its holder's ${ns[$c]}"
  got=$(run "f-$c" ceph -c "${conf[$c]}" --connect-timeout 5 fsid)
  [ "$got" = "${fsid[$c]}" ] || e2e_die "f-$c: ceph fsid through the executor is '$got', expected ${fsid[$c]}"
  run "f-$c" rbd -c "${conf[$c]}" --client-mount-timeout 5 create --size 64 "rbd/f-$c-img-$E2E_TAG"
  run "f-$c" rbd -c "${conf[$c]}" --client-mount-timeout 5 ls rbd | grep -x "f-$c-img-$E2E_TAG" >/dev/null ||
    e2e_die "f-$c: rbd ls does not list f-$c-img-$E2E_TAG"
  e2e_log "f-$c: namespace ${ns[$c]}, fsid $got, rbd create/ls work"
done

e2e_section "each holder reaches only its own cluster (the plugin's own namespace reaches both)"
e2e_expect_fail_fast 20 "cluster c2's ceph through f-c1's holder" run f-c1 ceph -c "${conf[c2]}" --connect-timeout 5 fsid
e2e_expect_fail_fast 20 "cluster c1's ceph through f-c2's holder" run f-c2 ceph -c "${conf[c1]}" --connect-timeout 5 fsid
for c in c1 c2; do
  got=$(e2e_pod_exec "$plugin" timeout 30 ceph -c "${conf[$c]}" --connect-timeout 5 fsid) ||
    e2e_die "the plugin's own namespace does not reach cluster $c: the failures above would prove nothing"
  [ "$got" = "${fsid[$c]}" ] || e2e_die "the plugin's own ceph fsid for $c is '$got', expected ${fsid[$c]}"
done
e2e_log "the plugin's own namespace reaches both clusters; each holder only its own"
