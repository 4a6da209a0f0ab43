#!/usr/bin/env bash
# The formatter's word on the sources: clang-format (the root's .clang-format)
# for C and C++, gofmt for Go. Prints each file that differs, with the
# formatter's diff, and the command that fixes it.
#   check.sh clang-format SOURCE_DIR
#   check.sh gofmt SOURCE_DIR
#   check.sh pipe-grep SOURCE_DIR
#   check.sh version-script SOURCE_DIR
set -euo pipefail
tool=$1
src=$2
cd "$src"
# The tracked sources when this is a git checkout; otherwise (a tarball) every
# source below the project's own folders. Build trees and node_modules are
# never sources.
list() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -- "$@"
  else
    local globs=() g
    for g in "$@"; do globs+=(-o -name "$g"); done
    find common holder executor test scripts manifests -name node_modules -prune -o -type f \( -false "${globs[@]}" \) -print
  fi
}
case "$tool" in
  clang-format)
    command -v clang-format >/dev/null || { echo "clang-format is not installed (./dev setup installs it)" >&2; exit 1; }
    mapfile -t files < <(list '*.c' '*.h' '*.cpp' '*.hpp')
    [ ${#files[@]} -gt 0 ] || { echo "no C or C++ sources found in $src" >&2; exit 1; }
    bad=()
    for f in "${files[@]}"; do
      if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
    done
    if [ ${#bad[@]} -gt 0 ]; then
      for f in "${bad[@]:0:10}"; do
        echo "not formatted: $f"
        clang-format "$f" | diff -u "$f" - | head -40 || true
      done
      echo "${#bad[@]} of ${#files[@]} files differ from .clang-format; fix: clang-format -i ${bad[*]}" >&2
      exit 1
    fi
    echo "clang-format: ${#files[@]} files formatted ($(clang-format --version))"
    ;;
  gofmt)
    # shellcheck source=../abi/find_go.sh
    source "$src/test/abi/find_go.sh"
    gofmt=$(dirname "$go")/gofmt
    [ -x "$gofmt" ] || { echo "no gofmt beside $go" >&2; exit 1; }
    mapfile -t files < <(list '*.go')
    [ ${#files[@]} -gt 0 ] || { echo "no Go sources found in $src" >&2; exit 1; }
    mapfile -t bad < <("$gofmt" -l "${files[@]}")
    if [ ${#bad[@]} -gt 0 ]; then
      "$gofmt" -d "${bad[@]}" | head -80
      echo "${#bad[@]} of ${#files[@]} Go files differ from gofmt; fix: $gofmt -w ${bad[*]}" >&2
      exit 1
    fi
    echo "gofmt: ${#files[@]} files formatted ($("$go" env GOVERSION))"
    ;;
  pipe-grep)
    # 'producer | grep -q PATTERN' under pipefail fails when it matches: grep -q exits at the
    # first match, the producer's next write dies of SIGPIPE, and the pipeline's status is the
    # producer's 141. Whether the producer writes again is timing, so the check flakes (an e2e
    # 'rbd info | grep -q' did in CI). 'grep PATTERN >/dev/null' reads to the end.
    mapfile -t files < <(list '*.sh')
    for f in dev .ci/run; do [ -f "$f" ] && files+=("$f"); done
    [ ${#files[@]} -gt 0 ] || { echo "no shell scripts found in $src" >&2; exit 1; }
    if grep -nE '^[^#]*(^|[^|])\|[[:space:]]*grep[[:space:]]+(-[[:alnum:]]*q|--quiet|--silent)' "${files[@]}"; then
      echo "the lines above end a pipeline in 'grep -q', which under pipefail fails on a match when the writer dies of SIGPIPE; write 'grep PATTERN >/dev/null'" >&2
      exit 1
    fi
    echo "pipe-grep: no 'grep -q' at the end of a pipeline in ${#files[@]} shell scripts"
    ;;
  version-script)
    # Every name the library's version script exports is declared in a header: a pattern left
    # behind by a removed function exports nothing and hides that the API changed. The name a
    # pattern stands for is its last component (netns::exec::Source::* -> Source,
    # netns::trust::pass* -> pass, "vtable for netns::Error" -> Error), looked up as a word in
    # the headers the library installs (test/abi checks the other direction on the built .so).
    map=executor/abi/exports.map
    mapfile -t headers < <(list 'executor/*/include/*.h' 'executor/*/include/*.hpp' 'common/include/*.hpp')
    [ ${#headers[@]} -gt 0 ] || { echo "no installed headers found in $src" >&2; exit 1; }
    mapfile -t patterns < <(sed -e 's,/\*.*\*/,,' -e '/\/\*/,/\*\//d' "$map" |
      sed -nE 's/^[[:space:]]*("?[A-Za-z_][^;]*);[[:space:]]*$/\1/p' | grep -vE '^(local|global):')
    [ ${#patterns[@]} -gt 10 ] || { echo "only ${#patterns[@]} names read from $map: is it still a version script?" >&2; exit 1; }
    missing=()
    for p in "${patterns[@]}"; do
      name=${p//\"/}
      name=${name##* for }
      name=${name%\*}
      name=${name%::}
      name=${name##*::}
      name=${name%_}
      [ "$name" = netns_exec ] && name=netns_exec_run
      grep -qw -- "$name" "${headers[@]}" || missing+=("$p ($name)")
    done
    if [ ${#missing[@]} -gt 0 ]; then
      printf "in $map but declared in no installed header: %s\n" "${missing[@]}" >&2
      exit 1
    fi
    echo "version-script: ${#patterns[@]} names in $map, each declared in an installed header"
    ;;
  *) echo "usage: check.sh clang-format|gofmt|pipe-grep|version-script SOURCE_DIR" >&2; exit 2 ;;
esac
