# SPDX-License-Identifier: GPL-2.0
"""What the user documentation says of keywords, against the tool and spec.

    readme_limits.py synopsis HELP DOC   every "[keyword VALUE]" of DOC's
                                         synopsis is in kvperf help's usage
    readme_limits.py spec SPEC DOC       every range and default of DOC's
                                         limits table is the spec's
    readme_limits.py help HELP DOC       every range of that table is the
                                         one kvperf help states, where it
                                         states one

HELP is the text of `kvperf help` and of each object's help, one after
the other. DOC's synopsis is the block that starts with "kvperf [-j]";
its limits table the lines between "<!-- readme-limits begin -->" and
"<!-- readme-limits end -->". Each prints what disagrees, one line each,
and exits 1 when anything does.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spec_limits import LITERAL, Spec  # noqa: E402

# keyword of the table: (min, max, default, bw default, kind); a min is a
# spec constant's name or the spec's literal check (spec_limits.LITERAL)
KEYWORDS = {
    'size': ('size-min', 'size-max', 'size-default', 'bw-size-default',
             'bytes'),
    'iters': (('run', 'iterations', 'min'), 'iterations-max',
              'lat-iterations-default', 'bw-iterations-default', 'count'),
    'time': (('run', 'duration-ms', 'min'), 'duration-ms-max', None, None,
             'ms'),
    # derived from what is in flight: a default from the floor to the cap
    'timeout': ('timeout-ms-min', 'timeout-ms-max',
                ('timeout-ms-default', 'timeout-ms-default-max'), None, 'ms'),
    'interval': ('interval-ms-min', 'interval-ms-max', None, None, 'ms'),
    'idle-timeout': ('idle-timeout-ms-min', 'idle-timeout-ms-max',
                     'idle-timeout-ms-default', None, 'ms'),
    'tx-depth': (('run', 'tx-depth', 'min'), 'tx-depth-max',
                 'tx-depth-default', None, 'count'),
    'qps': (('run', 'qps', 'min'), 'qps-max', None, None, 'count'),
    'post-list': (('run', 'post-list', 'min'), 'post-list-max', None, None,
                  'count'),
    'qd': ('io-qd-min', 'io-qd-max', 'io-qd-default', None, 'count'),
    'bs': ('io-bs-min', 'io-bs-max', 'io-bs-default', None, 'bytes'),
}


def value(text, kind):
    """A value as the documentation writes it, in the spec's unit."""
    m = re.fullmatch(r'(\d+(?:\.\d+)?)(ms|s|K|M)?', text)
    if not m:
        raise ValueError("'%s' is not a value" % text)
    n, unit = float(m.group(1)), m.group(2) or ''
    scale = {'': 1, 'K': 1 << 10, 'M': 1 << 20, 'ms': 1, 's': 1000}[unit]
    if kind == 'ms' and unit == '':
        scale = 1000          # the tool reads a bare time as seconds
    if (kind == 'ms') != (unit in ('ms', 's')) and unit:
        raise ValueError("'%s' has the wrong unit for a %s" % (text, kind))
    return int(n * scale)


def synopsis(doc):
    """The lines of DOC's synopsis block, joined."""
    lines = open(doc).read().split('\n')
    for i, line in enumerate(lines):
        if re.match(r'\s*kvperf \[-j\]', line):
            block = []
            for line in lines[i:]:
                if not line.strip() or line.strip().startswith('```'):
                    break
                block.append(line)
            return ' '.join(block)
    return None


def usage(help_text):
    """The usage lines of every help text, joined with single blanks."""
    out, inside = [], False
    for line in help_text.split('\n'):
        if line.startswith('Usage:'):
            inside = True
        elif not line.strip():
            inside = False
        if inside:
            out.append(line)
    return re.sub(r'\s+', ' ', ' '.join(out))


def check_synopsis(help_file, doc):
    text = synopsis(doc)
    if text is None:
        print('%s: no synopsis (a line starting "kvperf [-j]")' % doc)
        return 1
    use = usage(open(help_file).read())
    bad = checked = 0
    for group in re.findall(r'\[([^\[\]]+)\]', text):
        for alt in group.split(' | '):
            words = alt.split(None, 1)
            # a keyword and its value: a placeholder or a set of values
            if (len(words) != 2 or
                    not re.fullmatch(r'[a-z][a-z-]*', words[0]) or
                    not re.match(r'[A-Z{]', words[1])):
                continue
            checked += 1
            pat = r'(?<![\w-])' + re.escape(alt) + r'(?=[\]\s|])'
            if not re.search(pat, use):
                print("%s: '[%s]' is not in kvperf help's usage" % (doc, alt))
                bad = 1
    if not checked:
        print('%s: its synopsis has no keyword with a value' % doc)
        bad = 1
    return bad


def table(doc):
    """The rows of DOC's limits table: (keyword, range, default)."""
    text = open(doc).read()
    m = re.search(r'<!-- readme-limits begin -->\n(.*?)<!-- readme-limits end -->',
                  text, re.S)
    if not m:
        print('%s: no limits table' % doc)
        return None
    rows = []
    for line in m.group(1).split('\n'):
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) != 3 or not cells[0].startswith('`'):
            continue
        kw = re.match(r'`([a-z-]+)`', cells[0]).group(1)
        rows.append((kw, cells[1], cells[2]))
    if not rows:
        print('%s: its limits table has no rows' % doc)
    return rows


def const(spec, name):
    if isinstance(name, tuple):
        return LITERAL[name]
    return spec.consts[name]


def check_spec(spec_file, doc):
    spec = Spec(spec_file)
    rows = table(doc)
    if not rows:
        return 1
    bad = 0
    for kw, rng, dflt in rows:
        if kw not in KEYWORDS:
            print('%s: %s: no spec constant known for it' % (doc, kw))
            bad = 1
            continue
        lo, hi, d, bw_d, kind = KEYWORDS[kw]
        try:
            m = re.fullmatch(r'(\S+) to (\S+)', rng)
            if not m:
                raise ValueError("range '%s' is not 'MIN to MAX'" % rng)
            got = [value(m.group(1), kind), value(m.group(2), kind)]
            want = [const(spec, lo), const(spec, hi)]
            if got != want:
                print('%s: %s: range %s is %s, the spec %s' %
                      (doc, kw, rng, got, want))
                bad = 1
            pairs = [(bw_d, (re.search(r'\(bw: (\S+?)[) ]', dflt)
                             or [None, None])[1])]
            if isinstance(d, tuple):
                # "FLOOR to CAP, ...": both ends are the spec's
                m = re.match(r'(\S+) to (\S+?),? ', dflt + ' ')
                pairs += [(d[0], m and m.group(1)), (d[1], m and m.group(2))]
            else:
                pairs.append((d, re.match(r'(\S+)', dflt).group(1)))
            for name, text in pairs:
                if name is None:
                    continue
                if text is None:
                    print('%s: %s: no default for the spec\'s %s' %
                          (doc, kw, name))
                    bad = 1
                elif value(text, kind) != spec.consts[name]:
                    print('%s: %s: default %s, the spec\'s %s is %s' %
                          (doc, kw, text, name, spec.consts[name]))
                    bad = 1
        except (ValueError, KeyError) as e:
            print('%s: %s: %s' % (doc, kw, e))
            bad = 1
    return bad


def help_paragraph(help_text, kw):
    """The text of KW's entry in the help's keyword lists, or None."""
    lines = help_text.split('\n')
    for i, line in enumerate(lines):
        m = re.match(r'(\s+)' + re.escape(kw) + r'(\s{2,}|$)', line)
        if not m:
            continue
        para = [line]
        for nxt in lines[i + 1:]:
            if (not nxt.strip() or
                    re.match(m.group(1) + r'[a-z]', nxt)):
                break
            para.append(nxt)
        return re.sub(r'\s+', ' ', ' '.join(para))
    return None


def check_help(help_file, doc):
    help_text = open(help_file).read()
    rows = table(doc)
    if not rows:
        return 1
    bad = 0
    for kw, rng, _ in rows:
        para = help_paragraph(help_text, kw)
        if para is None:
            print("%s: %s: not in kvperf help's keyword lists" % (doc, kw))
            bad = 1
            continue
        m = re.search(r'(\d[\w.]*) to (\d[\w.]*)', para)
        if m and m.group(0) != rng:
            print("%s: %s: range %s, kvperf help says %s" %
                  (doc, kw, rng, m.group(0)))
            bad = 1
    return bad


def main():
    what, src, doc = sys.argv[1:4]
    fn = {'synopsis': check_synopsis, 'spec': check_spec,
          'help': check_help}[what]
    sys.exit(fn(src, doc))


if __name__ == '__main__':
    main()
