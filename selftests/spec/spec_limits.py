# SPDX-License-Identifier: GPL-2.0
"""The limits of the netlink spec against their users.

    spec_limits.py SPEC names           the spec's checks name its constants
    spec_limits.py SPEC policy FILE...  the module's policies name the same
    spec_limits.py SPEC tool FILE...    the tool's limits are the constants

Each prints what disagrees, one line per attribute or macro, and exits 1
when anything does.
"""
import re
import sys

import yaml

CHECKS = ('min', 'max', 'min-len', 'max-len', 'exact-len')

# Literal checks that stay literal: no tunable limit but the shape of the
# value itself, the same in every version of the interface.
LITERAL = {
    # a GID is 16 bytes
    ('gid', 'value', 'exact-len'): 16,
    # an address is 4 (IPv4) or 16 (IPv6) bytes, a prefix at most 128 bits
    ('prefix', 'addr', 'min-len'): 4,
    ('prefix', 'addr', 'max-len'): 16,
    ('prefix', 'len', 'max'): 128,
    ('server', 'addr', 'min-len'): 4,
    ('server', 'addr', 'max-len'): 16,
    ('run', 'addr', 'min-len'): 4,
    ('run', 'addr', 'max-len'): 16,
}
# At least one, where zero is what absence means (port 0 and id 0 are
# none; a count, a depth or a time of 0 is nothing to run).
for _a in ('id', 'port', 'conns-max', 'peer-conns-max', 'srq'):
    LITERAL[('server', _a, 'min')] = 1
for _a in ('id', 'port', 'iterations', 'duration-ms', 'tx-depth', 'qps',
           'post-list', 'signal-every', 'warmup-ms'):
    LITERAL[('run', _a, 'min')] = 1

# Attributes with checks that no request carries, so no policy has them.
REPLY_ONLY = {('gid', 'value')}


def c_name(*parts):
    return '_'.join(p.upper().replace('-', '_') for p in parts)


class Spec:
    def __init__(self, path):
        self.y = yaml.safe_load(open(path))
        defs = self.y.get('definitions', [])
        self.consts = {d['name']: d['value'] for d in defs
                       if d['type'] == 'const'}
        self.enums = {d['name']: d for d in defs if d['type'] == 'enum'}
        # C name of each attribute: (set, attr)
        self.attrs = {}
        for aset in self.y['attribute-sets']:
            if 'subset-of' in aset:
                continue
            for a in aset['attributes']:
                self.attrs[c_name('kvperf-a', aset['name'], a['name'])] = \
                    (aset['name'], a)

    def const_c(self, name):
        return c_name('kvperf', name)

    def expected(self, attr):
        """The checks of @attr as C tokens: constants by name."""
        exp = {}
        for k, v in attr.get('checks', {}).items():
            exp[k] = self.const_c(v) if isinstance(v, str) else str(v)
        if 'enum' in attr and 'max' not in exp:
            # ynl's rule: an enum attribute's range is the enum's
            enum = self.enums[attr['enum']]
            last = enum['entries'][-1]
            last = last['name'] if isinstance(last, dict) else last
            # an entry's C name: the enum's name-prefix (genetlink-c), or
            # the family's and the enum's names
            prefix = enum.get('name-prefix', f"kvperf-{attr['enum']}-")
            exp['max'] = c_name(prefix + last)
        return exp


def names(spec):
    bad = []
    for cname, (aset, a) in spec.attrs.items():
        for k, v in a.get('checks', {}).items():
            if k not in CHECKS:
                continue
            where = f"{aset}.{a['name']} {k}"
            if isinstance(v, str):
                if v not in spec.consts:
                    bad.append(f"{where}: '{v}' is no constant of the spec")
            elif LITERAL.get((aset, a['name'], k)) != v:
                bad.append(f"{where}: literal {v}, name a constant "
                           "(type: const in definitions)")
            # an enum attribute's range is its enum's, or a named max
            # that leaves values out (run.reg: the module takes no mw)
            if 'enum' in a and k in ('min', 'max') and not (
                    k == 'max' and isinstance(v, str) and
                    spec.consts.get(v, 1 << 32) <
                    len(spec.enums[a['enum']]['entries']) - 1):
                bad.append(f"{where}: an enum attribute's range is its "
                           "enum's, or a constant below its last value")
    return bad


def norm(s):
    return re.sub(r'\s+', ' ', s).strip()


def parse_policy(text):
    """{attribute: {check: C token}} of every policy entry in @text."""
    ranges = {}
    for m in re.finditer(r'struct netlink_range_validation (\w+) = \{'
                         r'([^}]*)\}', text):
        r = dict(re.findall(r'\.(min|max)\s*=\s*([^,\s]+)', m.group(2)))
        ranges[m.group(1)] = r
    pol = {}
    for m in re.finditer(r'\[(KVPERF_A_\w+)\]\s*=\s*(.*?),?\s*'
                         r'(?=\n\t\[|\n\};)', text, re.S):
        name, val = m.group(1), norm(m.group(2))
        got = {}
        f = re.match(r'NLA_POLICY_(RANGE|MIN|MAX|FULL_RANGE|EXACT_LEN)'
                     r'\((.*)\)$', val)
        if f:
            args = [a.strip() for a in f.group(2).split(',')]
            kind = f.group(1)
            binary = args[0] == 'NLA_BINARY'
            if kind == 'RANGE':
                got = {'min': args[1], 'max': args[2]}
            elif kind == 'MIN':
                got = {'min': args[1]}
            elif kind == 'MAX':
                got = {'max': args[1]}
            elif kind == 'FULL_RANGE':
                got = dict(ranges.get(args[1].lstrip('&'), {}))
            elif kind == 'EXACT_LEN':
                got = {'exact-len': args[0]}
            if binary:
                got = {k + '-len': v for k, v in got.items()}
            if got.get('min') == '0':
                del got['min']
        else:
            ln = re.search(r'\.len\s*=\s*([^,}]+)', val)
            if ln and 'STRING' in val:
                got = {'max-len': ln.group(1).strip()}
        pol.setdefault(name, []).append(got)
    return pol


def compare(spec, pol, what, need_all):
    bad = []
    seen = set()
    for cname, gots in sorted(pol.items()):
        if cname not in spec.attrs:
            bad.append(f"{cname}: {what} of an attribute the spec lacks")
            continue
        aset, a = spec.attrs[cname]
        seen.add(cname)
        exp = spec.expected(a)
        for got in gots:
            if got != exp:
                bad.append(f"{aset}.{a['name']}: {what} {got or 'none'}, "
                           f"spec {exp or 'none'}")
    for cname, (aset, a) in spec.attrs.items():
        if need_all and a.get('checks') and cname not in seen and \
           (aset, a['name']) not in REPLY_ONLY:
            bad.append(f"{aset}.{a['name']}: checks in the spec, no policy")
    return bad


def policy(spec, files):
    pol = {}
    for f in files:
        for k, v in parse_policy(open(f).read()).items():
            pol.setdefault(k, []).extend(v)
    return compare(spec, pol, 'policy', True)


# The tool's own names of the spec's limits and defaults, in its headers:
# each must be a constant of the spec, never a number of its own.
TOOL_MACRO = re.compile(r'^#define\s+((?:UPATH|RUN|SERVER|ACCESS)_\w*'
                        r'(?:MIN|MAX|DEFAULT_\w+))\s+(\S.*)$', re.M)
# the tool's own limits, not the spec's
TOOL_OWN = {'RUN_SIZES_ALL_MIN'}


def tool(spec, files):
    bad = []
    defined = {spec.const_c(n) for n in spec.consts}
    for f in files:
        text = open(f).read()
        if f.endswith('run_cfg.c') and 'KVPERF_A_RUN_' not in text:
            bad.append(f"{f}: no table of ranges")
        for m in TOOL_MACRO.finditer(text):
            name, val = m.group(1), m.group(2).strip()
            if name in TOOL_OWN:
                continue
            if val not in defined:
                bad.append(f"{f.split('/')[-1]}: {name} is {val}, "
                           "not a constant of the spec")
        # the model's table of ranges (run_cfg.c), as a policy; a min of
        # 0 is no min
        pol = {}
        for m in re.finditer(r'\{\s*(KVPERF_A_RUN_\w+),\s*([^,]+),'
                             r'\s*([^,]+),\s*(?:true|false)\s*\}', text):
            got = {'max': m.group(3).strip()}
            if m.group(2).strip() != '0':
                got['min'] = m.group(2).strip()
            pol.setdefault(m.group(1), []).append(got)
        bad += compare(spec, pol, 'tool range', False)
    return bad


def main():
    spec = Spec(sys.argv[1])
    cmd = sys.argv[2]
    bad = {'names': lambda: names(spec),
           'policy': lambda: policy(spec, sys.argv[3:]),
           'tool': lambda: tool(spec, sys.argv[3:])}[cmd]()
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
