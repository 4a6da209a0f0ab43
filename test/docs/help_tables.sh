# shellcheck shell=bash
# Sourced by the docs tests: the programs' own option tables, read from
# their --help (CLI11's layout for netns-exec, the holder's usage text).

# options_of: every --option a help text on stdin lists, one a line.
options_of() { grep -oE -- '(^|[ ,[])--[a-z][a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' || true; }

# subcommands_of: the names listed under "Subcommands:" in a help text on stdin.
subcommands_of() {
  awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'
}

# exec_help_walk NETNS_EXEC OPTIONS_FILE SUBCOMMANDS_FILE: the options of the
# top level, every subcommand and the nested ones (shim explain), and the
# subcommands' names ("shim explain"), each appended one a line.
exec_help_walk() {
  local bin=$1 options=$2 subcommands=$3 help queue next cmd s
  help=$(mktemp)
  "$bin" --help >"$help"
  options_of <"$help" >>"$options"
  queue=$(subcommands_of <"$help")
  [ -n "$queue" ] || { echo "$bin --help lists no subcommands" >&2; rm -f "$help"; return 1; }
  while [ -n "$queue" ]; do
    next=""
    while read -r cmd; do
      [ -n "$cmd" ] || continue
      echo "$cmd" >>"$subcommands"
      # shellcheck disable=SC2086  # cmd is "shim explain": two words on purpose
      "$bin" $cmd --help >"$help"
      options_of <"$help" >>"$options"
      for s in $(subcommands_of <"$help"); do next+="$cmd $s"$'\n'; done
    done <<<"$queue"
    queue=$next
  done
  rm -f "$help"
}
