# shellcheck shell=bash
# Everything the scenarios and the demo use.
_e2e_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
. "$_e2e_lib/common.sh"
# shellcheck source=ceph.sh
. "$_e2e_lib/ceph.sh"
# shellcheck source=net.sh
. "$_e2e_lib/net.sh"
# shellcheck source=pod.sh
. "$_e2e_lib/pod.sh"
# shellcheck source=node.sh
. "$_e2e_lib/node.sh"
# shellcheck source=scenario.sh
. "$_e2e_lib/scenario.sh"
