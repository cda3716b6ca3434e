#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A kvperf fabric results folder checked against what the run was.

usage: fabcheck.py DIR --hosts H0,H1,... [--left-out HOST:WHY]...
                   [--lost HOST] [--schedule full|quick] [--bad HOST]...
                   [--tests lat,bw] [--interrupted]

Prints one line per problem and exits 1 when there is any, 0 otherwise.
What it checks:
- fabric.json: the hosts in list order, each left-out host so with WHY in
  its reason, each lost host so, the others measured with an address;
- the schedule: full, every pair of the measured hosts in exactly one of
  the n-1 rounds (n for an odd count) of the circle method, quick, one
  round pairing place i with place i + n/2 of the measured hosts; in
  every round no host twice; re-test rounds pair hosts measured;
- the measurements: each of a round's pairs has its latency (lower place
  the client) and its bandwidth both ways, each once, measured unless a
  lost host is in it, nothing measured outside the round's pairs;
- pairs.csv: a line per measurement, the same values;
- lat.dat and bw.dat: host by host, the values of the last measurement
  of each cell (latency on both cells of a pair), nan elsewhere;
  lat.svg and bw.svg drawn, heatmap.log no message but gnuplot's
  warning of cells not measured;
- the verdict: the bad hosts exactly the ones given, no bad link, no
  suspect left; summary.txt names each bad host under "Bad hosts:" and
  no other measured host there.
"""

import argparse
import csv
import itertools
import json
import math
import os
import re
import sys

problems = []


def bad(msg):
    problems.append(msg)


def load(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def check_hosts(rep, args):
    names = [h['name'] for h in rep['hosts']]
    if names != args.hosts:
        bad(f'hosts {names}, want {args.hosts} in that order')
    left = dict(x.split(':', 1) for x in args.left_out)
    for h in rep['hosts']:
        n, st = h['name'], h['state']
        if n in left:
            if st != 'left out' or left[n] not in h.get('why', ''):
                bad(f'{n}: {st} ({h.get("why")}), want left out, '
                    f'"{left[n]}" in the reason')
        elif n in args.lost:
            if st != 'lost' or not h.get('why'):
                bad(f'{n}: {st}, want lost with a reason')
        elif st != 'measured' or not h.get('addr'):
            bad(f'{n}: {st} ({h.get("why")}), want measured with an '
                f'address')
    return [h['name'] for h in rep['hosts']
            if h['name'] not in left]


def check_schedule(rep, args, measured):
    rounds = rep['rounds']
    sched = [r for r in rounds if r['kind'] != 'retest']
    for r in rounds:
        seen = [h for p in r['pairs'] for h in p]
        if len(seen) != len(set(seen)):
            bad(f'round {r["round"]}: a host twice: {r["pairs"]}')
        if r['kind'] not in (args.schedule, 'retest'):
            bad(f'round {r["round"]}: kind {r["kind"]}')
        for p in r['pairs']:
            if p[0] not in measured or p[1] not in measured:
                bad(f'round {r["round"]}: pair {p} of a host not measured')
    n = len(measured)
    if args.interrupted:	# stopped: what ran must hold, not all of it
        return
    if args.schedule == 'quick':
        want = [{frozenset((measured[i], measured[i + n // 2]))
                 for i in range(n // 2)}]
        got = [{frozenset(p) for p in r['pairs']} for r in sched]
        if got != want:
            bad(f'quick rounds {got}, want {want}')
        return
    want_rounds = n - 1 if n % 2 == 0 else n
    lost_after = {h['name'] for h in rep['hosts'] if h['state'] == 'lost'}
    if len(sched) != want_rounds:
        bad(f'{len(sched)} rounds of the schedule, want {want_rounds}')
    pairs = [frozenset(p) for r in sched for p in r['pairs']]
    if len(pairs) != len(set(pairs)):
        bad('a pair in two rounds of the schedule')
    for a, b in itertools.combinations(measured, 2):
        if frozenset((a, b)) in pairs:
            continue
        # a lost host's later pairs are not tried
        if a in lost_after or b in lost_after:
            continue
        bad(f'pair {a} {b} never measured')
    for r in sched:
        if len(r['pairs']) > n // 2:
            bad(f'round {r["round"]}: {len(r["pairs"])} pairs of {n} hosts')


def check_measurements(rep, args):
    tests = args.tests.split(',')
    lost = set(args.lost)
    by_round = {}
    for m in rep['measurements']:
        by_round.setdefault(m['round'], []).append(m)
    for r in rep['rounds']:
        got = by_round.pop(r['round'], [])
        want = []
        for a, b in r['pairs']:
            lo, hi = a, b
            if 'lat' in tests:
                want.append((lo, hi, 'lat'))
            for t in ('bw', 'io'):
                if t in tests:
                    want += [(lo, hi, t), (hi, lo, t)]
        have = [(m['client'], m['server'], m['test']) for m in got]
        for w in want:
            n = have.count(w)
            gone = w[0] in lost or w[1] in lost or args.interrupted
            if n > 1 or (n == 0 and not gone):
                bad(f'round {r["round"]}: {w[2]} {w[0]} -> {w[1]} '
                    f'measured {n} times')
        for h in have:
            if h not in want:
                bad(f'round {r["round"]}: {h} is not of its pairs')
        for m in got:
            gone = (m['client'] in lost or m['server'] in lost or
                    args.interrupted)
            if m['status'] != 0 and not gone:
                bad(f'round {r["round"]}: {m["test"]} {m["client"]} -> '
                    f'{m["server"]} failed: {m.get("error")}')
            if m['status'] == 0:
                key = {'lat': 'lat_p50_ns', 'bw': 'bw_bps',
                       'io': 'iops'}[m['test']]
                if not m.get(key) or m[key] <= 0:
                    bad(f'round {r["round"]}: {m["test"]} {m["client"]} '
                        f'-> {m["server"]}: {key} {m.get(key)}')
                if 'run' not in m or m['run'].get('state') != 'done':
                    bad(f'round {r["round"]}: {m["test"]} without the '
                        f'run kvperf printed')
    for r in by_round:
        bad(f'measurements of round {r}, which is not in rounds')


def check_csv(rep, folder):
    with open(os.path.join(folder, 'pairs.csv'), encoding='utf-8') as f:
        rows = list(csv.DictReader(f))
    ms = rep['measurements']
    if len(rows) != len(ms):
        bad(f'pairs.csv: {len(rows)} lines, {len(ms)} measurements')
        return
    for row, m in zip(rows, ms):
        want = {'round': str(m['round']), 'client': m['client'],
                'server': m['server'], 'test': m['test'],
                'status': str(m['status']),
                'lat_p50_ns': str(m.get('lat_p50_ns', '')),
                'bw_bps': str(m.get('bw_bps', '')),
                'bad': str(int(m['bad']))}
        for k, v in want.items():
            if row[k] != v:
                bad(f'pairs.csv line of round {m["round"]} {m["client"]} '
                    f'-> {m["server"]} {m["test"]}: {k} {row[k]}, '
                    f'want {v}')


def check_matrix(rep, folder, name, test):
    hosts = [h['name'] for h in rep['hosts']]
    with open(os.path.join(folder, name), encoding='utf-8') as f:
        lines = [ln.rstrip('\n').split('\t') for ln in f
                 if not ln.startswith('#')]
    if lines[0] != ['host'] + hosts:
        bad(f'{name}: header {lines[0]}')
        return
    want = {}
    for m in rep['measurements']:
        if m['test'] != test or m['status'] != 0 or m['path'] != 'kernel':
            continue
        if test == 'lat':
            v = m['lat_p50_ns'] / 1000.0
            want[(m['client'], m['server'])] = v
            want[(m['server'], m['client'])] = v
        else:
            want[(m['client'], m['server'])] = m['bw_bps'] / 1048576.0
    for row in lines[1:]:
        if len(row) != len(hosts) + 1:
            bad(f'{name}: row {row[0]} has {len(row) - 1} cells')
            continue
        for col, cell in zip(hosts, row[1:]):
            w = want.get((row[0], col))
            if w is None:
                if cell != 'nan':
                    bad(f'{name}: {row[0]} {col} is {cell}, not measured')
            elif cell == 'nan' or not math.isclose(float(cell), w,
                                                    abs_tol=0.0006):
                bad(f'{name}: {row[0]} {col} is {cell}, want {w:.3f}')
    if len(lines) != len(hosts) + 1:
        bad(f'{name}: {len(lines) - 1} rows, want {len(hosts)}')


def check_verdict(rep, folder, args, measured):
    v = rep['verdict']
    if sorted(v['bad_hosts']) != sorted(args.bad):
        bad(f'bad hosts {v["bad_hosts"]}, want {args.bad}')
    if v['bad_links']:
        bad(f'bad links {v["bad_links"]}, want none')
    if v['suspect_hosts']:
        bad(f'suspect hosts {v["suspect_hosts"]} left')
    summary = load(os.path.join(folder, 'summary.txt'))
    named = []
    if 'Bad hosts:' in summary:
        part = summary.split('Bad hosts:', 1)[1].split('\n\n', 1)[0]
        named = [ln.split(':')[0].strip() for ln in part.splitlines()
                 if ln.startswith('  ') and not ln.startswith('    ')]
    if sorted(named) != sorted(args.bad):
        bad(f'summary.txt names {named} under "Bad hosts:", want '
            f'{args.bad}')
    if not args.bad and 'No bad host and no bad link.' not in summary:
        bad('summary.txt does not say there is no bad host')
    for h in measured:
        if h not in args.bad and f'\n  {h}: bad' in summary:
            bad(f'summary.txt calls {h} bad')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dir')
    ap.add_argument('--hosts', required=True)
    ap.add_argument('--left-out', action='append', default=[])
    ap.add_argument('--lost', action='append', default=[])
    ap.add_argument('--schedule', default='full')
    ap.add_argument('--bad', action='append', default=[])
    ap.add_argument('--tests', default='lat,bw')
    ap.add_argument('--interrupted', action='store_true')
    args = ap.parse_args()
    args.hosts = args.hosts.split(',')
    try:
        rep = json.loads(load(os.path.join(args.dir, 'fabric.json')))
    except (OSError, ValueError) as e:
        print(f'fabric.json: {e}')
        return 1
    if rep.get('interrupted') != args.interrupted:
        bad(f'interrupted {rep.get("interrupted")}, want {args.interrupted}')
    measured = check_hosts(rep, args)
    check_schedule(rep, args, [h for h in measured if h not in args.lost]
                   if args.schedule == 'quick' else measured)
    check_measurements(rep, args)
    try:
        check_csv(rep, args.dir)
        check_matrix(rep, args.dir, 'lat.dat', 'lat')
        check_matrix(rep, args.dir, 'bw.dat', 'bw')
    except (OSError, ValueError, KeyError) as e:
        bad(f'{e}')
    for svg in ('lat.svg', 'bw.svg'):
        p = os.path.join(args.dir, svg)
        if not os.path.exists(p) or '<svg' not in load(p):
            bad(f'{svg} not drawn')
    # gnuplot's messages: only its warning that cells were not measured
    try:
        for line in load(os.path.join(args.dir, 'heatmap.log')).splitlines():
            if not re.search(r'warning: matrix contains missing or '
                             r'undefined values$', line):
                bad(f'heatmap.log: {line}')
    except OSError as e:
        bad(f'{e}')
    if not args.interrupted:
        check_verdict(rep, args.dir, args, measured)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
