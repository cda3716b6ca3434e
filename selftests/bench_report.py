#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's report: the raw results bench_guest.sh wrote, as one JSON
file, a Markdown page and an SVG drawn by gnuplot; and the checks the
short benchmark of make check prints as KTAP.

usage:
  bench_report.py report RAWDIR BASE [--short] [--command CMD]
                  [--previous PREV.json]
        write BASE.json, BASE.md and BASE.svg; with a previous report of
        the same kernel and clock, its numbers beside these and the
        largest difference (the repeatability)
  bench_report.py check BASE [--short]
        KTAP: the three files exist and hold every cell of the matrix
  bench_report.py gate BASE BASELINE
        KTAP: no cell of BASE.json is more than 3 % worse than in
        BASELINE (a report of the same kernel on the deterministic clock)
  bench_report.py baseline BASE BASELINE
        write BASE.json's cells as BASELINE
  bench_report.py targets REPORT.json...
        the README's targets table: per kernel and op, each target's
        ratio at every size, met or missed
  bench_report.py cells [--short] --clock icount|wall
        the matrix, one compare a line (kind op size poll), in the order
        bench_guest.sh runs it
  bench_report.py iocells [--short] --clock icount|wall
        the I/O matrix, one compare io a line (rw bs qd poll), run after
        the matrix

Numbers: latency is each compare's median over its rounds of the p50 in
usec (perftest: t_typical); bandwidth the median of the average MiB/s.
A cell's spread is, per path, (largest - smallest) / median of its
rounds. Storage-shaped I/O (compare io): per column (kernel host and
target, user host and kernel target, kernel host and user target) the
median over the rounds of the IOPS, of the p50 completion latency in
usec and of the share of the summed latency spent registering and
invalidating. The statistics overhead is, per path, the median over the rounds
of the time per iteration (elapsed_ns / iterations) with statistics on,
over the same with statistics off, minus one. On the icount clock every
time is instruction time: QEMU's -icount shift=0,sleep=on makes one
guest instruction one nanosecond (idle time follows the host's clock,
and a measurement has almost none), so a number is
the length of the path (kvperf, ib_core, rdma_rxe, the network stack),
not what a real host would take. Every slab cache of the guest keeps up
to 1000 empty slabs (min_partial), so that Soft-RoCE's skb per packet
does not cost page allocations in some runs and not in others. Only the
gate fails on a number.
"""

import datetime
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

# kernel-bh: the kernel path posting with bottom halves disabled
# (compare's post-context both)
PATHS = ("kernel", "kernel-bh", "user", "perftest")
# compare io's columns: the kernel host and target, the user host
# against the kernel target, the kernel host against the user target
IO_COLS = ("kernel", "user-host", "user-target")
OPS = ("send", "write", "read")
# the gate: a cell of kvperf's own paths this much worse fails
GATE = 0.03
ICOUNT_TIME = ("instruction time: QEMU -icount shift=0,sleep=on, one "
               "guest instruction = 1 ns, one vCPU")


def matrix(short, clock):
    """(kind, op, size, poll) of every compare the benchmark runs, in the
    order bench_guest.sh runs them (it reads them from `cells`): on the
    deterministic clock a cell's number depends on what ran before it"""
    polls = ("softirq",) if clock == "icount" else ("busy", "softirq")
    # write latency's receiver spins on its buffer: on one vCPU that is
    # the scheduler's tick
    lat_ops = ("send", "read") if clock == "icount" or short else OPS
    bw_ops = OPS
    if short:
        polls, lat, bw, bw_ops = polls[:1], (64,), (65536,), ("write",)
    elif clock == "icount":
        lat = bw = (2, 64, 4096, 65536, 1048576)
    else:
        lat, bw = (2, 64, 4096, 65536), (4096, 65536, 1048576)
    cells = []
    for poll in polls:
        for op in OPS:
            if op in lat_ops:
                cells += [("lat", op, s, poll) for s in lat]
            if op in bw_ops:
                cells += [("bw", op, s, poll) for s in bw]
    return cells


def io_matrix(short, clock):
    """(rw, bs, qd, poll) of every compare io, in the order bench_guest.sh
    runs them, after the matrix: 4 KiB reads and writes one at a time
    (latency), and reads 32 deep (IOPS)"""
    del clock
    if short:
        return [("read", 4096, 1, "softirq")]
    return [("read", 4096, 1, "softirq"), ("write", 4096, 1, "softirq"),
            ("read", 4096, 32, "softirq")]


def io_name(c):
    return f"io {c['rw']} {c['bs']} qd{c['qd']} {c['poll']}"


def cmd_iocells(short, clock):
    for cell in io_matrix(short, clock):
        print(*cell)
    return 0


def cmd_cells(short, clock):
    for cell in matrix(short, clock):
        print(*cell)
    return 0


def spread(values):
    """(largest - smallest) / median of a path's rounds, None without
    two numbers"""
    v = [x for x in values or [] if isinstance(x, (int, float))]
    m = median(v)
    return (max(v) - min(v)) / m if len(v) > 1 and m else None


def median(v):
    v = sorted(v)
    n = len(v)
    if not n:
        return None
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_env(raw):
    env = {}
    try:
        with open(os.path.join(raw, "env.txt"), encoding="utf-8") as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                env[k] = v
    except OSError:
        pass
    return env


def overhead(raw):
    """per path: rounds, median ns per iteration on and off, overhead"""
    per = {}
    for name in sorted(os.listdir(raw)):
        m = re.match(r"ovh-(kernel|user)-(on|off)-([0-9]+)\.json$", name)
        if not m:
            continue
        run = load(os.path.join(raw, name))
        try:
            r = run["results"][0]
            ns = r["elapsed_ns"] / r["iterations"]
        except (TypeError, KeyError, IndexError, ZeroDivisionError):
            continue
        per.setdefault(m[1], {}).setdefault(int(m[3]), {})[m[2]] = ns
    out = {}
    for path, rounds in per.items():
        pairs = [(v["on"], v["off"]) for v in rounds.values()
                 if "on" in v and "off" in v]
        if not pairs:
            continue
        ratios = [on / off - 1 for on, off in pairs]
        out[path] = {"rounds": len(pairs),
                     "ns_per_iter_on": median([p[0] for p in pairs]),
                     "ns_per_iter_off": median([p[1] for p in pairs]),
                     "overhead": median(ratios),
                     "overhead_each": ratios}
    return out


def cell_col(c, path):
    """a column of a compare's first row (of a compare io: its one
    direction)"""
    row = (c or {}).get("rows", [{}])
    col = row[0].get(path) if row else None
    return col if isinstance(col, dict) else {}


def cell_name(c):
    return f"{c['kind']} {c['op']} {c['size']} {c['poll']}"


def load_measured(raw, name):
    """a measurement's JSON and its error: an .err next to a JSON says
    some measurements failed, the rest count"""
    c = load(os.path.join(raw, name + ".json"))
    err = None
    try:
        with open(os.path.join(raw, name + ".err"), encoding="utf-8") as f:
            err = f.read().strip()[:500] or "failed"
    except OSError:
        if c is None:
            err = "not measured"
    return c, err


def cmd_report(raw, base, short, command, previous):
    env = read_env(raw)
    clock = env.get("clock", "wall")
    cells = []
    for kind, op, size, poll in matrix(short, clock):
        c, err = load_measured(raw, f"{kind}-{op}-{size}-{poll}")
        values = {p: cell_col(c, p).get("median") for p in PATHS}
        spreads = {p: spread(cell_col(c, p).get("values")) for p in PATHS}
        cells.append({"kind": kind, "op": op, "size": size, "poll": poll,
                      "unit": "MiB/s" if kind == "bw" else "usec",
                      "median": values, "spread": spreads, "error": err,
                      "compare": c})
    io = []
    for rw, bs, qd, poll in io_matrix(short, clock):
        c, err = load_measured(raw, f"io-{rw}-{bs}-qd{qd}-{poll}")
        cols = {p: cell_col(c, p) for p in IO_COLS}
        io.append({"rw": rw, "bs": bs, "qd": qd, "poll": poll,
                   "unit": "IOPS",
                   "median": {p: cols[p].get("median") for p in IO_COLS},
                   "p50": {p: median([pt.get("p50") for pt in
                                      cols[p].get("points") or []
                                      if isinstance(pt.get("p50"),
                                                    (int, float))])
                           for p in IO_COLS},
                   "reg_inv_pct": {p: median([v for v in
                                              cols[p].get("reg_inv_pct")
                                              or [] if isinstance(
                                                  v, (int, float))])
                                   for p in IO_COLS},
                   "spread": {p: spread(cols[p].get("values"))
                              for p in IO_COLS},
                   "error": err, "compare": c})
    # the guest has no dpkg database: compare found perftest's version
    env["perftest"] = next((c["compare"]["env"]["perftest"] for c in cells
                            if c["compare"] and
                            c["compare"].get("env", {}).get("perftest")
                            not in (None, "", "unknown")),
                           None)
    env["tcg"] = any(bool((c["compare"] or {}).get("env", {}).get("tcg"))
                     for c in cells)
    env["clock"] = clock
    env["time"] = ICOUNT_TIME if clock == "icount" else \
        "wall-clock time of an emulated (TCG) guest"
    big = max(((s, cell_name(c), p) for c in cells
               for p, s in c["spread"].items() if s is not None),
              default=None)
    doc = {"date": datetime.date.today().isoformat(),
           "command": command, "short": short, "environment": env,
           "git": git_describe(), "cells": cells, "io": io,
           "largest_spread": big and {"spread": big[0], "cell": big[1],
                                      "path": big[2]},
           "stats_overhead": overhead(raw),
           "method": __doc__.split("Numbers: ", 1)[1].strip()}
    prev = load(previous) if previous else None
    if prev and repeat(doc, prev, previous):
        doc["repeat"] = repeat(doc, prev, previous)
    with open(base + ".json", "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(base + ".md", "w", encoding="utf-8") as f:
        f.write(markdown(doc))
    draw(doc, base + ".svg")
    return 0


def repeat(doc, prev, name):
    """this report's cells beside a previous report's of the same kernel
    and clock: per cell and path both numbers and this / previous - 1"""
    if (prev.get("environment", {}).get("clock", "wall") !=
            doc["environment"]["clock"] or prev.get("short") != doc["short"]):
        return None
    old = {cell_name(c): c for c in prev.get("cells", [])}
    rows = []
    for c in doc["cells"]:
        o = old.get(cell_name(c))
        for p in PATHS:
            a = c["median"].get(p)
            b = (o or {}).get("median", {}).get(p)
            if a and b:
                rows.append({"cell": cell_name(c), "path": p, "this": a,
                             "previous": b, "diff": a / b - 1})
    big = max(rows, key=lambda r: abs(r["diff"]), default=None)
    return {"previous": os.path.basename(name).removeprefix("previous-"),
            "previous_git": prev.get("git"), "cells": rows,
            "largest": big}


def gate_value(c, path):
    v = c.get("median", {}).get(path)
    return v if isinstance(v, (int, float)) and v > 0 else None


def cmd_gate(base, baseline):
    """KTAP: each cell of kvperf's paths against the baseline"""
    doc = load(base + ".json") or {}
    ref = load(baseline) or {}
    results = []
    env, renv = doc.get("environment", {}), ref.get("environment", {})
    same = (env.get("kernel") == renv.get("kernel") and
            env.get("clock") == renv.get("clock") == "icount")
    results.append((same, f"{baseline} is of the same kernel on the icount "
                    "clock", f"report: {env.get('kernel')} "
                    f"{env.get('clock')}; baseline: {renv.get('kernel')} "
                    f"{renv.get('clock')}"))
    old = {cell_name(c): c for c in ref.get("cells", [])}
    for c in doc.get("cells", []):
        for p in ("kernel", "kernel-bh", "user"):
            name = f"{cell_name(c)} {p}"
            a = gate_value(c, p)
            b = gate_value(old.get(cell_name(c), {}), p)
            if a is None and b is None and p == "kernel-bh":
                continue
            if a is None or b is None:
                results.append((False, f"{name}: measured in both",
                                f"this {a}, baseline {b}"))
                continue
            # worse: a latency that grew, a bandwidth that shrank
            worse = a / b - 1 if c["kind"] == "lat" else 1 - a / b
            unit = c.get("unit", "")
            results.append((worse <= GATE,
                            f"{name}: {a:.3f} {unit} against {b:.3f} in "
                            f"the baseline ({100 * worse:+.2f} % worse, "
                            f"limit {100 * GATE:.0f} %)", ""))
    old_io = {io_name(c): c for c in ref.get("io", [])}
    for c in doc.get("io", []):
        for p in IO_COLS:
            name = f"{io_name(c)} {p}"
            a = gate_value(c, p)
            if io_name(c) not in old_io:
                # a cell newer than the baseline: said, not judged
                results.append((True, f"{name} # SKIP not in the "
                                "baseline (make bench-check UPDATE=1)", ""))
                continue
            b = gate_value(old_io[io_name(c)], p)
            if a is None or b is None:
                results.append((False, f"{name}: measured in both",
                                f"this {a}, baseline {b}"))
                continue
            worse = 1 - a / b
            results.append((worse <= GATE,
                            f"{name}: {a:.3f} IOPS against {b:.3f} in the "
                            f"baseline ({100 * worse:+.2f} % worse, limit "
                            f"{100 * GATE:.0f} %)", ""))
    return ktap(results)


def cmd_baseline(base, out):
    doc = load(base + ".json")
    if not doc or doc.get("environment", {}).get("clock") != "icount":
        print(f"{base}.json: no report on the icount clock",
              file=sys.stderr)
        return 1
    keep = {"date": doc["date"], "git": doc["git"],
            "command": doc["command"], "environment": doc["environment"],
            "cells": [{k: c[k] for k in ("kind", "op", "size", "poll",
                                         "unit", "median", "spread")}
                      for c in doc["cells"]],
            "io": [{k: c[k] for k in ("rw", "bs", "qd", "poll", "unit",
                                      "median", "spread")}
                   for c in doc.get("io", [])]}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(keep, f, indent=1)
        f.write("\n")
    return 0


# (name, kind, ops, numerator path, denominator path, met(ratio))
TARGETS = (
    ("kernel p50 <= user p50", "lat", OPS, "kernel", "user",
     lambda r: r <= 1),
    ("kernel-bh p50 <= user p50", "lat", OPS, "kernel-bh", "user",
     lambda r: r <= 1),
    ("kernel bandwidth >= user", "bw", OPS, "kernel", "user",
     lambda r: r >= 1),
    ("kernel-bh bandwidth >= user", "bw", OPS, "kernel-bh", "user",
     lambda r: r >= 1),
    ("user p50 within 5 % of perftest", "lat", OPS, "user", "perftest",
     lambda r: abs(r - 1) <= 0.05),
    ("user bandwidth within 5 % of perftest", "bw", OPS, "user",
     "perftest", lambda r: abs(r - 1) <= 0.05),
)


def cmd_targets(paths):
    """markdown: a row per target and op, a column per report"""
    docs = [load(p) for p in paths]
    if not all(docs):
        print("cannot read every report", file=sys.stderr)
        return 1
    kernels = [d["environment"].get("kernel", "?") for d in docs]
    out = ["| target | op | " + " | ".join(kernels) + " |",
           "|---|---|" + "---|" * len(docs)]
    for name, kind, ops, num, den, met in TARGETS:
        for op in ops:
            cols, seen = [], False
            for d in docs:
                cells = [c for c in d["cells"]
                         if c["kind"] == kind and c["op"] == op]
                rs = [(c["size"], ratio(c["median"].get(num),
                                        c["median"].get(den)))
                      for c in cells]
                rs = [(sz, r) for sz, r in rs if r is not None]
                if not rs:
                    cols.append("-")
                    continue
                seen = True
                miss = [sz for sz, r in rs if not met(r)]
                cols.append(" ".join(f"{r:.3f}" for _, r in rs) + (
                    " (met)" if not miss else
                    f" (missed at {', '.join(size_name(z) for z in miss)})"))
            if seen:
                out.append(f"| {name} | {op} | " + " | ".join(cols) + " |")
    for name, num, den in (("kernel host IOPS / user host (kernel target)",
                            "kernel", "user-host"),
                           ("kernel target IOPS / user target (kernel host)",
                            "kernel", "user-target")):
        cells = sorted({(c["rw"], c["bs"], c["qd"], c["poll"])
                        for d in docs for c in d.get("io", [])})
        for rw, bs, qd, poll in cells:
            cols = []
            for d in docs:
                c = next((c for c in d.get("io", [])
                          if (c["rw"], c["bs"], c["qd"], c["poll"]) ==
                          (rw, bs, qd, poll)), None)
                r = c and ratio(c["median"].get(num), c["median"].get(den))
                cols.append("-" if r is None else f"{r:.3f}")
            out.append(f"| {name} | {rw} {size_name(bs)} qd {qd} | " +
                       " | ".join(cols) + " |")
    row = []
    for d in docs:
        o = d.get("stats_overhead", {})
        row.append(" / ".join(
            f"{100 * o[p]['overhead']:+.2f} %" if p in o else "-"
            for p in ("kernel", "user")))
    out.append("| statistics overhead < 1 % (kernel / user) | send 64 B | " +
               " | ".join(row) + " |")
    print("\n".join(out))
    return 0


def size_name(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def ktap(results):
    print("TAP version 13")
    print(f"1..{len(results)}")
    for i, (ok, desc, why) in enumerate(results, 1):
        if not ok and why:
            for line in why.splitlines():
                print(f"# {line}")
        print(f"{'ok' if ok else 'not ok'} {i} {desc}")
    return 0 if all(r[0] for r in results) else 1


def git_describe():
    """The commit, with -dirty when files other than the reports and
    baselines differ: benching a second kernel must not count the first
    one's report."""
    def git(*args):
        return subprocess.run(["git", *args], capture_output=True,
                              text=True, check=False).stdout.strip()
    try:
        rev = git("describe", "--always")
        if rev and git("status", "--porcelain", "--", ".",
                       ":(exclude)Documentation/benchmarks",
                       ":(exclude)selftests/bench-baseline"):
            rev += "-dirty"
        return rev
    except OSError:
        return ""


def fmt(v, d):
    return "-" if v is None else f"{v:.{d}f}"


def ratio(a, b):
    return None if a is None or b is None or b <= 0 else a / b


def icount(doc):
    return doc["environment"].get("clock") == "icount"


def pct(v):
    return "-" if v is None else f"{100 * v:.1f}"


def table(doc, kind):
    d = 2
    unit = "usec, p50" if kind == "lat" else "MiB/s, average"
    if icount(doc):
        unit += ", instruction time"
    lines = [f"| op | size | poll | kernel ({unit}) | kernel-bh | user | "
             "perftest | kernel/user | kernel-bh/user | user/perftest | "
             "spread % (k / bh / u / p) |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in doc["cells"]:
        if c["kind"] != kind:
            continue
        m = c["median"]
        sp = c.get("spread", {})
        lines.append(
            f"| {c['op']} | {c['size']} | {c['poll']} | "
            f"{fmt(m['kernel'], d)} | {fmt(m.get('kernel-bh'), d)} | "
            f"{fmt(m['user'], d)} | {fmt(m['perftest'], d)} | "
            f"{fmt(ratio(m['kernel'], m['user']), 3)} | "
            f"{fmt(ratio(m.get('kernel-bh'), m['user']), 3)} | "
            f"{fmt(ratio(m['user'], m['perftest']), 3)} | "
            f"{pct(sp.get('kernel'))} / {pct(sp.get('kernel-bh'))} / "
            f"{pct(sp.get('user'))} / {pct(sp.get('perftest'))} |")
    errs = [f"- {c['kind']} {c['op']} {c['size']} {c['poll']}"
            f"{' (the other columns kept)' if c['compare'] else ''}: "
            f"{c['error'].splitlines()[0]}"
            for c in doc["cells"] if c["kind"] == kind and c["error"]]
    return "\n".join(lines + ([""] + errs if errs else [])) + "\n"


def io_table(doc):
    """compare io: IOPS, p50 and reg+inv share of each column"""
    unit = "IOPS" + (", instruction time" if icount(doc) else "")
    lines = ["Each row is a `kvperf compare io`: kernel is the kernel host "
             "against the kernel target, user-host the user host (which "
             "registers each block once, at connect) against the kernel "
             "target, user-target the kernel host against the user "
             "target; the kernel host registers every I/O with FRWR and "
             "the target invalidates it (SEND with invalidate). Ratios "
             "above 1: the kernel side does more I/Os per second.", "",
             f"| rw | bs | qd | poll | kernel ({unit}) | user-host | "
             "user-target | kernel/user-host | kernel/user-target | "
             "p50 usec (k / uh / ut) | reg+inv % (k / uh / ut) | "
             "spread % (k / uh / ut) |",
             "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in doc.get("io", []):
        m, p50, sh = c["median"], c["p50"], c["reg_inv_pct"]
        sp = c.get("spread", {})
        lines.append(
            f"| {c['rw']} | {c['bs']} | {c['qd']} | {c['poll']} | "
            f"{fmt(m['kernel'], 1)} | {fmt(m['user-host'], 1)} | "
            f"{fmt(m['user-target'], 1)} | "
            f"{fmt(ratio(m['kernel'], m['user-host']), 3)} | "
            f"{fmt(ratio(m['kernel'], m['user-target']), 3)} | "
            + " / ".join(fmt(p50[p], 2) for p in IO_COLS) + " | "
            + " / ".join(fmt(sh[p], 2) for p in IO_COLS) + " | "
            + " / ".join(pct(sp.get(p)) for p in IO_COLS) + " |")
    errs = [f"- {io_name(c)}: {c['error'].splitlines()[0]}"
            for c in doc.get("io", []) if c["error"]]
    return "\n".join(lines + ([""] + errs if errs else [])) + "\n"


def markdown(doc):
    env = doc["environment"]
    ovh = doc["stats_overhead"]
    out = [f"# kvperf benchmark, {doc['date']}, {env.get('kernel', '?')}",
           "",
           f"Reproduce with `{doc['command']}`" +
           (" (the short version of make check)." if doc["short"] else
            "."),
           "",
           "Each cell is the median over the compare's rounds (kernel "
           "path, user path and perftest run one after the other in each "
           "round; kernel-bh is the kernel path posting with bottom halves "
           "disabled, post-context bh); its spread is (largest - smallest) "
           "/ median of the rounds. Latency: p50 (perftest: t_typical), half the round "
           "trip for send and write, the round trip for read. Bandwidth: "
           "average MiB/s (2^20 bytes). kernel/user below 1 means the "
           "kernel path is faster for latency; above 1 for bandwidth.",
           "",
           ("Clock: **instruction time** (" + ICOUNT_TIME + "). A "
            "number is the length of the whole path (kvperf, ib_core, "
            "rdma_rxe, the network stack) in guest instructions, not what "
            "a real host would take; the ratios between the paths are "
            "what it resolves." if icount(doc) else
            "Clock: wall-clock time of an emulated (TCG) guest; a cell "
            "spreads by 20-50 % between runs."),
           "",
           largest_spread(doc),
           "",
           "## Latency", "", table(doc, "lat"),
           "## Bandwidth", "", table(doc, "bw"),
           "## Storage-shaped I/O", "", io_table(doc),
           "## Statistics overhead", "",
           f"Send 64 B, {ovh_poll(doc)} polling, the same loop with "
           "per-iteration "
           "timestamps and histogram recording (stats on) and without "
           "(stats off), alternating; time per iteration is elapsed_ns / "
           "iterations, overhead the median over the rounds of on/off - 1.",
           "",
           "| path | rounds | ns/iteration on | ns/iteration off | "
           "overhead |",
           "|---|---:|---:|---:|---:|"]
    for path in ("kernel", "user"):
        o = ovh.get(path)
        if not o:
            out.append(f"| {path} | 0 | - | - | not measured |")
            continue
        out.append(f"| {path} | {o['rounds']} | {o['ns_per_iter_on']:.0f} "
                   f"| {o['ns_per_iter_off']:.0f} | "
                   f"{100 * o['overhead']:+.2f} % |")
    out += repeat_section(doc)
    notes = sorted({(c["compare"] or {}).get("perftest_note")
                    for c in doc["cells"]
                    if (c["compare"] or {}).get("perftest_note")})
    if notes:
        out += ["", "## Notes", ""]
        out += [f"- perftest column {n}" for n in notes]
    out += ["", "## Environment", "",
            f"- kernel: {env.get('kernel', '?')}",
            f"- device: {env.get('dev', '?')} (Soft-RoCE, rdma_rxe)",
            f"- CPU: {env.get('cpu', '?')}, {env.get('cpus', '?')} vCPUs",
            f"- emulated (QEMU TCG): {'yes' if env.get('tcg') else 'no'}",
            f"- clock: {env.get('time', env.get('clock', '?'))}",
            f"- guest command line: `{env.get('cmdline', '?')}`",
            "- slab caches: " + (f"{env['slab']} (empty slabs kept, so "
                                 "that skb churn does not depend on where "
                                 "a run starts)" if env.get("slab")
                                 else "as booted"),
            f"- perftest: {env.get('perftest') or 'not installed'}",
            f"- kvperf: {doc['git'] or '?'}", ""]
    return "\n".join(out)


def ovh_poll(doc):
    return "softirq" if icount(doc) else "busy"


def largest_spread(doc):
    big = doc.get("largest_spread")
    if not big:
        return "Largest spread over rounds: none measured."
    return (f"Largest spread over rounds: {100 * big['spread']:.2f} % "
            f"({big['cell']}, {big['path']}).")


def repeat_section(doc):
    rep = doc.get("repeat")
    if not rep:
        return []
    big = rep["largest"]
    out = ["", "## Repeatability", "",
           f"Against the previous report of this kernel and clock, "
           f"`{rep['previous']}` (kvperf {rep['previous_git'] or '?'}): "
           + (f"largest difference {100 * big['diff']:+.2f} % ({big['cell']}"
              f", {big['path']}: {big['this']:.3f} now, "
              f"{big['previous']:.3f} then)." if big else "no common cell."),
           "", "| cell | path | this run | previous | difference |",
           "|---|---|---:|---:|---:|"]
    out += [f"| {r['cell']} | {r['path']} | {r['this']:.3f} | "
            f"{r['previous']:.3f} | {100 * r['diff']:+.2f} % |"
            for r in rep["cells"]]
    return out


def draw(doc, svg):
    """gnuplot: latency p50 and bandwidth against size, busy poll"""
    data = svg[:-4] + ".dat"
    blocks, plots = [], []
    poll = doc["cells"][0]["poll"] if doc["cells"] else "busy"
    itime = " (instruction time)" if icount(doc) else ""
    idx = 0
    for kind in ("lat", "bw"):
        for op in OPS:
            cmds = []
            for path in PATHS:
                pts = [(c["size"], c["median"][path]) for c in doc["cells"]
                       if c["kind"] == kind and c["op"] == op and
                       c["poll"] == poll and c["median"][path]]
                if not pts:
                    continue
                blocks.append("\n".join(f"{s} {v}" for s, v in pts))
                cmds.append(f"'{data}' index {idx} using 1:2 with "
                            f"linespoints lw 2 title '{path}'")
                idx += 1
            ylabel = ("p50 latency (usec" if kind == "lat" else
                      "bandwidth (MiB/s") + itime.replace(" (", ", ") + ")"
            title = f"{op} {'latency' if kind == 'lat' else 'bandwidth'}"
            plots.append(f"set title '{title}'\nset ylabel '{ylabel}'\n" +
                         ("plot " + ", ".join(cmds) if cmds else
                          "plot [1:10] [0:1] NaN title 'no data'"))
    with open(data, "w", encoding="utf-8") as f:
        f.write("\n\n\n".join(blocks) + "\n")
    env = doc["environment"]
    script = "\n".join([
        "set terminal svg size 1200,700 dynamic font 'sans,10'",
        f"set output '{svg}'",
        "set multiplot layout 2,3 title 'kvperf: kernel path, user path, "
        f"perftest ({env.get('kernel', '?')}, {env.get('dev', '?')}, "
        f"{poll} poll){itime}'",
        "set logscale x 2", "set xlabel 'message size (bytes)'",
        "set key top left", "set grid"] + plots + ["unset multiplot", ""])
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       capture_output=True)
    finally:
        os.unlink(data)


def cmd_check(base, short):
    results = []

    def result(ok, desc, why=""):
        results.append((ok, desc, why))

    doc = load(base + ".json")
    result(doc is not None, f"{base}.json is JSON")
    doc = doc or {"cells": [], "stats_overhead": {}}
    want = matrix(short, doc.get("environment", {}).get("clock", "wall"))
    got = [(c["kind"], c["op"], c["size"], c["poll"]) for c in doc["cells"]]
    result(got == want, "the JSON has every cell of the matrix",
           f"got {got}")
    paths = [p for p in PATHS
             if p != "perftest" or
             (doc.get("environment") or {}).get("perftest")]
    # perftest under TCG fails now and then (a row of zeros, a hang):
    # its column may be empty when the cell's error says perftest failed
    missing = [f"{c['kind']} {c['op']} {c['size']} {c['poll']} {p}: "
               f"{c['error']}" for c in doc["cells"] for p in paths
               if not (isinstance(c["median"].get(p), (int, float)) and
                       c["median"][p] > 0) and
               (p != "kernel-bh" or
                (c["compare"] or {}).get("post_context") == "both") and
               not (p == "perftest" and
                    (re.search(r"ib_\w+_(lat|bw)", c["error"] or "") or
                     (c["compare"] or {}).get("perftest_note")))]
    result(not missing, f"every cell has a number > 0 for {', '.join(paths)}"
           " (kernel-bh: when measured; perftest: or its failure or why it "
           "is off recorded)",
           "\n".join(missing))
    want_io = io_matrix(short, doc.get("environment", {}).get("clock",
                                                             "wall"))
    got_io = [(c["rw"], c["bs"], c["qd"], c["poll"])
              for c in doc.get("io", [])]
    result(got_io == want_io, "the JSON has every compare io of the I/O "
           "matrix", f"got {got_io}")
    missing = [f"{io_name(c)} {p}: {c['error']}" for c in doc.get("io", [])
               for p in IO_COLS
               if not (isinstance(c["median"].get(p), (int, float)) and
                       c["median"][p] > 0 and
                       isinstance(c["p50"].get(p), (int, float)) and
                       c["p50"][p] > 0)]
    result(not missing, "every compare io has IOPS and a p50 > 0 for "
           f"{', '.join(IO_COLS)}", "\n".join(missing))
    ovh = doc.get("stats_overhead", {})
    result(all(isinstance(ovh.get(p, {}).get("overhead"), float)
               for p in ("kernel", "user")),
           "statistics overhead measured on the kernel and the user path",
           json.dumps(ovh))
    try:
        with open(base + ".md", encoding="utf-8") as f:
            md = f.read()
        rows = [c for c in doc["cells"]
                if f"| {c['op']} | {c['size']} | {c['poll']} |" not in md]
        rows += [io_name(c) for c in doc.get("io", [])
                 if f"| {c['rw']} | {c['bs']} | {c['qd']} | {c['poll']} |"
                 not in md]
        result(not rows and "## Statistics overhead" in md and
               "## Storage-shaped I/O" in md,
               f"{base}.md has a row per cell and compare io, and the "
               "overhead table", f"missing rows: {rows}")
    except OSError as e:
        result(False, f"{base}.md exists", str(e))
    try:
        root = ET.parse(base + ".svg").getroot()
        curves = [e for e in root.iter() if e.tag.endswith("path")]
        result(root.tag.endswith("svg") and len(curves) >= 3,
               f"{base}.svg is an SVG with curves",
               f"root {root.tag}, {len(curves)} paths")
    except (ET.ParseError, OSError) as e:
        result(False, f"{base}.svg is an SVG with curves", str(e))
    return ktap(results)


def main():
    a = sys.argv[1:]
    short = "--short" in a
    opt = {"--command": "make bench", "--previous": None, "--clock": None}
    for o in opt:
        if o in a:
            i = a.index(o)
            opt[o] = a[i + 1]
            del a[i:i + 2]
    a = [x for x in a if x != "--short"]
    if len(a) == 3 and a[0] == "report":
        return cmd_report(a[1], a[2], short, opt["--command"],
                          opt["--previous"])
    if len(a) == 2 and a[0] == "check":
        return cmd_check(a[1], short)
    if len(a) == 3 and a[0] == "gate":
        return cmd_gate(a[1], a[2])
    if len(a) == 3 and a[0] == "baseline":
        return cmd_baseline(a[1], a[2])
    if a == ["cells"] and opt["--clock"] in ("icount", "wall"):
        return cmd_cells(short, opt["--clock"])
    if a == ["iocells"] and opt["--clock"] in ("icount", "wall"):
        return cmd_iocells(short, opt["--clock"])
    if len(a) >= 2 and a[0] == "targets":
        return cmd_targets(a[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
