#!/usr/bin/env bash
# Hints and messages name only options that exist. Every --option in a string
# literal of the C++ sources (adjacent literals joined, comments dropped) must
# be in the option table of the program that prints it, as the program itself
# lists them (`netns-exec [SUB] --help`, `netns-holder --help`):
#   - a literal that names netns-holder or netns-exec as a command: that program's;
#   - one that names another program (kubectl, helm, nsenter, rbd, ...): not checked;
#   - otherwise the program the file is built into: holder/ netns-holder's,
#     executor/ netns-exec's, common/ (linked into both) an option of both.
# A literal of option words alone is a table row, not prose.
# Then at run time, the messages that once named a missing option: the
# holder and `netns-exec fence-info` refusing a directory others can write
# (their hints named netns-exec's --trust-uid), and `netns-holder check` run
# outside the holder's namespace. The control: a source that names an option
# no program has fails, naming the file and the option.
#   hint_options_test.sh SOURCE_DIR NETNS_EXEC NETNS_HOLDER
set -euo pipefail
src=$(cd "$1" && pwd) exec_bin=$2 holder_bin=$3
work=$(mktemp -d /tmp/netns-hints.XXXXXX)
trap 'rm -rf "$work"' EXIT
export LC_ALL=C

# shellcheck source=help_tables.sh
. "$(dirname "$0")/help_tables.sh"

# The option tables: every subcommand's (nested ones too) and the top level.
exec_help_walk "$exec_bin" "$work/exec.options" /dev/null || { echo "hints: could not read netns-exec's subcommands"; exit 1; }
sort -u -o "$work/exec.options" "$work/exec.options"
"$holder_bin" --help | options_of | sort -u >"$work/holder.options"
grep -x -- '--kill-grace' "$work/exec.options" >/dev/null || { echo "hints: no options read from netns-exec"; exit 1; }
grep -x -- '--require-reachable' "$work/holder.options" >/dev/null || { echo "hints: no options read from netns-holder"; exit 1; }
comm -12 "$work/exec.options" "$work/holder.options" >"$work/both.options"

# literal_options FILE: "OWNER OPTION" for every option in its string
# literals that are prose (a lone "--name" defines an option or is an argv
# word); OWNER is holder or exec for a literal naming that program as a
# command ("netns-holder check", "netns-exec guard --..."), other for one
# naming another program's command, file (the file's program) otherwise.
literal_options() {
  perl -0777 -ne '
    # Comments and character literals out, string literals kept: "http://"
    # is no comment, and a quote character starts no string.
    s{("(?:[^"\\\n]|\\.)*")|\x27(?:[^\x27\\\n]|\\.)*\x27|//[^\n]*|/\*.*?\*/}{defined $1 ? $1 : ""}gse;
    while (/((?:"(?:[^"\\\n]|\\.)*"\s*)+)/g) {                 # adjacent literals, joined
      my $text = join "", ($1 =~ /"((?:[^"\\\n]|\\.)*)"/g);
      # Prose only: a lone "--name" is an option table entry or an argv word.
      next unless $text =~ /--[a-z]/ && $text =~ /\S\s+\S/;
      # Nor a list of option words alone ("-c --conf"): a row of the option
      # table of another tool (executor/shim), not a sentence to a user.
      next if $text =~ /^\s*(?:-[^\s]+\s*)+$/;
      my $owner = $text =~ /\bnetns-holder\s+(check\b|--)/ ? "holder"
                : $text =~ /\bnetns-exec\s+[a-z-]/ ? "exec"
                : $text =~ /\b(kubectl|helm|nsenter|unshare|rbd|ceph|ceph-fuse|mount|umount|nvme|ip|jq|runc|systemctl)\s+[a-z-]/ ? "other"
                : "file";
      print "$owner $_\n" for ($text =~ /(?<![\w-])(--[a-z][a-z0-9-]+)/g);
    }' "$1"
}

# check FILE PROGRAM (holder|exec|common): one line per option it must not name.
check() {
  local file=$1 program=$2 owner option table rc=0
  while read -r owner option; do
    case $owner in
      other) continue ;;
      holder) table=holder ;;
      exec) table=exec ;;
      file) case $program in common) table=both ;; *) table=$program ;; esac ;;
    esac
    if ! grep -xF -- "$option" "$work/$table.options" >/dev/null; then
      echo "hints: ${file#"$src"/}: names $option, which $(case $table in both) echo "netns-exec and netns-holder do not both take (common/ is in both)" ;; *) echo "netns-$table does not take" ;; esac)"
      rc=1
    fi
  done < <(literal_options "$file")
  return "$rc"
}

status=0
while read -r f; do check "$f" holder || status=1; done < <(find "$src/holder" -name '*.[ch]pp' | sort)
while read -r f; do check "$f" exec || status=1; done < <(find "$src/executor" -name '*.[ch]pp' -not -path '*/go/*' | sort)
while read -r f; do check "$f" common || status=1; done < <(find "$src/common" -name '*.[ch]pp' | sort)

# At run time: each message's options against its own program's table.
runtime() {  # runtime NAME TABLE STDERR_FILE
  local opt rc=0
  [ -s "$3" ] || { echo "hints: $1 printed nothing on stderr"; return 1; }
  for opt in $(options_of <"$3" | sort -u); do
    grep -xF -- "$opt" "$work/$2.options" >/dev/null \
      || { echo "hints: $1 names $opt, which netns-$2 does not take: $(cat "$3")"; rc=1; }
  done
  return "$rc"
}
mkdir -m 0777 "$work/open"
chmod 0777 "$work/open"  # whatever the umask
if "$holder_bin" --cluster-id hints --dir "$work/open" --allow-host-netns 2>"$work/holder.err" </dev/null; then
  echo "hints: netns-holder published into a world-writable directory"; status=1
fi
runtime "netns-holder refusing a world-writable --dir" holder "$work/holder.err" || status=1
if "$holder_bin" check --cluster-id hints --dir "$work/open" 2>"$work/check.err" </dev/null; then
  echo "hints: netns-holder check passed in a world-writable directory"; status=1
fi
runtime "netns-holder check in a world-writable --dir" holder "$work/check.err" || status=1
# (fence-info may report an untrusted directory as a note on stdout.)
"$exec_bin" fence-info --holder-dir "$work/open" >"$work/fence.err" 2>&1 || true
runtime "netns-exec fence-info over a world-writable --holder-dir" exec "$work/fence.err" || status=1

# The control.
mkdir -p "$work/ctl/holder"
printf 'const char* h = "try " "--no-such-option";\n// "--in-a-comment"\n' >"$work/ctl/holder/x.cpp"
if check "$work/ctl/holder/x.cpp" holder >"$work/control.out"; then
  echo "hints: control: a source naming --no-such-option passed"; exit 1
fi
grep -F -- 'x.cpp: names --no-such-option, which netns-holder does not take' "$work/control.out" >/dev/null \
  || { echo "hints: control did not report --no-such-option:"; cat "$work/control.out"; exit 1; }
[ "$(wc -l <"$work/control.out")" -eq 1 ] || { echo "hints: control reported more than one:"; cat "$work/control.out"; exit 1; }

[ "$status" -eq 0 ] || exit 1
echo "hints: ok ($(wc -l <"$work/exec.options") netns-exec options, $(wc -l <"$work/holder.options") netns-holder options)"
