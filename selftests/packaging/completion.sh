#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user/kvperf.bash-completion, sourced by a plain bash (no
# bash-completion package, no module needed), offers what kvperf help
# documents: the objects after "kvperf ", the commands of each object,
# exactly the keywords of each command and the values of each keyword
# that has named ones (read from the built user/kvperf's help by
# cli_words.py); abbreviated words resolve as kvperf resolves them; and
# device names and run and server ids come from kvperf -j ... show (a
# fake kvperf here), or nothing when the module is not loaded. KTAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/kvperf-completion.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"

# shellcheck source=user/kvperf.bash-completion
. "$top/user/kvperf.bash-completion"

# shellcheck source=selftests/packaging/offers.sh
. "$top/selftests/packaging/offers.sh"

# expect WANT WORD...: add a line to $tmp/why unless WORDS offer WANT;
# returns whether they did
expect() {
	local want=$1
	shift
	offers "$@"
	same "$want" "$got" && return 0
	echo "'$*': want '$want', got '$got'" >>"$tmp/why"
	return 1
}

# check NAME: a result from the expect calls since the last check
check() {
	local rc=0
	[ -s "$tmp/why" ] && rc=1
	result "$rc" "$1" "$tmp/why"
	rm -f "$tmp/why"
}

echo "TAP version 13"
echo "1..12"

complete -p kvperf 2>&1 | grep -q -- '-F _kvperf kvperf'
result $? "sourcing it registers _kvperf for kvperf"

# the words of kvperf help, as lines: "objects WORD...", "commands OBJ
# WORD...", "keywords OBJ CMD WORD...", "values OBJ CMD KW WORD...",
# "flags OBJ CMD WORD..."
python3 "$top/selftests/packaging/cli_words.py" help "$top/user/kvperf" \
	>"$tmp/help.json" 2>"$tmp/why" &&
python3 - "$tmp/help.json" >"$tmp/words" 2>>"$tmp/why" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
print('objects', *w['objects'])
for obj, cmds in w['commands'].items():
    if obj != 'help':
        print('commands', obj, *cmds)
for key, kws in w['keywords'].items():
    parts = key.split()
    if len(parts) < 2 or not kws:
        continue
    print('keywords', *parts, *kws)
    for kw, vals in kws.items():
        if vals:
            print('values', *parts, kw, *vals)
PY
check "kvperf help's words are read (cli_words.py help)"

objects=$(sed -n 's/^objects //p' "$tmp/words")
expect "$objects help" kvperf ""
offers kvperf ""
for o in dev server run; do
	[[ " $got " == *" $o "* ]] ||
		echo "'kvperf ' does not offer $o" >>"$tmp/why"
done
expect "$objects help" kvperf -j -p ""
expect "$objects" kvperf help ""
expect "-j --json -p --pretty -V --version -h --help" kvperf -
check "after 'kvperf ' it offers dev, server, run: every object of kvperf help"

while read -r _ obj cmds; do
	expect "$cmds" kvperf "$obj" ""
done < <(grep '^commands ' "$tmp/words")
check "after 'kvperf OBJECT ' it offers the commands of kvperf OBJECT help"

expect "send write read" kvperf run lat op ""
expect "send write read" kvperf r l o ""
expect "write" kvperf -j run bw op w
check "after 'kvperf run lat op ' it offers exactly send write read"

# compare io takes run io's keywords (kvperf compare help says which
# not), and its synopsis says only [RUN-IO-KEYWORDS...]
while read -r _ obj cmd kws; do
	[ "$obj $cmd" = "compare io" ] && continue
	expect "$kws" kvperf "$obj" "$cmd" ""
done < <(grep '^keywords ' "$tmp/words")
check "after 'kvperf OBJECT COMMAND ' it offers exactly the command's keywords"

while read -r _ obj cmd kw vals; do
	expect "$vals" kvperf "$obj" "$cmd" "$kw" ""
done < <(grep '^values ' "$tmp/words")
check "after a keyword with named values it offers exactly those (op, poll, rw, reg, inv, path, stats, post-context, sizes)"

runio=$(sed -n 's/^keywords run io //p' "$tmp/words")
cmpio=$(for k in $runio rounds remote; do
		case $k in path | no-wait | interval | key | key-file | bss) ;;
		*) echo "$k" ;;
		esac
	done)
expect "$cmpio" kvperf compare io ""
check "after 'kvperf compare io ' it offers run io's keywords that compare io takes, rounds and remote"

# a keyword given is not offered again, a flag takes no value, allow
# repeats; abbreviated keywords resolve as kvperf resolves them (po is
# port, pol poll)
lat=$(sed -n 's/^keywords run lat //p' "$tmp/words")
expect "$(tr ' ' '\n' <<<"$lat" | grep -vx op)" kvperf run lat op send ""
expect "$(tr ' ' '\n' <<<"$lat" | grep -vx verify)" kvperf run lat verify ""
expect "" kvperf run lat verify po ""
expect "busy softirq workqueue" kvperf run lat verify pol ""
expect "busy softirq workqueue" kvperf run bw o send addr 198.18.0.1 poll ""
expect "" kvperf run io rw randmix ""
expect "qd queues" kvperf run io rw randmix 70 q
expect "any" kvperf server start allow any allow ""
expect "kernel user" kvperf s sta pa ""
check "keywords given are not offered again; flags, randmix PCT and abbreviations"

# the orders abbreviations resolve in are the parser's tables' orders
python3 "$top/selftests/packaging/cli_words.py" tables "$top/user" \
	>"$tmp/tables.json" 2>"$tmp/why" &&
python3 - "$tmp/tables.json" >"$tmp/order" 2>>"$tmp/why" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
print(*t['objects'])
print(*t['keywords']['run'])
print(*t['keywords']['server start'])
print(*t['keywords']['compare'])
PY
{
	read -r want_obj
	read -r want_run
	read -r want_server
	read -r want_cmp
} <"$tmp/order"
for pair in "_kvperf_objects:$want_obj help" "_kvperf_run_kw:$want_run" \
	    "_kvperf_server_start:$want_server" "_kvperf_cmp_kw:$want_cmp"; do
	var=${pair%%:*}
	want=${pair#*:}
	read -ra words <<<"$(tr '\n\t' '  ' <<<"${!var}")"
	have=${words[*]}
	[ "$have" = "$want" ] ||
		echo "$var: '$have', the parser's order: '$want'" >>"$tmp/why"
done
check "its keyword lists are in the parser's order, so abbreviations resolve alike"

# a fake kvperf that answers the shows with what the module would
cat >"$tmp/kvperf" <<'EOF'
#!/bin/sh
case "$*" in
"-j dev show") echo '[{"ifindex":3,"ifname":"rxe0","node_type":"RNIC"},{"ifindex":4,"ifname":"mlx5_1"}]' ;;
"-j run show") echo '[{"id":3,"state":"done","op":"send"},{"id":12,"state":"running"}]' ;;
"-j server show") echo '[{"id":1,"addr":"198.18.0.1","port":18515,"conns":[]}]' ;;
*) exit 2 ;;
esac
EOF
chmod +x "$tmp/kvperf"
fake=$tmp/kvperf
expect "mlx5_1 rxe0" "$fake" dev show ""
expect "rxe0" "$fake" -j dev show r
expect "mlx5_1 rxe0" "$fake" server start dev ""
expect "3 12" "$fake" run stop ""
expect "3 12" "$fake" run delete ""
expect "3 12" "$fake" run show ""
expect "1" "$fake" server stop ""
expect "1" "$fake" server show ""
expect "" "$fake" run stop 3 ""
check "device names after dev show and dev, ids after stop, delete and show"

# with a kvperf that fails (no module), nothing is offered and nothing said
offers "$top/user/kvperf" dev show "" 2>"$tmp/nomod"
nomod=$got
if [ -d /sys/module/kvperf ]; then
	n=$((n + 1))
	echo "ok $n without the module it offers no device and no id # SKIP the kvperf module is loaded here"
else
	offers "$top/user/kvperf" run stop "" 2>>"$tmp/nomod"
	nomod+=$got
	offers "$top/user/kvperf" server stop "" 2>>"$tmp/nomod"
	nomod+=$got
	echo "offered: '$nomod'" >>"$tmp/nomod"
	[ -z "$nomod" ] && [ "$(wc -l <"$tmp/nomod")" -eq 1 ]
	result $? "without the module it offers no device and no id, and says nothing" \
		"$tmp/nomod"
fi
[ "$fail" -eq 0 ]
