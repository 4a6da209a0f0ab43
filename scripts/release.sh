#!/usr/bin/env bash
# Everything an operator installs, from this checkout, offline and
# reproducibly: the same commit and the same build give the same bytes.
#   release.sh BUILD_DIR OUT_DIR [--allow-dirty]
# BUILD_DIR has netns-holder and netns-exec built (./dev release builds them
# into build-release/ first); OUT_DIR receives, for VERSION V:
#   netns-holder-V.tgz                  the Helm chart (helm package)
#   netns-holder-image-V.oci.tar        the holder image, an OCI archive (umoci)
#   netns-exec-plugin-layer-V.tar.gz    the plugin tree and build-plugin-image.sh,
#                                       which adds it to your ceph-csi image; and
#                                       the ceph-csi patch series (integrations/
#                                       ceph-csi, every tracked file) for the
#                                       library plugin image (--library)
#   netns-holder-kustomize-V.tar.gz     the Kustomize components
#   ARTEFACT.contents.txt               what each one holds (file, sha256, the
#                                       Debian package and version it came from)
#   SHA256SUMS                          of all of the above
# Only tracked files are packaged; a checkout with uncommitted changes is
# refused unless --allow-dirty (the tests use it). Times are the last commit's
# (SOURCE_DATE_EPOCH, unless set), owners root, members sorted.
set -euo pipefail
umask 022
export LC_ALL=C TZ=UTC
src=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "release.sh: $*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: release.sh BUILD_DIR OUT_DIR [--allow-dirty]"
build=$(cd "$1" && pwd) out=$2 allow_dirty=${3:-}
[ -z "$allow_dirty" ] || [ "$allow_dirty" = --allow-dirty ] || die "unknown option $allow_dirty"
for tool in git umoci jq tar gzip sha256sum dpkg-query; do
  command -v "$tool" >/dev/null || die "$tool is not installed (./dev setup installs it)"
done
helm=$("$src/test/manifests/find-helm.sh") || die "no helm (scripts/setup.d/helm.sh builds it)"

git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 || die "$src is not a git checkout"
if [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ] && [ "$allow_dirty" != --allow-dirty ]; then
  die "uncommitted changes in $src: commit them (a release is a commit), or pass --allow-dirty"
fi
commit=$(git -C "$src" rev-parse HEAD)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct)}
created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
version=$(head -n1 "$src/VERSION")
holder_bin=$build/holder/netns-holder exec_bin=$build/executor/cli/netns-exec
for bin in "$holder_bin" "$exec_bin"; do
  [ -x "$bin" ] || die "$bin is missing: build first (./dev release does)"
done
[ "$("$exec_bin" --version)" = "netns-exec $version" ] || die "$exec_bin is not version $version: rebuild $build"

work=$(mktemp -d "${TMPDIR:-/tmp}/netns-release.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/netns-* "$out/SHA256SUMS"

# The tracked files under PATH, copied to DEST/PATH.
tracked() {  # DEST PATH...
  local dest=$1
  shift
  mkdir -p "$dest"
  git -C "$src" ls-files -z -- "$@" | tar -C "$src" --null -T - -cf - | tar -C "$dest" -xf -
}

# A reproducible tar of DIR's contents (or of the members named): sorted,
# owned by root, every mtime SOURCE_DATE_EPOCH, no group/other write.
repro_tar() {  # OUT DIR [MEMBER...]   (OUT ending in .gz is gzipped, without a name or time)
  local file=$1 dir=$2 list=$work/members
  shift 2
  if [ $# -gt 0 ]; then
    (cd "$dir" && find "$@" -printf '%p\n' | sort) >"$list"
  else
    (cd "$dir" && find . -mindepth 1 -printf '%P\n' | sort) >"$list"
  fi
  tar -C "$dir" --no-recursion --format=gnu --owner=0 --group=0 --numeric-owner \
    --mtime="@$SOURCE_DATE_EPOCH" --mode=go-w -T "$list" -cf "$file.tmp"
  if [[ $file == *.gz || $file == *.tgz ]]; then
    gzip -n -9 <"$file.tmp" >"$file"
    rm "$file.tmp"
  else
    mv "$file.tmp" "$file"
  fi
}

# --- what the contents lists say ------------------------------------------

# The Debian package and version that installed FILE ("-" when none did).
debian_package() {
  local file=$1 candidates=() c line owner
  candidates=("$file" "$(realpath "$file")")
  for c in "${candidates[@]}"; do
    case $c in /usr/*) candidates+=("${c#/usr}") ;; *) candidates+=("/usr$c") ;; esac
  done
  for c in "${candidates[@]}"; do
    # "libc6:amd64: /lib/x86_64-linux-gnu/libc.so.6"; several owners are "a, b: /path".
    line=$(dpkg-query -S "$c" 2>/dev/null | grep -v '^diversion' | head -n1) || true
    [ -n "$line" ] || continue
    owner=${line%%: /*}
    owner=${owner%%,*}
    dpkg-query -W -f='${Package}:${Architecture}=${Version}' "$owner" 2>/dev/null && return 0
  done
  echo -
}

# The libraries an ELF file was linked with, and their packages: for a
# dynamic one what ldd lists, for a static one the C and C++ runtime archives
# the toolchain links in.
linked_libraries() {  # ELF
  local elf=$1 lib
  if readelf -d "$elf" | grep '(NEEDED)' >/dev/null; then
    ldd "$elf" | awk '/=> \// { print $3; next } /^\t\// { print $1 }'
    return 0
  fi
  for lib in libc.a libstdc++.a libgcc.a libgcc_eh.a; do
    lib=$(c++ -print-file-name="$lib" 2>/dev/null) || continue
    if [ -e "$lib" ]; then realpath "$lib"; fi
  done
}
linked_packages() {  # ELF
  local libs lib
  libs=$(linked_libraries "$1")
  while read -r lib; do
    [ -n "$lib" ] && printf 'linked\t%s\t%s\n' "$lib" "$(debian_package "$lib")"
  done <<<"$libs"
  return 0
}

# ARTEFACT.contents.txt: a header, then one line a member: path, sha256 and
# where it came from (this source at the commit, or a Debian package), then
# for each ELF file of ours the packages of the libraries linked into it.
#   contents ARTEFACT DESCRIPTION TREE ORIGIN_FN
contents() {
  local artefact=$1 what=$2 tree=$3 origin=$4 f rel
  {
    printf '# %s: %s\n' "$artefact" "$what"
    printf '# netns-holder %s, commit %s, SOURCE_DATE_EPOCH %s (%s)\n' "$version" "$commit" "$SOURCE_DATE_EPOCH" "$created"
    printf '# kind\tpath\tsha256 or target\tfrom\n'
    (cd "$tree" && find . -mindepth 1 \( -type f -o -type l \) -printf '%P\n' | sort) | while read -r rel; do
      f=$tree/$rel
      if [ -L "$f" ]; then
        printf 'link\t/%s\t-> %s\t%s\n' "$rel" "$(readlink "$f")" "netns-holder $version"
      else
        printf 'file\t/%s\t%s\t%s\n' "$rel" "$(sha256sum <"$f" | cut -d' ' -f1)" "$("$origin" "/$rel")"
      fi
    done
  } >"$out/$artefact.contents.txt"
}

# --- the chart -------------------------------------------------------------

chart_origin() { echo "netns-holder $version (manifests/chart/netns-holder)"; }
tracked "$work/src" manifests/chart/netns-holder manifests/kustomize/plugin \
  manifests/kustomize/plugin-pod-network-reaches-ceph manifests/kustomize/socket-mode \
  manifests/kustomize/library manifests/images/rootfs.sh manifests/images/build-plugin-image.sh \
  integrations/ceph-csi
export HELM_CACHE_HOME=$work/helm/cache HELM_CONFIG_HOME=$work/helm/config HELM_DATA_HOME=$work/helm/data
"$helm" package "$work/src/manifests/chart/netns-holder" -d "$work/helm-out" >/dev/null
chart=netns-holder-$version.tgz
[ -f "$work/helm-out/$chart" ] || die "helm package did not write $chart"
# helm stamps the packaging time on every member: the same files again, with
# the commit's time.
mkdir "$work/chart"
tar -xzf "$work/helm-out/$chart" -C "$work/chart" --touch
repro_tar "$out/$chart" "$work/chart"
contents "$chart" "the Helm chart (helm install netns ./$chart; helm push $chart oci://REGISTRY/charts)" \
  "$work/chart" chart_origin

# --- the binaries, as the images carry them ---------------------------------

mkdir -p "$work/bin"
cp "$holder_bin" "$work/bin/netns-holder"
cp "$exec_bin" "$work/bin/netns-exec"
strip "$work/bin/netns-holder" "$work/bin/netns-exec"
touch -d "@$SOURCE_DATE_EPOCH" "$work/bin/netns-holder" "$work/bin/netns-exec"

# Where a file of an image tree came from: ours, or the Debian package of the
# host file it was copied from (rootfs.sh copies libraries to their own path,
# or by name into /opt/netns-exec/lib).
image_origin() {
  local path=$1
  case $path in
  /usr/bin/netns-holder | /usr/bin/netns-exec | /opt/netns-exec/bin/netns-exec | /usr/local/bin/netns-exec)
    echo "netns-holder $version" ;;
  /opt/netns-exec/lib/*)
    debian_package "$(ldd "$work/bin/netns-exec" | awk -v n="$(basename "$path")" '$1 == n && $3 ~ /^\// { print $3 } $1 ~ "/" n "$" { print $1 }' | head -n1)" ;;
  *) debian_package "$path" ;;
  esac
}
linked_section() {  # ARTEFACT ELF...
  local artefact=$1 elf
  shift
  for elf in "$@"; do
    printf '# linked into %s:\n' "$(basename "$elf")"
    linked_packages "$elf"
  done >>"$out/$artefact.contents.txt"
}

# --- the holder image ------------------------------------------------------
# umoci: it writes OCI layouts directly, needs no daemon, no storage driver
# and no registry (buildah and skopeo need containers/storage or a registry),
# and its unpack makes the runc bundle the tests run. The layer itself is a
# tar made here, so that its bytes depend on nothing but the files.

tree=$work/holder-rootfs
"$src/manifests/images/rootfs.sh" holder "$tree" "$work/bin/netns-holder" "$work/bin/netns-exec"
if [ "$(id -u)" -eq 0 ]; then
  "$src/manifests/images/rootfs.sh" check-libraries "$tree" >/dev/null
fi
repro_tar "$work/holder-layer.tar" "$tree"
layout=$work/holder-layout
image=netns-holder-image-$version.oci.tar
umoci init --layout "$layout"
umoci new --image "$layout:$version"
umoci raw add-layer --image "$layout:$version" --history.created "$created" \
  --history.created_by "scripts/release.sh: manifests/images/rootfs.sh holder" "$work/holder-layer.tar"
# The DaemonSet sets its own command (manifests/chart); these are what
# `docker run IMAGE` would do. User 0:0 is what the chart runs it as (with
# every capability dropped): the holder writes into the root-owned kubelet
# plugin directory.
umoci config --image "$layout:$version" --no-history --created "$created" \
  --os linux --architecture amd64 \
  --config.entrypoint /usr/bin/netns-holder --config.cmd --help \
  --config.user 0:0 --config.workingdir / --config.env PATH=/usr/bin \
  --config.label "org.opencontainers.image.title=netns-holder" \
  --config.label "org.opencontainers.image.version=$version" \
  --config.label "org.opencontainers.image.revision=$commit" \
  --config.label "org.opencontainers.image.created=$created" \
  --config.label "org.opencontainers.image.licenses=Apache-2.0" \
  --config.label "org.opencontainers.image.source=https://github.com/netns-holder/netns-holder"
umoci gc --layout "$layout"
repro_tar "$out/$image" "$layout"
contents "$image" "the holder image, an OCI archive (skopeo copy oci-archive:$image docker://REGISTRY/netns-holder:$version)" \
  "$tree" image_origin
linked_section "$image" "$work/bin/netns-holder" "$work/bin/netns-exec"

# --- the plugin layer ------------------------------------------------------

kit_name=netns-exec-plugin-layer-$version
kit=$work/kit/$kit_name
"$src/manifests/images/rootfs.sh" plugin "$kit/rootfs" "$work/bin/netns-exec"
cp "$work/src/manifests/images/rootfs.sh" "$work/src/manifests/images/build-plugin-image.sh" "$kit/"
# The patch series and its build.sh, whatever files it has (tracked only).
if [ -d "$work/src/integrations/ceph-csi" ]; then
  mkdir -p "$kit/integrations"
  cp -r "$work/src/integrations/ceph-csi" "$kit/integrations/"
fi
repro_tar "$out/$kit_name.tar.gz" "$work/kit" "$kit_name"
kit_origin() {
  case $1 in
  /rootfs/*) image_origin "${1#/rootfs}" ;;
  /integrations/*) echo "netns-holder $version (integrations/ceph-csi)" ;;
  *) echo "netns-holder $version (manifests/images)" ;;
  esac
}
contents "$kit_name.tar.gz" "the plugin layer: $kit_name/build-plugin-image.sh CEPHCSI.oci.tar OUT.oci.tar adds $kit_name/rootfs to your ceph-csi image; library mode: build cephcsi with $kit_name/integrations/ceph-csi/build.sh, then build-plugin-image.sh CEPHCSI.oci.tar OUT.oci.tar --library ITS_CEPHCSI" \
  "$kit" kit_origin
linked_section "$kit_name.tar.gz" "$work/bin/netns-exec"

# --- the Kustomize components ----------------------------------------------

kz_name=netns-holder-kustomize-$version
mkdir -p "$work/kz/$kz_name"
# plugin includes plugin-pod-network-reaches-ceph, library includes plugin and socket-mode, by
# their relative paths: keep them side by side.
for component in plugin plugin-pod-network-reaches-ceph socket-mode library; do
  cp -r "$work/src/manifests/kustomize/$component" "$work/kz/$kz_name/"
done
repro_tar "$out/$kz_name.tar.gz" "$work/kz" "$kz_name"
kz_origin() { echo "netns-holder $version (manifests/kustomize)"; }
contents "$kz_name.tar.gz" "the Kustomize components: unpack next to your kustomization and name them by relative path ($kz_name/plugin or $kz_name/plugin-pod-network-reaches-ceph, $kz_name/socket-mode; library mode: $kz_name/library)" \
  "$work/kz/$kz_name" kz_origin

(cd "$out" && sha256sum -- netns-* >SHA256SUMS)
echo "release.sh: netns-holder $version (commit ${commit:0:12}) in $out:"
sed 's/^/  /' "$out/SHA256SUMS"
