#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""Compare what `kvperf -j dev show` reports with what the kernel's other
interfaces say about the same devices: `rdma -j dev show`, `rdma -j link
show`, `ibv_devinfo -v`, sysfs and kvperf's own debugfs table.

usage: devcmp.py DIR
DIR holds kvperf.json, do-NAME.json (one per device), rdma-dev.json,
rdma-link.json, ibv.txt and debugfs.txt, taken by dev_show.sh.

Prints one line per check, "PASS description" or "FAIL description", the
latter followed by lines starting with two blanks that say what differs.
A missing field, port or device is a failed check, never a missing one.
"""

import ipaddress
import json
import os
import re
import sys

SYSFS = "/sys/class/infiniband"

DEV_FIELDS = {
    "ifindex": int, "ifname": str, "node_guid": str, "sys_image_guid": str,
    "node_type": str, "transport": str, "fw": str,
    "port_count": int, "max_qp": int, "max_qp_wr": int, "max_cq": int,
    "max_cqe": int, "max_mr": int, "max_mr_size": int, "max_pd": int,
    "max_send_sge": int, "max_recv_sge": int, "max_sge_rd": int,
    "max_qp_rd_atom": int, "max_fast_reg_pages": int, "max_inline": int,
    "ports": list,
}
PORT_FIELDS = {
    "port": int, "state": str, "physical_state": str, "link_layer": str,
    "active_mtu": int, "max_mtu": int, "width": int, "speed": str,
    "rate_mbps": int, "max_msg_size": int, "gid_tbl_len": int,
    "netdev": str, "gids": list,
}
# The keys rdma -j dev and rdma -j link give the fields kvperf has too.
RDMA_DEV_KEYS = ("ifindex", "ifname", "node_type", "fw", "node_guid",
                 "sys_image_guid")
RDMA_LINK_KEYS = ("port", "state", "physical_state", "netdev")
IB_PORT_FIELDS = {"lid": int, "sm_lid": int, "lmc": int}
GID_FIELDS = {"index": int, "gid": str, "type": str}

# ibv_devinfo's active_speed enum and the kernel's per-lane rate for it
# (ib_rate_to_mbps); ibv_devinfo's active_width enum to lanes.
IB_SPEEDS = {1: ("SDR", 2500), 2: ("DDR", 5000), 4: ("QDR", 10000),
             8: ("FDR10", 10000), 16: ("FDR", 14000), 32: ("EDR", 25000),
             64: ("HDR", 50000), 128: ("NDR", 100000), 256: ("XDR", 200000)}
IB_WIDTHS = {1: 1, 2: 4, 4: 8, 8: 12, 16: 2}

results = []


def check(desc, problems):
    """Record one result; problems is a list of mismatch descriptions."""
    results.append({"desc": desc, "ok": not problems,
                    "diag": "\n".join(problems)})


def load_json(path, problems):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        problems.append(f"{os.path.basename(path)}: {e}")
        return None


def read_sysfs(*parts):
    try:
        with open(os.path.join(SYSFS, *parts), encoding="utf-8") as f:
            return f.read().rstrip("\n")
    except OSError:
        return None


def parse_ibv(text):
    """ibv_devinfo -v output to {dev: {"attrs": {}, "ports": {n: {}}}}."""
    devs = {}
    cur = port = None
    for line in text.splitlines():
        m = re.match(r"^hca_id:\s*(\S+)", line)
        if m:
            cur = devs.setdefault(m.group(1), {"attrs": {}, "ports": {}})
            port = None
            continue
        if cur is None:
            continue
        m = re.match(r"^\s+port:\s*(\d+)", line)
        if m:
            port = cur["ports"].setdefault(int(m.group(1)),
                                           {"attrs": {}, "gids": {}})
            continue
        m = re.match(r"^\s+GID\[\s*(\d+)\]:\s*([^,\s]+)(?:,\s*(.*\S))?", line)
        if m and port is not None:
            port["gids"][int(m.group(1))] = (m.group(2), m.group(3) or "")
            continue
        m = re.match(r"^\s+([a-z_0-9]+):\s*(.*\S)?\s*$", line)
        if m:
            target = port["attrs"] if port is not None else cur["attrs"]
            target.setdefault(m.group(1), m.group(2) or "")
    return devs


def ibv_int(value):
    """'1048576', '0x800000', '1024 (3)', 'PORT_ACTIVE (4)' -> first int."""
    if value is None:
        return None
    m = re.match(r"^(0x[0-9a-fA-F]+|\d+)", value)
    return int(m.group(1), 0) if m else None


def ibv_enum(value):
    """'PORT_ACTIVE (4)' -> 4."""
    m = re.search(r"\((\d+)\)\s*$", value or "")
    return int(m.group(1)) if m else None


def gid_norm(text):
    try:
        return ipaddress.IPv6Address(text).exploded
    except ValueError:
        return f"invalid({text})"


def type_norm(text):
    return re.sub(r"[\s_-]", "", text or "").lower()


def diff(do, dump, where, problems):
    """Where the do answer and the dump entry differ."""
    if isinstance(do, dict) and isinstance(dump, dict):
        for key in sorted(set(do) | set(dump)):
            diff(do.get(key), dump.get(key), f"{where}.{key}", problems)
    elif isinstance(do, list) and isinstance(dump, list) and \
            len(do) == len(dump):
        for i, (a, b) in enumerate(zip(do, dump)):
            diff(a, b, f"{where}[{i}]", problems)
    elif do != dump:
        problems.append(f"{where or 'entry'}: do {do!r:.100}, "
                        f"dump {dump!r:.100}")


def shape(obj, fields, where, problems):
    """Every documented field present with the documented JSON type."""
    if not isinstance(obj, dict):
        problems.append(f"{where}: not an object")
        return
    for key, kind in fields.items():
        if key not in obj:
            problems.append(f"{where}: no '{key}'")
        elif not isinstance(obj[key], kind) or isinstance(obj[key], bool):
            problems.append(f"{where}: '{key}' is {type(obj[key]).__name__}"
                            f" {obj[key]!r}, want {kind.__name__}")


def same(problems, what, **sources):
    """All named sources agree on one value."""
    if len({repr(v) for v in sources.values()}) != 1:
        problems.append(f"{what}: " + ", ".join(
            f"{k}={v!r}" for k, v in sources.items()))


def compare_port(dev, kport, link, iport, expect_netdev, expect_addr):
    name = f"{dev} port {kport.get('port')}"
    iport = iport or {"attrs": {}, "gids": {}}
    ia = iport["attrs"]

    p = []
    same(p, "state", kvperf=kport.get("state"),
         rdma=(link or {}).get("state"),
         ibv=re.sub(r"^PORT_|\s*\(\d+\)$", "", ia.get("state", "")))
    same(p, "physical_state", kvperf=kport.get("physical_state"),
         rdma=(link or {}).get("physical_state"),
         ibv=re.sub(r"\s*\(\d+\)$", "", ia.get("phys_state", "")))
    if kport.get("state") != "ACTIVE" or kport.get("physical_state") != "LINK_UP":
        p.append(f"expected ACTIVE/LINK_UP, kvperf says "
                 f"{kport.get('state')}/{kport.get('physical_state')}")
    p += [f"rdma link's {k!r} is not a key of kvperf's port" for k in
          RDMA_LINK_KEYS if link and k in link and k not in kport]
    check(f"{name}: state ACTIVE and physical_state LINK_UP as rdma and "
          f"ibv_devinfo say, under rdma -j link's keys", p)

    p = []
    same(p, "link_layer", kvperf=kport.get("link_layer"),
         ibv=ia.get("link_layer"))
    check(f"{name}: link_layer as ibv_devinfo says", p)

    p = []
    same(p, "active_mtu", kvperf=kport.get("active_mtu"),
         ibv=ibv_int(ia.get("active_mtu")))
    same(p, "max_mtu", kvperf=kport.get("max_mtu"),
         ibv=ibv_int(ia.get("max_mtu")))
    check(f"{name}: active_mtu and max_mtu as ibv_devinfo says", p)

    p = []
    same(p, "netdev", kvperf=kport.get("netdev"),
         rdma=(link or {}).get("netdev"), vmtest=expect_netdev)
    check(f"{name}: netdev as rdma link says", p)

    p = []
    width = IB_WIDTHS.get(ibv_enum(ia.get("active_width")))
    speed, lane = IB_SPEEDS.get(ibv_enum(ia.get("active_speed")),
                                (None, None))
    same(p, "width (lanes)", kvperf=kport.get("width"), ibv=width)
    same(p, "speed", kvperf=kport.get("speed"), ibv=speed)
    # sysfs rate is the kernel's own "N Gb/sec (4X EDR)".
    m = re.match(r"^([\d.]+) Gb/sec", read_sysfs(dev, "ports",
                 str(kport.get("port")), "rate") or "")
    same(p, "rate_mbps", kvperf=kport.get("rate_mbps"),
         sysfs=round(float(m.group(1)) * 1000) if m else None,
         ibv=width * lane if width and lane else None)
    check(f"{name}: width, speed and rate as ibv_devinfo and sysfs say", p)

    p = []
    same(p, "max_msg_size", kvperf=kport.get("max_msg_size"),
         ibv=ibv_int(ia.get("max_msg_sz")))
    same(p, "gid_tbl_len", kvperf=kport.get("gid_tbl_len"),
         ibv=ibv_int(ia.get("gid_tbl_len")))
    check(f"{name}: max_msg_size and gid_tbl_len as ibv_devinfo says", p)

    # LIDs mean something on InfiniBand only; on other link layers kvperf
    # may leave them out, but what it reports must still be right.
    p = []
    ib = kport.get("link_layer") == "InfiniBand"
    for key, ikey in (("lid", "port_lid"), ("sm_lid", "sm_lid"),
                      ("lmc", "port_lmc")):
        if key in kport or ib:
            same(p, key, kvperf=kport.get(key), ibv=ibv_int(ia.get(ikey)))
    check(f"{name}: lid, sm_lid, lmc as ibv_devinfo says"
          f"{'' if ib else ' (where reported)'}", p)

    p = []
    kgids = {}
    for g in kport.get("gids") or []:
        shape(g, GID_FIELDS, f"{name} gid", p)
        if isinstance(g, dict):
            kgids[g.get("index")] = (gid_norm(g.get("gid", "")),
                                     type_norm(g.get("type")))
            nd = read_sysfs(dev, "ports", str(kport.get("port")),
                            "gid_attrs", "ndevs", str(g.get("index")))
            if nd is not None and g.get("netdev") != nd:
                p.append(f"gid {g.get('index')}: netdev "
                         f"{g.get('netdev')!r}, sysfs says {nd!r}")
            if g.get("gid") and not re.fullmatch(
                    r"([0-9a-f]{4}:){7}[0-9a-f]{4}", g["gid"]):
                p.append(f"gid {g.get('index')}: {g['gid']!r} is not 8 "
                         "groups of 4 hex digits")
    igids = {i: (gid_norm(v), type_norm(t))
             for i, (v, t) in iport["gids"].items()}
    if kgids != igids:
        for i in sorted(set(kgids) | set(igids)):
            if kgids.get(i) != igids.get(i):
                p.append(f"GID[{i}]: kvperf {kgids.get(i)}, "
                         f"ibv_devinfo {igids.get(i)}")
    if not kgids:
        p.append("no GIDs reported")
    check(f"{name}: GIDs in use match ibv_devinfo's GID table", p)

    p = []
    if expect_addr:
        want = gid_norm("::ffff:" + expect_addr)
        if want not in [g for g, _ in kgids.values()]:
            p.append(f"no GID {want} for {expect_addr}")
    check(f"{name}: has the GID of its IPv4 address {expect_addr}", p)


def compare_dev(dev, kdev, kdo, rdev, links, idev, expect):
    p = []
    shape(kdev, DEV_FIELDS, dev, p)
    for port in (kdev or {}).get("ports") or []:
        shape(port, PORT_FIELDS, f"{dev} port {port.get('port')}", p)
        if port.get("link_layer") == "InfiniBand":
            shape(port, IB_PORT_FIELDS, f"{dev} port", p)
    check(f"{dev}: JSON has every documented field with its type", p)

    # A device kvperf or ibv_devinfo does not list still gets every check,
    # each failing on the missing values.
    kdev = kdev if isinstance(kdev, dict) else {}
    idev = idev or {"attrs": {}, "ports": {}}

    ia = idev["attrs"]
    p = []
    if not isinstance(kdo, list) or len(kdo) != 1:
        p.append(f"kvperf -j dev show {dev}: {json.dumps(kdo):.300}")
    else:
        diff(kdo[0], kdev, "", p)
    check(f"{dev}: kvperf dev show {dev} gives the dump's entry", p)

    p = []
    same(p, "ifindex", kvperf=kdev.get("ifindex"), rdma=rdev.get("ifindex"))
    # the fields both tools have go by rdma's JSON names
    p += [f"rdma's {k!r} is not a key of kvperf's" for k in RDMA_DEV_KEYS
          if k in rdev and k not in kdev]
    check(f"{dev}: ifindex is rdma's, and the keys of the fields rdma -j "
          f"dev has too are rdma's ({', '.join(RDMA_DEV_KEYS)})", p)

    p = []
    same(p, "node_guid", kvperf=kdev.get("node_guid"),
         rdma=rdev.get("node_guid"), ibv=ia.get("node_guid"))
    same(p, "sys_image_guid", kvperf=kdev.get("sys_image_guid"),
         rdma=rdev.get("sys_image_guid"), ibv=ia.get("sys_image_guid"))
    check(f"{dev}: node_guid and sys_image_guid as rdma and ibv_devinfo "
          "say", p)

    p = []
    same(p, "node_type", kvperf=(kdev.get("node_type") or "").lower(),
         rdma=(rdev.get("node_type") or "").lower())
    layers = {(iport["attrs"].get("link_layer") or "")
              for iport in idev["ports"].values()}
    itrans = ia.get("transport", "")
    want = ("iWARP" if itrans.startswith("iWARP") else
            "RoCE" if layers == {"Ethernet"} else
            "InfiniBand" if layers == {"InfiniBand"} else None)
    if kdev.get("transport") != want:
        p.append(f"transport: kvperf {kdev.get('transport')!r}, ibv_devinfo"
                 f" transport {itrans!r} with link layer(s) "
                 f"{'+'.join(sorted(layers))} means {want!r}")
    check(f"{dev}: node_type as rdma says, transport as ibv_devinfo "
          "implies", p)

    p = []
    sysfw = read_sysfs(dev, "fw_ver")
    same(p, "fw", kvperf=kdev.get("fw"), sysfs=sysfw)
    if "fw" in rdev:
        same(p, "fw", kvperf=kdev.get("fw"),
             rdma=rdev["fw"])
    if sysfw and ia.get("fw_ver") != sysfw:
        p.append(f"ibv_devinfo fw_ver {ia.get('fw_ver')!r}")
    check(f"{dev}: fw as sysfs fw_ver (and rdma) say", p)

    p = []
    same(p, "port_count", kvperf=kdev.get("port_count"),
         ports=len(kdev.get("ports") or []),
         ibv=ibv_int(ia.get("phys_port_cnt")), rdma=len(links))
    check(f"{dev}: port_count as ibv_devinfo and rdma link say", p)

    p = []
    for key in ("max_qp", "max_qp_wr", "max_cq", "max_cqe", "max_mr",
                "max_pd", "max_mr_size", "max_qp_rd_atom", "max_sge_rd"):
        same(p, key, kvperf=kdev.get(key), ibv=ibv_int(ia.get(key)))
    # ibv_devinfo's max_sge is the smaller of the send and receive limits
    # (ib_uverbs reports min(max_send_sge, max_recv_sge)).
    send, recv = kdev.get("max_send_sge"), kdev.get("max_recv_sge")
    same(p, "max_sge", kvperf=min(send, recv)
         if isinstance(send, int) and isinstance(recv, int) else None,
         ibv=ibv_int(ia.get("max_sge")))
    for key in ("max_fast_reg_pages", "max_inline"):
        if not isinstance(kdev.get(key), int) or kdev[key] <= 0:
            p.append(f"{key}: {kdev.get(key)!r}, want a positive number")
    check(f"{dev}: limits as ibv_devinfo says", p)

    kports = {port.get("port"): port for port in kdev.get("ports") or []}
    for num in sorted(set(kports) | set(links) | set(idev["ports"])):
        compare_port(dev, kports.get(num, {"port": num}), links.get(num),
                     idev["ports"].get(num),
                     expect.get(dev, (None, None))[0],
                     expect.get(dev, (None, None))[1])


def compare_debugfs(path, kdevs):
    p = []
    try:
        with open(path, encoding="utf-8") as f:
            lines = [ln.split() for ln in f.read().splitlines() if ln.strip()]
    except OSError as e:
        check("debugfs devices table lists the same devices", [str(e)])
        return
    if not lines:
        check("debugfs devices table lists the same devices",
              ["empty file"])
        return
    header = [h.lower() for h in lines[0]]
    rows = lines[1:]
    names = set(kdevs)
    if "name" in header:
        col = header.index("name")
        listed = [r[col] for r in rows if len(r) > col]
    else:
        listed = [n for r in rows for n in r if n in names]
    if sorted(listed) != sorted(names) or len(rows) != len(names):
        p.append(f"header {lines[0]}")
        p.append(f"debugfs rows {len(rows)}, names {sorted(listed)}; "
                 f"kvperf lists {sorted(names)}")
    for r in rows:
        row = dict(zip(header, r))
        kdev = kdevs.get(row.get("name"))
        if not kdev:
            continue
        if "index" in row and row["index"] != str(kdev.get("ifindex")):
            p.append(f"{row['name']}: index {row['index']}, kvperf "
                     f"{kdev.get('ifindex')}")
        if "ports" in row and row["ports"] != str(kdev.get("port_count")):
            p.append(f"{row['name']}: ports {row['ports']}, kvperf "
                     f"{kdev.get('port_count')}")
        if "states" in row:
            want = ",".join(f"{q.get('port')}:{q.get('state')}"
                            for q in kdev.get("ports") or [])
            if row["states"] != want:
                p.append(f"{row['name']}: states {row['states']}, "
                         f"kvperf {want}")
    check("debugfs devices table: a header, then one row per device "
          "kvperf lists, with the same index, ports and states", p)


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    d = sys.argv[1]
    p = []
    kv = load_json(os.path.join(d, "kvperf.json"), p)
    rdevs = load_json(os.path.join(d, "rdma-dev.json"), p)
    rlinks = load_json(os.path.join(d, "rdma-link.json"), p)
    with open(os.path.join(d, "ibv.txt"), encoding="utf-8") as f:
        ibv = parse_ibv(f.read())
    if not isinstance(kv, list):
        p.append(f"kvperf -j dev show is not an array: {kv!r:.200}")
        kv = []
    check("kvperf -j dev show, rdma and ibv_devinfo give parseable output",
          p)

    kdevs = {k.get("ifname"): k for k in kv if isinstance(k, dict)}
    rnames = {r["ifname"]: r for r in rdevs or []}
    expect = {}
    for i in (0, 1):
        dev = os.environ.get(f"KVPERF_DEV{i}")
        if dev:
            expect[dev] = (os.environ.get(f"KVPERF_NETDEV{i}"),
                           os.environ.get(f"KVPERF_ADDR{i}"))
    p = []
    same(p, "devices", kvperf=sorted(kdevs), rdma=sorted(rnames),
         ibv=sorted(ibv))
    for dev in expect:
        if dev not in kdevs:
            p.append(f"{dev} is not listed")
    if len(kdevs) != len(kv):
        p.append("a device is listed twice")
    check("kvperf lists the devices rdma and ibv_devinfo list", p)

    for dev in sorted(set(rnames) | set(expect)):
        links = {ln.get("port"): ln for ln in rlinks or []
                 if ln.get("ifname") == dev}
        kdo = load_json(os.path.join(d, f"do-{dev}.json"), [])
        compare_dev(dev, kdevs.get(dev), kdo, rnames.get(dev, {}), links,
                    ibv.get(dev), expect)

    compare_debugfs(os.path.join(d, "debugfs.txt"), kdevs)

    for r in results:
        print(("PASS " if r["ok"] else "FAIL ") + r["desc"])
        for line in r["diag"].splitlines():
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
