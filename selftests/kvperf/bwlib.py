#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Checks for the kvperf bandwidth selftests (bw_*.sh): a bandwidth run
as `kvperf -j` prints it, perftest's table and the live lines as
`kvperf run bw` prints them, the same run in sysfs and in the debugfs
series, and the progress events `kvperf -j monitor progress` prints.

Each check prints what is wrong and exits 0 when everything holds, 1
when something does not, 2 on usage errors.

usage:
  bwlib.py run FILE [--state S] [--op OP] [--qps N] [--iters N]
                    [--sizes A,B,..] [--sizes-prefix A,B,..]
                    [--min-results N] [--qp-cpus C,C,..]
                    [--verify] [--bidir] [--timed] [--min-elapsed NS]
                    [--field KEY=VALUE]...
        the run's results hold together (messages, bytes, per queue
        pair numbers, the peer's counts, the rates JSON computes), and
        match what was asked; --qp-cpus: queue pair i ran on the i-th
        CPU given (-1: on none in particular)
  bwlib.py agree FILE SYSFS-DIR SERIES [--same FILE2]
        sysfs shows the last size of the run as FILE has it, the
        latency files are absent, every queue pair has its directory,
        and the debugfs series holds together with the results
  bwlib.py series SERIES FILE [--window MIN-MAX] [--min-windows N]
        the median window of the series lies in MIN-MAX ns, and there
        are at least N windows
  bwlib.py events MONITOR ID SERIES FILE [--min N] [--gap MIN-MAX]
        the progress events of run ID: at least N, their median
        interval_ns in MIN-MAX, each the window of the series with the
        run's running totals
  bwlib.py table TEXT FILE [--live N] [--gbits]
        the output of `kvperf run bw` (TEXT) shows the run as FILE
        (its JSON from run show) has it: perftest's header, one row per
        size (tx, rx and total for bidir runs), a line per queue pair
        when there are several, and at least N live lines before
"""

import json
import re
import sys

MIB = 1048576.0
NS = 1000000000

LAT_ONLY = ("iterations", "min_ns", "max_ns", "mean_ns", "stdev_ns",
            "p50_ns", "p90_ns", "p99_ns", "p999_ns", "p9999_ns")
RESULT_INTS = ("size", "messages", "bytes", "elapsed_ns", "peak_bps",
               "cpu_ns", "mismatches")
QP_INTS = ("index", "cpu", "messages", "bytes", "elapsed_ns")
SERIES_HEADER = "# size t_ms window_ns messages bytes mib_per_s"

COLS = [("#bytes", None, 5), ("#iterations", None, 4),
        ("BW peak[MiB/sec]", "BW peak[Gb/sec]", 4),
        ("BW average[MiB/sec]", "BW average[Gb/sec]", 3),
        ("MsgRate[Mpps]", None, 3), ("CPU[%]", None, 3),
        ("CPU[ns/msg]", None, 3), ("mismatches", None, 3)]


def load_run(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        run = json.loads(text, parse_float=str)
    except ValueError as e:
        raise SystemExit(f"{path}: not JSON ({e}): {text[:500]!r}")
    if isinstance(run, list):
        if len(run) != 1:
            raise SystemExit(f"{path}: an array of {len(run)} runs, want 1")
        run = run[0]
    if not isinstance(run, dict):
        raise SystemExit(f"{path}: not a run object: {text[:500]!r}")
    return run


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def ratio(num, den, scale):
    """num * scale / den as the tool computes it, or None."""
    if not den:
        return None
    return float(num) * scale / float(den)


def fixed(v, decimals):
    return None if v is None else f"{v:.{decimals}f}"


def kcpus(spec):
    """The CPUs of a list such as 0-3,6, in the kernel's order."""
    cpus = set()
    for part in spec.split(","):
        a, _, b = part.partition("-")
        cpus.update(range(int(a), int(b or a) + 1))
    return sorted(cpus)


def want_qp_cpus(run):
    """The CPU each queue pair should have run on, from the run's setup."""
    n = run.get("qps", 1)
    if "cpus" in run:
        cpus = kcpus(run["cpus"])
        return [cpus[i % len(cpus)] for i in range(n)]
    return [run.get("cpu", -1)] * n


def sizes_of(run):
    sizes, s = [], run["size"]
    while s <= run["size_max"]:
        sizes.append(s)
        s *= 2
    return sizes


def computed(r):
    """The numbers JSON computes from the kernel's, as text, by key."""
    bidir = "rx_messages" in r and "rx_elapsed_ns" in r
    want = {}
    e = r["elapsed_ns"]
    want["bw_peak_mibps"] = fixed(r["peak_bps"] / MIB, 2)
    bps = ratio(r["bytes"], e, 1e9)
    want["bw_avg_mibps"] = fixed(None if bps is None else bps / MIB, 2)
    want["msg_rate_mpps"] = fixed(ratio(r["messages"], e, 1e3), 6)
    msgs = r["messages"]
    if bidir:
        re_ = r["rx_elapsed_ns"]
        bps = ratio(r["rx_bytes"], re_, 1e9)
        want["rx_bw_avg_mibps"] = fixed(None if bps is None else bps / MIB,
                                        2)
        want["rx_msg_rate_mpps"] = fixed(ratio(r["rx_messages"], re_, 1e3),
                                         6)
        e = max(e, re_)
        msgs += r["rx_messages"]
        bps = ratio(r["bytes"] + r["rx_bytes"], e, 1e9)
        want["total_bw_avg_mibps"] = fixed(None if bps is None else
                                           bps / MIB, 2)
        want["total_msg_rate_mpps"] = fixed(ratio(msgs, e, 1e3), 6)
    # the CPU time belongs to the whole size: both directions if bidir
    want["cpu_percent"] = fixed(ratio(r["cpu_ns"], e, 100), 2)
    want["cpu_ns_per_msg"] = fixed(ratio(r["cpu_ns"], msgs, 1), 2)
    return want


def check_result(run, r, opts, bad):
    where = f"size {r.get('size')}"
    missing = [k for k in RESULT_INTS + ("qps",) if k not in r]
    if missing:
        bad.append(f"{where}: missing {', '.join(missing)} in {sorted(r)}")
        return
    for k in RESULT_INTS:
        if not is_int(r[k]) or r[k] < 0:
            bad.append(f"{where}: {k} {r[k]!r} is not a non-negative "
                       "integer")
            return
    op, size, qps = run["op"], r["size"], run.get("qps", 1)
    n = r["messages"]
    iters = run.get("iterations")
    if not opts["timed"] and iters is not None:
        if n != qps * iters:
            bad.append(f"{where}: {n} messages, want qps {qps} x "
                       f"{iters} iterations = {qps * iters}")
    elif n <= 0:
        bad.append(f"{where}: {n} messages")
    if r["bytes"] != n * size:
        bad.append(f"{where}: bytes {r['bytes']} != messages {n} x size")
    if n and r["elapsed_ns"] <= 0:
        bad.append(f"{where}: elapsed_ns {r['elapsed_ns']}")
    if opts["min_elapsed"] is not None and \
       r["elapsed_ns"] < opts["min_elapsed"]:
        bad.append(f"{where}: elapsed_ns {r['elapsed_ns']} < "
                   f"{opts['min_elapsed']}")
    # (short sizes: see bw_basic.sh's cpu_short)
    if n and r["cpu_ns"] <= 0 and r["elapsed_ns"] >= 20000000:
        bad.append(f"{where}: cpu_ns {r['cpu_ns']} in {r['elapsed_ns']} ns")
    # the peak is a window's rate, never below the average
    avg = r["bytes"] * NS // r["elapsed_ns"] if r["elapsed_ns"] else 0
    if r["peak_bps"] < avg:
        bad.append(f"{where}: peak_bps {r['peak_bps']} below the average "
                   f"{avg}")
    if op == "send":
        if r.get("peer_messages") != n:
            bad.append(f"{where}: peer_messages {r.get('peer_messages')!r}"
                       f", want messages {n}")
    elif r.get("peer_messages", 0) != 0:
        bad.append(f"{where}: peer_messages {r['peer_messages']} for "
                   f"{op}")
    if run.get("verify") and r["mismatches"] != 0:
        bad.append(f"{where}: {r['mismatches']} mismatches")
    if run.get("bidir"):
        for k in ("rx_messages", "rx_bytes", "rx_elapsed_ns"):
            if not is_int(r.get(k)):
                bad.append(f"{where}: bidir, {k} {r.get(k)!r}")
                return
        rx = r["rx_messages"]
        if not opts["timed"] and iters is not None and rx != qps * iters:
            bad.append(f"{where}: rx_messages {rx}, want qps {qps} x "
                       f"{iters} iterations = {qps * iters}")
        elif rx <= 0:
            bad.append(f"{where}: rx_messages {rx}")
        if r["rx_bytes"] != rx * size:
            bad.append(f"{where}: rx_bytes {r['rx_bytes']} != rx_messages "
                       f"{rx} x size")
        if rx and r["rx_elapsed_ns"] <= 0:
            bad.append(f"{where}: rx_elapsed_ns {r['rx_elapsed_ns']}")
    else:
        extra = [k for k in r if k.startswith(("rx_", "total_"))]
        if extra:
            bad.append(f"{where}: {', '.join(extra)} without bidir")
    for k, v in computed(r).items():
        if r.get(k) != v:
            bad.append(f"{where}: {k} {r.get(k)!r}, want {v!r} from the "
                       "kernel's numbers")
    check_qps(run, r, opts, bad)


def check_qps(run, r, opts, bad):
    where = f"size {r['size']}"
    qps, n = run.get("qps", 1), run.get("iterations")
    q = r["qps"]
    if not isinstance(q, list) or len(q) != qps:
        bad.append(f"{where}: {len(q) if isinstance(q, list) else q!r} "
                   f"queue pair objects, want {qps}")
        return
    cpus = opts["qp_cpus"] if opts["qp_cpus"] is not None else \
        want_qp_cpus(run)
    total = 0
    for i, qp in enumerate(q):
        w = f"{where} qp {i}"
        if any(not is_int(qp.get(k)) for k in QP_INTS):
            bad.append(f"{w}: not all of {QP_INTS} are integers: {qp}")
            continue
        total += qp["messages"]
        if qp["index"] != i:
            bad.append(f"{w}: index {qp['index']}")
        if qp["cpu"] != cpus[i]:
            bad.append(f"{w}: cpu {qp['cpu']}, want {cpus[i]} (cpus "
                       f"{run.get('cpus', '-')}, cpu {run.get('cpu', '-')})")
        if not opts["timed"] and n is not None and qp["messages"] != n:
            bad.append(f"{w}: {qp['messages']} messages, want the "
                       f"{n} iterations")
        if qp["bytes"] != qp["messages"] * r["size"]:
            bad.append(f"{w}: bytes {qp['bytes']} != messages x size")
        if qp["elapsed_ns"] > r["elapsed_ns"]:
            bad.append(f"{w}: elapsed_ns {qp['elapsed_ns']} > the size's "
                       f"{r['elapsed_ns']}")
        if run["op"] == "send" and qp.get("peer_messages") != \
           qp["messages"]:
            bad.append(f"{w}: peer_messages {qp.get('peer_messages')!r}, "
                       f"want {qp['messages']}")
        bps = ratio(qp["bytes"], qp["elapsed_ns"], 1e9)
        want = {"bw_avg_mibps": fixed(None if bps is None else bps / MIB,
                                      2),
                "msg_rate_mpps": fixed(ratio(qp["messages"],
                                             qp["elapsed_ns"], 1e3), 6)}
        for k, v in want.items():
            if qp.get(k) != v:
                bad.append(f"{w}: {k} {qp.get(k)!r}, want {v!r}")
    if total != r["messages"]:
        bad.append(f"{where}: the queue pairs' messages add up to {total}, "
                   f"the size has {r['messages']}")


def parse_opts(args, spec):
    """{name: value} for --name VALUE (or True for flags in spec)."""
    opts = {k.lstrip("-").replace("-", "_"): (False if v is bool else None)
            for k, v in spec.items()}
    opts["field"] = []
    pos = []
    it = iter(args)
    for a in it:
        if a == "--field":
            opts["field"].append(next(it, "").partition("="))
        elif a in spec:
            key = a.lstrip("-").replace("-", "_")
            if spec[a] is bool:
                opts[key] = True
                continue
            v = next(it, None)
            if v is None:
                raise SystemExit(f"{a} needs a value")
            opts[key] = spec[a](v)
        elif a.startswith("--"):
            raise SystemExit(f"unknown option {a}")
        else:
            pos.append(a)
    return pos, opts


def int_list(s):
    return [int(x) for x in s.split(",") if x]


def span(s):
    a, _, b = s.partition("-")
    return int(a), int(b)


RUN_OPTS = {"--state": str, "--op": str, "--qps": int, "--iters": int,
            "--sizes": int_list, "--sizes-prefix": int_list,
            "--min-results": int, "--qp-cpus": int_list, "--verify": bool, "--bidir": bool,
            "--timed": bool, "--min-elapsed": int}


def check_run(run, opts):
    bad = []
    for k in ("id", "type", "op", "addr", "port", "dev", "state", "size",
              "size_max", "qps", "tx_depth", "post_list", "signal_every",
              "poll", "verify", "bidir", "timeout_ms", "results"):
        # the user path's runs live in the tool's process: no run id
        if k == "id" and run.get("path") == "user":
            continue
        if k not in run:
            bad.append(f"no key {k!r} in {sorted(run)}")
    if bad:
        return bad
    if run["type"] != "bw":
        bad.append(f"type {run['type']!r}, want 'bw'")
    if opts["state"] and run["state"] != opts["state"]:
        bad.append(f"state {run['state']!r}, want {opts['state']!r} "
                   f"(error: {run.get('error')!r})")
    if opts["op"] and run["op"] != opts["op"]:
        bad.append(f"op {run['op']!r}, want {opts['op']!r}")
    if opts["qps"] is not None and run["qps"] != opts["qps"]:
        bad.append(f"qps {run['qps']}, want {opts['qps']}")
    if opts["iters"] is not None and run.get("iterations") != opts["iters"]:
        bad.append(f"iterations {run.get('iterations')!r}, want "
                   f"{opts['iters']}")
    if opts["timed"] and "duration_ms" not in run:
        bad.append("--timed, but the run has no duration_ms")
    if not opts["timed"] and "duration_ms" in run:
        bad.append(f"duration_ms {run['duration_ms']}: a timed run "
                   "(pass --timed)")
    if opts["verify"] and run["verify"] is not True:
        bad.append(f"verify {run['verify']!r}, want true")
    if opts["bidir"] and run["bidir"] is not True:
        bad.append(f"bidir {run['bidir']!r}, want true")
    for k, _, v in opts["field"]:
        got = run.get(k, "(absent)")
        got = json.dumps(got) if isinstance(got, bool) else str(got)
        if got != v:
            bad.append(f"{k} {got}, want {v}")
    if opts["qp_cpus"] is not None and len(opts["qp_cpus"]) != run["qps"]:
        bad.append(f"--qp-cpus has {len(opts['qp_cpus'])} CPUs, the run "
                   f"{run['qps']} queue pairs")
        opts["qp_cpus"] = None
    results = run["results"]
    if not isinstance(results, list):
        return bad + [f"results is not an array: {results!r}"]
    sizes = [r.get("size") for r in results]
    all_sizes = sizes_of(run)
    if sizes != all_sizes[:len(sizes)]:
        bad.append(f"result sizes {sizes} are not the first of "
                   f"{all_sizes}")
    if run["state"] == "done" and sizes != all_sizes:
        bad.append(f"done with sizes {sizes}, want {all_sizes}")
    if opts["sizes"] is not None and sizes != opts["sizes"]:
        bad.append(f"result sizes {sizes}, want {opts['sizes']}")
    if opts["sizes_prefix"] is not None and \
       sizes != opts["sizes_prefix"][:len(sizes)]:
        bad.append(f"result sizes {sizes} are not the first of "
                   f"{opts['sizes_prefix']}")
    if opts["min_results"] is not None and \
       len(results) < opts["min_results"]:
        bad.append(f"{len(results)} results, want at least "
                   f"{opts['min_results']}")
    for r in results:
        check_result(run, r, opts, bad)
    # the run's totals; one that ended early may have measured part of a
    # size more
    for key, rkey in (("progress", "messages"), ("bytes", "bytes")):
        total = sum(r[rkey] for r in results if is_int(r.get(rkey)))
        got = run.get(key, total)
        if (run["state"] == "done" and got != total) or \
           (run["state"] in ("stopped", "failed") and got < total):
            bad.append(f"{key} {got}, the results have {total} {rkey}")
    return bad


def cmd_run(args):
    pos, opts = parse_opts(args, RUN_OPTS)
    if len(pos) != 1:
        return usage()
    return report(check_run(load_run(pos[0]), opts))


def read_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        return e


def mibps_text(num, ns):
    """What the kernel prints for num bytes in ns as MiB/s."""
    bps = num * NS // ns if ns else 0
    centi = bps * 100 // (1 << 20)
    return f"{centi // 100}.{centi % 100:02d}"


def series_mibps(num, ns):
    """What the series prints for num bytes in ns as MiB/s."""
    centi = (num * 100 * NS // ns) >> 20
    return f"{centi // 100}.{centi % 100:02d}"


def sysfs_want(run, r):
    """The files of sysfs for result r, as the kernel prints them."""
    e = r["elapsed_ns"]
    rate = r["messages"] * NS // e if e else 0
    peak = r["peak_bps"] * 100 // (1 << 20)
    want = {
        "state": run["state"], "op": run["op"], "type": "bw",
        "dev": run["dev"], "error": run.get("error", ""),
        "size": str(r["size"]), "bytes": str(r["bytes"]),
        "messages": str(r["messages"]),
        "mismatches": str(r["mismatches"]),
        "bw_avg_mibps": mibps_text(r["bytes"], e),
        "bw_peak_mibps": f"{peak // 100}.{peak % 100:02d}",
        "msg_rate": f"{rate // 1000000}.{rate % 1000000:06d}",
        "cpu_ns_per_msg": str(r["cpu_ns"] // r["messages"]
                              if r["messages"] else 0),
        "cpu_percent": str(r["cpu_ns"] * 100 // e if e else 0),
    }
    if run.get("bidir"):
        # which messages and time they count is bw_basic.sh's business
        del want["cpu_ns_per_msg"], want["cpu_percent"]
    return want


def same(a, b):
    bad = []
    # progress may have been sent only while the run ran
    for k in sorted(set(a) | set(b)):
        if k == "progress":
            continue
        if a.get(k, "(absent)") != b.get(k, "(absent)"):
            bad.append(f"{k}: {a.get(k, '(absent)')!r} != "
                       f"{b.get(k, '(absent)')!r}")
    return bad


def read_series(path):
    """[(size, t_ms, window_ns, messages, bytes, mibps text)], bad."""
    text = read_file(path)
    if isinstance(text, OSError):
        return [], [f"{path}: {text}"]
    lines = text.split("\n")
    bad, rows = [], []
    if lines[0] != SERIES_HEADER:
        bad.append(f"series header {lines[0]!r}, want {SERIES_HEADER!r}")
    for l in lines[1:]:
        if not l:
            continue
        if l.startswith("# ") and "windows dropped" in l:
            bad.append(f"series: {l}")
            continue
        f = l.split()
        if len(f) != 6 or not all(x.isdigit() for x in f[:5]) or \
           not re.fullmatch(r"[0-9]+\.[0-9]{2}", f[5]):
            bad.append(f"series line {l!r}")
            continue
        rows.append(tuple(int(x) for x in f[:5]) + (f[5],))
    return rows, bad


def check_series(run, rows):
    """What is wrong with the series of a run, against its results."""
    bad = []
    results = {r["size"]: r for r in run["results"]}
    sizes = sizes_of(run)
    prev_t = -1
    for size, t, ns, n, b, mib in rows:
        w = f"series window at {t} ms, size {size}"
        if size not in sizes:
            bad.append(f"{w}: not a size of the run {sizes}")
        if b != n * size:
            bad.append(f"{w}: bytes {b} != messages {n} x size")
        if ns <= 0:
            bad.append(f"{w}: window_ns {ns}")
        elif mib != series_mibps(b, ns):
            bad.append(f"{w}: mib_per_s {mib}, want {series_mibps(b, ns)}")
        if t < prev_t:
            bad.append(f"{w}: t_ms goes back from {prev_t}")
        prev_t = t
    order = [x[0] for x in rows]
    if order != sorted(order):
        bad.append(f"series sizes out of order: {order}")
    for size, r in results.items():
        mine = [x for x in rows if x[0] == size]
        n = sum(x[3] for x in mine)
        if n > r["messages"]:
            bad.append(f"size {size}: the series' windows have {n} "
                       f"messages, the result {r['messages']}")
        # The windows run from the start signal until every thread has
        # its numbers (the server's report included): a little longer
        # than the measurement, which is both directions in bidir runs.
        e = max(r["elapsed_ns"], r.get("rx_elapsed_ns", 0))
        slack = 100000000 + 2 * max([x[2] for x in mine] + [0])
        if sum(x[2] for x in mine) > e + slack:
            bad.append(f"size {size}: the windows last "
                       f"{sum(x[2] for x in mine)} ns, the measurement "
                       f"{e}")
        # the peak is the fastest window, or the average when faster
        e = r["elapsed_ns"]
        peak = max([x[4] * NS // x[2] for x in mine if x[2]] +
                   [r["bytes"] * NS // e if e else 0])
        if r["peak_bps"] != peak:
            bad.append(f"size {size}: peak_bps {r['peak_bps']}, want "
                       f"{peak}: the fastest of the {len(mine)} windows "
                       "and the average")
    return bad


def cmd_agree(args):
    if len(args) < 3:
        return usage()
    run = load_run(args[0])
    sysd, series = args[1], args[2]
    bad = []
    rest = args[3:]
    if rest[:1] == ["--same"] and len(rest) == 2:
        bad += same(run, load_run(rest[1]))
    elif rest:
        return usage()
    results = run.get("results") or []
    if not results:
        return report(bad + ["the run has no results"])
    last = results[-1]
    for name, want in sysfs_want(run, last).items():
        got = read_file(f"{sysd}/{name}")
        if isinstance(got, OSError):
            bad.append(f"{sysd}/{name}: {got}")
            continue
        if not got.endswith("\n") or got.count("\n") != 1:
            bad.append(f"sysfs {name}: {got!r} is not one line")
        if got.rstrip("\n") != want:
            bad.append(f"sysfs {name} {got.rstrip()!r}, want {want!r} "
                       f"(size {last['size']} of the JSON)")
    for name in LAT_ONLY:
        got = read_file(f"{sysd}/{name}")
        if not isinstance(got, OSError):
            bad.append(f"sysfs {name} of a bandwidth run: {got!r}")
    cpus = want_qp_cpus(run)
    for i, qp in enumerate(last["qps"]):
        d = f"{sysd}/qp{i}"
        want = {"cpu": str(cpus[i]), "messages": str(qp["messages"]),
                "bytes": str(qp["bytes"]),
                "bw_avg_mibps": mibps_text(qp["bytes"], qp["elapsed_ns"])}
        for name, v in want.items():
            got = read_file(f"{d}/{name}")
            got = got if isinstance(got, OSError) else got.rstrip("\n")
            if got != v:
                bad.append(f"{d}/{name}: {got!r}, want {v!r}")
    extra = read_file(f"{sysd}/qp{len(last['qps'])}/messages")
    if not isinstance(extra, OSError):
        bad.append(f"{sysd}/qp{len(last['qps'])} exists")
    hist = series.rsplit("/", 1)[0] + "/histogram"
    if not isinstance(read_file(hist), OSError):
        bad.append(f"{hist} exists for a bandwidth run")
    rows, sbad = read_series(series)
    bad += sbad + check_series(run, rows)
    return report(bad)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def cmd_series(args):
    pos, opts = parse_opts(args, {"--window": span, "--min-windows": int})
    if len(pos) != 2:
        return usage()
    run = load_run(pos[1])
    rows, bad = read_series(pos[0])
    bad += check_series(run, rows)
    if opts["min_windows"] is not None and len(rows) < opts["min_windows"]:
        bad.append(f"{len(rows)} windows in the series, want at least "
                   f"{opts['min_windows']}")
    if opts["window"] is not None:
        m = median([x[2] for x in rows])
        lo, hi = opts["window"]
        if m is None or not lo <= m <= hi:
            bad.append(f"median window {m} ns, want {lo} to {hi}: "
                       f"{[x[2] for x in rows]}")
    return report(bad)


def cmd_events(args):
    pos, opts = parse_opts(args, {"--min": int, "--gap": span})
    if len(pos) != 4:
        return usage()
    path, rid, series, runf = pos[0], int(pos[1]), pos[2], pos[3]
    run = load_run(runf)
    rows, bad = read_series(series)
    evs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                ev = json.loads(line)
            except ValueError:
                bad.append(f"not JSON: {line.rstrip()!r}")
                continue
            if isinstance(ev, dict) and ev.get("id") == rid and \
               ev.get("event") == "run-progress":
                evs.append(ev)
    keys = ("progress", "size", "bytes", "interval_bytes",
            "interval_messages", "interval_ns")
    for ev in evs:
        if any(not is_int(ev.get(k)) for k in keys):
            bad.append(f"event without all of {keys}: {ev}")
            return report(bad)
    if opts["min"] is not None and len(evs) < opts["min"]:
        bad.append(f"{len(evs)} progress events for run {rid}, want at "
                   f"least {opts['min']}")
    if opts["gap"] is not None:
        m = median([ev["interval_ns"] for ev in evs])
        lo, hi = opts["gap"]
        if m is None or not lo <= m <= hi:
            bad.append(f"median interval_ns {m}, want {lo} to {hi}: "
                       f"{[ev['interval_ns'] for ev in evs]}")
    # Each event closes a window of the series; its totals are those of
    # the sizes before and the windows so far.
    if len(evs) != len(rows):
        bad.append(f"{len(evs)} progress events, {len(rows)} windows in "
                   "the series")
    done = {r["size"]: r["messages"] for r in run["results"]}
    cur = n = 0
    for ev, row in zip(evs, rows):
        size, _, ns, msgs, _, _ = row
        if size != cur:
            cur, n = size, 0
        n += msgs
        before = [(s, m) for s, m in done.items() if s < size]
        want = {"size": size, "interval_ns": ns, "interval_messages": msgs,
                "interval_bytes": msgs * size,
                "progress": sum(m for _, m in before) + n,
                "bytes": sum(s * m for s, m in before) + n * size}
        diff = {k: (ev[k], v) for k, v in want.items() if ev[k] != v}
        if diff:
            bad.append(f"event {ev} differs from the series: "
                       + ", ".join(f"{k} {a}, want {b}"
                                   for k, (a, b) in diff.items()))
            break
    total = sum(ev["interval_messages"] for ev in evs)
    if total > sum(done.values()):
        bad.append(f"the events' interval_messages add up to {total}, more "
                   f"than the {sum(done.values())} messages measured")
    return report(bad)


LIVE = re.compile(r"  \[ *[0-9]+\.[0-9] s\] size ([0-9]+)  "
                  r"[0-9]+\.[0-9]{2} (MiB|Gb)/s  [0-9]+\.[0-9]{4} Mpps  "
                  r"\([0-9.]+ (B|KiB|MiB|GiB|TiB) so far\)")


def titles(run, gbits):
    """(title, gap) of each column of the run's table."""
    cols = COLS[:8 if run.get("verify") else 7]
    return [(g if gbits and g else t, gap) for t, g, gap in cols]


def header(run, gbits):
    cols = titles(run, gbits)
    return " " + "".join(t + " " * gap for t, gap in cols[:-1]) + \
        cols[-1][0]


def title_starts(run, gbits):
    starts, pos = [], 1
    for t, gap in titles(run, gbits):
        starts.append(pos)
        pos += len(t) + gap
    return starts


def unit(bps, gbits):
    return bps * 8 / 1e9 if gbits else bps / MIB


def table_rows(run, r, gbits):
    """The cells each row of size r should have."""
    qps = run.get("qps", 1)
    cpu = r["cpu_ns"]

    def cells(msgs, byts, ns, peak, whole, label):
        bps = ratio(byts, ns, 1e9)
        row = [str(r["size"]), str(msgs // qps),
               fixed(unit(r["peak_bps"], gbits), 2) if peak else "-",
               fixed(None if bps is None else unit(bps, gbits), 2) or "-",
               fixed(ratio(msgs, ns, 1e3), 6) or "-",
               (fixed(ratio(cpu, ns, 100), 2) or "-") if whole else "-",
               (fixed(ratio(cpu, msgs, 1), 2) or "-") if whole else "-"]
        if run.get("verify"):
            row.append(str(r["mismatches"]) if whole else "-")
        return row + ([label] if label else [])

    if not run.get("bidir"):
        return [cells(r["messages"], r["bytes"], r["elapsed_ns"], True,
                      True, None)]
    e = max(r["elapsed_ns"], r["rx_elapsed_ns"])
    return [cells(r["messages"], r["bytes"], r["elapsed_ns"], True, False,
                  "tx"),
            cells(r["rx_messages"], r["rx_bytes"], r["rx_elapsed_ns"],
                  False, False, "rx"),
            cells(r["messages"] + r["rx_messages"],
                  r["bytes"] + r["rx_bytes"], e, False, True, "total")]


def qp_line(qp, gbits):
    bps = ratio(qp["bytes"], qp["elapsed_ns"], 1e9)
    cpu = str(qp["cpu"]) if qp["cpu"] >= 0 else "-"
    return (f"  qp {qp['index']} (cpu {cpu}): {qp['messages']} messages, "
            f"{qp['bytes']} bytes, "
            f"{fixed(None if bps is None else unit(bps, gbits), 2) or '-'} "
            f"{'Gb/s' if gbits else 'MiB/s'}, "
            f"{fixed(ratio(qp['messages'], qp['elapsed_ns'], 1e3), 6) or '-'}"
            " Mpps")


def endpoint(addr, port):
    """addr:port as the tool prints it, an IPv6 address in brackets"""
    return f"[{addr}]:{port}" if ":" in addr else f"{addr}:{port}"


def cmd_table(args):
    pos, opts = parse_opts(args, {"--live": int, "--gbits": bool})
    if len(pos) != 2:
        return usage()
    run = load_run(pos[1])
    with open(pos[0], encoding="utf-8") as f:
        lines = f.read().split("\n")
    bad = []
    title = [i for i, l in enumerate(lines) if l.startswith("# run ")]
    if len(title) != 1:
        return report([f"{len(title)} '# run N:' lines, want 1"] +
                      lines[:60])
    t = title[0]
    live = [l for l in lines[:t] if l.strip()]
    for l in live:
        m = LIVE.fullmatch(l)
        if not m:
            bad.append(f"not a live line: {l!r}")
        elif int(m.group(1)) not in sizes_of(run):
            bad.append(f"live line of a size the run has not: {l!r}")
        elif (m.group(2) == "Gb") != opts["gbits"]:
            bad.append(f"live line in the wrong unit: {l!r}")
    if opts["live"] is not None and len(live) < opts["live"]:
        bad.append(f"{len(live)} live lines, want at least {opts['live']}")
    want_title = (f"# run {run['id']}: bw {run['op']} to "
                  f"{endpoint(run['addr'], run['port'])} dev {run['dev']}"
                  f"{', verify' if run.get('verify') else ''}"
                  f"{', bidir' if run.get('bidir') else ''}, state "
                  f"{run['state']}")
    if lines[t] != want_title:
        bad.append(f"title {lines[t]!r}, want {want_title!r}")
    body = lines[t + 2:]
    if body and body[0].startswith("error: "):
        body = body[1:]
    if not run["results"]:
        if any(l.strip() for l in body):
            bad.append(f"a table without results: {body}")
        return report(bad)
    want_head = header(run, opts["gbits"])
    if not body or body[0] != want_head:
        bad.append(f"header {body[0] if body else None!r}")
        bad.append(f"  want {want_head!r}")
        return report(bad)
    want = []
    for r in run["results"]:
        for row in table_rows(run, r, opts["gbits"]):
            want.append(("row", row))
        if run.get("qps", 1) > 1:
            for qp in r["qps"]:
                want.append(("qp", qp_line(qp, opts["gbits"])))
    got = [l for l in body[1:] if l.strip()]
    if len(got) != len(want):
        bad.append(f"{len(got)} lines after the header, want {len(want)}")
    for l, (kind, w) in zip(got, want):
        if kind == "row" and (l.split() != w or not l.startswith(" ") or
                              l.startswith("  ")):
            bad.append(f"row {l!r}, want the cells {w}")
        elif kind == "qp" and l != w:
            bad.append(f"line {l!r}, want {w!r}")
    # each cell starts under its title
    heads = title_starts(run, opts["gbits"])
    for l, (kind, _) in zip(got, want):
        starts = [m.start() for m in re.finditer(r"\S+", l)][:len(heads)]
        if kind == "row" and starts != heads[:len(starts)]:
            bad.append(f"row {l!r}: cells at {starts}, titles at {heads}")
            break
    return report(bad)


def report(bad):
    for b in bad:
        print(b)
    return 1 if bad else 0


def usage():
    print(__doc__.strip(), file=sys.stderr)
    return 2


def main():
    cmds = {"run": cmd_run, "agree": cmd_agree, "series": cmd_series,
            "events": cmd_events, "table": cmd_table}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        return usage()
    return cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
