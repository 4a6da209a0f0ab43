# shellcheck shell=bash
# Sourced by scripts/setup.d/cephcsi.sh and the kernel suite: the pinned ceph-csi and
# kubernetes-csi releases the suite drives, and where the set-up caches the binaries it builds
# (beside helm and kustomize: test/manifests/helm-version.sh).
#   NETNS_HELM_CACHE  the cache (default /var/cache/netns-holder, or ~/.cache/netns-holder)
NETNS_CEPHCSI_VERSION=v3.12.2
NETNS_CEPHCSI_COMMIT=dcf14882dd4d2e7064fee259b9c81424a3bfc04f
# ceph-csi's source with its vendor/ at that tag: the sha256 of ceph-csi-v3.12.2.tar.xz (the copy a
# machine without a source host finds beside the checkout), and of its content (every file's path
# below the top folder and its sha256, sorted: test/csi/content-digest.sh), which is what a
# download of the same tag from GitHub — another compression, another top folder — is held to.
NETNS_CEPHCSI_TARBALL_SHA256=51f47fe21082baaf7f5396501300a965a9efad6765f34eaee11b6cb8b9f76f6c
NETNS_CEPHCSI_CONTENT_SHA256=f860eeb1bce7a6d3be719ae6549ae39d54099ffbeb409a23fa600b1b54341c5e
NETNS_CSI_SANITY_VERSION=v5.6.0
if [ -z "${NETNS_HELM_CACHE:-}" ]; then
  if [ -w /var/cache ] || [ -w /var/cache/netns-holder ]; then
    NETNS_HELM_CACHE=/var/cache/netns-holder
  else
    NETNS_HELM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/netns-holder
  fi
fi
NETNS_CEPHCSI_BIN=$NETNS_HELM_CACHE/cephcsi-$NETNS_CEPHCSI_VERSION/cephcsi
# Its source, unmodified, kept (read-only) for the library mode's build (integrations/ceph-csi).
NETNS_CEPHCSI_SRC=$NETNS_HELM_CACHE/cephcsi-$NETNS_CEPHCSI_VERSION/src
NETNS_CSI_SANITY_BIN=$NETNS_HELM_CACHE/csi-sanity-$NETNS_CSI_SANITY_VERSION/csi-sanity
