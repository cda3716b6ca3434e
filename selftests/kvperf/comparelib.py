#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Checks for compare.sh: `kvperf compare` as a table, as JSON, and its
plots.

Each check prints what is wrong and exits 0 when everything holds, 1
when something does not, 2 on usage errors.

usage:
  comparelib.py table FILE TYPE OP ROUNDS PATHS SIZE[,SIZE..]
        the text output: the header line naming TYPE, OP and ROUNDS,
        the column header with a column per path of PATHS (comma
        separated, in order) and the ratios, one row per size whose
        cells are "median (min-max)" with min <= median <= max, and
        ratios that are the medians' quotients; no failed rounds (no
        notes under the table)
  comparelib.py json FILE TYPE OP ROUNDS PATHS SIZE[,SIZE..]
        the JSON: every path has a value per round, none failed (no
        failures), the
        median, min and max are those of the values, the ratios those
        of the medians; for lat each round's distribution is ordered;
        the environment is recorded; post_context is "both" exactly
        when PATHS has kernel-bh (the kernel path with post-context bh)
  comparelib.py kernel-runs FILE EVENTS TYPE OP ROUNDS SIZE[,SIZE..] ITERS
        the kernel column of the JSON in FILE was measured by the
        module: EVENTS (genl_watch.py runs, over the compare) has
        exactly ROUNDS kvperf runs, one per round, done, of TYPE and OP,
        ITERS iterations of each SIZE, and each size's kernel values are
        those runs' (lat: p50; bw: bytes over elapsed time), in round
        order: so the user column was measured elsewhere
  comparelib.py svg FILE WORD[,WORD..] [JSON]
        an SVG gnuplot drew: XML, with curves, and each WORD in its text;
        with JSON (the compare's, of one latency size), the curve of
        each WORD (a path) goes through that path's points of its median
        round, read back through the x axis' tick labels
  comparelib.py png FILE
        a PNG: the signature and an IHDR of a non-empty image
  comparelib.py failed FILE ROUNDS PATHS SIZE[,SIZE..] PATH SIZE REGEX
        the JSON of a compare where PATH failed at SIZE, in every round,
        and nothing else: that cell has no value, failed ROUNDS and a
        failure per round whose error matches REGEX; every other cell of
        PATHS (the sizes before SIZE and after it too) has a value per
        round, no failure
"""

import json
import math
import re
import struct
import sys
import xml.etree.ElementTree as ET

UNITS = {"lat": "usec", "bw": "MiB/sec"}
NUM = r"([0-9]+\.[0-9]+)"
CELL = re.compile(NUM + r" \(" + NUM + "-" + NUM + r"\)")


def close(a, b, decimals):
    """a and b agree at the precision a was printed with"""
    return abs(a - b) <= 0.6 * 10 ** -decimals + 1e-9


def ratio_ok(got, num, den, decimals):
    # the ratio is of unrounded medians; the medians were printed rounded
    if den <= 0:
        return False
    lo = (num - 0.5 * 10 ** -decimals) / (den + 0.5 * 10 ** -decimals)
    hi = (num + 0.5 * 10 ** -decimals) / (den - 0.5 * 10 ** -decimals)
    return lo - 0.0051 <= got <= hi + 0.0051


def cmd_table(path, typ, op, rounds, paths, sizes):
    bad = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    head = f"# compare {typ} {op}, "
    first = [ln for ln in lines if ln.startswith(head)]
    if not first:
        return [f"no line starting {head!r}"]
    if f", {rounds} round" not in first[0]:
        bad.append(f"{first[0]!r} does not say {rounds} rounds")
    unit = UNITS[typ]
    want = ["#bytes"] + [f"{p}[{unit}]" for p in paths] + ["kernel/user"]
    if "perftest" in paths:
        want.append("kernel/perftest")
    hdr = [ln.split() for ln in lines if ln.startswith(" #bytes")]
    if not hdr:
        return bad + ["no column header"]
    if hdr[0] != want:
        bad.append(f"columns {hdr[0]}, want {want}")
    rows = [ln for ln in lines if re.match(r"^ [0-9]", ln)]
    got_sizes = [int(r.split()[0]) for r in rows]
    if got_sizes != sizes:
        bad.append(f"rows for sizes {got_sizes}, want {sizes}")
    for row in rows:
        cells = CELL.findall(row)
        if len(cells) != len(paths):
            bad.append(f"{row!r}: {len(cells)} cells, want {len(paths)}")
            continue
        med = {}
        for p, (m, lo, hi) in zip(paths, cells):
            m, lo, hi = float(m), float(lo), float(hi)
            if not 0 < lo <= m <= hi:
                bad.append(f"{row!r}: {p} not 0 < min <= median <= max")
            med[p] = m
        tail = CELL.sub("", row).split()[1:]
        want_n = 2 if "perftest" in paths else 1
        if len(tail) != want_n:
            bad.append(f"{row!r}: ratios {tail}, want {want_n}")
            continue
        for r, other in zip(tail, ("user", "perftest")):
            try:
                v = float(r)
            except ValueError:
                bad.append(f"{row!r}: ratio {r!r} is not a number")
                continue
            if not ratio_ok(v, med["kernel"], med[other], 2):
                bad.append(f"{row!r}: kernel/{other} {v} is not "
                           f"{med['kernel']} / {med[other]}")
    failed = [ln for ln in lines if ln.startswith("# [")]
    if failed:
        bad.append(f"failed rounds: {failed}")
    return bad


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def check_cell(where, typ, cell, rounds, bad):
    d = 2 if typ == "bw" else 3
    vals = cell.get("values")
    if not isinstance(vals, list) or len(vals) != rounds or \
       not all(isinstance(v, (int, float)) and v > 0 for v in vals):
        bad.append(f"{where}: values {vals!r}, want {rounds} numbers > 0")
        return None
    if cell.get("failed") != 0 or cell.get("failures") != []:
        bad.append(f"{where}: failed {cell.get('failed')!r}, failures "
                   f"{cell.get('failures')!r}")
    for k, want in (("median", median(vals)), ("min", min(vals)),
                    ("max", max(vals))):
        if not isinstance(cell.get(k), (int, float)) or \
           not close(want, cell[k], d):
            bad.append(f"{where}: {k} {cell.get(k)!r}, the values' is "
                       f"{want}")
    if typ == "lat":
        pts = cell.get("points")
        if not isinstance(pts, list) or len(pts) != rounds:
            bad.append(f"{where}: points {pts!r}")
            return cell.get("median")
        for i, pt in enumerate(pts):
            seq = [pt.get(k) for k in ("min", "p50", "p90", "p99",
                                       "p999", "max")]
            # perftest has no p90: null
            nums = [v for v in seq if v is not None]
            if len(nums) < 5 or nums != sorted(nums) or nums[0] <= 0:
                bad.append(f"{where}: round {i} points {pt} not ordered")
            if not close(vals[i], pt.get("p50") or -1, d):
                bad.append(f"{where}: round {i} value {vals[i]} is not "
                           f"its p50 {pt.get('p50')}")
        mr = cell.get("median_round")
        if not isinstance(mr, int) or not 0 <= mr < rounds:
            bad.append(f"{where}: median_round {mr!r}")
    return cell.get("median")


def cmd_json(path, typ, op, rounds, paths, sizes):
    with open(path, encoding="utf-8") as f:
        try:
            c = json.load(f)
        except ValueError as e:
            return [f"not JSON: {e}"]
    bad = []
    for k, want in (("compare", typ), ("op", op), ("rounds", rounds),
                    ("paths", paths)):
        if c.get(k) != want:
            bad.append(f"{k} {c.get(k)!r}, want {want!r}")
    ctx = c.get("post_context")
    if ("kernel-bh" in paths) != (ctx == "both") or \
       ctx not in ("process", "bh", "both"):
        bad.append(f"post_context {ctx!r} with paths {paths}")
    env = c.get("env", {})
    for k in ("kernel", "dev", "cpu"):
        if not isinstance(env.get(k), str) or not env[k]:
            bad.append(f"env.{k} {env.get(k)!r}")
    if not isinstance(env.get("tcg"), bool):
        bad.append(f"env.tcg {env.get('tcg')!r}")
    if "perftest" in paths and not env.get("perftest"):
        bad.append(f"env.perftest {env.get('perftest')!r}")
    rows = c.get("rows", [])
    if [r.get("size") for r in rows] != sizes:
        bad.append(f"rows {[r.get('size') for r in rows]}, want {sizes}")
    for r in rows:
        med = {}
        for p in ("kernel", "kernel-bh", "user", "perftest"):
            where = f"size {r.get('size')} {p}"
            if p not in paths:
                if r.get(p) is not None:
                    bad.append(f"{where}: {r.get(p)!r}, want null")
                continue
            if not isinstance(r.get(p), dict):
                bad.append(f"{where}: {r.get(p)!r}")
                continue
            med[p] = check_cell(where, typ, r[p], rounds, bad)
        for other in ("user", "perftest"):
            key = f"kernel_{other}_ratio"
            if other not in paths:
                if r.get(key) is not None:
                    bad.append(f"size {r.get('size')}: {key} {r.get(key)}")
                continue
            if med.get("kernel") is None or med.get(other) is None:
                continue
            d = 2 if typ == "bw" else 3
            if not isinstance(r.get(key), (int, float)) or \
               not ratio_ok(r[key], med["kernel"], med[other], d):
                bad.append(f"size {r.get('size')}: {key} {r.get(key)!r}, "
                           f"the medians' is {med['kernel'] / med[other]}")
    return bad


TYPES = {"lat": 0, "bw": 1}
OPS = {"send": 0, "write": 1, "read": 2}
STATE_DONE = 2


def run_value(typ, res):
    """A kernel run's result as compare reads it (usec or MiB/s)."""
    if typ == "lat":
        return res["p50_ns"] / 1000.0
    return res["bytes"] * 1e9 / res["elapsed_ns"] / 1048576.0


def cmd_kernel_runs(path, events, typ, op, rounds, sizes, iters):
    with open(path, encoding="utf-8") as f:
        c = json.load(f)
    with open(events, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if not lines or lines[0] != "ready":
        return [f"{events}: the watcher never subscribed: {lines[:3]}"]
    runs = sorted((json.loads(ln) for ln in lines[1:]), key=lambda r: r["id"])
    bad = []
    if len(runs) != rounds:
        bad.append(f"{len(runs)} kernel runs, want {rounds} (one per round): "
                   f"{[r.get('id') for r in runs]}")
    count = "iterations" if typ == "lat" else "messages"
    for r in runs:
        want = {"type": TYPES[typ], "op": OPS[op], "state": STATE_DONE,
                "iterations": iters}
        got = {k: r.get(k) for k in want}
        if got != want:
            bad.append(f"run {r['id']}: {got}, want {want}")
        rs = [(x.get("size"), x.get(count)) for x in r["results"]]
        if rs != [(sz, iters) for sz in sizes]:
            bad.append(f"run {r['id']}: (size, {count}) {rs}, want "
                       f"{iters} of each of {sizes}")
    if bad:
        return bad
    d = 2 if typ == "bw" else 3
    for i, sz in enumerate(sizes):
        row = next((x for x in c.get("rows", []) if x.get("size") == sz), {})
        got = (row.get("kernel") or {}).get("values")
        want = [run_value(typ, r["results"][i]) for r in runs]
        if not isinstance(got, list) or len(got) != len(want) or \
           not all(close(g, w, d) for g, w in zip(got, want)):
            bad.append(f"size {sz}: the kernel column {got}, the module's "
                       f"runs measured {[round(w, d) for w in want]}")
    return bad


def ticks(root, anchor):
    """(position, value) of the numeric tick labels with this anchor: x
    for "middle" (the x axis), from the label's translate()."""
    out = []
    for g in root.iter():
        if not g.tag.endswith("g") or g.get("text-anchor") != anchor:
            continue
        m = re.match(r"translate\(([-0-9.]+),([-0-9.]+)\)",
                     g.get("transform", ""))
        text = "".join(g.itertext()).strip()
        if m and re.fullmatch(r"-?[0-9.]+(e[-+]?[0-9]+)?", text):
            out.append((float(m.group(1)), float(text)))
    return out


def x_axis(root):
    """The function of a value to its x pixel, fitted to the x tick
    labels (linear or log 10, whichever fits), or None."""
    tk = ticks(root, "middle")
    if len(tk) < 2:
        return None
    best = None
    for f in (lambda v: v, lambda v: math.log10(v) if v > 0 else None):
        pts = [(px, f(v)) for px, v in tk]
        if any(v is None for _, v in pts):
            continue
        (p0, v0), (p1, v1) = pts[0], pts[-1]
        if v1 == v0:
            continue
        k = (p1 - p0) / (v1 - v0)
        err = max(abs(p0 + k * (v - v0) - px) for px, v in pts)
        if best is None or err < best[0]:
            best = (err, f, p0, v0, k)
    if best is None or best[0] > 1.0:
        return None
    _, f, p0, v0, k = best
    return lambda v: p0 + k * (f(v) - v0)


def curves(root):
    """{title: [(x, y)...]}: each plot's data points, from its path (the
    first move is the key's sample line)."""
    out = {}
    for g in root.iter():
        if not g.tag.endswith("g") or \
           not (g.get("id") or "").startswith("gnuplot_plot_"):
            continue
        title = " ".join("".join(t.itertext()).strip() for t in g.iter()
                         if t.tag.endswith("text")).strip()
        pts = []
        for p in g.iter():
            if p.tag.endswith("path") and p.get("d"):
                for sub in p.get("d").split("M")[2:]:
                    pts += [(float(x), float(y)) for x, y in
                            re.findall(r"([-0-9.]+),([-0-9.]+)", sub)]
        out[title] = pts
    return out


def svg_data(root, cmp_json, words):
    """The curves of the words go through their median round's points."""
    with open(cmp_json, encoding="utf-8") as f:
        row = json.load(f)["rows"][0]
    to_px = x_axis(root)
    if to_px is None:
        return ["no x axis to read the points by"]
    bad = []
    got = curves(root)
    keys = ("min", "p50", "p90", "p99", "p999", "max")
    for w in words:
        cell = row.get(w) or {}
        pt = cell["points"][cell["median_round"]]
        want = [to_px(pt[k]) for k in keys if (pt.get(k) or 0) > 0]
        xs = [x for x, _ in got.get(w, [])]
        if len(xs) != len(want) or \
           not all(abs(a - b) <= 1.0 for a, b in zip(xs, want)):
            bad.append(f"curve {w}: x {xs}, want {[round(v, 2) for v in want]}"
                       f" (its points {pt})")
    return bad


def cmd_svg(path, words, cmp_json=None):
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        return [f"not XML: {e}"]
    bad = []
    if not root.tag.endswith("svg"):
        bad.append(f"root element {root.tag}, want svg")
    paths = [e for e in root.iter() if e.tag.endswith("path")]
    if len(paths) < 3:
        bad.append(f"{len(paths)} path elements: no curves")
    text = " ".join("".join(e.itertext()) for e in root.iter()
                    if e.tag.endswith("text"))
    for w in words:
        if w not in text:
            bad.append(f"no {w!r} in the text of the SVG: {text[:300]!r}")
    if cmp_json and not bad:
        bad = svg_data(root, cmp_json, words)
    return bad


def cmd_failed(path, rounds, paths, sizes, fpath, fsize, regex):
    with open(path, encoding="utf-8") as f:
        try:
            c = json.load(f)
        except ValueError as e:
            return [f"not JSON: {e}"]
    rows = c.get("rows", [])
    bad = []
    if [r.get("size") for r in rows] != sizes:
        bad.append(f"rows {[r.get('size') for r in rows]}, want {sizes}")
    for r in rows:
        for p in paths:
            where = f"size {r.get('size')} {p}"
            cell = r.get(p)
            if not isinstance(cell, dict):
                bad.append(f"{where}: {cell!r}")
                continue
            vals, fails = cell.get("values"), cell.get("failures")
            if (p, r.get("size")) != (fpath, fsize):
                if not isinstance(vals, list) or len(vals) != rounds or \
                   not all(isinstance(v, (int, float)) and v > 0
                           for v in vals) or cell.get("failed") != 0 or \
                   fails != []:
                    bad.append(f"{where}: values {vals!r}, failed "
                               f"{cell.get('failed')!r}, failures {fails!r}"
                               f"; want {rounds} values, no failure")
                continue
            if vals != [None] * rounds or cell.get("median") is not None or \
               cell.get("failed") != rounds:
                bad.append(f"{where}: values {vals!r}, median "
                           f"{cell.get('median')!r}, failed "
                           f"{cell.get('failed')!r}; want none, {rounds} "
                           f"failed")
            if not isinstance(fails, list) or \
               [x.get("round") for x in fails] != list(range(rounds)) or \
               not all(re.search(regex, str(x.get("error"))) for x in fails):
                bad.append(f"{where}: failures {fails!r}, want one per "
                           f"round matching {regex!r}")
    return bad


def cmd_png(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return [f"not a PNG: {head!r}"]
    w, h = struct.unpack(">II", head[16:24])
    return [] if w > 0 and h > 0 else [f"a PNG of {w}x{h}"]


def main():
    a = sys.argv[1:]
    try:
        if len(a) == 7 and a[0] in ("table", "json"):
            fn = cmd_table if a[0] == "table" else cmd_json
            bad = fn(a[1], a[2], a[3], int(a[4]), a[5].split(","),
                     [int(s) for s in a[6].split(",")])
        elif len(a) == 8 and a[0] == "kernel-runs":
            bad = cmd_kernel_runs(a[1], a[2], a[3], a[4], int(a[5]),
                                  [int(x) for x in a[6].split(",")],
                                  int(a[7]))
        elif len(a) in (3, 4) and a[0] == "svg":
            bad = cmd_svg(a[1], a[2].split(","), *a[3:])
        elif len(a) == 2 and a[0] == "png":
            bad = cmd_png(a[1])
        elif len(a) == 8 and a[0] == "failed":
            bad = cmd_failed(a[1], int(a[2]), a[3].split(","),
                             [int(x) for x in a[4].split(",")], a[5],
                             int(a[6]), a[7])
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (OSError, ValueError, KeyError) as e:
        bad = [f"{type(e).__name__}: {e}"]
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
