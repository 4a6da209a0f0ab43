#!/usr/bin/env bash
# The release (scripts/release.sh, what `./dev release` runs after its build),
# as an operator would use what it makes:
#   release_test.sh SOURCE_DIR BUILD_DIR artefacts  release.sh from this build into
#       BUILD_DIR/release-dist, twice: the same bytes (SHA256SUMS), every artefact
#       and its contents list, tars owned by root with the commit's time; a tree
#       with an uncommitted change is refused
#   release_test.sh SOURCE_DIR BUILD_DIR chart      the chart's .tgz: helm lint, helm
#       template (the same objects as the source chart; no cluster here for helm install)
#   release_test.sh SOURCE_DIR BUILD_DIR holder-image NODE   (root) the holder OCI
#       archive: skopeo inspect, umoci unpack, then runc runs it with the image's own
#       config, read-only root, no capabilities: its default command, and the chart's
#       holder command with the chart's probe passing inside it; no shell in it
#   release_test.sh SOURCE_DIR BUILD_DIR plugin-layer  (root) the plugin layer on a
#       small ceph-csi-like base made here: build-plugin-image.sh from the release
#       archive, the base's layer and config kept, the shims and the ldd check; and
#       --library (the library plugin image: a patched cephcsi in place, no shim)
# The chart, holder-image and plugin-layer modes read BUILD_DIR/release-dist,
# which the artefacts mode writes (a ctest fixture).
set -euo pipefail
src=$1 build=$2 mode=$3
dist=$build/release-dist
version=$(head -n1 "$src/VERSION")
fail() { echo "release_test: $*"; exit 1; }
need_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "release_test: $mode needs root ($1); skipping"
    exit 77
  fi
}
work=$(mktemp -d /tmp/netns-release-test.XXXXXX)
cleanups=()
cleanup() {
  local c
  for c in "${cleanups[@]}"; do eval "$c" || true; done
  rm -rf "$work"
}
trap cleanup EXIT
helm=$("$src/test/manifests/find-helm.sh")
export HELM_CACHE_HOME=$work/helm/cache HELM_CONFIG_HOME=$work/helm/config HELM_DATA_HOME=$work/helm/data

chart=netns-holder-$version.tgz
image=netns-holder-image-$version.oci.tar
kit=netns-exec-plugin-layer-$version
kustomize=netns-holder-kustomize-$version.tar.gz

case "$mode" in
artefacts)
  "$src/scripts/release.sh" "$build" "$work/first" --allow-dirty >/dev/null
  "$src/scripts/release.sh" "$build" "$dist" --allow-dirty
  for f in "$chart" "$image" "$kit.tar.gz" "$kustomize"; do
    [ -s "$dist/$f" ] || fail "no $f in $dist"
    [ -s "$dist/$f.contents.txt" ] || fail "no contents list for $f"
    grep -F "  $f" "$dist/SHA256SUMS" >/dev/null || fail "$f is not in SHA256SUMS"
  done
  (cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match the files"
  diff "$work/first/SHA256SUMS" "$dist/SHA256SUMS" || fail "two runs on the same commit and build differ (above)"
  epoch=$(git -C "$src" log -1 --format=%ct)
  for f in "$chart" "$kit.tar.gz" "$kustomize" "$image"; do
    # Owner 0/0 and the commit's time on every member.
    odd=$(tar -tvf "$dist/$f" --full-time --utc | awk -v t="$(date -u -d "@$epoch" '+%Y-%m-%d %H:%M:%S')" \
      '$2 != "0/0" || ($4 " " $5) != t' | head -n3)
    [ -z "$odd" ] || fail "$f has members not owned by 0/0 or not dated at the commit: $odd"
  done
  # The contents lists name our files and the Debian packages linked in.
  grep -P '^file\t/usr/bin/netns-holder\t[0-9a-f]{64}\tnetns-holder '"$version"'$' "$dist/$image.contents.txt" >/dev/null ||
    fail "$image.contents.txt does not list /usr/bin/netns-holder"
  grep -P '^linked\t\S+/libc\.so\.6\tlibc6:amd64=\S+$' "$dist/$image.contents.txt" >/dev/null ||
    fail "$image.contents.txt does not name libc6 and its version for netns-exec"
  grep -P '^linked\t\S+/libc\.a\tlibc6-dev:amd64=\S+$' "$dist/$image.contents.txt" >/dev/null ||
    fail "$image.contents.txt does not name libc6-dev for the static holder"
  grep -P '^file\t/rootfs/opt/netns-exec/lib/libc\.so\.6\t[0-9a-f]{64}\tlibc6:amd64=' "$dist/$kit.tar.gz.contents.txt" >/dev/null ||
    fail "$kit.tar.gz.contents.txt does not say where the private libc came from"
  if grep -P '^file\t.*\t-$' "$dist/$image.contents.txt" "$dist/$kit.tar.gz.contents.txt"; then
    fail "files of unknown origin (above)"
  fi
  for component in plugin plugin-pod-network-reaches-ceph socket-mode library; do
    tar -tzf "$dist/$kustomize" | grep -x "netns-holder-kustomize-$version/$component/kustomization.yaml" >/dev/null ||
      fail "$kustomize has no $component component"
  done
  tar -tzf "$dist/$kit.tar.gz" | grep -x "$kit/build-plugin-image.sh" >/dev/null || fail "$kit.tar.gz has no build script"
  # The ceph-csi patch series: every tracked file of integrations/ceph-csi, byte for byte (none
  # on a branch without it; then the kit has no integrations/ either).
  mkdir "$work/kit"
  tar -xzf "$dist/$kit.tar.gz" -C "$work/kit"
  series=$(git -C "$src" ls-files -- integrations/ceph-csi)
  while read -r f; do
    [ -n "$f" ] || continue
    cmp -s "$src/$f" "$work/kit/$kit/$f" || fail "$kit.tar.gz does not carry $f as committed"
    grep -P "^file\t/$f\t[0-9a-f]{64}\tnetns-holder $version \(integrations/ceph-csi\)\$" "$dist/$kit.tar.gz.contents.txt" >/dev/null ||
      fail "$kit.tar.gz.contents.txt does not list $f"
  done <<<"$series"
  [ "$(cd "$work/kit/$kit" && find integrations -type f 2>/dev/null | sort)" = "$(sort <<<"$series" | sed '/^$/d')" ] ||
    fail "$kit.tar.gz carries other integrations files than the tracked ones"

  # Control: an uncommitted change is refused.
  git clone -q --depth 1 "file://$src" "$work/clone"
  echo "# changed" >>"$work/clone/VERSION"
  rc=0
  out=$("$work/clone/scripts/release.sh" "$build" "$work/dirty" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] && grep -F 'uncommitted changes' <<<"$out" >/dev/null ||
    fail "control: a dirty checkout was not refused (exit $rc: $out)"
  echo "release_test: artefacts ok"
  ;;

chart)
  values=$src/manifests/chart/netns-holder/ci/socket-values.yaml
  "$helm" lint "$dist/$chart" -f "$values"
  "$helm" template netns "$dist/$chart" -n ceph-csi -f "$values" >"$work/packaged.yaml"
  "$helm" template netns "$src/manifests/chart/netns-holder" -n ceph-csi -f "$values" >"$work/source.yaml"
  diff "$work/source.yaml" "$work/packaged.yaml" >/dev/null || fail "the packaged chart renders differently from manifests/chart/netns-holder"
  grep -F "image: \"registry.example.com/netns-holder:$version\"" "$work/packaged.yaml" >/dev/null ||
    fail "the packaged chart's default image tag is not $version"
  echo "release_test: chart ok"
  ;;

holder-image)
  need_root "umoci unpack keeps owners; runc runs the container"
  node=$4
  for tool in skopeo umoci runc jq; do command -v "$tool" >/dev/null || fail "$tool is not installed (./dev setup)"; done
  inspect=$(skopeo inspect "oci-archive:$dist/$image") || fail "skopeo cannot read $image"
  config=$(skopeo inspect --config "oci-archive:$dist/$image")
  [ "$(jq -r .Architecture <<<"$inspect")/$(jq -r .Os <<<"$inspect")" = amd64/linux ] || fail "not linux/amd64: $inspect"
  [ "$(jq '.Layers | length' <<<"$inspect")" -eq 1 ] || fail "want one layer: $inspect"
  [ "$(jq -c .config.Entrypoint <<<"$config")" = '["/usr/bin/netns-holder"]' ] || fail "entrypoint: $config"
  [ "$(jq -r .config.User <<<"$config")" = 0:0 ] || fail "user (the chart runs it as 0:0): $config"
  [ "$(jq -r '.config.Labels["org.opencontainers.image.version"]' <<<"$config")" = "$version" ] || fail "version label: $config"

  mkdir "$work/layout"
  tar -xf "$dist/$image" -C "$work/layout"
  umoci unpack --image "$work/layout:$version" "$work/bundle" >/dev/null
  rootfs=$work/bundle/rootfs
  for sh in bin/sh usr/bin/sh bin/bash usr/bin/bash bin/busybox; do
    [ ! -e "$rootfs/$sh" ] || fail "the image has a shell: /$sh"
  done
  [ "$(jq -c .process.args "$work/bundle/config.json")" = '["/usr/bin/netns-holder","--help"]' ] ||
    fail "umoci's bundle does not run the image's entrypoint and cmd: $(jq -c .process "$work/bundle/config.json")"
  [ "$(jq -c '[.process.user.uid, .process.user.gid]' "$work/bundle/config.json")" = '[0,0]' ] || fail "not uid 0:0"

  # The chart's holder (socket mode: no hostPID, so the holder is pid 1 of its own
  # pid namespace, as the chart's socket mode runs it) and its probe.
  id=rel-$$
  facts=$(NETNS_SOURCE_DIR=$src "$node" "$src/test/manifests/chart-facts.mjs" "$id" socket /var/lib/kubelet 5)
  dir=$(jq -r '.holders[0].dir' <<<"$facts")
  host_dir=$work/host-plugin-dir
  mkdir -p "$host_dir"
  chmod 0755 "$host_dir"
  # The DaemonSet's security context on the image's own config: read-only
  # root, no capability, no new privileges, the plugin directory mounted.
  jq --arg src "$host_dir" --arg dst "$dir" '
    .root.readonly = true | .process.terminal = false | .process.noNewPrivileges = true
    | .process.capabilities = {bounding: [], effective: [], permitted: [], inheritable: [], ambient: []}
    | .mounts += [{destination: $dst, type: "bind", source: $src, options: ["rbind", "rw"]}]' \
    "$work/bundle/config.json" >"$work/config.json"
  mv "$work/config.json" "$work/bundle/config.json"
  mkdir -p "$rootfs$dir"
  runc_root=$work/runc
  r() { runc --root "$runc_root" "$@"; }

  # 1. The image's own command (entrypoint + cmd).
  out=$(timeout 60 runc --root "$runc_root" run --bundle "$work/bundle" "netns-rel-help-$$" </dev/null 2>&1) ||
    fail "runc run of the image's own command failed: $out"
  grep -F -- '--cluster-id' <<<"$out" >/dev/null || fail "the image's own command did not print the holder's usage: $out"
  r delete --force "netns-rel-help-$$" >/dev/null 2>&1 || true

  # 2. The chart's holder command in the same config.
  jq --argjson cmd "$(jq -c '.holders[0].command' <<<"$facts")" '.process.args = $cmd' \
    "$work/bundle/config.json" >"$work/config.json"
  mv "$work/config.json" "$work/bundle/config.json"
  cid=netns-rel-holder-$$
  cleanups+=("runc --root '$runc_root' delete --force '$cid' >/dev/null 2>&1")
  timeout 30 runc --root "$runc_root" run -d --bundle "$work/bundle" --pid-file "$work/pid" "$cid" \
    </dev/null >"$work/holder.log" 2>&1 || fail "runc run of the holder failed: $(cat "$work/holder.log")"
  pid=$(cat "$work/pid")
  for _ in $(seq 1 200); do
    [ -S "$host_dir/$id.net.sock" ] && break
    sleep 0.05
  done
  [ -S "$host_dir/$id.net.sock" ] || fail "the holder did not publish its socket: $(cat "$work/holder.log")"
  [ "$(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status")" = 0000000000000000 ] || fail "the holder has capabilities"
  [ "$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$pid/status")" = 1 ] || fail "no_new_privs is not set"
  awk '$5 == "/" { print $6 }' "/proc/$pid/mountinfo" | grep -E '(^|,)ro(,|$)' >/dev/null || fail "the root is not read-only"
  check=()
  mapfile -t check < <(jq -r '.holders[0].check[]' <<<"$facts")
  ok=0
  for _ in $(seq 1 100); do
    if timeout 20 runc --root "$runc_root" exec "$cid" "${check[@]}" >"$work/check.log" 2>&1; then ok=1; break; fi
    sleep 0.1
  done
  [ "$ok" -eq 1 ] || fail "the chart's probe (${check[*]}) failed in the container: $(cat "$work/check.log")"
  if timeout 20 runc --root "$runc_root" exec "$cid" /bin/sh -c true >/dev/null 2>&1; then fail "a shell ran in the holder's container"; fi
  r kill "$cid" TERM
  for _ in $(seq 1 200); do
    [ -d "/proc/$pid" ] || break
    sleep 0.05
  done
  [ ! -d "/proc/$pid" ] || fail "the holder did not stop on SIGTERM"
  [ ! -e "$host_dir/$id.holder.json" ] || fail "the holder left its record behind"
  echo "release_test: holder image ok"
  ;;

plugin-layer)
  need_root "umoci unpack keeps owners; the checks chroot"
  for tool in umoci jq; do command -v "$tool" >/dev/null || fail "$tool is not installed (./dev setup)"; done
  # A ceph-csi-like base: merged /usr (as ceph-csi's CentOS Stream: /sbin is
  # /usr/sbin, where mount(8) finds helpers), a shell, util-linux's nsenter,
  # and rbd and mount.ceph stand-ins, made into an OCI image with umoci.
  base=$work/base-rootfs
  mkdir -p "$base/usr/bin" "$base/usr/sbin" "$base/usr/lib" "$base/usr/lib64"
  for d in bin sbin lib lib64; do ln -s "usr/$d" "$base/$d"; done
  "$src/manifests/images/rootfs.sh" add-binary "$base" /bin/sh
  "$src/manifests/images/rootfs.sh" add-binary "$base" /usr/bin/nsenter
  mkdir -p "$base/usr/sbin" "$base/usr/local/bin" "$base/usr/bin"
  printf '#!/bin/sh\necho "rbd stand-in $*"\n' >"$base/usr/bin/rbd"
  printf '#!/bin/sh\necho "mount.ceph stand-in $*"\n' >"$base/usr/sbin/mount.ceph"
  printf '#!/bin/sh\necho "cephcsi stand-in $*"\n' >"$base/usr/local/bin/cephcsi"
  chmod 0755 "$base/usr/bin/rbd" "$base/usr/sbin/mount.ceph" "$base/usr/local/bin/cephcsi"
  umoci init --layout "$work/base"
  umoci new --image "$work/base:v3.14.0"
  umoci unpack --image "$work/base:v3.14.0" "$work/base-bundle" >/dev/null
  cp -a "$base/." "$work/base-bundle/rootfs/"
  umoci repack --image "$work/base:v3.14.0" "$work/base-bundle"
  umoci config --image "$work/base:v3.14.0" --config.entrypoint /usr/local/bin/cephcsi
  (cd "$work/base" && tar -cf "$work/cephcsi.oci.tar" .)
  base_layers=$(jq -c '.layers' "$work/base/blobs/sha256/$(jq -r '.manifests[0].digest' "$work/base/index.json" | cut -d: -f2)")

  tar -xzf "$dist/$kit.tar.gz" -C "$work"
  "$work/$kit/build-plugin-image.sh" "$work/cephcsi.oci.tar" "$work/plugin.oci.tar" --tag v3.14.0-netns ||
    fail "build-plugin-image.sh failed on the local base"
  mkdir "$work/plugin"
  tar -xf "$work/plugin.oci.tar" -C "$work/plugin"
  [ "$(jq -r '.manifests[0].annotations["org.opencontainers.image.ref.name"]' "$work/plugin/index.json")" = v3.14.0-netns ] ||
    fail "the new image is not named by --tag"
  manifest=$work/plugin/blobs/sha256/$(jq -r '.manifests[0].digest' "$work/plugin/index.json" | cut -d: -f2)
  [ "$(jq '.layers | length' "$manifest")" -eq 2 ] || fail "want the base's layer and one more: $(jq -c .layers "$manifest")"
  [ "$(jq -c '.layers[:1]' "$manifest")" = "$base_layers" ] || fail "the base's layer changed"
  cfg=$work/plugin/blobs/sha256/$(jq -r '.config.digest' "$manifest" | cut -d: -f2)
  [ "$(jq -c .config.Entrypoint "$cfg")" = '["/usr/local/bin/cephcsi"]' ] || fail "the base's entrypoint is gone: $(jq -c .config "$cfg")"
  umoci unpack --image "$work/plugin:v3.14.0-netns" "$work/plugin-bundle" >/dev/null
  root=$work/plugin-bundle/rootfs
  [ "$(readlink "$root/usr/local/bin/nsenter")" = netns-exec ] || fail "nsenter is not netns-exec"
  [ "$(readlink "$root/usr/sbin/mount.ceph")" = /usr/local/bin/netns-exec ] || fail "mount.ceph is not the shim"
  grep -F 'mount.ceph stand-in' "$root/usr/bin/mount.ceph" >/dev/null || fail "the real mount.ceph did not move to /usr/bin"
  # The ldd check stays: in the finished image, and its control (a library taken away).
  "$src/manifests/images/rootfs.sh" check-libraries "$root" >/dev/null || fail "the ldd check fails on the finished image"
  rm "$root/opt/netns-exec/lib/libmnl.so.0"   # the base has no libmnl to stand in
  if "$src/manifests/images/rootfs.sh" check-libraries "$root" >/dev/null 2>&1; then fail "control: the ldd check passed without libmnl"; fi
  # Control: a base without mount.ceph is refused, naming it.
  umoci unpack --image "$work/base:v3.14.0" "$work/bare-bundle" >/dev/null
  rm "$work/bare-bundle/rootfs/usr/sbin/mount.ceph"
  umoci repack --image "$work/base:bare" "$work/bare-bundle"
  rc=0
  out=$("$work/$kit/build-plugin-image.sh" "$work/base" "$work/bare.oci.tar" --ref bare 2>&1) || rc=$?
  [ "$rc" -ne 0 ] && grep -F 'mount.ceph is missing' <<<"$out" >/dev/null ||
    fail "control: a base without mount.ceph was not refused (exit $rc: $out)"

  # Library mode (--library): the patched cephcsi in place of the base's, one layer, no shim, no
  # netns-exec. The patched binary here is a stand-in (a script that runs with the base's
  # shell): integrations/ceph-csi/build.sh makes the real one; what is tested is the recipe.
  printf '#!/bin/sh\necho "Cephcsi Version: v3.12.2-netns-library"\n' >"$work/cephcsi-patched"
  chmod 0755 "$work/cephcsi-patched"
  "$work/$kit/build-plugin-image.sh" "$work/cephcsi.oci.tar" "$work/library.oci.tar" --tag v3.12.2-library \
    --library "$work/cephcsi-patched" || fail "build-plugin-image.sh --library failed on the local base"
  mkdir "$work/library"
  tar -xf "$work/library.oci.tar" -C "$work/library"
  manifest=$work/library/blobs/sha256/$(jq -r '.manifests[0].digest' "$work/library/index.json" | cut -d: -f2)
  [ "$(jq '.layers | length' "$manifest")" -eq 2 ] || fail "--library: want the base's layer and one more: $(jq -c .layers "$manifest")"
  [ "$(jq -c '.layers[:1]' "$manifest")" = "$base_layers" ] || fail "--library: the base's layer changed"
  cfg=$work/library/blobs/sha256/$(jq -r '.config.digest' "$manifest" | cut -d: -f2)
  jq -r '.history[-1].created_by' "$cfg" | grep -F 'build-plugin-image.sh --library: Cephcsi Version: v3.12.2-netns-library' >/dev/null ||
    fail "--library: the new layer's history does not name the patched cephcsi: $(jq -c '.history[-1]' "$cfg")"
  umoci unpack --image "$work/library:v3.12.2-library" "$work/library-bundle" >/dev/null
  root=$work/library-bundle/rootfs
  cmp -s "$root/usr/local/bin/cephcsi" "$work/cephcsi-patched" || fail "--library: cephcsi is not the patched one"
  [ -z "$(find "$root" -name netns-exec -o -path "$root/opt/netns-exec" | head -n 1)" ] || fail "--library: netns-exec is in the image"
  [ ! -L "$root/usr/local/bin/nsenter" ] && [ ! -L "$root/usr/sbin/mount.ceph" ] || fail "--library: a shim is in the image"
  grep -F 'mount.ceph stand-in' "$root/usr/sbin/mount.ceph" >/dev/null || fail "--library: the base's mount.ceph moved"
  # Controls: a base without cephcsi, a binary that cannot run in the base, the shim image as base.
  umoci unpack --image "$work/base:v3.14.0" "$work/nocsi-bundle" >/dev/null
  rm "$work/nocsi-bundle/rootfs/usr/local/bin/cephcsi"
  umoci repack --image "$work/base:nocsi" "$work/nocsi-bundle"
  rc=0
  out=$("$work/$kit/build-plugin-image.sh" "$work/base" "$work/x.oci.tar" --ref nocsi --library "$work/cephcsi-patched" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] && grep -F 'no /usr/local/bin/cephcsi: not a ceph-csi image' <<<"$out" >/dev/null ||
    fail "control: a base without cephcsi was not refused (exit $rc: $out)"
  printf '#!/nonexistent/interpreter\n' >"$work/cephcsi-broken"
  chmod 0755 "$work/cephcsi-broken"
  rc=0
  out=$("$work/$kit/build-plugin-image.sh" "$work/cephcsi.oci.tar" "$work/x.oci.tar" --library "$work/cephcsi-broken" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] && grep -F 'the patched cephcsi does not run' <<<"$out" >/dev/null ||
    fail "control: a cephcsi that cannot run in the base was not refused (exit $rc: $out)"
  rc=0
  out=$("$work/$kit/build-plugin-image.sh" "$work/plugin.oci.tar" "$work/x.oci.tar" --library "$work/cephcsi-patched" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] && grep -F 'has netns-exec in it' <<<"$out" >/dev/null ||
    fail "control: the shim plugin image as the base was not refused (exit $rc: $out)"
  echo "release_test: plugin layer ok (and --library)"
  ;;
*) echo "release_test: unknown mode $mode"; exit 2 ;;
esac
