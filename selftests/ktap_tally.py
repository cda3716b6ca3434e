#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Count the results of a KTAP log the way make check reports them.

usage: ktap_tally.py [--streams N] [--phase NAME --expected FILE] LOG

Every leaf result counts once: a result whose subtests were nested under
it ("# "-prefixed, kselftest style) counts as its subtests, so a skip
deep inside a script is a skip in the total. Besides the results that
say "not ok", these count as failures, each with a "# tally:" line that
says why:
  - a test level that announced a plan of N results and printed another
    number (a script or a program that stopped early, or ran more);
  - a result that says "not ok" while all of its subtests passed (a
    script that crashed or timed out after its last result);
  - a skip that does not say why ("# SKIP" with no reason);
  - with --expected FILE, a skip that no line of FILE matches: FILE
    holds extended regular expressions, one a line ("#" comments), each
    matched against "PHASE: WHERE: NAME: WHY" (PHASE from --phase);
  - an expected failure ("not ok ... # TODO" or "# XFAIL"): the suite
    has none, so a check reported that way hides a failure;
  - a "Bail out!" line;
  - fewer (or more) top-level KTAP streams than --streams N (a test
    program that did not start), or a stream without a plan.
Every skip is listed with its reason. The last line is
"tally: PASSED FAILED SKIPPED".
"""

import re
import sys

RESULT_RE = re.compile(r'^(not ok|ok)\b(?:\s+(\d+))?\s*(.*)$')
PLAN_RE = re.compile(r'^1\.\.(\d+)(?:\s*#\s*(.*))?$')
HEADER_RE = re.compile(r'^K?TAP version \d+')
SKIP_RE = re.compile(r'#\s*SKIP\b\s*(.*)$', re.IGNORECASE)
TODO_RE = re.compile(r'#\s*(TODO|XFAIL)\b', re.IGNORECASE)


class Level:
    """One KTAP stream: its plan and the tally of its results so far."""

    def __init__(self, name):
        self.name = name
        self.plan = None
        self.skip_all = None
        self.nresults = 0
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.pending_name = None

    def add(self, p, f, s):
        self.passed += p
        self.failed += f
        self.skipped += s


class Tally:
    def __init__(self, out, phase='', expected=None):
        self.out = out
        self.phase = phase
        self.expected = expected    # regexes of the expected skips
        self.roots = []
        self.stack = []         # open levels, index = depth

    def note(self, msg):
        self.out.write('# tally: %s\n' % msg)

    # A skip with its reason: 1 skipped if it is expected (or no list
    # was given), else 1 failed; returns (failed, skipped).
    def skip(self, text):
        if self.expected is None or any(
                r.search('%s: %s' % (self.phase, text)) for r in self.expected):
            self.note('skip: %s' % text)
            return 0, 1
        self.note('skip not on the expected list, counted as failed: %s: %s'
                  % (self.phase, text))
        return 1, 0

    def where(self, depth):
        names = [lv.name or '?' for lv in self.stack[1:depth + 1]]
        return ' / '.join(names) if names else 'top level'

    def open(self, depth):
        lv = Level(self.stack[-1].pending_name if depth else None)
        if depth == 0:
            self.roots.append(lv)
        self.stack.append(lv)
        return lv

    # Close the level at DEPTH (and any deeper); return its counts.
    def close(self, depth):
        while len(self.stack) > depth + 1:
            self.close(len(self.stack) - 1)
        where = self.where(depth) if depth else 'stream %d' % len(self.roots)
        lv = self.stack.pop()
        if lv.skip_all is not None:
            if lv.nresults:
                lv.failed += 1
                self.note('%s: "1..0 # SKIP" followed by results' % where)
            elif not lv.skip_all:
                lv.failed += 1
                self.note('%s: skipped without a reason' % where)
            else:
                f, sk = self.skip('%s: %s' % (where, lv.skip_all))
                lv.add(0, f, sk)
        elif lv.plan is None:
            lv.failed += 1
            self.note('%s: no plan (1..N) in %d results' % (where, lv.nresults))
        elif lv.plan != lv.nresults:
            missing = lv.plan - lv.nresults
            # each planned result that never came is one failure
            lv.failed += missing if missing > 0 else 1
            self.note('%s: plan 1..%d but %d results%s' %
                      (where, lv.plan, lv.nresults,
                       ' (%d never ran)' % missing if missing > 0 else ''))
        return lv

    def result(self, depth, ok, desc):
        child = None
        if len(self.stack) > depth + 1:
            child = self.close(depth + 1)
        lv = self.stack[depth]
        lv.nresults += 1
        skip = SKIP_RE.search(desc)
        name = re.sub(r'\s*#.*$', '', desc).strip()
        if child is not None and (child.nresults or child.skip_all is not None
                                  or child.plan is not None):
            p, f, s = child.passed, child.failed, child.skipped
            if not ok and f == 0:
                f = 1
                self.note('not ok with no failed subtest: %s' % desc)
            lv.add(p, f, s)
            return
        if not ok:
            lv.add(0, 1, 0)
            if TODO_RE.search(desc):
                self.note('an expected failure (TODO) counts as failed: %s'
                          % desc)
        elif skip:
            why = skip.group(1).strip()
            if why:
                f, sk = self.skip('%s%s: %s' % (
                    '' if depth == 0 else self.where(depth) + ': ', name, why))
                lv.add(0, f, sk)
            else:
                lv.add(0, 1, 0)
                self.note('skip without a reason: %s' % desc)
        else:
            lv.add(1, 0, 0)

    def line(self, raw):
        depth = 0
        s = raw.rstrip('\n')
        while s.startswith('# ') or s == '#':
            s = s[2:]
            depth += 1
        s = s.strip()
        top = len(self.stack) - 1      # deepest open level, -1: none
        header = HEADER_RE.match(s)
        plan = PLAN_RE.match(s)
        res = RESULT_RE.match(s)
        if header:
            if depth == 0 and self.stack:
                self.close(0)
                top = -1
            if depth == top + 1:
                self.open(depth)
            return
        if plan:
            if depth == top + 1:
                self.open(depth)
            elif depth > top:
                return
            lv = self.stack[depth]
            if lv.plan is not None or lv.skip_all is not None:
                if depth == 0 and lv.nresults:
                    self.close(0)       # a new stream without a header
                    lv = self.open(0)
                else:
                    return
            n = int(plan.group(1))
            if n == 0:
                lv.skip_all = (plan.group(2) or '').strip()
                lv.skip_all = re.sub(r'^SKIP\b\s*', '', lv.skip_all)
            else:
                lv.plan = n
            return
        if s.startswith('Bail out!') and depth <= top:
            self.stack[depth].failed += 1
            self.note('%s: %s' % (self.where(depth), s))
            return
        if res and depth <= top:
            if depth == 0 and top < 0:
                self.open(0)
            self.result(depth, res.group(1) == 'ok', res.group(3))
            return
        if res and depth == 0 and top < 0:
            self.open(0)
            self.result(0, res.group(1) == 'ok', res.group(3))
            return
        # "# selftests: kvperf: X.sh" names the subtest that follows
        m = re.match(r'^selftests: \S+: (\S+)$', s)
        if m and depth == top + 1:
            self.stack[top].pending_name = m.group(1)

    def finish(self, streams):
        passed = failed = skipped = 0
        while self.stack:
            self.close(len(self.stack) - 1)
        for lv in self.roots:
            passed += lv.passed
            failed += lv.failed
            skipped += lv.skipped
        if streams is not None and len(self.roots) != streams:
            failed += max(1, streams - len(self.roots))
            self.note('expected %d KTAP streams, found %d' %
                      (streams, len(self.roots)))
        if not self.roots:
            self.note('no KTAP output at all')
            failed += 1 if streams is None else 0
        return passed, failed, skipped


def main(argv):
    streams = None
    phase = ''
    expected = None
    args = argv[1:]
    while len(args) >= 2 and args[0] in ('--streams', '--phase', '--expected'):
        if args[0] == '--streams':
            streams = int(args[1])
        elif args[0] == '--phase':
            phase = args[1]
        else:
            with open(args[1]) as f:
                expected = [re.compile(line.strip()) for line in f
                            if line.strip() and not line.startswith('#')]
        args = args[2:]
    if len(args) != 1:
        sys.stderr.write('usage: ktap_tally.py [--streams N] '
                         '[--phase NAME --expected FILE] LOG\n')
        return 2
    t = Tally(sys.stdout, phase, expected)
    with open(args[0], errors='replace') as f:
        for raw in f:
            t.line(raw)
    p, f, s = t.finish(streams)
    print('tally: %d %d %d' % (p, f, s))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
