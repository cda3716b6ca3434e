#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Checks for the kvperf latency selftests (lat_*.sh): a run as
`kvperf -j` prints it, perftest's table as `kvperf run lat` prints it,
the same run in sysfs and in debugfs, monitor events, and raw
generic-netlink requests that bypass the tool's own checks.

Each check prints what is wrong and exits 0 when everything holds, 1
when something does not, 2 on usage errors.

usage:
  latlib.py run FILE [--state S] [--op OP] [--iters N | --min-iters N]
                     [--sizes A,B,..] [--verify] [--max-err-ppm N]
                     [--min-elapsed NS] [--sizes-prefix A,B,..]
                     [--min-results N] [--field KEY=VALUE]...
                     [--stats-off]
  latlib.py table FILE --sizes A,B,.. --iters N [--header TEXT]
                       [--stats-off]
  latlib.py agree FILE SYSFS-DIR HISTOGRAM [--same FILE2] [--run OPTIONS]
                                    (OPTIONS: those of run, but FILE)
  latlib.py events FILE ID STATE [ID STATE]...
                                    one run-finished event per run, with
                                    that state
  latlib.py nl [--retry-busy] CMD [ATTR=VALUE...]
                                    send a raw request, print the errno
                                    name and extack message ("OK: ")
  latlib.py nl [--retry-busy] -     the same for each line of stdin
"""

import errno
import ipaddress
import json
import os
import re
import socket
import struct
import sys
import time

PERCENTILES = ("p50_ns", "p90_ns", "p99_ns", "p999_ns", "p9999_ns")
RESULT_KEYS = ("size", "iterations", "min_ns", "max_ns", "mean_ns",
               "stdev_ns") + PERCENTILES + ("mismatches", "hist_rel_err_ppm",
                                            "elapsed_ns")
# The sysfs files named as result keys, with the same text as in JSON.
SYSFS_STATS = ("min_ns", "max_ns", "mean_ns", "stdev_ns") + PERCENTILES + (
    "mismatches", "size", "iterations")
# What a result of a run with stats off has: nothing that needs samples.
RESULT_KEYS_OFF = ("size", "iterations", "mean_ns", "mismatches",
                   "elapsed_ns")


# The run's JSON, keeping each number's text: mean_ns and stdev_ns must
# be compared digit for digit with sysfs.
def load_run(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        run = json.loads(text, parse_float=str, parse_int=int)
    except ValueError as e:
        raise SystemExit(f"{path}: not JSON ({e}): {text[:500]!r}")
    if isinstance(run, list):
        if len(run) != 1:
            raise SystemExit(f"{path}: an array of {len(run)} runs, want 1")
        run = run[0]
    if not isinstance(run, dict):
        raise SystemExit(f"{path}: not a run object: {text[:500]!r}")
    return run


def as_int(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def check_result_off(r, op, bad, want_iters=None, min_iters=None,
                     verify=False):
    """Append to bad what is wrong with one result of a run with stats
    off: exactly RESULT_KEYS_OFF, and the mean is the elapsed time over
    the iterations (over 2 for send and write), to the picosecond."""
    where = f"size {r.get('size')}"
    if sorted(r) != sorted(RESULT_KEYS_OFF):
        bad.append(f"{where}: keys {sorted(r)}, want "
                   f"{sorted(RESULT_KEYS_OFF)} (stats off)")
        return
    if not isinstance(r["mean_ns"], str) or \
       not re.fullmatch(r"[0-9]+\.[0-9]{3}", r["mean_ns"]):
        bad.append(f"{where}: mean_ns {r['mean_ns']!r} is not a number "
                   "with 3 decimals")
        return
    for k in ("size", "iterations", "mismatches", "elapsed_ns"):
        if as_int(r[k]) is None or r[k] < 0:
            bad.append(f"{where}: {k} {r[k]!r} is not a non-negative "
                       "integer")
            return
    n = r["iterations"]
    if want_iters is not None and n != want_iters:
        bad.append(f"{where}: {n} iterations, want {want_iters}")
    if min_iters is not None and n < min_iters:
        bad.append(f"{where}: {n} iterations, want at least {min_iters}")
    if r["elapsed_ns"] <= 0:
        bad.append(f"{where}: elapsed_ns {r['elapsed_ns']}")
    mean_ps = int(r["mean_ns"].replace(".", ""))
    if mean_ps <= 0:
        bad.append(f"{where}: mean_ns {r['mean_ns']} is not positive")
    d = n * (1 if op == "read" else 2)
    if n and mean_ps != (r["elapsed_ns"] * 1000 + d // 2) // d:
        bad.append(f"{where}: mean_ns {r['mean_ns']} is not elapsed_ns "
                   f"{r['elapsed_ns']} over {d} to the picosecond")
    if verify and r["mismatches"] != 0:
        bad.append(f"{where}: {r['mismatches']} mismatches")


def check_result(r, op, bad, want_iters=None, min_iters=None,
                 max_err_ppm=None, verify=False):
    """Append to bad what is wrong with one result object."""
    where = f"size {r.get('size')}"
    missing = [k for k in RESULT_KEYS if k not in r]
    if missing:
        bad.append(f"{where}: missing {', '.join(missing)}")
        return
    for k in RESULT_KEYS:
        if k in ("mean_ns", "stdev_ns"):
            if not isinstance(r[k], str) or \
               not re.fullmatch(r"[0-9]+\.[0-9]{3}", r[k]):
                bad.append(f"{where}: {k} {r[k]!r} is not a number with "
                           "3 decimals")
                return
        elif as_int(r[k]) is None or r[k] < 0:
            bad.append(f"{where}: {k} {r[k]!r} is not a non-negative "
                       "integer")
            return
    n = r["iterations"]
    if want_iters is not None and n != want_iters:
        bad.append(f"{where}: {n} iterations, want {want_iters}")
    if min_iters is not None and n < min_iters:
        bad.append(f"{where}: {n} iterations, want at least {min_iters}")
    chain = [("min_ns", r["min_ns"])] + [(k, r[k]) for k in PERCENTILES] + \
        [("max_ns", r["max_ns"])]
    for (ka, a), (kb, b) in zip(chain, chain[1:]):
        if a > b:
            bad.append(f"{where}: {ka} {a} > {kb} {b}")
    if r["min_ns"] <= 0:
        bad.append(f"{where}: min_ns {r['min_ns']} is not positive")
    mean = float(r["mean_ns"])
    if not r["min_ns"] <= mean <= r["max_ns"]:
        bad.append(f"{where}: mean_ns {r['mean_ns']} outside "
                   f"[{r['min_ns']}, {r['max_ns']}]")
    if float(r["stdev_ns"]) > r["max_ns"] - r["min_ns"]:
        bad.append(f"{where}: stdev_ns {r['stdev_ns']} larger than the "
                   "range")
    if max_err_ppm is not None and r["hist_rel_err_ppm"] > max_err_ppm:
        bad.append(f"{where}: hist_rel_err_ppm {r['hist_rel_err_ppm']} > "
                   f"{max_err_ppm}")
    if r["elapsed_ns"] <= 0:
        bad.append(f"{where}: elapsed_ns {r['elapsed_ns']}")
    # Each iteration is at least one measured latency: send and write
    # report half a round trip, read a whole one.
    one = r["min_ns"] if op == "read" else 2 * r["min_ns"]
    if n and r["elapsed_ns"] < n * one * 0.999:
        bad.append(f"{where}: elapsed_ns {r['elapsed_ns']} shorter than "
                   f"{n} iterations of at least {one} ns")
    if verify and r["mismatches"] != 0:
        bad.append(f"{where}: {r['mismatches']} mismatches")


def parse_run_opts(args):
    """Options of the run command: (path or None, opts, fields, flags)."""
    opts = {"--state": None, "--op": None, "--iters": None,
            "--min-iters": None, "--sizes": None, "--max-err-ppm": None,
            "--min-elapsed": None, "--sizes-prefix": None,
            "--min-results": None}
    flags = {"--verify": False, "--stats-off": False}
    fields = []
    path = None
    it = iter(args)
    for a in it:
        if a == "--field":
            fields.append(next(it, "").partition("="))
        elif a in opts:
            opts[a] = next(it, None)
            if opts[a] is None:
                raise SystemExit(f"{a} needs a value")
        elif a in flags:
            flags[a] = True
        elif path is None and not a.startswith("--"):
            path = a
        else:
            raise SystemExit(f"unexpected argument {a!r}")
    return path, opts, fields, flags


def check_run(run, opts, fields, flags):
    """What is wrong with a run object, as a list of lines."""
    bad = []
    for k in ("id", "type", "op", "addr", "port", "dev", "size", "state",
              "results", "poll", "warmup", "timeout_ms"):
        # a run of the user path is no kernel object: it has no id
        if k == "id" and run.get("path") == "user":
            continue
        # a warmup given as a time is warmup_ms instead of a count
        if k == "warmup" and "warmup_ms" in run:
            continue
        if k not in run:
            bad.append(f"no key {k!r} in {sorted(run)}")
    if bad:
        return bad
    if run["type"] != "lat":
        bad.append(f"type {run['type']!r}, want 'lat'")
    if opts["--state"] and run["state"] != opts["--state"]:
        bad.append(f"state {run['state']!r}, want {opts['--state']!r} "
                   f"(error: {run.get('error')!r})")
    op = run["op"]
    if opts["--op"] and op != opts["--op"]:
        bad.append(f"op {op!r}, want {opts['--op']!r}")
    for k, _, v in fields:
        got = run.get(k, "(absent)")
        got = json.dumps(got) if isinstance(got, bool) else str(got)
        if got != v:
            bad.append(f"{k} {got}, want {v}")
    if flags["--verify"] and run.get("verify") is not True:
        bad.append(f"verify {run.get('verify')!r}, want true")
    stats = "off" if flags["--stats-off"] else "on"
    if run.get("stats") != stats:
        bad.append(f"stats {run.get('stats', '(absent)')!r}, want {stats!r}")
    results = run["results"]
    if not isinstance(results, list):
        return bad + [f"results is not an array: {results!r}"]
    sizes = [r.get("size") for r in results]
    if opts["--sizes"] is not None:
        want = [int(x) for x in opts["--sizes"].split(",") if x]
        if sizes != want:
            bad.append(f"result sizes {sizes}, want {want}")
    if opts["--sizes-prefix"] is not None:
        want = [int(x) for x in opts["--sizes-prefix"].split(",") if x]
        if sizes != want[:len(sizes)]:
            bad.append(f"result sizes {sizes} are not the first of {want}")
    if opts["--min-results"] is not None and \
       len(results) < int(opts["--min-results"]):
        bad.append(f"{len(results)} results, want at least "
                   f"{opts['--min-results']}")
    num = {k: int(v) if v is not None and k not in (
        "--state", "--op", "--sizes", "--sizes-prefix") else v
        for k, v in opts.items()}
    for r in results:
        if flags["--stats-off"]:
            check_result_off(r, op, bad, want_iters=num["--iters"],
                             min_iters=num["--min-iters"],
                             verify=flags["--verify"])
        else:
            check_result(r, op, bad, want_iters=num["--iters"],
                         min_iters=num["--min-iters"],
                         max_err_ppm=num["--max-err-ppm"],
                         verify=flags["--verify"])
        if num["--min-elapsed"] is not None and \
           isinstance(r.get("elapsed_ns"), int) and \
           r["elapsed_ns"] < num["--min-elapsed"]:
            bad.append(f"size {r.get('size')}: elapsed_ns {r['elapsed_ns']}"
                       f" < {num['--min-elapsed']}")
    return bad


def cmd_run(args):
    path, opts, fields, flags = parse_run_opts(args)
    if path is None:
        return usage()
    return report(check_run(load_run(path), opts, fields, flags))


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


def cmd_table(args):
    opts = {"--sizes": None, "--iters": None, "--header": None}
    path = None
    stats_off = False
    it = iter(args)
    for a in it:
        if a == "--stats-off":
            stats_off = True
        elif a in opts:
            opts[a] = next(it, None)
        elif path is None:
            path = a
        else:
            return usage()
    if path is None or opts["--sizes"] is None:
        return usage()
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    bad = []
    heads = [i for i, l in enumerate(lines) if l.startswith(" #bytes")]
    if len(heads) != 1:
        return report([f"{len(heads)} header lines starting ' #bytes', "
                       "want 1"] + lines[:40])
    head = lines[heads[0]]
    title = [l for l in lines if l.startswith("# run")]
    if stats_off != any(", stats off," in l for l in title):
        bad.append(f"title {title!r}: ', stats off,' "
                   f"{'missing' if stats_off else 'where stats are on'}")
    if opts["--header"] is not None and head != opts["--header"]:
        bad.append(f"header {head!r}")
        bad.append(f"  want {opts['--header']!r}")
    rows = []
    for l in lines[heads[0] + 1:]:
        if not l.strip():
            break
        cells = l.split()
        if not re.fullmatch(r"[0-9]+", cells[0]):
            break
        rows.append(cells)
    want = [int(s) for s in opts["--sizes"].split(",")]
    got = [int(c[0]) for c in rows]
    if got != want:
        bad.append(f"rows for sizes {got}, want {want}")
    for c in rows:
        if opts["--iters"] is not None and c[1] != opts["--iters"]:
            bad.append(f"size {c[0]}: {c[1]} iterations, want "
                       f"{opts['--iters']}")
        if stats_off:
            # t_avg and mismatches; "-" where a sample is needed
            if len(c) != 12 or \
               not re.fullmatch(r"[0-9]+\.[0-9]{3}", c[5]) or \
               float(c[5]) <= 0 or not c[11].isdigit() or \
               any(x != "-" for x in c[2:5] + c[6:11]):
                bad.append(f"size {c[0]}: want t_avg > 0, mismatches and "
                           f"'-' in the other cells: {c}")
            continue
        nums = c[2:]
        if any(not re.fullmatch(r"[0-9]+\.[0-9]+|[0-9]+", x) for x in nums):
            bad.append(f"size {c[0]}: a cell is not a number: {c}")
            continue
        # t_min <= t_typical <= 99% <= 99.9% <= t_max
        tmin, tmax, typ = float(nums[0]), float(nums[1]), float(nums[2])
        p99, p999 = float(nums[5]), float(nums[6])
        if not tmin <= typ <= p99 <= p999 <= tmax:
            bad.append(f"size {c[0]}: not t_min <= t_typical <= 99% <= "
                       f"99.9% <= t_max: {c}")
    return report(bad)


def read_sysfs(d):
    vals = {}
    for name in os.listdir(d):
        p = os.path.join(d, name)
        if os.path.isfile(p):
            with open(p, encoding="utf-8") as f:
                vals[name] = f.read()
    return vals


def read_hist(path):
    """{size: [(bucket, lower, upper, count), ...]} and what is wrong."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    hist = {}
    bad = []
    if not lines or lines[0] != "# size bucket lower_ns upper_ns count":
        bad.append(f"histogram header {lines[0] if lines else ''!r}")
    for l in lines[1:]:
        if not l:
            continue
        f = l.split()
        if len(f) != 5 or not all(x.isdigit() for x in f):
            bad.append(f"histogram line {l!r}")
            continue
        size, b, lo, hi, n = (int(x) for x in f)
        hist.setdefault(size, []).append((b, lo, hi, n))
    return hist, bad


def rank_bucket(rows, ppm, n):
    """The bucket holding the nearest-rank ppm-th percentile."""
    rank = max(1, -(-ppm * n // 1000000))
    seen = 0
    for row in rows:
        seen += row[3]
        if seen >= rank:
            return row
    return rows[-1]


def cmd_agree(args):
    if len(args) < 3:
        return usage()
    run = load_run(args[0])
    sysd, histp = args[1], args[2]
    bad = []
    rest = args[3:]
    if rest[:1] == ["--same"] and len(rest) >= 2:
        bad += same(run, load_run(rest[1]))
        rest = rest[2:]
    if rest[:1] == ["--run"]:
        path, opts, fields, flags = parse_run_opts(rest[1:])
        if path is not None:
            return usage()
        bad += check_run(run, opts, fields, flags)
    elif rest:
        return usage()
    results = run.get("results") or []
    if not results:
        return report(["the run has no results"])
    last = results[-1]
    sysv = read_sysfs(sysd)
    stats_off = run.get("stats") == "off"
    names = SYSFS_STATS
    if stats_off:
        names = tuple(n for n in SYSFS_STATS if n in RESULT_KEYS_OFF)
        there = [n for n in SYSFS_STATS if n not in names and n in sysv]
        if there:
            bad.append(f"stats off, yet sysfs has {there}")
    for name in names + ("state", "op", "dev", "error", "stats"):
        if name not in sysv:
            bad.append(f"no {sysd}/{name}")
            continue
        got = sysv[name]
        if not got.endswith("\n") or got.count("\n") != 1:
            bad.append(f"{name}: {got!r} is not one line")
        got = got.rstrip("\n")
        if name in names:
            want = str(last[name])
        elif name == "error":
            want = run.get("error", "")
        else:
            want = str(run.get(name))
        if got != want:
            bad.append(f"sysfs {name} {got!r}, JSON {want!r}")
    hist, hbad = read_hist(histp)
    bad += hbad
    sizes = [r["size"] for r in results]
    if stats_off:
        if hist:
            bad.append(f"stats off, yet the histogram has sizes {sorted(hist)}")
        return report(bad)
    if sorted(hist) != sorted(sizes):
        bad.append(f"histogram sizes {sorted(hist)}, results {sizes}")
    for r in results:
        rows = hist.get(r["size"])
        if not rows:
            continue
        rows.sort()
        total = sum(x[3] for x in rows)
        if total != r["iterations"]:
            bad.append(f"size {r['size']}: histogram counts sum to {total}, "
                       f"iterations {r['iterations']}")
        for b, lo, hi, n in rows:
            if lo > hi or n <= 0:
                bad.append(f"size {r['size']}: bucket {b} [{lo}, {hi}] "
                           f"count {n}")
        # Each reported value lies in the bucket that holds it (the
        # histogram holds the samples as reported: half round trips for
        # send and write).
        checks = [("min_ns", rows[0]), ("max_ns", rows[-1])]
        checks += [(k, rank_bucket(rows, ppm, total)) for k, ppm in
                   zip(PERCENTILES, (500000, 900000, 990000, 999000,
                                     999900))]
        for k, (b, lo, hi, _) in checks:
            v = r[k]
            if not lo <= v <= hi:
                bad.append(f"size {r['size']}: {k} {v} is not in bucket {b} "
                           f"[{lo}, {hi}]")
    return report(bad)


def cmd_events(args):
    if len(args) < 3 or len(args) % 2 != 1:
        return usage()
    path = args[0]
    want = {int(i): st for i, st in zip(args[1::2], args[2::2])}
    seen = {}
    bad = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                ev = json.loads(line)
            except ValueError:
                bad.append(f"not JSON: {line.rstrip()!r}")
                continue
            if isinstance(ev, dict) and ev.get("event") == "run-finished":
                seen.setdefault(ev.get("id"), []).append(ev)
    for rid, state in want.items():
        mine = seen.get(rid, [])
        if len(mine) != 1:
            bad.append(f"{len(mine)} run-finished events for run {rid}, "
                       f"want 1: {mine}")
        elif mine[0].get("state") != state:
            bad.append(f"run {rid} finished {mine[0].get('state')!r}, want "
                       f"{state!r}: {mine[0]}")
        elif state == "failed" and not mine[0].get("error"):
            bad.append(f"run {rid} failed without an error: {mine[0]}")
    return report(bad)


# Raw generic netlink, for the kernel's own checks of what the tool would
# refuse before asking.
NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLMSG_ERROR = 2
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200
SOL_NETLINK = 270
NETLINK_EXT_ACK = 11
NLMSGERR_ATTR_MSG = 1

# Attribute types by name, as the netlink spec declares them.
U8 = ("type", "op", "poll", "stats", "post_context", "inv", "read_pct",
      "reg")
U16 = ("port",)
FLAGS = ("verify", "bidir")
BINARY = ("addr", "key")
# a server's bidir is an enum (off, on), a run's a flag
SERVER_U8 = ("bidir",)
STRING = ("dev", "cpus")


def uapi_enums():
    """Every enumerator of the UAPI header with its value."""
    # installed (make install of the kselftest folder): beside this file;
    # else the kvperf checkout's
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "kvperf.h")
    if not os.path.exists(path):
        top = os.environ.get("KVPERF_TOP") or os.path.join(here, "..", "..")
        path = os.path.join(top, "include", "uapi", "linux", "kvperf.h")
    vals = {}
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for body in re.findall(r"enum[^{]*\{([^}]*)\}", text):
        nxt = 0
        for m in re.finditer(r"^\s*([A-Z_][A-Z0-9_]*)\s*(?:=\s*([^,\n]+))?,",
                             body, re.M):
            name, val = m.group(1), m.group(2)
            if val is not None:
                if not re.fullmatch(r"\s*(0x)?[0-9a-fA-F]+\s*", val):
                    continue        # the __MAX - 1 entries
                nxt = int(val, 0)
            vals[name] = nxt
            nxt += 1
    return vals


def nla(kind, payload):
    a = struct.pack("=HH", 4 + len(payload), kind) + payload
    return a + b"\0" * (-len(a) % 4)


def nl_request(sk, family, cmd, payload, seq):
    body = struct.pack("=BBH", cmd, 1, 0) + payload
    sk.send(struct.pack("=IHHII", 16 + len(body), family,
                        NLM_F_REQUEST | NLM_F_ACK, seq, 0) + body)
    while True:
        reply = sk.recv(65536)
        off = 0
        while off + 16 <= len(reply):
            length, kind, flags, rseq = struct.unpack_from("=IHHI", reply,
                                                           off)
            if rseq == seq and kind == NLMSG_ERROR:
                err = -struct.unpack_from("=i", reply, off + 16)[0]
                msg = ""
                if flags & NLM_F_ACK_TLVS:
                    inner = struct.unpack_from("=I", reply, off + 20)[0]
                    inner = 16 if flags & NLM_F_CAPPED else inner
                    toff = off + 20 + ((inner + 3) & ~3)
                    tlvs = reply[toff:off + length]
                    p = 0
                    while p + 4 <= len(tlvs):
                        alen, akind = struct.unpack_from("=HH", tlvs, p)
                        if alen < 4:
                            break
                        if akind & 0x3FFF == NLMSGERR_ATTR_MSG:
                            msg = tlvs[p + 4:p + alen].split(b"\0")[0]\
                                .decode(errors="replace")
                        p += (alen + 3) & ~3
                return err, msg
            off += (length + 3) & ~3


def nl_payload(e, words):
    """The command number and attributes of "CMD ATTR=VALUE..."."""
    cname = "KVPERF_CMD_" + words[0].upper().replace("-", "_")
    if cname not in e:
        raise SystemExit(f"no command {cname} in the UAPI header")
    obj = words[0].split("-")[0].upper()
    payload = b""
    for kv in words[1:]:
        k, _, v = kv.partition("=")
        aname = f"KVPERF_A_{obj}_{k.upper().replace('-', '_')}"
        if aname not in e:
            raise SystemExit(f"no attribute {aname} in the UAPI header")
        if k in U8 or (obj == "SERVER" and k in SERVER_U8):
            enum = f"KVPERF_{k.upper()}_{v.upper()}"
            if k == "type":
                enum = f"KVPERF_RUN_TYPE_{v.upper()}"
            elif k == "stats":
                enum = f"KVPERF_STATS_MODE_{v.upper()}"
            elif k == "inv":
                enum = f"KVPERF_IO_INV_{v.upper()}"
            elif k == "reg":
                enum = f"KVPERF_IO_REG_{v.upper()}"
            payload += nla(e[aname], struct.pack("=B", int(v) if v.isdigit()
                                                 else e[enum]))
        elif k in U16:
            payload += nla(e[aname], struct.pack("=H", int(v)))
        elif k in FLAGS:
            payload += nla(e[aname], b"")
        elif k in BINARY:
            payload += nla(e[aname], bytes.fromhex(v[2:]) if
                           v.startswith("0x") else
                           ipaddress.ip_address(v).packed)
        elif k in STRING:
            payload += nla(e[aname], v.encode() + b"\0")
        else:
            payload += nla(e[aname], struct.pack("=I", int(v)))
    return e[cname], payload


def genl_family(sk, name):
    sk.send(struct.pack("=IHHII", 16 + 4 + 4 + 8, GENL_ID_CTRL,
                        NLM_F_REQUEST, 1, 0) +
            struct.pack("=BBH", CTRL_CMD_GETFAMILY, 1, 0) +
            nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
    reply = sk.recv(65536)
    if struct.unpack_from("=H", reply, 4)[0] == NLMSG_ERROR:
        return None
    off = 20
    while off + 4 <= len(reply):
        alen, akind = struct.unpack_from("=HH", reply, off)
        if alen < 4:
            break
        if akind == CTRL_ATTR_FAMILY_ID:
            return struct.unpack_from("=H", reply, off + 4)[0]
        off += (alen + 3) & ~3
    return None


def time_scale():
    """The suite's time scale (lib.sh exports KVPERF_TIME_SCALE), 1 when
    unset."""
    s = os.environ.get("KVPERF_TIME_SCALE", "1")
    if not s.isdigit() or int(s) < 1:
        raise SystemExit(f"KVPERF_TIME_SCALE={s!r} is not a positive integer")
    return int(s)


def cmd_nl(args):
    """One request from the arguments, or with "-" one per line of stdin;
    a line "ERRNO: extack message" (or "OK: ") for each. With
    --retry-busy, an EBUSY answer is retried for up to 20 s times the
    suite's time scale (KVPERF_TIME_SCALE)."""
    retry = False
    if args[:1] == ["--retry-busy"]:
        retry = True
        args = args[1:]
    if not args:
        return usage()
    e = uapi_enums()
    if args == ["-"]:
        reqs = [l.split() for l in sys.stdin if l.strip()]
    else:
        reqs = [args]
    reqs = [nl_payload(e, w) for w in reqs]
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                       NETLINK_GENERIC) as sk:
        sk.bind((0, 0))
        sk.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        family = genl_family(sk, "kvperf")
        if family is None:
            print("the kvperf family is not registered")
            return 1
        seq = 2
        for cmd, payload in reqs:
            deadline = time.monotonic() + 20 * time_scale()
            while True:
                err, msg = nl_request(sk, family, cmd, payload, seq)
                seq += 1
                if not (retry and err == errno.EBUSY and
                        time.monotonic() < deadline):
                    break
                time.sleep(0.05)
            # 95 is both; the kernel says EOPNOTSUPP
            name = "EOPNOTSUPP" if err == errno.EOPNOTSUPP else \
                errno.errorcode.get(err, str(err))
            print(f"{name if err else 'OK'}: {msg}", flush=True)
    return 0


def report(bad):
    for b in bad:
        print(b)
    return 1 if bad else 0


def usage():
    print(__doc__.strip(), file=sys.stderr)
    return 2


def main():
    cmds = {"run": cmd_run, "table": cmd_table, "agree": cmd_agree,
            "events": cmd_events, "nl": cmd_nl}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        return usage()
    return cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
