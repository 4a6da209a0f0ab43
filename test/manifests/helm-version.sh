# shellcheck shell=bash
# Sourced by scripts/setup.d/helm.sh and test/manifests/run-node-test.sh: the
# pinned helm release and where the set-up puts it when it is built.
NETNS_HELM_VERSION=v3.21.4
if [ -z "${NETNS_HELM_CACHE:-}" ]; then
  if [ -w /var/cache ] || [ -w /var/cache/netns-holder ]; then
    NETNS_HELM_CACHE=/var/cache/netns-holder
  else
    NETNS_HELM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/netns-holder
  fi
fi
NETNS_HELM_BIN=$NETNS_HELM_CACHE/helm-$NETNS_HELM_VERSION/helm
