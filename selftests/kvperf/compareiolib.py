#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Checks for compare_io.sh: `kvperf compare io` as a table and as JSON.

Each check prints what is wrong and exits 0 when everything holds, 1
when something does not, 2 on usage errors.

usage:
  compareiolib.py table FILE HEAD ROUNDS RW[,RW]
        the text output: a header line starting HEAD and naming ROUNDS,
        then four blocks (IOPS, p50 usec, p99 usec, reg+inv %) with
        the columns kernel, user-host and user-target and a row per
        direction RW, in order; each cell "median (min-max)" with
        min <= median <= max; in the first three blocks the two ratios,
        the quotients of the kernel's median and each user column's; the
        p50 at most the p99 of the same cell; no failed rounds
  compareiolib.py json FILE ROUNDS KEY=VALUE[,KEY=VALUE..] RW[,RW] SHARE
        the JSON: compare "io" with the settings KEY=VALUE (numbers or
        names), the paths kernel, user-host, user-target, a row per
        direction with a value per round in each column (IOPS > 0), none
        failed, median, min and max those of the values, each round's
        latency distribution ordered, the ratios those of the medians;
        SHARE "frwr": the kernel host's columns spend a share > 0 of the
        latency in registration and invalidation and the user host none;
        "pre": no column spends any; "off": stats off, so no latency and
        no share anywhere, only IOPS
"""

import json
import re
import sys

from comparelib import median, ratio_ok

COLS = ("kernel", "user-host", "user-target")
NUM = r"([0-9]+\.[0-9]+)"
CELL = re.compile(NUM + r" \(" + NUM + "-" + NUM + r"\)")
POINTS = ("min", "p50", "p90", "p99", "p999", "max")


def cmd_table(path, head, rounds, rws):
    bad = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    first = [ln for ln in lines if ln.startswith(head)]
    if not first:
        return [f"no line starting {head!r}"]
    want = f", {rounds} round{'' if rounds == 1 else 's'}, "
    if want not in first[0]:
        bad.append(f"header {first[0]!r} does not say {want!r}")
    blocks = []
    for i, ln in enumerate(lines):
        if ln.startswith(" #rw "):
            blocks.append((ln, lines[i + 1:i + 1 + len(rws)]))
    units = ["IOPS", "p50 usec", "p99 usec", "reg+inv %"]
    if len(blocks) != len(units):
        return bad + [f"{len(blocks)} blocks, want {len(units)}"]
    med = {}
    for (hd, rows), unit in zip(blocks, units):
        cols = [f"{c}[{unit}]" for c in COLS]
        if hd.split()[1:] != " ".join(cols).split() + (
                [] if unit.endswith("%") else
                ["kernel/user-host", "kernel/user-target"]):
            bad.append(f"block {unit}: header {hd!r}")
            continue
        for rw, row in zip(rws, rows):
            if not row.startswith(f" {rw} "):
                bad.append(f"block {unit}: row {row!r}, want {rw}")
                continue
            cells = CELL.findall(row)
            if len(cells) != 3:
                bad.append(f"block {unit} {rw}: {len(cells)} cells in "
                           f"{row!r}")
                continue
            for c, (m, lo, hi) in zip(COLS, cells):
                m, lo, hi = float(m), float(lo), float(hi)
                med[(unit, rw, c)] = m
                if not lo <= m <= hi:
                    bad.append(f"block {unit} {rw} {c}: {m} not in "
                               f"{lo}-{hi}")
                if rounds == 1 and lo != hi:
                    bad.append(f"block {unit} {rw} {c}: one round, "
                               f"spread {lo}-{hi}")
            if unit.endswith("%"):
                continue
            rest = CELL.sub("", row).split()[1:]
            if len(rest) != 2:
                bad.append(f"block {unit} {rw}: ratios {rest!r}")
                continue
            for c, got in zip(COLS[1:], rest):
                num, den = med[(unit, rw, "kernel")], med[(unit, rw, c)]
                if not ratio_ok(float(got), num, den, 2):
                    bad.append(f"block {unit} {rw}: kernel/{c} {got}, "
                               f"the medians' is {num / den}")
    for rw in rws:
        for c in COLS:
            p50 = med.get(("p50 usec", rw, c))
            p99 = med.get(("p99 usec", rw, c))
            if p50 is not None and p99 is not None and p50 > p99:
                bad.append(f"{rw} {c}: p50 {p50} above p99 {p99}")
    failed = [ln for ln in lines if ln.startswith("# [")]
    if failed:
        bad.append(f"failed rounds: {failed}")
    return bad


def check_cell(where, cell, rounds, share, bad):
    vals = cell.get("values")
    if not isinstance(vals, list) or len(vals) != rounds or \
       not all(isinstance(v, (int, float)) and v > 0 for v in vals):
        bad.append(f"{where}: values {vals!r}, want {rounds} IOPS > 0")
        return None
    if cell.get("failed") != 0 or cell.get("failures") != []:
        bad.append(f"{where}: failed {cell.get('failed')!r}, failures "
                   f"{cell.get('failures')!r}")
    for k, want in (("median", median(vals)), ("min", min(vals)),
                    ("max", max(vals))):
        got = cell.get(k)
        if not isinstance(got, (int, float)) or abs(got - want) > 0.0006:
            bad.append(f"{where}: {k} {got!r}, the values' is {want}")
    pts = cell.get("points")
    if not isinstance(pts, list) or len(pts) != rounds:
        bad.append(f"{where}: points {pts!r}")
        return cell.get("median")
    for i, pt in enumerate(pts):
        seq = [pt.get(k) for k in POINTS]
        if share == "off":
            if any(v is not None for v in seq):
                bad.append(f"{where}: stats off, round {i} points {pt}")
        elif None in seq or seq != sorted(seq) or seq[0] <= 0:
            bad.append(f"{where}: round {i} points {pt} not ordered")
    pct = cell.get("reg_inv_pct")
    if not isinstance(pct, list) or len(pct) != rounds:
        bad.append(f"{where}: reg_inv_pct {pct!r}")
        return cell.get("median")
    for i, v in enumerate(pct):
        if share == "off":
            ok = v is None
        elif share == "frwr" and not where.endswith(" user-host"):
            ok = isinstance(v, (int, float)) and 0 < v < 100
        else:
            ok = v == 0
        if not ok:
            bad.append(f"{where}: round {i} reg_inv_pct {v!r} with {share}")
    return cell.get("median")


def cmd_json(path, rounds, settings, rws, share):
    with open(path, encoding="utf-8") as f:
        try:
            c = json.load(f)
        except ValueError as e:
            return [f"not JSON: {e}"]
    bad = []
    want = {"compare": "io", "rounds": rounds, "paths": list(COLS),
            "unit": "IOPS", "user_host_reg": "pre"}
    for kv in settings.split(","):
        k, v = kv.split("=", 1)
        want[k] = int(v) if v.isdigit() else v
    for k, v in want.items():
        if c.get(k) != v:
            bad.append(f"{k} {c.get(k)!r}, want {v!r}")
    env = c.get("env", {})
    for k in ("kernel", "dev", "cpu"):
        if not isinstance(env.get(k), str) or not env[k]:
            bad.append(f"env.{k} {env.get(k)!r}")
    rows = c.get("rows", [])
    if [r.get("rw") for r in rows] != rws:
        bad.append(f"rows {[r.get('rw') for r in rows]}, want {rws}")
    for r in rows:
        if r.get("size") != c.get("bs"):
            bad.append(f"row {r.get('rw')}: size {r.get('size')!r}")
        med = {}
        for col in COLS:
            where = f"{r.get('rw')} {col}"
            if not isinstance(r.get(col), dict):
                bad.append(f"{where}: {r.get(col)!r}")
                continue
            med[col] = check_cell(where, r[col], rounds, share, bad)
        for col, name in (("user-host", "user_host"),
                          ("user-target", "user_target")):
            key = f"kernel_{name}_ratio"
            if med.get("kernel") is None or med.get(col) is None:
                continue
            if not isinstance(r.get(key), (int, float)) or \
               not ratio_ok(r[key], med["kernel"], med[col], 3):
                bad.append(f"{r.get('rw')}: {key} {r.get(key)!r}, the "
                           f"medians' is {med['kernel'] / med[col]}")
            for p in ("p50", "p99"):
                pk = f"kernel_{name}_{p}_ratio"
                if share == "off" and r.get(pk) is not None:
                    bad.append(f"{r.get('rw')}: stats off, {pk} "
                               f"{r.get(pk)!r}")
                if share != "off" and \
                   not isinstance(r.get(pk), (int, float)):
                    bad.append(f"{r.get('rw')}: {pk} {r.get(pk)!r}")
    return bad


def main():
    a = sys.argv[1:]
    if len(a) == 5 and a[0] == "table":
        bad = cmd_table(a[1], a[2], int(a[3]), a[4].split(","))
    elif len(a) == 6 and a[0] == "json":
        bad = cmd_json(a[1], int(a[2]), a[3], a[4].split(","), a[5])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
