#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Ask the generic netlink controller about a family, with no help from the
kvperf tool: prints "name=... id=N version=N maxattr=N groups=a,b" and
exits 0, or prints the error and exits 1 (ENOENT: not registered).

usage: genl_family.py NAME
"""

import errno
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_VERSION = 3
CTRL_ATTR_MAXATTR = 5
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_MCAST_GRP_NAME = 1
NLM_F_REQUEST = 1
NLMSG_ERROR = 2


def attrs(buf):
    """Yield (type, payload) of the netlink attributes in buf."""
    off = 0
    while off + 4 <= len(buf):
        length, kind = struct.unpack_from("=HH", buf, off)
        if length < 4:
            break
        yield kind & 0x3FFF, buf[off + 4:off + length]
        off += (length + 3) & ~3


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    name = sys.argv[1].encode() + b"\0"
    attr = struct.pack("=HH", 4 + len(name), CTRL_ATTR_FAMILY_NAME) + name
    attr += b"\0" * (-len(attr) % 4)
    body = struct.pack("=BBH", CTRL_CMD_GETFAMILY, 1, 0) + attr
    msg = struct.pack("=IHHII", 16 + len(body), GENL_ID_CTRL, NLM_F_REQUEST,
                      1, 0) + body

    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                       NETLINK_GENERIC) as sk:
        sk.bind((0, 0))
        sk.send(msg)
        reply = sk.recv(65536)

    length, kind = struct.unpack_from("=IH", reply, 0)
    if kind == NLMSG_ERROR:
        err = -struct.unpack_from("=i", reply, 16)[0]
        if err:
            print(f"{sys.argv[1]}: {os.strerror(err)} "
                  f"({errno.errorcode.get(err, err)})")
            return 1
    info = {}
    groups = []
    for kind, val in attrs(reply[20:length]):
        if kind == CTRL_ATTR_FAMILY_ID:
            info["id"] = struct.unpack("=H", val[:2])[0]
        elif kind == CTRL_ATTR_FAMILY_NAME:
            info["name"] = val.rstrip(b"\0").decode()
        elif kind == CTRL_ATTR_VERSION:
            info["version"] = struct.unpack("=I", val[:4])[0]
        elif kind == CTRL_ATTR_MAXATTR:
            info["maxattr"] = struct.unpack("=I", val[:4])[0]
        elif kind == CTRL_ATTR_MCAST_GROUPS:
            for _, grp in attrs(val):
                for gkind, gval in attrs(grp):
                    if gkind == CTRL_ATTR_MCAST_GRP_NAME:
                        groups.append(gval.rstrip(b"\0").decode())
    print(f"name={info.get('name')} id={info.get('id')} "
          f"version={info.get('version')} maxattr={info.get('maxattr')} "
          f"groups={','.join(groups)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
