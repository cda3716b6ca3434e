#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""kvperf(8) says what kvperf help says, and the help what the parser takes.

usage: man_check.py [TOP]   (TOP: the tree, with user/kvperf built)

Reads the words of the command line three ways (cli_words.py): from the
tool's help texts, from Documentation/kvperf.8.rst and from the parser's
tables in user/, and checks, as KTAP, that the man page's source parses
without a warning and make man builds the page; that the man page's
synopses name the same objects, options, commands, keywords and values
as the help's, and its definition lists describe every command and
keyword of its synopses and no other; and that the help names every
object, command, keyword and value the parser takes, and no other.
"""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_words  # noqa: E402

results = []


def result(ok, name, diag=()):
    results.append((ok, name, list(diag)))


def differ(what, want_name, want, got_name, got):
    """Diagnostics of two collections that should be the same set."""
    want, got = set(want), set(got)
    out = []
    if want - got:
        out.append(f'{what} in {want_name}, not in {got_name}: '
                   + ' '.join(sorted(want - got)))
    if got - want:
        out.append(f'{what} in {got_name}, not in {want_name}: '
                   + ' '.join(sorted(got - want)))
    return out


def keyword_diffs(a_name, a, b_name, b):
    diag = differ('commands', a_name, a, b_name, b)
    for cmd in sorted(set(a) & set(b)):
        diag += differ(f'keywords of "{cmd}"', a_name, a[cmd], b_name,
                       b[cmd])
        for kw in sorted(set(a[cmd]) & set(b[cmd])):
            diag += differ(f'values of "{cmd} {kw}"', a_name, a[cmd][kw],
                           b_name, b[cmd][kw])
    return diag


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), '../..')
    rst = os.path.join(top, 'Documentation/kvperf.8.rst')
    kvperf = os.path.join(top, 'user/kvperf')

    try:
        man = cli_words.from_man(rst)
        result(True, 'Documentation/kvperf.8.rst parses without a warning')
    except Exception as e:  # docutils' SystemMessage, or no docutils
        result(False, 'Documentation/kvperf.8.rst parses without a warning',
               str(e).splitlines())
        man = None

    mk = subprocess.run(['make', '-s', '-C', top, 'man'],
                        capture_output=True, text=True)
    page = os.path.join(top, 'build/man/kvperf.8')
    ok = mk.returncode == 0 and os.path.exists(page)
    if ok:
        with open(page, encoding='utf-8') as f:
            ok = any(re.match(r'^\.TH "?KVPERF"? "?8"? ', line)
                     for line in f)
    result(ok, 'make man builds build/man/kvperf.8 with rst2man',
           (mk.stdout + mk.stderr).splitlines())

    hlp = cli_words.from_help(kvperf)
    tables = cli_words.from_tables(os.path.join(top, 'user'))

    if man:
        result(set(man['objects']) == set(hlp['objects']),
               'the man page and kvperf help name the same objects',
               differ('objects', 'kvperf help', hlp['objects'],
                      'the man page', man['objects']))
        result(set(man['options']) == set(hlp['options']),
               'the man page and kvperf help name the same options',
               differ('options', 'kvperf help', hlp['options'],
                      'the man page', man['options']))
        diag = []
        for obj in sorted(set(hlp['commands']) | set(man['commands'])):
            diag += differ(f'commands of {obj}', 'kvperf help',
                           hlp['commands'].get(obj, []), 'the man page',
                           man['commands'].get(obj, []))
        result(not diag,
               'the man page and kvperf OBJECT help name the same commands',
               diag)
        diag = keyword_diffs('kvperf help', hlp['keywords'],
                             'the man page', man['keywords'])
        result(not diag, 'the man page and kvperf OBJECT help name the '
               'same keywords and values for each command', diag)
        diag = []
        for obj, cmds in man['commands'].items():
            if obj == 'help':
                continue
            diag += differ(f'commands of {obj}', 'its synopses', cmds,
                           'its Commands list',
                           man['described']['commands'].get(obj, []))
            kws = set()
            for key, k in man['keywords'].items():
                if key.split()[0] == obj:
                    kws |= set(k)
            diag += differ(f'keywords of {obj}', 'its synopses', kws,
                           'its Keywords lists',
                           man['described']['keywords'].get(obj, []))
        result(not diag, 'the man page describes every command and '
               'keyword of its synopses, and no other', diag)
    else:
        for name in ('objects', 'options', 'commands', 'keywords',
                     'descriptions'):
            results.append((None, f'the man page: {name}',
                            ['SKIP the man page does not parse']))

    diag = differ('objects', 'the parser (main.c)', tables['objects'],
                  'kvperf help', hlp['objects'])
    for obj, cmds in tables['commands'].items():
        diag += differ(f'commands of {obj}', 'the parser', cmds + ['help'],
                       'kvperf help', hlp['commands'].get(obj, []))
    result(not diag, 'kvperf help names every object and command the '
           'parser takes, and no other', diag)

    def union(*cmds):
        kws = set()
        for c in cmds:
            kws |= set(hlp['keywords'].get(c, {}))
        return kws

    diag = differ('keywords of run', 'run_keywords[]',
                  tables['keywords']['run'], 'kvperf run help',
                  union('run lat', 'run bw', 'run io'))
    diag += differ('keywords of server start', 'start_keywords[]',
                   tables['keywords']['server start'], 'kvperf server help',
                   union('server start'))
    diag += differ('keywords of compare lat and bw', 'cmp_keywords[]',
                   tables['keywords']['compare'], 'kvperf compare help',
                   union('compare lat', 'compare bw'))
    diag += differ('keywords of fabric run', 'fab_keywords[]',
                   tables['keywords']['fabric run'], 'kvperf fabric help',
                   union('fabric run'))
    result(not diag, 'kvperf help names every keyword the parser takes, '
           'and no other', diag)

    diag = []
    for key, kws in hlp['keywords'].items():
        for kw, vals in kws.items():
            table = tables['values'].get(f'{key.split()[0]} {kw}',
                                         tables['values'].get(kw))
            if table is None:
                if vals and vals != ['all']:	# sizes all
                    diag.append(f'"{key} {kw}": no table for {vals}')
                continue
            diag += differ(f'values of "{key} {kw}"', 'the parser', table,
                           'kvperf help', vals)
    result(not diag, 'kvperf help names every value the parser takes for '
           'op, poll, rw, reg, inv, path, stats and post-context', diag)

    print('TAP version 13')
    print(f'1..{len(results)}')
    fail = 0
    for i, (ok, name, diag) in enumerate(results, 1):
        if ok is None:
            print(f'ok {i} {name} # {diag[0]}')
            continue
        print(f'{"ok" if ok else "not ok"} {i} {name}')
        if not ok:
            fail += 1
            for line in diag[:60]:
                print(f'# | {line}')
    return 1 if fail else 0


if __name__ == '__main__':
    sys.exit(main())
