#!/usr/bin/env bash
# The man pages render without a warning and cannot go stale silently: every
# option the binaries' --help lists (netns-exec, each subcommand, netns-holder),
# every subcommand and every NETNS_EXEC_* variable the code reads appears in
# its page. The control: a page with one option taken out, and one with an
# unknown macro, must each fail.
#   man_pages_test.sh SOURCE_DIR NETNS_EXEC NETNS_HOLDER
set -euo pipefail
src=$1 exec_bin=$2 holder_bin=$3
work=$(mktemp -d /tmp/netns-man.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The page's text as a reader searches it: comments dropped, \- and font
# escapes undone, so "\fB\-\-timeout\fR" is found as --timeout.
page_text() {
  sed -e '/^\.\\"/d' -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' -e 's/\\e/\\/g' "$1"
}

# check_page PAGE WORDS_FILE: 0 when PAGE renders cleanly and names every word.
check_page() {
  local page=$1 words=$2 err=$work/groff.err rc=0 text
  if ! groff -man -Tutf8 -ww -z "$page" 2>"$err" || [ -s "$err" ]; then
    echo "man_pages: $page: groff -man -ww warns: $(cat "$err")"
    rc=1
  fi
  text=$(page_text "$page")
  while read -r word; do
    [ -n "$word" ] || continue
    grep -qF -- "$word" <<<"$text" || { echo "man_pages: $page does not mention $word"; rc=1; }
  done <"$words"
  return "$rc"
}

# shellcheck source=help_tables.sh
. "$(dirname "$0")/help_tables.sh"

# netns-exec: the top level, every subcommand and the nested ones (shim explain).
exec_words=$work/exec.words
exec_help_walk "$exec_bin" "$exec_words" "$exec_words" || { echo "man_pages: could not read netns-exec's subcommands"; exit 1; }
# The environment the code reads.
grep -rhoE '"NETNS_EXEC_[A-Z_]+"' "$src/executor" | tr -d '"' >>"$exec_words"
sort -u -o "$exec_words" "$exec_words"
grep -q -- '--kill-grace' "$exec_words" || { echo "man_pages: no options read from netns-exec"; exit 1; }

holder_words=$work/holder.words
{ "$holder_bin" --help | options_of; echo check; } | sort -u >"$holder_words"
grep -q -- '--require-reachable' "$holder_words" || { echo "man_pages: no options read from netns-holder"; exit 1; }

status=0
check_page "$src/doc/man/netns-exec.1" "$exec_words" || status=1
check_page "$src/doc/man/netns-holder.8" "$holder_words" || status=1
[ "$status" -eq 0 ] || exit 1

# Controls: a stale page and a broken one are caught.
grep -v 'kill\\-grace' "$src/doc/man/netns-exec.1" >"$work/stale.1"
if check_page "$work/stale.1" "$exec_words" >"$work/control.out"; then
  echo "man_pages: control: a page without --kill-grace passed"; exit 1
fi
grep -qF -- 'does not mention --kill-grace' "$work/control.out" \
  || { echo "man_pages: control: the stale page's failure did not name --kill-grace"; exit 1; }
{ cat "$src/doc/man/netns-holder.8"; echo ".XX not a macro"; } >"$work/broken.8"
if check_page "$work/broken.8" "$holder_words" >"$work/control.out"; then
  echo "man_pages: control: a page with an unknown macro passed"; exit 1
fi
echo "man_pages: ok ($(wc -l <"$exec_words") netns-exec words, $(wc -l <"$holder_words") netns-holder words)"
