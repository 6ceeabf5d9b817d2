#!/usr/bin/env python3
"""The load groups of a kernel's SASS: how many global loads a thread has in
flight between two waits (docs/model.md, term `mlp`; layout::kLoadRegistersPerWait).

Reads `cuobjdump -sass` text (one or more kernels; a line `== NAME` starts a
program's section) and walks each kernel's instructions in order. A load
(LDG) writes its destination registers; the first instruction that reads one
of them waits for it. A wait for a load issued after the previous wait ends
a group: every load issued since that wait was in flight together. Straight-
line order only (a loop's body is counted once, as written).

  python3 validation/sass_load_groups.py validation/results/h200_sass_folds.txt
"""
import re
import sys

REG = re.compile(r'\bR(\d+)(\.64)?\b')


def regs(text):
    out = set()
    for m in REG.finditer(text):
        r = int(m.group(1))
        out.add(r)
        if m.group(2):
            out.add(r + 1)
    return out


def groups(lines):
    pending = {}  # register -> index of the load that writes it
    load_pos = []
    out = []
    last_wait = -1
    pos = -1
    for line in lines:
        m = re.search(r'/\*[0-9a-f]{4,}\*/\s+(.*?);', line)
        if not m:
            continue
        pos += 1
        ins = re.sub(r'^@!?U?P\w+\s+', '', m.group(1).strip())
        parts = ins.split(None, 1)
        op, args = parts[0], (parts[1] if len(parts) > 1 else '')
        fields = [a.strip() for a in args.split(',')]
        if op.startswith('ST') or op.startswith('RED') or len(fields) < 2:
            # a store or reduction writes no register; one operand is read
            dst, srcs = set(), regs(args)
        else:
            dst, srcs = regs(fields[0]) if fields[0] else set(), regs(','.join(fields[1:]))
        waited = [pending[r] for r in srcs if r in pending]
        if waited:
            w = max(waited)
            if load_pos[w] > last_wait:
                out.append(sum(1 for p in load_pos if last_wait < p < pos))
                last_wait = pos
            for r in [r for r, li in pending.items() if li <= w]:
                del pending[r]
        if op == 'LDG' or op.startswith('LDG.'):  # not LDGSTS, LDGDEPBAR
            width = 4 if '.128' in op else 2 if '.64' in op else 1
            base = re.match(r'R(\d+)', fields[0])
            load_pos.append(pos)
            if base:
                for k in range(width):
                    pending[int(base.group(1)) + k] = len(load_pos) - 1
        else:
            for r in dst:
                pending.pop(r, None)
    return len(load_pos), out


def main(paths):
    sections = []
    for path in paths:
        name, lines = path, []
        for line in open(path):
            if line.startswith('== '):
                if lines and name != path:
                    sections.append((name, lines))
                name, lines = line[3:].strip(), []
            else:
                lines.append(line)
        if lines and (name != path or not sections):
            sections.append((name, lines))
    for name, lines in sections:
        n, g = groups(lines)
        mean = n / len(g) if g else 0
        print(f'{name}\n    {n} LDG in {len(g)} groups, {mean:.1f} a group; groups: {" ".join(map(str, g))}')


if __name__ == '__main__':
    main(sys.argv[1:])
