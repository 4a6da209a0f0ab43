#!/usr/bin/env bash
# Prints one sha256 for a source tree's content, whatever archive it came in: each regular file's
# path (relative to DIR) and sha256, each symbolic link's path and target, sorted bytewise, hashed.
# Modes, times, owners and empty folders do not count (git archive and tar differ there).
#   content-digest.sh DIR
set -euo pipefail
cd "$1"
{
  find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
  find . -type l -print0 | LC_ALL=C sort -z | while IFS= read -r -d '' l; do
    printf 'link %s -> %s\n' "$l" "$(readlink "$l")"
  done
} | sha256sum | cut -d' ' -f1
