#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest instructions per function, from the dumps of vmtest.sh -p.

tbprof.py RUNDIR N        the functions of dump N, most instructions first
tbprof.py RUNDIR N M      what changed from dump N to dump M, largest first

Each line has a function's instructions and its entries (the runs of the
block at its first instruction: its calls, and any jump back there).

RUNDIR is the run directory vmtest.sh names (build/vm/run-KVER-PID): its
tbprof/dump.NNNN files hold the counts between two runs of $KVPERF_MARK
(dump 0 is everything before the first), its kallsyms the guest's
symbols. User-space code is one line, [user].
"""
import argparse
import bisect
import collections
import os
import sys

KERNEL_START = 0xffff800000000000


def load_symbols(path):
    """Sorted addresses and names of the guest's text symbols."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in 'tTwW':
                continue
            addr = int(parts[0], 16)
            if addr:
                name = parts[2] + (' ' + parts[3] if len(parts) > 3 else '')
                syms.append((addr, name))
    if not syms:
        sys.exit(f'tbprof: {path} has no symbol addresses (kallsyms read without root?)')
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def profile(path, addrs, names):
    """Instructions and entries per function in one dump, and the total.

    A function's entries are the runs of the block at its first
    instruction: the calls, and any jump back to its start.
    """
    per_fn = collections.Counter()
    entries = collections.Counter()
    total = 0
    with open(path) as f:
        for line in f:
            vaddr, insns, runs = line.split()
            vaddr = int(vaddr, 16)
            n = int(insns) * int(runs)
            total += n
            if vaddr < KERNEL_START:
                per_fn['[user]'] += n
                continue
            i = bisect.bisect_right(addrs, vaddr) - 1
            name = names[i] if i >= 0 else '[unknown]'
            per_fn[name] += n
            if i >= 0 and addrs[i] == vaddr:
                entries[name] += int(runs)
    return per_fn, entries, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('rundir')
    ap.add_argument('dump', type=int)
    ap.add_argument('other', type=int, nargs='?')
    ap.add_argument('--top', type=int, default=30, help='lines to print (30)')
    a = ap.parse_args()
    addrs, names = load_symbols(os.path.join(a.rundir, 'kallsyms'))

    def load(n):
        path = os.path.join(a.rundir, 'tbprof', f'dump.{n:04d}')
        if not os.path.exists(path):
            sys.exit(f'tbprof: no dump {n} ({path})')
        return profile(path, addrs, names)

    base, base_in, base_total = load(a.dump)
    if a.other is None:
        print(f'dump {a.dump}: {base_total} instructions'
              ' (instructions, share, entries, function)')
        for name, n in base.most_common(a.top):
            print(f'{n:14d} {100.0 * n / base_total:6.2f} % {base_in[name]:10d} {name}')
        return
    other, other_in, other_total = load(a.other)
    change = other_total - base_total
    print(f'dump {a.dump}: {base_total}, dump {a.other}: {other_total} instructions'
          f' ({change:+d}, {100.0 * change / base_total:+.3f} %)')
    print('(instructions in each, change; entries in each, function)')
    names_seen = sorted(set(base) | set(other),
                        key=lambda k: -abs(other[k] - base[k]))
    for name in names_seen[:a.top]:
        print(f'{base[name]:14d} {other[name]:14d} {other[name] - base[name]:+12d}'
              f' {base_in[name]:10d} {other_in[name]:10d} {name}')


if __name__ == '__main__':
    main()
