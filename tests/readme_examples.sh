#!/usr/bin/env bash
# README.md's examples cannot drift from what skelcast prints: each README block
#   ```sh
#   skelcast ARGS
#   ```
#   <!-- output: tests/cli/CASE -->
#   ```text
#   OUTPUT
#   ```
# must have ARGS equal to tests/cli/CASE/cmd and OUTPUT equal to
# tests/cli/CASE/expected, which the golden test golden.CASE compares with what
# the command prints. Run from anywhere: tests/readme_examples.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python3 - "$root" <<'PY'
import re, sys, pathlib
root = pathlib.Path(sys.argv[1])
text = (root / "README.md").read_text()
pat = re.compile(r"```sh\n(?:.*\n)*?skelcast (?P<args>.*)\n```\n<!-- output: (?P<case>tests/cli/[\w.-]+) -->\n```text\n(?P<out>(?:.*\n)*?)```\n")
found = 0
fail = 0
for m in pat.finditer(text):
    found += 1
    case = root / m.group("case")
    cmd = (case / "cmd").read_text().splitlines()[0]
    if cmd != m.group("args"):
        print(f"README.md: the command before '<!-- output: {m.group('case')} -->' is 'skelcast {m.group('args')}', the case runs 'skelcast {cmd}'")
        fail = 1
    if (case / "expected").read_text() != m.group("out"):
        print(f"README.md: the output block of {m.group('case')} differs from {m.group('case')}/expected (copy it in)")
        fail = 1
markers = text.count("<!-- output: ")
if markers != found:
    print(f"README.md: {markers} '<!-- output: ' markers, but {found} of them follow a sh block and precede a text block")
    fail = 1
if found == 0:
    print("README.md: no example with '<!-- output: tests/cli/CASE -->'")
    fail = 1
if not fail:
    print(f"readme: {found} examples match their golden outputs")
sys.exit(fail)
PY
