#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Raw generic netlink, with no help from the kvperf tool.

usage: genl_watch.py ctrl-latency
         Ask the controller (nlctrl) for the nlctrl family over and over;
         after the first answer print "ready" (flushed), and on SIGTERM
         print "requests=N max_ms=X": the requests made after "ready" and
         the slowest answer among them.
       genl_watch.py runs
         Subscribe to kvperf's events group, print "ready" (flushed) once
         subscribed, then until SIGTERM one JSON line per run-finished
         event: {"id", "type", "op", "state", "size", "iterations",
         "results": [...]}, a latency result as {"size", "iterations",
         "p50_ns"}, a bandwidth one (all queue pairs') as
         {"size", "messages", "bytes", "elapsed_ns"}.
       genl_watch.py dump-runs BUFSIZE
         Dump kvperf's runs reading with a BUFSIZE-byte buffer; print one
         line per run, "id=N messages=M results=R", results counted over
         every message of the run (a run that outgrows a message goes on
         in the next ones, which carry results-from). Exits 1 on an
         error or a message cut short.
"""

import json
import os
import signal
import socket
import struct
import sys
import time

from genl_family import attrs

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_MCAST_GRP_ID = 2
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
NLM_F_REQUEST = 1
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3
MSG_TRUNC = 0x20


def messages(buf):
    """Yield (type, flags, payload) of the netlink messages in buf."""
    off = 0
    while off + 16 <= len(buf):
        length, kind, flags = struct.unpack_from("=IHH", buf, off)
        if length < 16:
            break
        yield kind, flags, buf[off + 16:off + length]
        off += (length + 3) & ~3


def request(family, cmd, attr=b"", flags=NLM_F_REQUEST, seq=1):
    """A generic netlink request."""
    body = struct.pack("=BBH", cmd, 1, 0) + attr
    return struct.pack("=IHHII", 16 + len(body), family, flags, seq,
                       0) + body


def str_attr(kind, text):
    """A NUL-terminated string attribute, padded."""
    data = text.encode() + b"\0"
    attr = struct.pack("=HH", 4 + len(data), kind) + data
    return attr + b"\0" * (-len(attr) % 4)


def family_id(sk, name, bufsize=65536):
    """Resolve a family's id through the controller."""
    sk.send(request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                    str_attr(CTRL_ATTR_FAMILY_NAME, name)))
    # the kernel sizes dump messages after the largest read so far
    for kind, _, payload in messages(sk.recv(bufsize)):
        if kind == NLMSG_ERROR:
            raise OSError(-struct.unpack_from("=i", payload)[0], name)
        for akind, data in attrs(payload[4:]):
            if akind == CTRL_ATTR_FAMILY_ID:
                return struct.unpack_from("=H", data)[0]
    raise OSError(0, "no family id for " + name)


class Stop(Exception):
    """SIGTERM: the caller has what it wanted watched."""


def on_term(*_):
    raise Stop()


def ctrl_latency():
    """The slowest controller answer from "ready" until SIGTERM."""
    worst, n = 0.0, 0
    signal.signal(signal.SIGTERM, on_term)
    try:
        with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                           NETLINK_GENERIC) as sk:
            sk.bind((0, 0))
            family_id(sk, "nlctrl")
            print("ready", flush=True)
            while True:
                t0 = time.monotonic()
                family_id(sk, "nlctrl")
                worst = max(worst, time.monotonic() - t0)
                n += 1
                time.sleep(0.005)
    except Stop:
        pass
    print(f"requests={n} max_ms={worst * 1000:.1f}")
    return 0


def uint(data):
    """An unsigned attribute of 1, 2, 4 or 8 bytes."""
    fmt = {1: "=B", 2: "=H", 4: "=I", 8: "=Q"}[len(data)]
    return struct.unpack(fmt, data)[0]


def events_group(sk):
    """kvperf's family id and the id of its "events" group."""
    sk.send(request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                    str_attr(CTRL_ATTR_FAMILY_NAME, "kvperf")))
    fam = grp = None
    for kind, _, payload in messages(sk.recv(65536)):
        if kind == NLMSG_ERROR:
            raise OSError(-struct.unpack_from("=i", payload)[0], "kvperf")
        for akind, data in attrs(payload[4:]):
            if akind == CTRL_ATTR_FAMILY_ID:
                fam = struct.unpack_from("=H", data)[0]
            elif akind == CTRL_ATTR_MCAST_GROUPS:
                for _, g in attrs(data):
                    f = dict(attrs(g))
                    if f.get(CTRL_ATTR_MCAST_GRP_NAME) == b"events\0":
                        grp = uint(f[CTRL_ATTR_MCAST_GRP_ID])
    if fam is None or grp is None:
        raise OSError(0, "no kvperf family or events group")
    return fam, grp


# include/uapi/linux/kvperf.h
RUN_FINISHED_NTF = 11
RUN = {1: "id", 2: "type", 3: "op", 7: "size", 9: "iterations",
       17: "state"}
RUN_RESULT, RUN_BW_RESULT = 19, 32
LAT_RESULT = {1: "size", 2: "iterations", 7: "p50_ns"}
BW_RESULT = {1: "size", 2: "messages", 3: "bytes", 4: "elapsed_ns"}


def finished_run(payload):
    """The fields of a run-finished notification."""
    run = {"results": []}
    for akind, data in attrs(payload[4:]):
        if akind in RUN:
            run[RUN[akind]] = uint(data)
        elif akind in (RUN_RESULT, RUN_BW_RESULT):
            names = LAT_RESULT if akind == RUN_RESULT else BW_RESULT
            sub = dict(attrs(data))
            run["results"].append({names[k]: uint(v) for k, v in sub.items()
                                   if k in names})
    return run


def runs():
    """A JSON line per run-finished event until SIGTERM, and then those
    already queued."""
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                       NETLINK_GENERIC) as sk:
        sk.bind((0, 0))
        _, grp = events_group(sk)
        sk.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        sk.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, grp)
        print("ready", flush=True)
        sk.settimeout(0.2)
        while True:
            try:
                buf = sk.recv(1 << 20)
            except socket.timeout:
                if stop:
                    return 0
                continue
            for _, _, payload in messages(buf):
                if payload[:1] == bytes([RUN_FINISHED_NTF]):
                    print(json.dumps(finished_run(payload)), flush=True)


def dump_runs(bufsize):
    """Dump the runs through a small buffer; count results per run."""
    run_id, result, bw_result, results_from = 1, 19, 32, 40
    cmd_run_get = 8
    runs = {}
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                       NETLINK_GENERIC) as sk:
        sk.bind((0, 0))
        fam = family_id(sk, "kvperf", bufsize)
        sk.send(request(fam, cmd_run_get, flags=NLM_F_REQUEST | NLM_F_DUMP))
        while True:
            buf, flags = sk.recvmsg(bufsize)[0:3:2]
            if flags & MSG_TRUNC:
                print(f"a message longer than {bufsize} bytes was cut")
                return 1
            for kind, _, payload in messages(buf):
                if kind == NLMSG_DONE:
                    for rid in sorted(runs):
                        msgs, count = runs[rid]
                        print(f"id={rid} messages={msgs} results={count}")
                    return 0
                if kind == NLMSG_ERROR:
                    err = -struct.unpack_from("=i", payload)[0]
                    print(f"dump failed: {os.strerror(err)}")
                    return 1
                rid, count, first = None, 0, 0
                for akind, data in attrs(payload[4:]):
                    if akind == run_id:
                        rid = struct.unpack_from("=I", data)[0]
                    elif akind in (result, bw_result):
                        count += 1
                    elif akind == results_from:
                        first = struct.unpack_from("=I", data)[0]
                msgs, seen = runs.get(rid, (0, 0))
                if first != seen:
                    print(f"run {rid}: results from {first}, "
                          f"{seen} received so far")
                    return 1
                runs[rid] = (msgs + 1, seen + count)


def main():
    if sys.argv[1:] == ["ctrl-latency"]:
        return ctrl_latency()
    if sys.argv[1:] == ["runs"]:
        return runs()
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if sys.argv[1] == "dump-runs":
        return dump_runs(int(sys.argv[2]))
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
