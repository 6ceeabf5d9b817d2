#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the installed copy run from
# outside the source tree: the spec lookup order (README, "Installing"), the
# man page and the completions generated from the binary's --help.
#   check.sh BUILD_DIR SOURCE_DIR
set -u
build=$1 src=$2
prefix=$(mktemp -d) work=$(mktemp -d) envdir=$(mktemp -d)
trap 'rm -rf "$prefix" "$work" "$envdir"' EXIT
fail=0
check() { # check WHAT COMMAND...: the command must succeed
  local what=$1; shift
  if ! "$@" >"$work/out" 2>"$work/err"; then
    echo "FAIL: $what"; cat "$work/out" "$work/err"; fail=1
  fi
}
refuse() { # refuse WHAT COMMAND...: the command must fail
  local what=$1; shift
  if "$@" >"$work/out" 2>"$work/err"; then echo "FAIL: $what (succeeded)"; fail=1; fi
}

cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
bin=$prefix/bin/skelcast
for f in bin/skelcast share/skelcast/hwspecs/h100.json share/man/man1/skelcast.1 \
         share/bash-completion/completions/skelcast share/zsh/site-functions/_skelcast; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f is not installed"; fail=1; }
done

# Run from a directory outside the source tree, with a copy of one skeleton.
cd "$work" || exit 1
cp "$src/skeletons/matmul.skel" .
check "installed binary projects with the installed specs" "$bin" project matmul.skel --hw h100

# 2nd in the order: the installed directory, before the source tree. A spec
# only the installed directory holds is found by the installed binary only.
sed 's/"name": *"[^"]*"/"name": "installed_only"/' "$src/hwspecs/h100.json" \
  >"$prefix/share/skelcast/hwspecs/installed_only.json"
check "--hw NAME from the installed directory" "$bin" hw show installed_only
refuse "the build tree's binary must not see the installed directory" \
  "$build/skelcast" hw show installed_only

# 1st: SKELCAST_HWSPEC_DIR replaces the directories after it.
sed 's/"name": *"[^"]*"/"name": "env_only"/' "$src/hwspecs/h100.json" >"$envdir/env_only.json"
check "--hw NAME from SKELCAST_HWSPEC_DIR" env SKELCAST_HWSPEC_DIR="$envdir" "$bin" hw show env_only
refuse "SKELCAST_HWSPEC_DIR comes first and alone" \
  env SKELCAST_HWSPEC_DIR="$envdir" "$bin" hw show h100
# Before all: --hw FILE.
check "--hw FILE whatever the directories" \
  env SKELCAST_HWSPEC_DIR="$envdir" "$bin" project matmul.skel --hw "$src/hwspecs/a100.json"
# Last: the source tree, for the binary in the build tree.
check "the build tree's binary uses the source tree" "$build/skelcast" hw show h100

# The man page holds every option of every command's --help.
man=$prefix/share/man/man1/skelcast.1
for cmd in "" fmt project explain skeletonize validate batch check "hw list" "hw show"; do
  if ! "$bin" $cmd --help >/dev/null 2>&1; then continue; fi # skeletonize: frontend builds only
  for opt in $("$bin" $cmd --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -qF -- "$opt" "$man" || { echo "FAIL: man page lacks '$cmd $opt'"; fail=1; }
  done
done
grep -q '^\.TH SKELCAST 1' "$man" || { echo "FAIL: man page has no .TH"; fail=1; }
if command -v groff >/dev/null; then
  groff -man -Tutf8 "$man" >/dev/null 2>"$work/groff" || { echo "FAIL: groff"; fail=1; }
fi

# The bash completion, run as bash would: subcommands, then each one's options.
complete_words() { # complete_words WORD...: what TAB offers for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _skelcast; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$prefix/share/bash-completion/completions/skelcast" "$@"
}
expect() { # expect WORD OFFERED... -- the completion of OFFERED must include WORD
  local want=$1; shift
  complete_words "$@" | grep -qx -- "$want" || { echo "FAIL: completing '$*' does not offer '$want'"; fail=1; }
}
expect project skelcast pro
expect --hw skelcast project matmul.skel --h
expect --in-place skelcast fmt --in
expect show skelcast hw s
expect --warnings-as-errors skelcast project --warn
expect --color skelcast --col
# every option of project's --help is offered
for opt in $("$bin" project --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
  expect "$opt" skelcast project --
done
if command -v zsh >/dev/null; then
  zsh -c "source $prefix/share/zsh/site-functions/_skelcast" || { echo "FAIL: zsh completion"; fail=1; }
fi

[ $fail -eq 0 ] && echo "ok: installed into a temporary prefix and run from $work"
exit $fail
