#!/usr/bin/env bash
# The README's operator quick start ("Operator: Helm and Kustomize") with the
# local artefacts of release.artefacts (BUILD_DIR/release-dist), as far as a
# machine without a registry or a cluster can go: the values block and the
# chart command as written (`helm upgrade --install` becomes `helm template`:
# no cluster), REGISTRY a local name; the kustomization's components and the
# plugin's storage network, as written, from the unpacked Kustomize archive
# next to it, on a ceph-csi-like node plugin DaemonSet. The controls: the same
# components by absolute path fail as the README says, and so does the plugin
# component without its network.
#   quick_start_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
dist=$build/release-dist
readme=$src/README.md
fail() { echo "quick_start_test: $*"; exit 1; }
work=$(mktemp -d /tmp/netns-quick-start.XXXXXX)
trap 'rm -rf "$work"' EXIT
helm=$("$src/test/manifests/find-helm.sh")
kustomize=$("$src/test/manifests/find-kustomize.sh")
export HELM_CACHE_HOME=$work/helm/cache HELM_CONFIG_HOME=$work/helm/config HELM_DATA_HOME=$work/helm/data

. "$src/test/support/markdown_block.sh"
block() { markdown_block "$readme" "## Operator: Helm and Kustomize" "$@"; }
release_block=$(block sh 1) holders_block=$(block sh 3) kustomization=$(block yaml 1)
[ -n "$release_block" ] && [ -n "$holders_block" ] && [ -n "$kustomization" ] ||
  fail "the README's operator section lacks its release, holders or kustomization block"

# Every dist/ file the README names is one the release makes.
for f in $(grep -o 'dist/[A-Za-z0-9._-]*' <<<"$release_block$(block sh 2)$holders_block" | sort -u); do
  [ -e "$dist/${f#dist/}" ] || fail "the README names $f, which ./dev release does not make"
done

# The holders: the README's commands in a directory with dist/, against no cluster.
mkdir -p "$work/op"
ln -s "$dist" "$work/op/dist"
holders=${holders_block//REGISTRY/registry.local}
holders=${holders//helm upgrade --install /\"\$helm\" template }
grep -F '"$helm" template netns ./dist/' <<<"$holders" >/dev/null || fail "no 'helm upgrade --install netns ./dist/...' in the holders block"
(cd "$work/op" && helm=$helm bash -euo pipefail -c "$holders") >"$work/holders.yaml" ||
  fail "the holders block failed"
grep -F 'image: "registry.local/netns-holder:' "$work/holders.yaml" >/dev/null || fail "the holders block does not render the pushed image"
grep -x 'kind: DaemonSet' "$work/holders.yaml" >/dev/null || fail "the holders block renders no DaemonSet"

# The components, as the README lists them, beside a kustomization.
tar -xzf "$dist"/netns-holder-kustomize-*.tar.gz -C "$work/op"
cat >"$work/op/nodeplugin.yaml" <<'YAML'
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ceph-csi-rbd-nodeplugin
  namespace: ceph-csi
  labels: {app: ceph-csi-rbd, component: nodeplugin}
spec:
  selector: {matchLabels: {app: ceph-csi-rbd, component: nodeplugin}}
  template:
    metadata: {labels: {app: ceph-csi-rbd, component: nodeplugin}}
    spec:
      hostNetwork: true
      hostPID: true
      containers:
        - {name: csi-rbdplugin, image: quay.io/cephcsi/cephcsi:v3.14.0}
YAML
# From the components to the end: the plugin's network follows them.
components=$(sed -n '/^components:/,$p' <<<"$kustomization")
[ -n "$components" ] || fail "the README's kustomization has no components list"
grep -F 'name: netns-exec-plugin-network' <<<"$components" >/dev/null ||
  fail "the README's kustomization gives the plugin component no netns-exec-plugin-network after its components"
printf 'resources: [nodeplugin.yaml]\n%s\n' "$components" >"$work/op/kustomization.yaml"
"$kustomize" build "$work/op" >"$work/plugin.yaml" || fail "kustomize build with the README's components failed"
grep -E '^ +hostNetwork: false$' "$work/plugin.yaml" >/dev/null || fail "the plugin component did not apply (hostNetwork)"
if grep -E '^ +hostPID: true$' "$work/plugin.yaml" >/dev/null; then fail "the socket-mode component did not apply (hostPID)"; fi
grep -E '^ +k8s\.v1\.cni\.cncf\.io/networks: [^ ]+' "$work/plugin.yaml" >/dev/null ||
  fail "the plugin component did not give the node plugin its storage network (Multus annotation)"
if grep -F 'netns-exec-plugin-network' "$work/plugin.yaml" >/dev/null; then fail "the plugin's network ConfigMap was rendered (it is local-config)"; fi

# A control: the kustomization as it is now must fail to build, saying SAYS.
build_fails() {  # WHAT SAYS
  local rc=0 out
  out=$("$kustomize" build "$work/op" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] && grep -F "$2" <<<"$out" >/dev/null || fail "control: $1 did not fail as the README says (exit $rc: $out)"
}

# Control: the plugin component without its network fails, naming the ConfigMap.
cp "$work/op/kustomization.yaml" "$work/op/kustomization.yaml.full"
sed -i '/^configMapGenerator:/,$d' "$work/op/kustomization.yaml"
build_fails "the plugin component without netns-exec-plugin-network" 'netns-exec-plugin-network'
mv "$work/op/kustomization.yaml.full" "$work/op/kustomization.yaml"

# Control: absolute component paths, which the README warns about.
sed -i "/^components:/,/^[^ ]/ s|^  - |  - $work/op/|" "$work/op/kustomization.yaml"
build_fails "absolute component paths" 'cannot be absolute'
echo "quick_start_test: ok"
