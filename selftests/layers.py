#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the layering of a source directory: no include or call circle
between its modules, and no call or include from a lower layer up into a
higher one.

A module is a file X.c with its header X.h; MODULES merges files that
share one header into one module. Each module sits in a layer of LAYERS,
lowest first. Two graphs are checked:

  include: X includes "Y.h" (from X.c or X.h), Y a file of the directory
  call:    X.o has an undefined symbol that Y.o defines (nm)

Either graph fails on a circle between modules, and on an edge from a
module to one in a higher layer. Problems are printed one per line, and
the exit status is 1; usage errors exit 2.

usage: layers.py --dir DIR [--objdir OBJDIR] [--table NAME]
  DIR     the sources (kmod)
  OBJDIR  where DIR's objects were built (default DIR); every X.c needs
          an X.o there newer than X.c and DIR's headers, or the check
          fails
  NAME    the table to use (default: DIR's last component)
"""
import argparse
import os
import re
import subprocess
import sys

# Layers of each table, lowest first: a module may include and call the
# modules of its own layer (without circles) and of the layers below.
LAYERS = {
    "kmod": {
        # definitions shared by everyone, and pure helpers
        "model": ["kvperf", "proto", "compat", "stats"],
        # the run and server engine, devices, and the events it publishes
        "engine": ["pin", "conn", "lat", "bw", "run", "run_bw",
                   "run_events", "device", "server", "server_acl"],
        # the interfaces to user space: netlink, sysfs, debugfs
        "front": ["nl", "nl_dev", "nl_server", "nl_run", "sysfs",
                  "run_sysfs", "debugfs"],
        # module init and exit, which sets everyone up
        "wiring": ["main"],
    },
}

# Files that declare their functions in another file's header belong to
# that file's module: file -> module.
MODULES = {
    "kmod": {
        "run_bw": "run",
        "server_acl": "server",
        "nl_dev": "nl",
        "nl_server": "nl",
        "nl_run": "nl",
        "run_sysfs": "sysfs",
    },
}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def die(msg):
    print(f"layers.py: {msg}", file=sys.stderr)
    sys.exit(2)


class Table:
    def __init__(self, name):
        if name not in LAYERS:
            die(f"no layer table {name!r} (tables: {', '.join(LAYERS)})")
        self.name = name
        self.order = list(LAYERS[name])
        self.layer = {}
        for layer, stems in LAYERS[name].items():
            for stem in stems:
                self.layer[stem] = layer
        self.merge = MODULES.get(name, {})

    def module(self, stem):
        return self.merge.get(stem, stem)

    def rank(self, module):
        return self.order.index(self.layer[module])


def local_includes(path, files):
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = INCLUDE_RE.match(line)
            if m and m.group(1) in files:
                out.append(m.group(1))
    return out


def nm(path, *flags):
    try:
        res = subprocess.run(["nm", *flags, path], capture_output=True,
                             text=True, check=False)
    except OSError as e:
        return None, str(e)
    if res.returncode:
        return None, res.stderr.strip()
    return res.stdout.splitlines(), None


def circles(edges):
    """One circle (as a list of modules) per strongly connected component
    of more than one module, in a stable order."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    nodes = sorted(set(edges) | {b for a in edges for b in edges[a]})

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(set(comp))

    for v in nodes:
        if v not in index:
            strong(v)

    out = []
    for comp in comps:
        start = min(comp)
        # shortest way back to start inside the component
        prev, todo = {start: None}, [start]
        path = None
        while todo and path is None:
            nxt = []
            for v in todo:
                for w in sorted(edges.get(v, ())):
                    if w not in comp:
                        continue
                    if w == start:
                        path = [w]
                        while v is not None:
                            path.append(v)
                            v = prev[v]
                        path.reverse()
                        break
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if path:
                    break
            todo = nxt
        out.append(path)
    return sorted(out)


def check(src, objdir, table):
    problems = []
    files = sorted(f for f in os.listdir(src)
                   if f.endswith((".c", ".h")) and
                   not f.endswith(".mod.c") and  # kbuild's
                   os.path.isfile(os.path.join(src, f)))
    known = True
    for f in files:
        stem = f[:-2]
        mod = table.module(stem)
        if stem not in table.layer:
            problems.append(f"{src}/{f}: not in the layer table "
                            f"{table.name!r} of selftests/layers.py: add it "
                            f"to LAYERS[{table.name!r}]")
            known = False
        elif mod not in table.layer:
            problems.append(f"{src}/{f}: its module {mod!r} is not in the "
                            f"layer table {table.name!r}")
            known = False
        elif table.layer[mod] != table.layer[stem]:
            problems.append(f"{src}/{f}: layer {table.layer[stem]} but its "
                            f"module {mod!r} is in {table.layer[mod]}")
            known = False
    for stem in sorted(table.layer):
        if stem + ".c" not in files and stem + ".h" not in files:
            problems.append(f"{src}: {stem}.c or {stem}.h is in the layer "
                            f"table {table.name!r} but does not exist")
    if not known:
        return problems

    def report(kind, edges, why):
        for a in sorted(edges):
            for b in sorted(edges[a]):
                if table.rank(b) > table.rank(a):
                    problems.append(
                        f"{kind} up: {a} ({table.layer[a]}) -> {b} "
                        f"({table.layer[b]}): {why[a, b]}")
        for path in circles(edges):
            steps = [f"{path[i]} -> {path[i + 1]} ({why[path[i], path[i + 1]]})"
                     for i in range(len(path) - 1)]
            problems.append(f"{kind} circle: {' -> '.join(path)}: "
                            + "; ".join(steps))

    # include graph
    fileset = set(files)
    edges, why = {}, {}
    for f in files:
        a = table.module(f[:-2])
        for inc in local_includes(os.path.join(src, f), fileset):
            b = table.module(inc[:-2])
            if a == b:
                continue
            edges.setdefault(a, set()).add(b)
            why.setdefault((a, b), f"{f} includes {inc}")
    report("include", edges, why)

    # call graph, from the objects
    newest_h = max((os.path.getmtime(os.path.join(src, f))
                    for f in files if f.endswith(".h")), default=0)
    defined, undefined = {}, {}
    objs_ok = True
    for f in files:
        if not f.endswith(".c"):
            continue
        stem = f[:-2]
        obj = os.path.join(objdir, stem + ".o")
        if not os.path.isfile(obj):
            problems.append(f"{obj}: missing: build the module first "
                            f"(selftests/lint.sh build layers)")
            objs_ok = False
            continue
        if os.path.getmtime(obj) < max(os.path.getmtime(
                os.path.join(src, f)), newest_h):
            problems.append(f"{obj}: older than its sources: rebuild the "
                            f"module (selftests/lint.sh build layers)")
            objs_ok = False
            continue
        lines, err = nm(obj, "--defined-only", "--extern-only")
        if lines is None:
            problems.append(f"{obj}: nm failed: {err}")
            objs_ok = False
            continue
        for line in lines:
            parts = line.split()
            if len(parts) == 3:
                defined.setdefault(parts[2], stem)
        lines, err = nm(obj, "--undefined-only")
        if lines is None:
            problems.append(f"{obj}: nm failed: {err}")
            objs_ok = False
            continue
        undefined[stem] = [line.split()[-1] for line in lines if line.split()]
    if not objs_ok:
        return problems

    edges, why = {}, {}
    for stem in sorted(undefined):
        a = table.module(stem)
        for sym in sorted(undefined[stem]):
            owner = defined.get(sym)
            if owner is None:
                continue
            b = table.module(owner)
            if a == b:
                continue
            edges.setdefault(a, set()).add(b)
            why.setdefault((a, b), f"{stem}.o uses {sym} of {owner}.o")
    report("call", edges, why)
    return problems


def main():
    ap = argparse.ArgumentParser(
        description="no include or call circle, and no call up a layer")
    ap.add_argument("--dir", required=True, help="source directory")
    ap.add_argument("--objdir", help="its objects (default: --dir)")
    ap.add_argument("--table", help="layer table (default: --dir's name)")
    args = ap.parse_args()

    src = os.path.normpath(args.dir)
    if not os.path.isdir(src):
        die(f"{src}: not a directory")
    table = Table(args.table or os.path.basename(os.path.abspath(src)))
    problems = check(src, args.objdir or src, table)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} layering problem(s) in {src}/")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
