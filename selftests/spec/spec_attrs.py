#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold the tool's attribute sets (attrs_dump's lines) against the spec:
every attribute of every set the tool reads, by number, with the spec's
name, type, length and nested set; nothing the spec lacks.

usage: spec_attrs.py SPEC.yaml DUMP
Prints one line per difference; exit 1 if there is any.
"""
import sys

import yaml

# The spec's types as the tool's parser checks them.
KIND = {"u8": "u8", "u16": "u16", "u32": "u32", "u64": "u64", "s32": "s32",
        "string": "string", "binary": "binary", "flag": "flag",
        "nest": "nest", "pad": "pad"}


def expected(spec):
    """{(set, number): (name, kind, len, nested)} of the spec."""
    consts = {d["name"]: d["value"] for d in spec.get("definitions", [])
              if d.get("type") == "const"}
    out = {}
    for aset in spec["attribute-sets"]:
        if "subset-of" in aset:
            continue
        num = 0
        for a in aset["attributes"]:
            num = a.get("value", num + 1)
            kind = KIND[a["type"]]
            checks = a.get("checks", {})
            length = 0
            if kind == "binary":
                if checks.get("min-len") == 4 and checks.get("max-len") == 16:
                    kind = "addr"
                elif "exact-len" in checks:
                    length = checks["exact-len"]
                    length = consts.get(length, length)
            nested = a.get("nested-attributes", "-") if kind == "nest" else "-"
            out[aset["name"], num] = (a["name"], kind, length, nested)
    return out


def main():
    spec = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
    want = expected(spec)
    bad = []
    seen_sets = set()
    for line in open(sys.argv[2], encoding="utf-8"):
        aset, num, name, kind, length, nested = line.split()
        seen_sets.add(aset)
        key = (aset, int(num))
        got = (name, kind, int(length), nested)
        exp = want.get(key)
        if exp is None:
            if name != "-":
                bad.append(f"{aset} {num} {name}: not in the spec")
            continue
        # an address the spec leaves unchecked (a reply's) the tool may
        # check as one: 4 or 16 bytes
        if kind == "addr" and exp[1] == "binary" and not exp[2]:
            exp = (exp[0], "addr", 0, exp[3])
        if kind == "unknown" and name == "-":
            bad.append(f"{aset}.{exp[0]} ({num}): missing from the tool")
        elif got != exp:
            bad.append(f"{aset} {num}: tool {got}, spec {exp}")
    for aset, num in sorted(want):
        if aset in seen_sets and not any(
                line.startswith(f"{aset} {num} ")
                for line in open(sys.argv[2], encoding="utf-8")):
            bad.append(f"{aset}.{want[aset, num][0]} ({num}): beyond the "
                       "tool's table")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
