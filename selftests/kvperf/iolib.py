#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Checks for the kvperf I/O-run selftests (io_*.sh): a run as `kvperf -j
run io` prints it, and the same run in sysfs.

Each check prints what is wrong and exits 0 when everything holds, 1
when something does not, 2 on usage errors.

usage:
  iolib.py run FILE [--state S] [--rw read|write] [--bs N] [--qd N]
                    [--inv remote|local] [--segments N] [--ios N | --min-ios N]
                    [--verify] [--stats-off] [--min-elapsed NS]
                    [--read-pct PCT] [--reg frwr|pre|mw]
                    [--queues N] [--cpus LIST] [--inline-data N]
                    [--mismatches N]
  iolib.py sysfs FILE SYSFS-DIR   the run's sysfs files say what JSON says
                                  (a file JSON has no value for: none)
  iolib.py hist FILE HISTOGRAM    the debugfs histogram holds each result's
                                  I/Os, by direction and block size

With --verify no I/O had wrong data, or --mismatches N exactly N (one
queue's, with the run's). With --read-pct the run has a result for reads and one for writes: their
I/Os add up to --ios, the reads' share is within 6 standard deviations of
PCT percent (a binomial draw per I/O), and both have the run's elapsed
time. With --reg pre the blocks were registered once: no part of any
I/O's time is registering or invalidating; with --inline-data N (the
run's, absent without) neither is any time of a write result whose
block is N bytes or less (in-capsule data). With --queues each result
has a part per queue: their I/Os add up to the result's (--ios is the
run's total, each queue's share of it equal), each queue's thread on the
CPU --cpus deals it in turn (-1 without), and the result's minimum,
maximum and mean are exactly those of the queues' latencies together;
the queues' CPU times add up to the run's exactly.
Every result carries the run's CPU times, the target's and (stats on) the
host's: at least 1 ns per I/O of the run, their per-I/O values exact, and
together no more than this machine's CPUs could give in the run's time
(host and target share the guest).
"""

import json
import math
import os
import sys

from latlib import report

PERCENTILES = ("p50_ns", "p90_ns", "p99_ns", "p999_ns", "p9999_ns")
SHARE_KEYS = ("reg_ns", "reg_avg_ns", "reg_pct", "inv_ns", "inv_avg_ns",
              "inv_pct")
SAMPLE_KEYS = ("min_ns", "max_ns", "stdev_ns") + PERCENTILES + (
    "hist_rel_err_ppm",) + SHARE_KEYS


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text, parse_float=str)
    except ValueError as e:
        raise SystemExit(f"{path}: not JSON ({e}): {text[:500]!r}")


def milli(text):
    """A JSON number with 3 decimals, in thousandths."""
    whole, _, frac = text.partition(".")
    if len(frac) != 3 or not whole.isdigit() or not frac.isdigit():
        raise ValueError(f"{text!r} has not exactly 3 decimals")
    return int(whole) * 1000 + int(frac)


def check_result(res, want, bad):
    ios, bs, el = res.get("ios"), res.get("bs"), res.get("elapsed_ns")
    if not isinstance(ios, int) or not isinstance(bs, int) or \
            not isinstance(el, int) or el <= 0:
        bad.append(f"ios {ios!r}, bs {bs!r}, elapsed_ns {el!r}")
        return
    if want.get("bs") is not None and bs != want["bs"]:
        bad.append(f"bs {bs}, want {want['bs']}")
    if want.get("ios") is not None and ios != want["ios"]:
        bad.append(f"ios {ios}, want {want['ios']}")
    if want.get("min_ios") is not None and ios < want["min_ios"]:
        bad.append(f"ios {ios}, want at least {want['min_ios']}")
    if want.get("min_elapsed") is not None and el < want["min_elapsed"]:
        bad.append(f"elapsed_ns {el}, want at least {want['min_elapsed']}")
    # the rates are the counts over the time, truncated to thousandths
    try:
        iops = milli(str(res["iops"]))
        mibs = milli(str(res["mib_per_sec"]))
        mean = milli(str(res["mean_ns"]))
    except (KeyError, ValueError) as e:
        bad.append(f"iops, mib_per_sec, mean_ns: {e}")
        return
    if iops != ios * 10**12 // el:
        bad.append(f"iops {res['iops']}, want {ios} I/Os over {el} ns")
    if mibs != ios * bs * 10**12 // (el << 20):
        bad.append(f"mib_per_sec {res['mib_per_sec']}, want {ios} x {bs} B"
                   f" over {el} ns")
    mism = want.get("mismatches", 0)
    if want.get("verify") and res.get("mismatches") != mism:
        bad.append(f"mismatches {res.get('mismatches')!r}, want {mism}")
    if want.get("stats_off"):
        extra = [k for k in SAMPLE_KEYS if k in res]
        if extra:
            bad.append(f"stats off, yet {extra}")
        # the mean is the elapsed time over the I/Os, rounded to the
        # picosecond, with stats off
        if mean != (el * 1000 + ios // 2) // ios:
            bad.append(f"mean_ns {res['mean_ns']}, want {el} ns / {ios}")
        return
    vals = [res.get(k) for k in ("min_ns",) + PERCENTILES + ("max_ns",)]
    if any(not isinstance(v, int) for v in vals) or vals != sorted(vals) \
            or vals[0] <= 0:
        bad.append(f"min <= percentiles <= max fails: {vals}")
        return
    if not vals[0] * 1000 <= mean <= vals[-1] * 1000:
        bad.append(f"mean_ns {res['mean_ns']} outside [{vals[0]},"
                   f" {vals[-1]}]")
    check_shares(res, want, mean, bad)
    # ios waiting at qd 1 follow each other: they add up to no more
    if want.get("qd") == 1 and mean * ios > el * 1000:
        bad.append(f"qd 1: {ios} I/Os of mean {res['mean_ns']} ns take"
                   f" more than the {el} ns elapsed")


def check_shares(res, want, mean_ps, bad):
    """Registration and invalidation: parts of the I/Os' latency."""
    ios = res["ios"]
    try:
        vals = {k: res[k] for k in SHARE_KEYS}
        pcts = {k: milli(str(vals[k])) for k in ("reg_pct", "inv_pct")}
    except (KeyError, ValueError) as e:
        bad.append(f"registration and invalidation shares: {e}")
        return
    lat_ps = mean_ps * ios
    for part in ("reg", "inv"):
        total = vals[f"{part}_ns"]
        if not isinstance(total, int) or total * 1000 > lat_ps:
            bad.append(f"{part}_ns {total!r}, want at most the summed"
                       f" latency {lat_ps // 1000} ns")
            return
        if vals[f"{part}_avg_ns"] != total // ios:
            bad.append(f"{part}_avg_ns {vals[f'{part}_avg_ns']}, want"
                       f" {total} // {ios}")
        if pcts[f"{part}_pct"] != total * 10**8 // lat_ps:
            bad.append(f"{part}_pct {vals[f'{part}_pct']}, want {total} ns"
                       f" of {lat_ps} ps")
    if want.get("reg") == "pre":
        if vals["reg_ns"] or vals["inv_ns"]:
            bad.append(f"reg pre: reg_ns {vals['reg_ns']}, inv_ns"
                       f" {vals['inv_ns']}, want 0")
        return
    # writes of in-capsule data register and invalidate nothing
    if res.get("rw") == "write" and res["bs"] <= want.get("inline_data", 0):
        if vals["reg_ns"] or vals["inv_ns"]:
            bad.append(f"in-capsule writes: reg_ns {vals['reg_ns']}, inv_ns"
                       f" {vals['inv_ns']}, want 0")
        return
    # every I/O maps its MR; only a host that invalidates itself waits
    if vals["reg_ns"] < ios:
        bad.append(f"reg_ns {vals['reg_ns']} for {ios} I/Os, want 1 ns or"
                   " more each")
    local = want.get("inv") == "local"
    if local and vals["inv_ns"] < ios:
        bad.append(f"inv local: inv_ns {vals['inv_ns']} for {ios} I/Os")
    if not local and vals["inv_ns"] != 0:
        bad.append(f"inv remote: inv_ns {vals['inv_ns']}, want 0")


# A thread's CPU time is the scheduler's sum of its running slices,
# read by its clock. In the TCG guests that clock is the host's TSC,
# which the hosts here mark unstable: read on another host CPU it can
# stand still or step back for up to a tick, and both threads of one
# 40-I/O run (a few ms of CPU) have been charged 0 ns (io_interop.sh's
# first check, once in 13 runs on 2026-12-07). The floor of 1 ns per I/O
# holds from 200 I/Os; a shorter run's times are checked for form and
# bound only.
CPU_FLOOR_IOS = 200


def check_cpu(results, want, elapsed, bad):
    """The run's CPU times, the same in each result, count every I/O."""
    ios = sum(r.get("ios", 0) for r in results)
    keys = ["target_cpu_ns"] + ([] if want.get("stats_off") else ["cpu_ns"])
    if want.get("stats_off") and any("cpu_ns" in r for r in results):
        bad.append("stats off, yet a host cpu_ns (no clock per I/O)")
    # a tick of lag per thread, at HZ 100 at worst
    room = (elapsed * 21 // 20 + 20_000_000) * (os.cpu_count() or 1)
    used = 0
    for key in keys:
        vals = [r.get(key) for r in results]
        if len(set(vals)) != 1 or not isinstance(vals[0], int):
            bad.append(f"{key} {vals!r}, want the run's, one number")
            continue
        v = vals[0]
        used += v
        if v < ios and ios >= CPU_FLOOR_IOS:
            bad.append(f"{key} {v} for {ios} I/Os, want 1 ns or more each")
        per = key.replace("_ns", "_per_io_ns")
        if ios and any(r.get(per) != v // ios for r in results):
            bad.append(f"{per} {[r.get(per) for r in results]!r}, want"
                       f" {v} // {ios}")
    if used > room:
        bad.append(f"CPU {used} ns in {elapsed} ns on {os.cpu_count()}"
                   " CPUs: more than they have")


def cmd_run(args):
    if not args:
        return usage()
    path, args = args[0], args[1:]
    want = {"state": "done", "reg": "frwr"}
    flags = {"--verify": "verify", "--stats-off": "stats_off"}
    opts = {"--state": "state", "--rw": "rw", "--bs": "bs", "--qd": "qd",
            "--inv": "inv", "--segments": "segments", "--ios": "ios",
            "--min-ios": "min_ios",
            "--min-elapsed": "min_elapsed", "--read-pct": "read_pct",
            "--reg": "reg", "--queues": "queues", "--cpus": "cpus",
            "--inline-data": "inline_data", "--mismatches": "mismatches"}
    while args:
        a = args.pop(0)
        if a in flags:
            want[flags[a]] = True
        elif a in opts and args:
            v = args.pop(0)
            want[opts[a]] = int(v) if v.isdigit() else v
        else:
            return usage()
    run = load(path)
    bad = []
    if run.get("type") != "io":
        bad.append(f"type {run.get('type')!r}, want 'io'")
    if run.get("state") != want["state"]:
        bad.append(f"state {run.get('state')!r}, want {want['state']!r}"
                   f" (error {run.get('error')!r})")
    for k, key in (("rw", "op"), ("qd", "qd"), ("inv", "inv"),
                   ("bs", "size"), ("segments", "segments"),
                   ("read_pct", "read_pct"), ("reg", "reg")):
        if want.get(k) is not None and run.get(key) != want[k]:
            bad.append(f"{key} {run.get(key)!r}, want {want[k]!r}")
    if want.get("verify") and run.get("verify") is not True:
        bad.append(f"verify {run.get('verify')!r}")
    if run.get("qps") != want.get("queues", 1):
        bad.append(f"qps {run.get('qps')!r}, want {want.get('queues', 1)}")
    if want.get("cpus") is not None and run.get("cpus") != str(want["cpus"]):
        bad.append(f"cpus {run.get('cpus')!r}, want {want['cpus']!r}")
    if want["reg"] == "pre" and "inv" in run:
        bad.append(f"reg pre, yet inv {run['inv']!r}")
    if want.get("read_pct") is None and "read_pct" in run:
        bad.append(f"read_pct {run['read_pct']!r}, want none")
    if run.get("inline_data") != want.get("inline_data"):
        bad.append(f"inline_data {run.get('inline_data')!r}, want"
                   f" {want.get('inline_data')!r}")
    results = run.get("results")
    if want["state"] != "done":
        return report(bad)
    if want.get("read_pct") is not None:
        check_mixed(results, want, bad)
    elif not isinstance(results, list) or len(results) != 1:
        bad.append(f"results {results!r}, want one")
    else:
        rw = want.get("rw", "read")
        if results[0].get("rw") != rw:
            bad.append(f"result rw {results[0].get('rw')!r}, want {rw!r}")
        check_result(results[0], want, bad)
    if isinstance(results, list) and not bad:
        check_queues(results, want, bad)
        check_cpu(results, want, results[0].get("elapsed_ns", 0), bad)
    return report(bad)


def cpu_list(text):
    """"0-1,3" as [0, 1, 3]."""
    cpus = []
    for part in str(text).split(","):
        lo, _, hi = part.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


def check_queues(results, want, bad):
    """Each result's queues: their parts add up to the result."""
    n = want.get("queues", 1)
    cpus = cpu_list(want["cpus"]) if want.get("cpus") is not None else []
    per_queue = [0] * n
    for res in results:
        qs = res.get("queues")
        if not isinstance(qs, list) or len(qs) != n:
            bad.append(f"{res.get('rw')}: queues {qs!r}, want {n}")
            return
        for i, q in enumerate(qs):
            cpu = cpus[i % len(cpus)] if cpus else -1
            if q.get("index") != i or q.get("cpu") != cpu:
                bad.append(f"queue {q!r}: want index {i}, cpu {cpu}")
            ios, el = q.get("ios"), q.get("elapsed_ns")
            if not isinstance(ios, int) or not isinstance(el, int) or \
                    not 0 < el <= res["elapsed_ns"]:
                bad.append(f"queue {i}: ios {ios!r}, elapsed_ns {el!r}"
                           f" (the result's {res['elapsed_ns']})")
                return
            per_queue[i] += ios
            if milli(str(q["iops"])) != ios * 10**12 // el:
                bad.append(f"queue {i}: iops {q['iops']}, want {ios} I/Os"
                           f" over {el} ns")
            if want.get("verify") and q.get("mismatches") != want.get(
                    "mismatches", 0):
                bad.append(f"queue {i}: mismatches {q.get('mismatches')!r}")
        if sum(q["ios"] for q in qs) != res["ios"]:
            bad.append(f"{res['rw']}: queues' I/Os"
                       f" {[q['ios'] for q in qs]}, result's {res['ios']}")
        means = [milli(str(q["mean_ns"])) for q in qs]
        if want.get("stats_off"):
            for i, q in enumerate(qs):
                qios = q["ios"]
                if qios and means[i] != \
                        (q["elapsed_ns"] * 1000 + qios // 2) // qios:
                    bad.append(f"queue {i}: mean_ns {q['mean_ns']}, want"
                               f" {q['elapsed_ns']} ns / {q['ios']}")
            continue
        busy = [q for q in qs if q["ios"]]
        if not busy:
            continue
        if res["min_ns"] != min(q["min_ns"] for q in busy) or \
                res["max_ns"] != max(q["max_ns"] for q in busy):
            bad.append(f"{res['rw']}: min/max {res['min_ns']}/"
                       f"{res['max_ns']}, queues'"
                       f" {[(q['min_ns'], q['max_ns']) for q in busy]}")
        # each mean is rounded to the picosecond: half of one per I/O
        total = sum(m * q["ios"] for m, q in zip(means, qs))
        mean = milli(str(res["mean_ns"]))
        if abs(mean * res["ios"] - total) > res["ios"] + 1:
            bad.append(f"{res['rw']}: mean_ns {res['mean_ns']} x"
                       f" {res['ios']}, queues' sum {total} ps")
    check_queue_cpu(results, want, per_queue, bad)
    if want.get("ios") is not None and \
            per_queue != [want["ios"] // n] * n:
        bad.append(f"I/Os per queue {per_queue}, want {want['ios'] // n}"
                   " each")


def check_queue_cpu(results, want, per_queue, bad):
    """Each queue's CPU times: the same in every result, the run's sum."""
    keys = ["target_cpu_ns"] + ([] if want.get("stats_off") else ["cpu_ns"])
    for key in keys:
        per = key.replace("_ns", "_per_io_ns")
        vals = [[q.get(key) for q in r["queues"]] for r in results]
        if any(v != vals[0] for v in vals) or \
                not all(isinstance(v, int) for v in vals[0]):
            bad.append(f"queues' {key} {vals!r}, want the queue's in every"
                       " result")
            continue
        if sum(vals[0]) != results[0].get(key):
            bad.append(f"queues' {key} {vals[0]} add up to {sum(vals[0])},"
                       f" the result's is {results[0].get(key)!r}")
        for i, v in enumerate(vals[0]):
            ios = per_queue[i] or 1
            got = [r["queues"][i].get(per) for r in results]
            if got != [v // ios] * len(results):
                bad.append(f"queue {i}: {per} {got}, want {v} // {ios}")
    if want.get("stats_off") and any("cpu_ns" in q for r in results
                                     for q in r["queues"]):
        bad.append("stats off, yet a queue's host cpu_ns")


def check_mixed(results, want, bad):
    """A mixed run's two results: reads, then writes."""
    if not isinstance(results, list) or len(results) != 2:
        bad.append(f"results {results!r}, want a read and a write")
        return
    rws = [r.get("rw") for r in results]
    if rws != ["read", "write"]:
        bad.append(f"results' rw {rws}, want ['read', 'write']")
    each = {k: v for k, v in want.items() if k not in ("ios", "min_ios")}
    for r in results:
        check_result(r, each, bad)
    ios = [r.get("ios") for r in results]
    if not all(isinstance(n, int) for n in ios):
        return
    if want.get("ios") is not None and sum(ios) != want["ios"]:
        bad.append(f"reads {ios[0]} + writes {ios[1]}, want {want['ios']}")
    if want.get("min_ios") is not None and sum(ios) < want["min_ios"]:
        bad.append(f"reads {ios[0]} + writes {ios[1]}, want at least"
                   f" {want['min_ios']}")
    n, p = sum(ios), want["read_pct"] / 100
    if abs(ios[0] - n * p) > 6 * math.sqrt(n * p * (1 - p)) + 1:
        bad.append(f"{ios[0]} reads of {n} I/Os, want about {p:.0%}")
    els = [r.get("elapsed_ns") for r in results]
    if els[0] != els[1]:
        bad.append(f"elapsed_ns {els}, want the run's in both")


def cmd_sysfs(args):
    if len(args) != 2:
        return usage()
    run = load(args[0])
    res = (run.get("results") or [{}])[0]
    bad = []
    files = {"type": "io", "state": run.get("state"),
             "iterations": res.get("ios"), "size": res.get("bs"),
             "p50_ns": res.get("p50_ns"), "max_ns": res.get("max_ns"),
             "mismatches": res.get("mismatches"),
             "cpu_ns_per_io": res.get("cpu_per_io_ns"),
             "target_cpu_ns_per_io": res.get("target_cpu_per_io_ns")}
    for name, val in files.items():
        # what JSON leaves out (the host's CPU with stats off) has no file
        if val is None and not os.path.exists(f"{args[1]}/{name}"):
            continue
        try:
            with open(f"{args[1]}/{name}", encoding="utf-8") as f:
                got = f.read().strip()
        except OSError as e:
            bad.append(f"{name}: {e}")
            continue
        if got != str(val):
            bad.append(f"sysfs {name} {got!r}, JSON {val!r}")
    return report(bad)


def cmd_hist(args):
    """Lines "op size bucket lower upper count" sum to each result's I/Os,
    by direction and block size (a sweep has a result per size)."""
    if len(args) != 2:
        return usage()
    run = load(args[0])
    bad = []
    with open(args[1], encoding="utf-8") as f:
        lines = f.read().splitlines()
    if not lines or lines[0] != "# op size bucket lower_ns upper_ns count":
        bad.append(f"header {lines[:1]!r}")
    counts = {}
    for line in lines[1:]:
        f = line.split()
        if len(f) != 6 or f[0] not in ("read", "write") or \
                not all(x.isdigit() for x in f[1:]) or \
                int(f[3]) > int(f[4]) or int(f[5]) == 0:
            bad.append(f"line {line!r}")
            continue
        key = (f[0], int(f[1]))
        counts[key] = counts.get(key, 0) + int(f[5])
    want = {(r.get("rw"), r.get("bs")): r.get("ios")
            for r in run.get("results") or []}
    if counts != want:
        bad.append(f"histogram counts {counts}, results' I/Os {want}")
    return report(bad)


def usage():
    print(__doc__.strip(), file=sys.stderr)
    return 2


def main():
    cmds = {"run": cmd_run, "sysfs": cmd_sysfs, "hist": cmd_hist}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        return usage()
    return cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
