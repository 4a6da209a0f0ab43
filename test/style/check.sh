#!/usr/bin/env bash
# The formatter's word on the sources: clang-format (the root's .clang-format)
# for C and C++, gofmt for Go. Prints each file that differs, with the
# formatter's diff, and the command that fixes it.
#   check.sh clang-format SOURCE_DIR
#   check.sh gofmt SOURCE_DIR
#   check.sh pipe-grep SOURCE_DIR
#   check.sh version-script SOURCE_DIR
#   check.sh holder-size SOURCE_DIR
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
    # What libnetns_exec.so exports is marked at the declaration (NETNS_EXEC_API, netns/api.h;
    # the library is compiled hidden) and its version script stays short. Checked here, from
    # the sources (test/abi checks the built .so against the headers):
    #   - the version script holds only the version node, the C prefix, netns::* and the
    #     typeinfo/vtable of a class an installed header marks: a name listed by hand there
    #     is a second list that drifts from the headers;
    #   - every function an installed header declares is marked: one left unmarked is not
    #     exported, and a caller of the installed library gets an undefined symbol;
    #   - nothing outside the installed headers is marked: a mark there would export a name
    #     no installed header declares.
    map=executor/abi/exports.map
    cmake=executor/abi/CMakeLists.txt
    # The installed headers, from the install(FILES ...) rules of the library.
    mapfile -t headers < <(grep -oE '[^[:space:]]+\.(h|hpp)$' "$cmake" |
      sed -e 's,^\${PROJECT_SOURCE_DIR}/,,' -e 's,^include/,executor/abi/include/,')
    [ ${#headers[@]} -gt 5 ] || { echo "only ${#headers[@]} installed headers read from $cmake" >&2; exit 1; }
    for h in "${headers[@]}"; do [ -f "$h" ] || { echo "$cmake installs $h, which does not exist" >&2; exit 1; }; done
    bad=()
    # 1. The version script's patterns (comments dropped).
    mapfile -t patterns < <(sed -e 's,/\*.*\*/,,' -e '/\/\*/,/\*\//d' "$map" |
      sed -nE 's/^[[:space:]]*("?[A-Za-z_*][^;]*);[[:space:]]*$/\1/p')
    [ ${#patterns[@]} -gt 2 ] || { echo "only ${#patterns[@]} patterns read from $map: is it still a version script?" >&2; exit 1; }
    [[ " ${patterns[*]} " == *" local: *"* ]] || bad+=("$map: no 'local: *;' (everything not marked must stay local)")
    for p in "${patterns[@]}"; do
      case "$p" in
        'local: *' | 'netns_exec_*' | 'netns::*') ;;
        '"typeinfo for netns::'*'"' | '"typeinfo name for netns::'*'"' | '"vtable for netns::'*'"')
          class=${p%\"}; class=${class##*::}
          grep -qE "^(class|struct) NETNS_EXEC_API $class\b" "${headers[@]}" ||
            bad+=("$map: $p, but no installed header marks class $class NETNS_EXEC_API")
          ;;
        *) bad+=("$map: $p: mark the declaration NETNS_EXEC_API instead of naming it here") ;;
      esac
    done
    # 2. Every function declared at namespace scope in an installed header is marked
    # (inline functions and templates are the caller's own copy).
    mapfile -t unmarked < <(awk 'FNR == 1 { after_template = 0 }
      /^template/ { after_template = 1; next }
      !after_template && /^[A-Za-z_][A-Za-z0-9_:<>,*& ]*[ *&][A-Za-z_][A-Za-z0-9_]*\(/ &&
        !/^(inline|constexpr|static|using|namespace|struct|class|enum|typedef|friend|extern|return|NETNS_EXEC_API)[^A-Za-z0-9_]/ {
        print FILENAME ":" FNR ": " $0 }
      { after_template = 0 }' "${headers[@]}")
    for u in "${unmarked[@]}"; do bad+=("$u: declared in an installed header, not marked NETNS_EXEC_API"); done
    # 3. No mark outside the installed headers (netns/api.h defines it).
    mapfile -t marking < <(list '*.c' '*.h' '*.cpp' '*.hpp' | xargs grep -l 'NETNS_EXEC_API' --)
    for f in "${marking[@]}"; do
      [ "$f" = common/include/netns/api.h ] && continue
      [[ " ${headers[*]} " == *" $f "* ]] || bad+=("$f: marks NETNS_EXEC_API but is not an installed header ($cmake)")
    done
    marks=$(cat "${headers[@]}" | grep -c 'NETNS_EXEC_API' || true)
    [ "$marks" -gt 50 ] || bad+=("only $marks NETNS_EXEC_API marks in the installed headers: is the surface still marked?")
    if [ ${#bad[@]} -gt 0 ]; then
      printf '%s\n' "${bad[@]}" >&2
      exit 1
    fi
    echo "version-script: ${#patterns[@]} patterns in $map; $marks marks, all in the ${#headers[@]} installed headers, every function there marked"
    ;;
  holder-size)
    # The holder's size is the holder's business (STYLE.md habit 15): common/ is shared code,
    # written plainly and built once. What made it otherwise: a concatenation helper and
    # hand-written number formatting kept for the static holder's code size, buffers sized for
    # its resident stack, size flags, replaced runtime parts or code placement, and a second,
    # size-optimized build of common/'s sources elsewhere. One pattern per idiom, with its fix.
    patterns=(
      '\bcat\(\{'
      'no printf'
      '\bRSS\b|resident (stack|text|set|memory|page)|fault-around|code size|smaller (static )?holder'
      '(^|[[:space:]])-(Os|flto[=a-z]*|ffunction-sections|fdata-sections|fno-threadsafe-statics)\b'
      '__throw_|__terminate_handler|__cxxabiv1'
      'gnu::cold|__attribute__\(\(cold|gnu::noinline'
    )
    fixes=(
      "a concatenation helper kept for the holder's code size: write std::string + ..."
      "formatting by hand to keep printf out of the holder: snprintf or std::to_string"
      "shared code argued by the holder's size: that reasoning belongs in holder/"
      "size flags in common/: it is built once, like the rest"
      "libstdc++ internals replaced: not in shared code"
      "code placed for the holder's link: not in shared code"
    )
    files=()
    while IFS= read -r f; do
      case $f in common/*) files+=("$f") ;; esac
    done < <(list '*.c' '*.h' '*.cpp' '*.hpp' '*CMakeLists.txt' '*.cmake')
    [ ${#files[@]} -gt 10 ] || { echo "only ${#files[@]} files found under common/ in $src" >&2; exit 1; }
    found=0
    for i in "${!patterns[@]}"; do
      mapfile -t hits < <(grep -nHE -- "${patterns[$i]}" "${files[@]}" || true)
      [ ${#hits[@]} -gt 0 ] || continue
      printf '%s\n' "${hits[@]:0:8}"
      [ ${#hits[@]} -le 8 ] || echo "... and $((${#hits[@]} - 8)) more lines like these"
      echo "  ^ ${fixes[$i]}"
      found=1
    done
    # common/'s sources are compiled by common/CMakeLists.txt alone: no private copy of them
    # with other flags (the holder used to rebuild them with -Os and LTO).
    builds=()
    while IFS= read -r f; do
      case $f in common/*) ;; *) builds+=("$f") ;; esac
    done < <(list '*CMakeLists.txt' '*.cmake')
    [ -f CMakeLists.txt ] && builds+=(CMakeLists.txt)
    mapfile -t hits < <(grep -nHE 'netns_common[[:space:]]+SOURCES|common/src/' "${builds[@]}" || true)
    if [ ${#hits[@]} -gt 0 ]; then
      printf '%s\n' "${hits[@]}"
      echo "  ^ a second build of common/'s sources, with other flags than common/CMakeLists.txt's"
      found=1
    fi
    if [ "$found" -ne 0 ]; then
      echo "the lines above carry the holder's size into shared code: common/ is written plainly, and the holder's size tricks, if any, stay in holder/ (STYLE.md habit 15)" >&2
      exit 1
    fi
    echo "holder-size: no holder size idiom in ${#files[@]} files under common/, which only common/CMakeLists.txt builds"
    ;;
  *) echo "usage: check.sh clang-format|gofmt|pipe-grep|version-script|holder-size SOURCE_DIR" >&2; exit 2 ;;
esac
