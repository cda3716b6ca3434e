#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The words of the kvperf command line, read from where they are written.

usage: cli_words.py help KVPERF     from the tool's own help texts
       cli_words.py man RST         from the man page's source
       cli_words.py tables USERDIR  from the parser's tables in user/

Prints JSON: {"objects": [...], "options": [...], "commands": {OBJ:
[...]}, "keywords": {"OBJ CMD": {KW: [VALUE...]}}, "described":
{"commands": {OBJ: [...]}, "keywords": {OBJ: [...]}}} ("described": the
man page's definition lists; "tables" gives only what the tables name).

A synopsis is read the way the help prints it: "kvperf [-j [-p]] run lat
op {send|write|read} addr ADDR [port PORT] [sizes all | ...]". After the
object comes its command (a word, {a|b} for several, [show ...] for the
default); then a lower-case word is a keyword, unless it is inside
braces or follows a keyword, where it is one of that keyword's values
("op {send|write|read}", "sizes all"); upper-case words are
placeholders. The man page's SYNOPSIS and object sections hold the same
synopses as literal blocks, so the same reader serves both.
"""

import json
import re
import subprocess
import sys

TOKEN_RE = re.compile(r'[\[\]{}|]|[^\s\[\]{}|]+')
WORD_RE = re.compile(r'^[a-z][a-z0-9-]*$')


def synopses(text):
    """The usage entries of a help text or literal block, one string each."""
    entries = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith('Usage:'):
            s = s[len('Usage:'):].strip()
        if s.startswith('kvperf ') or s == 'kvperf':
            entries.append(s)
        elif entries and s and (s.startswith(('[', '{')) or
                                line[:1].isspace() and
                                line[:len(line) - len(s)].count(' ') > 8):
            # an indented line goes on the entry (fabric step's words)
            entries[-1] += ' ' + s
        elif entries and not s:
            break
    return entries


def parse_synopsis(entry, words):
    """Add the object, commands, keywords and values of one entry."""
    toks = TOKEN_RE.findall(entry)[1:]
    i = 0
    # options before the object: -j, [-j [-p]], [OPTIONS]
    while i < len(toks) and not WORD_RE.match(toks[i]):
        i += 1
    if i == len(toks):
        return
    obj = toks[i]
    i += 1
    if obj == 'help':	# kvperf help [OBJECT]
        words['commands'].setdefault(obj, [])
        return
    cmds = []
    if i < len(toks) and toks[i] == '{':
        i += 1
        while toks[i] != '}':
            if WORD_RE.match(toks[i]):
                cmds.append(toks[i])
            i += 1
        i += 1
    elif i + 1 < len(toks) and toks[i] == '[' and WORD_RE.match(toks[i + 1]):
        cmds.append(toks[i + 1])
        i += 2
    elif i < len(toks) and WORD_RE.match(toks[i]):
        cmds.append(toks[i])
        i += 1
    if obj not in words['objects']:
        words['objects'].append(obj)
    known = words['commands'].setdefault(obj, [])
    for c in cmds:
        if c not in known:
            known.append(c)
    kws = {}
    kw = None		# the keyword whose values may follow
    depth = 0		# inside braces
    prev_kw = False
    for t in toks[i:]:
        if t == '{':
            depth += 1
        elif t == '}':
            depth -= 1
        if t in '[]{}|':
            prev_kw = False
            continue
        if not WORD_RE.match(t):
            prev_kw = False
            continue
        if (depth or prev_kw) and kw:
            vals = kws[kw]
            if t not in vals:
                vals.append(t)
            prev_kw = False
            continue
        kw = t
        kws.setdefault(kw, [])
        prev_kw = True
    for c in cmds or ['']:
        key = (obj + ' ' + c).strip()
        have = words['keywords'].setdefault(key, {})
        for k, v in kws.items():
            have.setdefault(k, [])
            have[k] += [x for x in v if x not in have[k]]


def new_words():
    return {'objects': [], 'options': [], 'commands': {}, 'keywords': {}}


def from_help(kvperf):
    """The words of `kvperf help` and of `kvperf OBJECT help`."""
    def run(*args):
        return subprocess.run([kvperf, *args], check=True,
                              capture_output=True, text=True).stdout

    words = new_words()
    top = run('help')
    section = None
    objects = []
    for line in top.splitlines():
        if line and not line.startswith(' '):
            section = line.rstrip(':')
            continue
        m = re.match(r'^\s+(-\w)(?:, (--[\w-]+))?\s', line)
        if section == 'Options' and m:
            words['options'] += [o for o in m.groups() if o]
        m = re.match(r'^  ([a-z][a-z-]*)\s', line)
        if section == 'Objects' and m:
            objects.append(m.group(1))
    for e in synopses(top):
        parse_synopsis(e, words)
    for obj in objects:
        for e in synopses(run(obj, 'help')):
            parse_synopsis(e, words)
    return words


def text_of(node):
    return node.astext()


def from_man(path):
    """The words of the man page: its synopses, option list and the
    terms of its definition lists (commands under a section whose title
    starts with "Commands", keywords under any other)."""
    import docutils.core
    import docutils.nodes as n

    with open(path, encoding='utf-8') as f:
        doc = docutils.core.publish_doctree(
            f.read(), settings_overrides={'halt_level': 2,
                                          'report_level': 4})
    words = new_words()
    for block in doc.findall(n.literal_block):
        title = block.parent[0].astext().split()
        if title and title[0] in ('SYNOPSIS', 'KVPERF'):
            for e in synopses(block.astext()):
                parse_synopsis(e, words)
    for opt in doc.findall(n.option_string):
        words['options'].append(opt.astext())
    described = {'commands': {}, 'keywords': {}}
    for sec in doc.findall(n.section):
        title = sec[0].astext()
        obj = title.split()[-1].lower()
        if title.split()[0].lower() != 'kvperf' or \
           obj not in words['objects']:
            continue
        for sub in [sec] + list(sec.findall(n.section)):
            what = 'commands' if \
                sub[0].astext().lower().startswith('commands') \
                else 'keywords'
            for dl in sub.children:
                if not isinstance(dl, n.definition_list):
                    continue
                for item in dl.findall(n.definition_list_item):
                    term = item.next_node(n.term).astext().split()[0]
                    lst = described[what].setdefault(obj, [])
                    if term not in lst:
                        lst.append(term)
    words['described'] = described
    return words


def c_strings(src, start, end_char):
    """The string literals from START up to the first END_CHAR after it."""
    i = src.index(start)
    j = src.index(end_char, src.index('{' if end_char == '}' else '(', i))
    return re.findall(r'"([^"]*)"', src[i:j])


def from_tables(user):
    """What the parser knows: the objects, the commands of each, the
    keywords of run, server start and compare, the names of values."""
    def read(f):
        with open(f'{user}/{f}', encoding='utf-8') as fh:
            return fh.read()

    def cmds(src, table):
        names = dict(re.findall(
            r'kvperf_cmd (\w+) = \{\s*\.name = "([^"]+)"', src))
        body = src[src.index(table):]
        body = body[:body.index('}')]
        return [names[c] for c in re.findall(r'&(\w+)', body)]

    words = new_words()
    main = read('main.c')
    objs = re.findall(r'&(\w+)_object', main[main.index('objects[]'):])
    words['objects'] = objs
    files = {'dev': 'cli/dev.c', 'server': 'cli/server.c',
             'run': 'cli/run.c', 'compare': 'compare/compare_exec.c',
             'monitor': 'cli/monitor.c', 'fabric': 'fabric/fabric_cmd.c'}
    tables = {'dev': 'dev_cmds[]', 'server': 'server_cmds[]',
              'run': 'run_cmds[]', 'compare': 'cmp_cmds[]',
              'fabric': 'fab_cmds[]'}
    for obj in objs:
        words['commands'][obj] = \
            cmds(read(files[obj]), tables[obj]) if obj in tables else []
    # monitor has no command table: the words its run function matches
    if 'monitor' in objs:
        src = read(files['monitor'])
        body = src[src.index('static int monitor_run('):]
        body = body[:body.index('\n}\n')]
        words['commands']['monitor'] = sorted(
            set(re.findall(r'args_matches\(w, "(\w+)"\)', body)) - {'help'})
    fmt = read('lib/fmt.c')
    run = read('cli/run.c')
    words['keywords'] = {
        'run': c_strings(run, 'run_keywords[RUN_KW_COUNT]', '}'),
        'server start': c_strings(read('cli/server.c'),
                                  'start_keywords[SKW_COUNT]', '}'),
        'compare': c_strings(read('compare/compare.c'),
                             'cmp_keywords[CMP_KW_COUNT]', '}'),
        'fabric run': c_strings(read('fabric/fabric_cmd.c'),
                                'fab_keywords[FKW_COUNT]', '}'),
    }
    words['values'] = {
        'op': c_strings(fmt, 'NAME_TABLE(fmt_op,', ')'),
        'poll': c_strings(fmt, 'NAME_TABLE(fmt_poll,', ')'),
        'stats': c_strings(fmt, 'NAME_TABLE(fmt_stats_mode,', ')'),
        'post-context': c_strings(fmt, 'NAME_TABLE(fmt_post_context,',
                                  ')'),
        'inv': c_strings(fmt, 'NAME_TABLE(fmt_io_inv,', ')'),
        'reg': c_strings(fmt, 'NAME_TABLE(fmt_io_reg,', ')'),
        'rw': c_strings(run, 'rw_names[] =', '}'),
        'path': c_strings(read('lib/run_model.c'),
                          'kv_run_path_names[KV_RUN_PATHS]', '}'),
        'server bidir': c_strings(fmt, 'NAME_TABLE(fmt_bidir,', ')'),
        'compare post-context': c_strings(read('compare/compare.c'),
                                          'cmp_post_names[CMP_POSTS]',
                                          '}'),
        'fabric path': c_strings(read('fabric/fabric_cmd.c'),
                                 'fab_path_names[]', '}'),
        'fabric launcher': re.findall(r'\.name = "(\w+)"',
                                      read('fabric/fabric_launch.c')),
    }
    return words


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('help', 'man', 'tables'):
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    get = {'help': from_help, 'man': from_man, 'tables': from_tables}
    json.dump(get[sys.argv[1]](sys.argv[2]), sys.stdout, indent=1)
    print()
    return 0


if __name__ == '__main__':
    sys.exit(main())
