#!/usr/bin/env bash
# Every relative link in the project's Markdown leads somewhere: the file or
# directory exists and, for a link into a .md file with #anchor, that file has
# the heading (GitHub's anchor rule: lower case, punctuation dropped, spaces
# to hyphens). Code blocks are skipped; http(s) links are not followed. The
# control: a page with a missing file and a missing anchor must fail, naming
# both.
#   links_test.sh SOURCE_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
export LC_ALL=C
work=$(mktemp -d /tmp/netns-links.XXXXXX)
trap 'rm -rf "$work"' EXIT

# links FILE: every link target outside fenced code blocks, one a line.
links() {
  awk '/^[ \t]*```/ { code = !code; next }
       !code {
         line = $0
         gsub(/`[^`]*`/, "", line)  # inline code is not a link
         while (match(line, /\]\([^) \t]+\)/)) {
           print substr(line, RSTART + 2, RLENGTH - 3)
           line = substr(line, RSTART + RLENGTH)
         }
       }' "$1"
}

# anchors FILE: the anchor of every heading outside fenced code blocks.
anchors() {
  awk '/^[ \t]*```/ { code = !code; next } !code && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
    tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}

# check FILE...: prints each broken link; status 1 when there is one.
check() {
  local rc=0 f target path anchor dir resolved
  for f in "$@"; do
    dir=$(dirname "$f")
    while IFS= read -r target; do
      case $target in http://* | https://* | mailto:*) continue ;; esac
      path=${target%%#*}
      anchor=
      [[ $target == *"#"* ]] && anchor=${target#*#}
      if [ -z "$path" ]; then resolved=$f; else resolved=$dir/$path; fi
      if [ ! -e "$resolved" ]; then
        echo "links: ${f#"$src"/}: $target: no such file"
        rc=1
        continue
      fi
      if [ -n "$anchor" ] && [ -f "$resolved" ] && [[ $resolved == *.md ]] &&
        ! anchors "$resolved" | grep -xF -- "$anchor" >/dev/null; then
        echo "links: ${f#"$src"/}: $target: no heading for #$anchor"
        rc=1
      fi
    done < <(links "$f")
  done
  return "$rc"
}

mapfile -t pages < <(
  { ls "$src"/*.md; find "$src/design" "$src/doc" "$src/executor" "$src/holder" "$src/common" \
      "$src/manifests" "$src/scripts" "$src/test" -name '*.md' -not -path '*/node_modules/*'; } |
    sort -u)
[ "${#pages[@]}" -gt 10 ] || { echo "links: found only ${#pages[@]} Markdown files in $src"; exit 1; }
status=0
check "${pages[@]}" || status=1

# The chart's NOTES and templates (and values.yaml) name the project's files
# as text, relative to the repository root: "design/OPERATIONS.md, "Heading""
# or "scripts/upgrade-holders.sh". Each path must exist and each quoted
# heading after a .md path must be one of that file's headings.
# chart_refs FILE...: prints each broken reference; status 1 when there is one.
chart_refs() {
  local rc=0 f ref path heading
  for f in "$@"; do
    while IFS= read -r ref; do
      path=${ref%%$'\t'*}
      heading=${ref#*$'\t'}
      [ "$heading" != "$ref" ] || heading=
      if [ ! -e "$src/$path" ]; then
        echo "links: ${f#"$src"/}: $path: no such file in the repository"
        rc=1
        continue
      fi
      # A numbered section ("## 2. Upgrading ...") is named without its number.
      if [ -n "$heading" ] && ! anchors "$src/$path" | grep -xE -- "([0-9]+-)?$(anchor_of "$heading")" >/dev/null; then
        echo "links: ${f#"$src"/}: $path: no heading \"$heading\""
        rc=1
      fi
    done < <(grep -oE '(^|[ ("`])(design|doc|manifests|scripts|executor|holder|common|test)/[A-Za-z0-9_./-]*[A-Za-z0-9_-](\.md,? "[^"]+")?' "$f" |
      sed -E -e 's/^[ ("`]//' -e 's/\.md,? "([^"]+)"$/.md\t\1/')
  done
  return "$rc"
}
anchor_of() { printf '%s\n' "$1" | tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'; }
mapfile -t chart_files < <(find "$src/manifests/chart" -path '*/templates/*' -type f; echo "$src/manifests/chart/netns-holder/values.yaml")
[ "${#chart_files[@]}" -gt 3 ] || { echo "links: found only ${#chart_files[@]} chart templates"; exit 1; }
chart_refs "${chart_files[@]}" || status=1
[ "$status" -eq 0 ] || exit 1

# control NAME CHECKER FILE WANT WANT: CHECKER must fail on FILE and report
# exactly the two WANTs.
control() {
  local name=$1 checker=$2 file=$3 want
  shift 3
  if "$checker" "$file" >"$work/control.out"; then
    echo "links: control: $name passed"; exit 1
  fi
  for want in "$@"; do
    grep -qF -- "$want" "$work/control.out" || { echo "links: control did not report: $want"; cat "$work/control.out"; exit 1; }
  done
  [ "$(wc -l <"$work/control.out")" -eq "$#" ] || { echo "links: control ($name) reported more than the $#:"; cat "$work/control.out"; exit 1; }
}

# The controls.
mkdir -p "$work/d"
printf '# Title\n\n## A heading\n' >"$work/d/target.md"
printf 'Fine: [a](target.md#a-heading), [b](.) [c](https://example.com/x) `[d](in-code)`\n```\n[not](a-link)\n```\nBroken: [x](gone.md) and [y](target.md#no-such-heading)\n' \
  >"$work/d/page.md"
control "a page with a broken link" check "$work/d/page.md" 'gone.md: no such file' 'no heading for #no-such-heading'
printf '{{/* see design/OPERATIONS.md, "Upgrading holders in place" and design/DESIGN.md, "No such heading", then scripts/gone.sh. */}}\n' >"$work/d/NOTES.txt"
control "chart text with a broken reference" chart_refs "$work/d/NOTES.txt" \
  'scripts/gone.sh: no such file' 'design/DESIGN.md: no heading "No such heading"'
echo "links: ok (${#pages[@]} Markdown files, ${#chart_files[@]} chart files)"
