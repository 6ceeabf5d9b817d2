#!/usr/bin/env bash
# The examples of the docs are the real output of the commands they show, so
# they cannot drift (issue 17, item 20). A code block in README.md or docs/*.md
# preceded by a marker line is checked:
#
#   <!-- output of: COMMAND -->     the block is COMMAND's whole output
#   <!-- excerpt of: COMMAND -->    the block's lines appear in COMMAND's output,
#                                   in order (a line "..." in the block skips any)
#
# The block is the fenced code block on the next line, or, when the next line
# is not a fence (a Markdown table that a command prints), every line up to a
# line "<!-- end of output -->".
#
# COMMAND runs with bash from the repository root, stdout and stderr together,
# with `skelcast` on PATH being the binary under test. Run from the root:
#   tests/docs/check_examples.sh SKELCAST           compare
#   tests/docs/check_examples.sh SKELCAST --regen   rewrite the "output of" blocks (then review them)
set -u
bin=$(realpath "$1")
mode=${2:-}
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
ln -s "$bin" "$tmp/bin/skelcast"
export PATH="$tmp/bin:$PATH"

fail=0 checked=0

# excerpt BLOCK ACTUAL: every line of BLOCK (but "...") in ACTUAL, in order.
excerpt() {
  local want got
  exec 3<"$2"
  while IFS= read -r want; do
    [ "$want" = "..." ] && continue
    while IFS= read -r got <&3; do [ "$got" = "$want" ] && continue 2; done
    exec 3<&-
    echo "    missing (or out of order): $want"
    return 1
  done <"$1"
  exec 3<&-
  return 0
}

for doc in README.md docs/*.md; do
  new=$tmp/new.md
  : >"$new"
  state=text kind= cmd= start=0 n=0
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    case $state in
    text)
      printf '%s\n' "$line" >>"$new"
      if [[ $line =~ ^'<!-- '(output|excerpt)' of: '(.*)' -->'$ ]]; then
        kind=${BASH_REMATCH[1]} cmd=${BASH_REMATCH[2]} state=fence
      fi ;;
    fence)
      start=$n end='```'
      : >"$tmp/block"
      if [[ $line == '```'* ]]; then
        printf '%s\n' "$line" >>"$new"
      else
        end='<!-- end of output -->'
        printf '%s\n' "$line" >>"$tmp/block"
      fi
      state=block ;;
    block)
      if [ "$line" != "$end" ]; then
        printf '%s\n' "$line" >>"$tmp/block"
        continue
      fi
      (cd "$root" && bash -c "$cmd") >"$tmp/actual" 2>&1
      checked=$((checked + 1))
      if [ "$kind" = output ]; then
        if [ "$mode" = --regen ]; then
          cat "$tmp/actual" >>"$new"
        else
          cat "$tmp/block" >>"$new"
          if ! diff -u "$tmp/block" "$tmp/actual" >"$tmp/diff"; then
            echo "FAIL $doc:$start: the block is not the output of: $cmd (- in the doc, + printed)"
            sed 's/^/    /' "$tmp/diff"
            fail=1
          fi
        fi
      else
        cat "$tmp/block" >>"$new"
        if ! excerpt "$tmp/block" "$tmp/actual"; then
          echo "FAIL $doc:$start: the block is not an excerpt of the output of: $cmd"
          fail=1
        fi
      fi
      printf '%s\n' "$line" >>"$new"
      state=text ;;
    esac
  done <"$doc"
  if [ "$state" != text ]; then
    echo "FAIL $doc: a marked code block is not closed"
    fail=1
  elif [ "$mode" = --regen ] && ! cmp -s "$new" "$doc"; then
    cp "$new" "$doc"
    echo "rewrote $doc"
  fi
done
if [ "$checked" -eq 0 ]; then
  echo "FAIL: no marked example found (is the working directory the repository root?)"
  exit 1
fi
[ $fail -eq 0 ] && echo "ok: $checked examples in the docs are what their commands print"
exit $fail
