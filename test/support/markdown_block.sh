# shellcheck shell=bash
# Sourced: markdown_block FILE HEADING LANG [N] prints the Nth (default: first)
# fenced block of language LANG under the level-2 heading HEADING ("## ..."),
# as written, so the tests run the docs' examples and not copies of them.
markdown_block() {
  awk -v heading="$2" -v lang="$3" -v n="${4:-1}" '
    /^## / { inside = ($0 == heading) }
    inside && $0 == "```" lang { count++; if (count == n) { grab = 1; next } }
    grab && /^```$/ { exit }
    grab { print }' "$1"
}
