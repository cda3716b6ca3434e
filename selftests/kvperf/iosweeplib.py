#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Checks for io_sweep.sh: an I/O run that sweeps block sizes (bss), as
`kvperf -j run io` prints it (iolib.py hist checks its histogram).

Each check prints what is wrong and exits 0 when everything holds, 1
when something does not, 2 on usage errors.

usage:
  iosweeplib.py run FILE --sizes N,N,... [--rw read|write] [--ios N]
                         [--read-pct PCT] [--verify] [--segments N]
                         [--qd N] [--inv remote|local] [--reg frwr|pre]
                         [--path kernel|user]

run: the run is done and lists the sweep (bss) as asked, its size the
smallest and its size_max the largest; it has a result per size (two
with --read-pct: reads, then writes), smallest first, each of its size,
each as iolib.py checks a result (rates from the counts, percentiles in
order, the registration shares; no mismatch with --verify). Each size
measured --ios I/Os (a mixed size's reads and writes add up to them),
and its CPU times are its own: the same in its results, per I/O over its
own I/Os.
"""

import sys

from iolib import check_cpu, check_result, load
from latlib import report


def cmd_run(args):
    if not args:
        return usage()
    path, args = args[0], args[1:]
    want = {"reg": "frwr", "path": "kernel"}
    opts = {"--sizes": "sizes", "--rw": "rw", "--ios": "ios",
            "--read-pct": "read_pct", "--segments": "segments", "--qd": "qd",
            "--inv": "inv", "--reg": "reg", "--path": "path"}
    while args:
        a = args.pop(0)
        if a == "--verify":
            want["verify"] = True
        elif a in opts and args:
            v = args.pop(0)
            want[opts[a]] = int(v) if v.isdigit() else v
        else:
            return usage()
    if "sizes" not in want:
        return usage()
    sizes = [int(s) for s in str(want["sizes"]).split(",")]
    run = load(path)
    bad = []
    for key, val in (("type", "io"), ("state", "done"), ("bss", sizes),
                     ("size", sizes[0]), ("size_max", sizes[-1]),
                     ("path", want["path"]), ("reg", want["reg"])):
        if run.get(key) != val:
            bad.append(f"{key} {run.get(key)!r}, want {val!r}"
                       f" (error {run.get('error')!r})")
    for key in ("qd", "segments", "inv", "read_pct"):
        if want.get(key) is not None and run.get(key) != want[key]:
            bad.append(f"{key} {run.get(key)!r}, want {want[key]!r}")
    results = run.get("results")
    mixed = want.get("read_pct") is not None
    rws = ["read", "write"] if mixed else [want.get("rw", "read")]
    if not isinstance(results, list) or \
            len(results) != len(sizes) * len(rws):
        bad.append(f"{len(results or [])} results, want {len(rws)} for each"
                   f" of {sizes}")
        return report(bad)
    got = [(r.get("bs"), r.get("rw")) for r in results]
    order = [(s, rw) for s in sizes for rw in rws]
    if got != order:
        bad.append(f"results (bs, rw) {got}, want {order}")
        return report(bad)
    each = {k: v for k, v in want.items()
            if k in ("verify", "qd", "inv", "reg") and v is not None}
    if not mixed and want.get("ios") is not None:
        each["ios"] = want["ios"]
    for i, size in enumerate(sizes):
        part = results[i * len(rws):(i + 1) * len(rws)]
        for r in part:
            check_result(r, dict(each, bs=size), bad)
        ios = sum(r.get("ios", 0) for r in part)
        if want.get("ios") is not None and ios != want["ios"]:
            bad.append(f"bs {size}: {ios} I/Os, want {want['ios']}")
        if not bad:
            check_cpu(part, want, part[0].get("elapsed_ns", 0), bad)
    return report(bad)


def usage():
    print(__doc__.strip(), file=sys.stderr)
    return 2


def main():
    cmds = {"run": cmd_run}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        return usage()
    return cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
