#!/usr/bin/env bash
# The man page and the shell completions of skelcast, generated from the
# binary's own --help of every (sub)command, so that they cannot drift from the
# options (run at build time by CMake; tests/install/check.sh checks them).
#   gen-cli-docs.sh man  SKELCAST OUT   a man page (roff): each command's --help
#   gen-cli-docs.sh bash SKELCAST OUT   a bash completion function
#   gen-cli-docs.sh zsh  SKELCAST OUT   the same for zsh (through bashcompinit)
set -euo pipefail
mode=$1 bin=$2 out=$3

# The words under a help section ("Options:", "Subcommands:", CLI11's spelling
# in any case) of `skelcast ARGS --help`: the first word of each entry.
section() { # section NAME ARGS...
  local name=$1; shift
  "$bin" "$@" --help | awk -v want="$name" '
    /^[A-Za-z][A-Za-z ]*:$/ { insec = (tolower($0) == tolower(want) ":"); next }
    /^[^ ]/ { insec = 0 }
    insec && /^  [^ ]/ { print $1 }'
}
subcommands() { section subcommands "$@"; }
options() { # every spelling: -h,--help gives -h and --help
  section options "$@" | tr ',' '\n' | sed -n 's/^\(--*[A-Za-z0-9][A-Za-z0-9-]*\).*/\1/p'
}

# Every command path: "", "fmt", "hw", "hw list", ...
paths=("")
queue=("")
while [ ${#queue[@]} -gt 0 ]; do
  p=${queue[0]}; queue=("${queue[@]:1}")
  for s in $(subcommands $p); do
    paths+=("${p:+$p }$s"); queue+=("${p:+$p }$s")
  done
done

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
case $mode in
man)
  version=$("$bin" --version)
  esc() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"; }
  {
    echo ".\\\" Generated from the --help of $version by scripts/gen-cli-docs.sh; do not edit."
    echo ".TH SKELCAST 1 \"\" \"$version\" \"User Commands\""
    echo ".SH NAME"
    echo "skelcast \\- project the GPU performance of CPU loop nests before porting them"
    echo ".SH SYNOPSIS"
    echo ".B skelcast"
    echo "[\\fB\\-\\-color\\fR=auto|always|never] [\\fB\\-\\-warnings\\-as\\-errors\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIFILE\\fR...]"
    echo ".SH DESCRIPTION"
    echo ".nf"
    "$bin" --help | esc
    echo ".fi"
    echo ".SH COMMANDS"
    for p in "${paths[@]}"; do
      [ -z "$p" ] && continue
      echo ".SS \"skelcast $p\""
      echo ".nf"
      "$bin" $p --help | esc
      echo ".fi"
    done
    cat <<'ROFF'
.SH FILES
\fB\-\-hw NAME\fR looks for \fINAME\fR.json in the first of: the directory of
\fBSKELCAST_HWSPEC_DIR\fR when it is set; \fI../share/skelcast/hwspecs\fR beside the
executable (the installed specs); the source tree's \fIhwspecs/\fR. \fB\-\-hw FILE\fR (a
path, or a name ending in .json) reads that file.
.PP
\fB.skelcast.json\fR, found in the input's directory or one above it, gives a
project's default compiler flags and GPU: {"flags": ["\-DLARGE_DATASET"], "hw": "h100"}.
\fBcompile_commands.json\fR, found the same way, gives a C file's flags when \fB\-p\fR is absent.
.SH ENVIRONMENT
.TP
.B SKELCAST_HWSPEC_DIR
the directory of the GPU specs
.TP
.B NO_COLOR
when set and not empty, \fB\-\-color=auto\fR prints no colour
.SH EXIT STATUS
0 success, 1 the input is wrong, 2 a usage error, 128 + the signal when interrupted.
ROFF
  } >"$tmp"
  ;;
bash | zsh)
  {
    echo "# skelcast's $mode completion, generated from its --help by scripts/gen-cli-docs.sh; do not edit."
    if [ "$mode" = zsh ]; then
      echo "#compdef skelcast"
      echo "autoload -U +X bashcompinit && bashcompinit"
    fi
    echo "_skelcast() {"
    echo "  local cur=\${COMP_WORDS[COMP_CWORD]} path= w i"
    echo "  # the command path: the words that name (sub)commands, in order"
    echo "  for ((i = 1; i < COMP_CWORD; i++)); do"
    echo "    w=\${COMP_WORDS[i]}"
    echo "    case \"\$path|\$w\" in"
    for p in "${paths[@]}"; do
      subs=$(subcommands $p | tr '\n' '|' | sed 's/|$//')
      [ -z "$subs" ] && continue
      for s in $(subcommands $p); do
        echo "      '$p|$s') path=\"\${path:+\$path }$s\" ;;"
      done
    done
    echo "    esac"
    echo "  done"
    echo "  local opts subs"
    echo "  case \"\$path\" in"
    for p in "${paths[@]}"; do
      # its own options, then the global ones (accepted after a subcommand too)
      o=$({ options $p; if [ -n "$p" ]; then options; fi; } | awk '!seen[$0]++' | tr '\n' ' ')
      s=$(subcommands $p | tr '\n' ' ')
      echo "    '$p') opts='$o' subs='$s' ;;"
    done
    echo "  esac"
    echo "  if [[ \$cur == -* ]]; then"
    echo "    COMPREPLY=(\$(compgen -W \"\$opts\" -- \"\$cur\"))"
    echo "  elif [[ -n \$subs ]]; then"
    echo "    COMPREPLY=(\$(compgen -W \"\$subs\" -- \"\$cur\"))"
    echo "  else"
    echo "    COMPREPLY=(\$(compgen -f -- \"\$cur\"))"
    echo "  fi"
    echo "}"
    echo "complete -o filenames -F _skelcast skelcast"
  } >"$tmp"
  ;;
*)
  echo "gen-cli-docs.sh: unknown mode '$mode' (man, bash, zsh)" >&2
  exit 2
  ;;
esac
chmod 644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
