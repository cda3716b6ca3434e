#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Checks of `kvperf -j server show` for the selftests (ipv6.sh,
concurrent.sh): what each kernel server says about itself and about its
live connections.

Each check prints what is wrong (and the servers) and exits 0 when
everything holds, 1 when something does not, 2 on usage errors.

usage:
  serverlib.py server FILE ID ADDR PORT DEV
        server ID listens on ADDR:PORT (ADDR compared as an address, so
        any spelling of it) on device DEV
  serverlib.py conns FILE [--family 4|6] ID=SPEC [ID=SPEC]...
        each server named has exactly the live connections of its SPEC,
        every other server none: conn_count, the conns listed and their
        number agree, and the (op, size_max) of the connections are
        those of SPEC, in any order. SPEC is a comma-separated list of
        OP/SIZE_MAX, each optionally *N for N such connections (a
        bandwidth run of qps N), or empty for none. With --family, every
        peer address is an IPv4 (4) or IPv6 (6) address.
  serverlib.py fields FILE ID KEY=VALUE...
        server ID's KEY is VALUE: numbers and strings as written, true
        and false for booleans, a list as its items joined by commas;
        KEY>=N and KEY<=N compare numbers (server_guard.sh)
"""

import ipaddress
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        servers = json.loads(text)
    except ValueError as e:
        raise SystemExit(f"{path}: not JSON ({e}): {text[:500]!r}")
    if not isinstance(servers, list):
        raise SystemExit(f"{path}: not an array of servers: {text[:500]!r}")
    return servers


def by_id(servers):
    return {s.get("id"): s for s in servers if isinstance(s, dict)}


def spec_conns(spec):
    """[(op, size_max)] of a SPEC, sorted."""
    conns = []
    for item in filter(None, spec.split(",")):
        item, _, n = item.partition("*")
        op, _, size = item.partition("/")
        conns += [(op, int(size))] * int(n or 1)
    return sorted(conns)


def cmd_server(args):
    if len(args) != 5:
        return usage()
    path, sid, addr, port, dev = args
    s = by_id(load(path)).get(int(sid))
    if s is None:
        return report([f"no server {sid}"], path)
    bad = []
    try:
        same = ipaddress.ip_address(s.get("addr")) == \
            ipaddress.ip_address(addr)
    except ValueError:
        same = False
    if not same:
        bad.append(f"server {sid}: addr {s.get('addr')!r}, want {addr}")
    if s.get("port") != int(port):
        bad.append(f"server {sid}: port {s.get('port')!r}, want {port}")
    if s.get("dev") != dev:
        bad.append(f"server {sid}: dev {s.get('dev')!r}, want {dev}")
    return report(bad, path)


def cmd_conns(args):
    family = None
    if args[1:2] == ["--family"] and len(args) >= 3:
        family = int(args[2])
        args = args[:1] + args[3:]
    if not args:
        return usage()
    path = args[0]
    want = {}
    for a in args[1:]:
        sid, eq, spec = a.partition("=")
        if not eq or not sid.isdigit():
            return usage()
        want[int(sid)] = spec_conns(spec)
    servers = by_id(load(path))
    bad = []
    for sid in want:
        if sid not in servers:
            bad.append(f"no server {sid}")
    for sid, s in servers.items():
        conns = s.get("conns")
        if not isinstance(conns, list):
            bad.append(f"server {sid}: conns {conns!r} is not a list")
            continue
        w = want.get(sid, [])
        if s.get("conn_count") != len(w):
            bad.append(f"server {sid}: conn_count {s.get('conn_count')!r}, "
                       f"want {len(w)}")
        if s.get("conn_count") != len(conns):
            bad.append(f"server {sid}: conn_count {s.get('conn_count')!r} "
                       f"but {len(conns)} conns listed")
        got = sorted((c.get("op"), c.get("size_max")) for c in conns)
        if got != w:
            bad.append(f"server {sid}: connections (op, size_max) {got}, "
                       f"want {w}")
        for c in conns:
            try:
                peer = ipaddress.ip_address(c.get("peer_addr"))
            except ValueError:
                bad.append(f"server {sid}: peer_addr {c.get('peer_addr')!r}"
                           " is not an address")
                continue
            if family is not None and peer.version != family:
                bad.append(f"server {sid}: peer_addr {peer} is not IPv"
                           f"{family}")
            if not isinstance(c.get("peer_port"), int) or \
               not 0 < c["peer_port"] < 65536:
                bad.append(f"server {sid}: peer_port "
                           f"{c.get('peer_port')!r}")
    return report(bad, path)


def as_text(v):
    """A JSON value as the command line writes it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return ",".join(as_text(x) for x in v)
    return str(v)


def cmd_fields(args):
    if len(args) < 3:
        return usage()
    path, sid = args[0], args[1]
    s = by_id(load(path)).get(int(sid))
    if s is None:
        return report([f"no server {sid}"], path)
    bad = []
    for want in args[2:]:
        for op in (">=", "<=", "="):
            key, sep, value = want.partition(op)
            if sep:
                break
        else:
            return usage()
        got = s.get(key)
        if op == "=":
            ok = got is not None and as_text(got) == value
        elif not isinstance(got, int) or isinstance(got, bool):
            ok = False
        else:
            ok = got >= int(value) if op == ">=" else got <= int(value)
        if not ok:
            bad.append(f"server {sid}: {key} {got!r}, want {op}{value}")
    return report(bad, path)


def report(bad, path=None):
    for b in bad:
        print(b)
    if bad and path:
        with open(path, encoding="utf-8") as f:
            print(f"servers: {f.read().strip()[:3000]}")
    return 1 if bad else 0


def usage():
    print(__doc__.strip(), file=sys.stderr)
    return 2


def main():
    cmds = {"server": cmd_server, "conns": cmd_conns, "fields": cmd_fields}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        return usage()
    return cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
