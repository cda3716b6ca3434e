#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the layering of a source directory: no include or call circle
between its modules, and no call or include from a lower layer up into a
higher one.

A module is a file X.c with its header X.h; MODULES merges files that
share one header into one module. Each module sits in a layer of LAYERS,
or of LAYER_DIRS where the layers are folders, lowest first. Two graphs
are checked:

  include: X includes "Y.h" (from X.c or X.h), Y a file of the directory
  call:    X.o has an undefined symbol that Y.o defines (nm)

Either graph fails on a circle between modules, and on an edge from a
module to one in a higher layer. Problems are printed one per line, and
the exit status is 1; usage errors exit 2.

usage: layers.py --dir DIR [--objdir OBJDIR] [--table NAME]
  DIR     the sources (kmod, user)
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
        "model": ["kvperf", "proto", "compat", "stats", "timeout"],
        # the run and server engine, devices, and the events it publishes
        "engine": ["pin", "chunks", "conn", "faults", "lat", "bw", "io",
                   "io_slots", "io_host", "io_target", "io_srq", "run",
                   "run_bw", "run_io",
                   "run_events",
                   "device", "server", "server_acl"],
        # the interfaces to user space: netlink, sysfs, debugfs
        "front": ["nl", "nl_dev", "nl_server", "nl_run", "sysfs",
                  "run_sysfs", "debugfs"],
        # module init and exit, which sets everyone up
        "wiring": ["main"],
    },
}

# Tables whose layers are folders: each FOLDER of the directory is a
# layer, lowest first ("." is the directory's own files); the modules are
# the folders' files, and a module's objects are in the same folder of
# OBJDIR.
LAYER_DIRS = {
    "user": [
        # the model: typed runs and servers, limits, the netlink client
        ("lib", "model"),
        # the user path, client and server, which prints nothing
        ("engine", "engine"),
        # the command line and its printers
        ("cli", "front"),
        # kvperf compare, above the command line it uses
        ("compare", "compare"),
        # main.c, which lists the objects
        (".", "wiring"),
    ],
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
        # the I/O runs' host, target, shared receive queue and data
        # blocks, in io.h
        "io_slots": "io",
        "io_host": "io",
        "io_target": "io",
        "io_srq": "io",
        "run_io": "run",
        # the tests' fault hooks in the connections' payloads and posts
        # (built into the tests' module only)
        "faults": "conn",
    },
    "user": {
        # the bandwidth and I/O runs of the engine's client, in
        # upath_run.h
        "upath_run_bw": "upath_run",
        "upath_run_io": "upath_run",
    },
}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def die(msg):
    print(f"layers.py: {msg}", file=sys.stderr)
    sys.exit(2)


class Table:
    def __init__(self, name, src):
        self.name = name
        self.layer = {}
        # file name -> its path under the source directory
        self.path = {}
        self.merge = MODULES.get(name, {})
        if name in LAYER_DIRS:
            self.order = [layer for _, layer in LAYER_DIRS[name]]
            for folder, layer in LAYER_DIRS[name]:
                d = os.path.join(src, folder)
                for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
                    if f.endswith((".c", ".h")) and \
                       os.path.isfile(os.path.join(d, f)):
                        self.layer[f[:-2]] = layer
                        self.path[f] = os.path.normpath(
                            os.path.join(folder, f))
            return
        if name not in LAYERS:
            die(f"no layer table {name!r} (tables: "
                f"{', '.join(list(LAYERS) + list(LAYER_DIRS))})")
        self.order = list(LAYERS[name])
        for layer, stems in LAYERS[name].items():
            for stem in stems:
                self.layer[stem] = layer

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
    if table.path:
        files = sorted(table.path)
    else:
        files = sorted(f for f in os.listdir(src)
                       if f.endswith((".c", ".h")) and
                       not f.endswith(".mod.c") and  # kbuild's
                       os.path.isfile(os.path.join(src, f)))
        table.path = {f: f for f in files}
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
        for inc in local_includes(os.path.join(src, table.path[f]),
                                  fileset):
            b = table.module(inc[:-2])
            if a == b:
                continue
            edges.setdefault(a, set()).add(b)
            why.setdefault((a, b), f"{f} includes {inc}")
    report("include", edges, why)

    # call graph, from the objects
    incs = {f: local_includes(os.path.join(src, table.path[f]), fileset)
            for f in files}

    def newest(f):
        """The newest of @f and the headers it includes, transitively."""
        seen, todo, t = {f}, [f], 0
        while todo:
            g = todo.pop()
            t = max(t, os.path.getmtime(os.path.join(src, table.path[g])))
            for h in incs[g]:
                if h not in seen:
                    seen.add(h)
                    todo.append(h)
        return t
    defined, undefined = {}, {}
    objs_ok = True
    for f in files:
        if not f.endswith(".c"):
            continue
        stem = f[:-2]
        obj = os.path.join(objdir, table.path[f][:-2] + ".o")
        if not os.path.isfile(obj):
            problems.append(f"{obj}: missing: build the module first "
                            f"(selftests/lint.sh build layers)")
            objs_ok = False
            continue
        if os.path.getmtime(obj) < newest(f):
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
    table = Table(args.table or os.path.basename(os.path.abspath(src)), src)
    problems = check(src, args.objdir or src, table)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} layering problem(s) in {src}/")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
