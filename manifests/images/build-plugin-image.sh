#!/usr/bin/env bash
# The plugin image without a container builder: netns-exec's layer added on top
# of your ceph-csi image, with umoci, offline. What Containerfile.plugin does,
# on an image you saved as an OCI archive; ./dev release ships this script with
# the plugin tree (dist/netns-exec-plugin-layer-VERSION.tar.gz).
#
#   build-plugin-image.sh BASE OUT [--ref NAME] [--tag TAG] [--tree DIR] [--no-nsenter]
#     BASE   the ceph-csi image: an OCI archive (a file) or an OCI layout (a
#            directory), e.g. from
#              skopeo copy docker://quay.io/cephcsi/cephcsi:v3.14.0 oci-archive:cephcsi.tar:v3.14.0
#     OUT    the new image, an OCI archive holding only it, to push with
#              skopeo copy oci-archive:OUT docker://REGISTRY/cephcsi-netns-exec:v3.14.0
#     --ref NAME  which image of BASE (its org.opencontainers.image.ref.name);
#                 default: BASE's only image
#     --tag TAG   the name of the new image in OUT (default: NAME)
#     --tree DIR  the plugin tree (rootfs.sh plugin); default: rootfs/ next to
#                 this script, as in the release archive
#     --no-nsenter  leave the base's nsenter alone (Containerfile.plugin's NSENTER=no)
#     --library CEPHCSI  the library plugin image instead (library mode): CEPHCSI,
#            ceph-csi's cephcsi built with the patch series (integrations/ceph-csi/
#            build.sh, which links libnetns_exec in), replaces the base's
#            /usr/local/bin/cephcsi; no tree, no shims, the base's nsenter left
#            alone. Checked in the new root: the binary runs there (cephcsi
#            --version, with the base's libraries) and no netns-exec is in it.
#
# The base's layers and config are kept as they are; one layer is added: the
# tree, and the mount helper shims (rootfs.sh plugin-shims). Before that layer
# is written, the ldd check (rootfs.sh check-libraries) and the shim check
# (rootfs.sh check-shims) run inside the new root. Needs root (umoci keeps the
# base's file owners; the checks chroot), umoci, tar and jq.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "build-plugin-image.sh: $*" >&2; exit 1; }

base='' out='' ref='' tag='' tree=$here/rootfs nsenter='' library=''
while [ $# -gt 0 ]; do
  case $1 in
  --library) library=$2; shift ;;
  --ref) ref=$2; shift ;;
  --tag) tag=$2; shift ;;
  --tree) tree=$2; shift ;;
  --no-nsenter) nsenter=--no-nsenter ;;
  -*) die "unknown option $1 (see the top of $0)" ;;
  *) if [ -z "$base" ]; then base=$1; elif [ -z "$out" ]; then out=$1; else die "one BASE and one OUT"; fi ;;
  esac
  shift
done
[ -n "$base" ] && [ -n "$out" ] || die "usage: build-plugin-image.sh BASE OUT [--ref NAME] [--tag TAG] [--tree DIR] [--no-nsenter] [--library CEPHCSI]"
[ -z "$library" ] || [ -z "$nsenter" ] || die "--library takes no --no-nsenter: the library plugin image changes nothing but cephcsi"
if [ -n "$library" ] && { [ ! -f "$library" ] || [ ! -x "$library" ]; }; then
  die "--library $library: no such executable (integrations/ceph-csi/build.sh makes it)"
fi
[ "$(id -u)" -eq 0 ] || die "needs root: umoci unpack keeps the base image's file owners, and the checks chroot into the result"
for tool in umoci tar jq chroot; do
  command -v "$tool" >/dev/null || die "$tool is not installed (Debian: apt-get install umoci tar jq)"
done
[ -n "$library" ] || [ -x "$tree/opt/netns-exec/bin/netns-exec" ] || die "$tree is not the plugin tree (no opt/netns-exec/bin/netns-exec)"
rootfs_sh=$here/rootfs.sh
[ -x "$rootfs_sh" ] || die "$rootfs_sh is missing: it comes with this script"

work=$(mktemp -d "${TMPDIR:-/tmp}/netns-plugin-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
layout=$work/layout
if [ -d "$base" ]; then
  cp -a "$base" "$layout"
elif [ -f "$base" ]; then
  mkdir "$layout"
  tar -xf "$base" -C "$layout"
else
  die "$base is neither an OCI archive nor an OCI layout directory"
fi
[ -f "$layout/index.json" ] && [ -f "$layout/oci-layout" ] || die "$base is not an OCI image (no index.json and oci-layout)"

# umoci names images by their ref.name annotation; an archive saved without a
# name (skopeo copy ... oci-archive:FILE) has one unnamed image: name it.
names=$(jq -r '.manifests[] | .annotations["org.opencontainers.image.ref.name"] // ""' "$layout/index.json")
if [ -z "$ref" ]; then
  [ "$(jq '.manifests | length' "$layout/index.json")" -eq 1 ] ||
    die "$base holds more than one image; pick one with --ref (its names: $(tr '\n' ' ' <<<"$names"))"
  ref=$names
  if [ -z "$ref" ]; then
    ref=base
    jq '.manifests[0].annotations["org.opencontainers.image.ref.name"] = "base"' "$layout/index.json" >"$work/index.json"
    mv "$work/index.json" "$layout/index.json"
  fi
fi
grep -Fx -- "$ref" <<<"$names" >/dev/null || [ "$ref" = base ] || die "$base has no image named '$ref' (its names: $(tr '\n' ' ' <<<"$names"))"
tag=${tag:-$ref}

umoci unpack --image "$layout:$ref" "$work/bundle" >/dev/null
root=$work/bundle/rootfs
in_root() { env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$(command -v chroot)" "$root" "$@"; }
if [ -n "$library" ]; then
  [ -f "$root/usr/local/bin/cephcsi" ] || die "$base has no /usr/local/bin/cephcsi: not a ceph-csi image"
  install -m 0755 "$library" "$root/usr/local/bin/cephcsi"
  cephcsi_version=$(in_root /usr/local/bin/cephcsi --version 2>&1) ||
    die "the patched cephcsi does not run in $base's root: $(tail -n 3 <<<"$cephcsi_version")"
  created_by="netns-holder build-plugin-image.sh --library: $(head -n 1 <<<"$cephcsi_version")"
  # Library mode has no shim: nothing of netns-exec may be in the image.
  found=$(find "$root" -xdev \( -name netns-exec -o -path "$root/opt/netns-exec" \) -print 2>/dev/null | head -n 3)
  [ -z "$found" ] || die "$base has netns-exec in it (${found//$root/}): the library plugin image is built on ceph-csi's own image, not on the plugin image"
else
  cp -a "$tree/." "$root/"
  if [ "$nsenter" = --no-nsenter ]; then
    rm -f "$root/usr/local/bin/nsenter"
  fi
  "$rootfs_sh" plugin-shims "$root"
  "$rootfs_sh" check-libraries "$root" >/dev/null
  "$rootfs_sh" check-shims "$root" $nsenter
  created_by="netns-holder build-plugin-image.sh: netns-exec $(in_root /usr/local/bin/netns-exec --version | sed -n 's/^netns-exec //p')"
fi

# The new layer is what changed in the bundle since the unpack; the base's
# own name goes, so OUT holds the one new image.
umoci repack --image "$layout:$tag" --history.created_by "$created_by" "$work/bundle"
[ "$tag" = "$ref" ] || umoci rm --image "$layout:$ref"
umoci gc --layout "$layout"
(cd "$layout" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort) >"$work/members"
tar -C "$layout" --no-recursion --owner=0 --group=0 --numeric-owner --format=gnu \
  -T "$work/members" -cf "$out.tmp"
mv "$out.tmp" "$out"
echo "build-plugin-image.sh: $out ($tag): $(jq -r '.manifests[0].digest' "$layout/index.json")"
