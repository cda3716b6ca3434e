#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Raw generic netlink, with no help from the kvperf tool.

usage: genl_watch.py ctrl-latency SECONDS
         Ask the controller (nlctrl) for the nlctrl family over and over
         for SECONDS; print "requests=N max_ms=X" (the slowest answer).
       genl_watch.py dump-runs BUFSIZE
         Dump kvperf's runs reading with a BUFSIZE-byte buffer; print one
         line per run, "id=N messages=M results=R", results counted over
         every message of the run (a run that outgrows a message goes on
         in the next ones, which carry results-from). Exits 1 on an
         error or a message cut short.
"""

import os
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


def ctrl_latency(seconds):
    """The slowest controller answer over some seconds."""
    worst, n = 0.0, 0
    end = time.monotonic() + seconds
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                       NETLINK_GENERIC) as sk:
        sk.bind((0, 0))
        while time.monotonic() < end:
            t0 = time.monotonic()
            family_id(sk, "nlctrl")
            worst = max(worst, time.monotonic() - t0)
            n += 1
            time.sleep(0.005)
    print(f"requests={n} max_ms={worst * 1000:.1f}")
    return 0


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
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if sys.argv[1] == "ctrl-latency":
        return ctrl_latency(float(sys.argv[2]))
    if sys.argv[1] == "dump-runs":
        return dump_runs(int(sys.argv[2]))
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
