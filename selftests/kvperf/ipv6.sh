#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IPv6 end to end, on the guest's IPv6 addresses ($KVPERF_ADDR6_0 on
# rxe0, $KVPERF_ADDR6_1 on rxe1): a kernel server started on an IPv6
# address says so with the address in brackets, and server show (text
# and JSON) has it, and a live connection's IPv6 peer (the run held at
# its first message by the stall_servers hook while it is looked at);
# latency runs of send, write and read and bandwidth runs, from a
# kernel-path and a user-path client, against the kernel's server and a
# user-path server, complete with the iterations and sizes asked, no
# mismatches with verify, and report the IPv6 address in JSON and in run
# show's text; the user-path server prints each IPv6 peer in brackets;
# kvperf compare lat and bw run over IPv6 (perftest as a column where it
# can reach IPv6 with RDMA CM, left out with the reason where it cannot);
# the kernel log stays clean and the module's counters are back to 0.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "runs between two local devices by IPv6"
[ -x "$PY" ] || kv_skip_all "no $PY"
if [ -z "${KVPERF_ADDR6_0:-}" ] || [ -z "${KVPERF_ADDR6_1:-}" ]; then
	kv_skip_all "no KVPERF_ADDR6_0/1 (a guest without IPv6 addresses)"
fi
kv_require_module

stall=/sys/kernel/debug/kvperf/stall_servers
[ -w "$stall" ] || kv_skip_all "no $stall (debugfs not mounted?)"
kv_on_exit "echo N > $stall"

a0=$KVPERF_ADDR6_0	# rxe0: the kernel's server
a1=$KVPERF_ADDR6_1	# rxe1: a user-path server
kport=18515
uport=18600
cport=18700		# compare's own servers: 18700, 18701, 18702
sysfs=/sys/kernel/kvperf
kv_track_runs
# Runs that must not time out: the default timeout (5000 ms without a
# completion), scaled. On the debug kernel a user-path client of 3
# queue pairs, polling busily on the two vCPUs beside the kernel server,
# had no completion for 5 s.
patient=(timeout "$(kv_scaled 5000)ms")

lat() {
	kv_py "$KV_DIR/latlib.py" "$@"
}

bw() {
	kv_py "$KV_DIR/bwlib.py" "$@"
}

cmp() {
	kv_py "$KV_DIR/comparelib.py" "$@"
}

# addr:port as kvperf prints an endpoint: an IPv6 address in brackets
endpoint() {
	echo "[$1]:$2"
}


# run_json NAME ARGS...: kvperf -j run ARGS into $KV_TMP/NAME.json (a
# kernel-path run's id noted for deletion); fails unless it exits 0.
run_json() {
	local name=$1

	shift
	kv_run_json "$name" 150 kvperf -j run "$@"
}

show_json() {
	sed 's/^/json: /' "$KV_TMP/$1.json" | cut -c1-2000
}

# The device that owns each address, as the runs must report it.
dev_of() {
	case "$1" in
	"$a0") echo "$KVPERF_DEV0" ;;
	"$a1") echo "$KVPERF_DEV1" ;;
	esac
}

# lat_case NAME PATH OP ADDR PORT: 100 iterations of 64 B from PATH's
# client (verified for send and write): done, each size's
# iterations, ordered statistics, no mismatches, and the run's address,
# port and device are the IPv6 server's.
lat_case() {
	local name=$1 path=$2 op=$3 addr=$4 port=$5 v=() check=()

	[ "$op" != read ] && v=(verify) && check=(--verify)
	run_json "$name" lat op "$op" addr "$addr" port "$port" \
		size 64 iters 100 "${v[@]}" path "$path" "${patient[@]}" ||
		return 1
	lat run "$KV_TMP/$name.json" --state 'done' --op "$op" --iters 100 \
		--sizes 64 --max-err-ppm 10000 "${check[@]}" \
		--field path="$path" --field addr="$addr" \
		--field port="$port" --field dev="$(dev_of "$addr")" &&
		return 0
	show_json "$name"
	return 1
}

# bw_case NAME PATH OP ADDR PORT QPS: QPS queue pairs of 100 messages of
# 16 KiB each (verified for send and write): exactly QPS x 100 messages,
# the server's count of a send run, and the IPv6 address in the run.
bw_case() {
	local name=$1 path=$2 op=$3 addr=$4 port=$5 qps=$6 v=() check=()

	[ "$op" != read ] && v=(verify) && check=(--verify)
	run_json "$name" bw op "$op" addr "$addr" port "$port" \
		size 16384 iters 100 qps "$qps" "${v[@]}" path "$path" \
		"${patient[@]}" || return 1
	bw run "$KV_TMP/$name.json" --state 'done' --op "$op" --qps "$qps" \
		--iters 100 --sizes 16384 "${check[@]}" --field path="$path" \
		--field addr="$addr" --field port="$port" \
		--field dev="$(dev_of "$addr")" && return 0
	show_json "$name"
	return 1
}

# server start addr IPv6: "server N listening on [ADDR]:PORT"
start_server() {
	local out

	out=$(kvperf server start addr "$a0" port "$kport" 2>&1) ||
		{ echo "$out"; return 1; }
	# the server's id, for what follows, even when the text is wrong
	[[ $out =~ ^server\ ([0-9]+)\ listening\ on\ (.*)$ ]] &&
		echo "${BASH_REMATCH[1]}" >"$KV_TMP/server"
	[ "${BASH_REMATCH[2]:-}" = "$(endpoint "$a0" "$kport")" ] && return 0
	echo "unexpected output: '$out'"
	echo "want: 'server N listening on $(endpoint "$a0" "$kport")'"
	return 1
}

srv() {
	kv_py "$KV_DIR/serverlib.py" "$@"
}

state() {
	cat "$sysfs/runs/$1/state" 2>/dev/null
}

# server show without a run: text and JSON have the server on its IPv6
# address, with no connection.
server_idle() {
	local id want got

	id=$(cat "$KV_TMP/server")
	want="$id: $(endpoint "$a0" "$kport") dev $KVPERF_DEV0 conns 0"
	# the first line; a module that reports its settings adds lines
	got=$(kvperf server show 2>&1 | head -n 1)
	[ "$got" = "$want" ] ||
		{ echo "server show: '$got'"; echo "want: '$want'"; return 1; }
	kvperf -j server show >"$KV_TMP/servers.json" ||
		{ echo "kvperf -j server show failed"; return 1; }
	srv server "$KV_TMP/servers.json" "$id" "$a0" "$kport" "$KVPERF_DEV0" &&
		srv conns "$KV_TMP/servers.json" "$id="
}

# While a latency run is connected (held at its first message by the
# stall_servers hook, so that it is seen whatever the host's load),
# server show lists its connection, the peer an IPv6 address: in text
# "peer [ADDR]:PORT op send ...". Released, the run ends done.
live_peer() {
	local rc id

	echo Y >"$stall" || return 1
	live_peer_seen
	rc=$?
	echo N >"$stall"
	[ -s "$KV_TMP/live.id" ] || return 1
	id=$(cat "$KV_TMP/live.id")
	kv_wait 120 grep -qxE 'done|failed|stopped' "$sysfs/runs/$id/state"
	[ "$(state "$id")" = 'done' ] && return "$rc"
	kvperf run show "$id"
	return 1
}

live_peer_seen() {
	local out id sid

	sid=$(cat "$KV_TMP/server")
	out=$(kvperf -j run lat op send addr "$a0" port "$kport" size 64 \
	      iters 100 poll softirq timeout "$(kv_scaled 20)" \
	      no-wait 2>&1) || { echo "$out"; return 1; }
	id=$(sed -n 's/^{"id":\([0-9]\+\)}$/\1/p' <<<"$out")
	[ -n "$id" ] || { echo "no-wait printed '$out'"; return 1; }
	echo "$id" >>"$KV_IDS"
	echo "$id" >"$KV_TMP/live.id"
	if ! kv_wait 60 grep -qx running "$sysfs/runs/$id/state"; then
		echo "run $id not running: $(state "$id")"
		return 1
	fi
	kvperf -j server show >"$KV_TMP/live.json" &&
		kvperf server show >"$KV_TMP/live.txt" || return 1
	if [ "$(state "$id")" != running ]; then
		echo "run $id $(state "$id") before the server was seen"
		kvperf run show "$id"
		return 1
	fi
	srv conns "$KV_TMP/live.json" --family 6 "$sid=send/64" || return 1
	if ! grep -qxF "$sid: $(endpoint "$a0" "$kport") dev $KVPERF_DEV0 conns 1" "$KV_TMP/live.txt" ||
	   ! grep -Eqx '    peer \[[0-9a-f:]+\]:[0-9]+ op send size_max 64 iterations [0-9]+' "$KV_TMP/live.txt"; then
		echo "server show, want 'conns 1' and 'peer [IPv6]:PORT op send size_max 64 ...':"
		cat "$KV_TMP/live.txt"
		return 1
	fi
}

# run show's text title has the IPv6 endpoint in brackets.
show_title() {
	local name=$1 op=$2 id want got

	id=$(kv_json_id "$KV_TMP/$name.json") || { echo "no run id"; return 1; }
	want="# run $id: lat $op to $(endpoint "$a0" "$kport") dev $KVPERF_DEV0, verify, state done"
	got=$(kvperf run show "$id" 2>&1 | head -n 1)
	[ "$got" = "$want" ] && return 0
	echo "run show $id: '$got'"
	echo "want: '$want'"
	return 1
}

# bw's text output: the title with the IPv6 endpoint, the table as run
# show has it.
bw_text() {
	local id

	kv_run "$KV_TMP/bwtext.txt" "$KV_TMP/bwtext.err" timeout 150 \
		kvperf run bw op write addr "$a0" port "$kport" size 4096 \
		iters 200 qps 2 "${patient[@]}" ||
		{ cat "$KV_TMP/bwtext.err" "$KV_TMP/bwtext.txt"; return 1; }
	id=$(sed -n 's/^# run \([0-9]\+\): .*/\1/p' "$KV_TMP/bwtext.txt")
	[ -n "$id" ] || { echo "no title:"; cat "$KV_TMP/bwtext.txt"; return 1; }
	echo "$id" >>"$KV_IDS"
	kvperf -j run show "$id" >"$KV_TMP/bwtext.json" || return 1
	bw table "$KV_TMP/bwtext.txt" "$KV_TMP/bwtext.json" ||
		{ cat "$KV_TMP/bwtext.txt"; return 1; }
}

# The user-path server printed "server listening on [ADDR]:PORT (user
# path), " and its settings, then a line per connection, each peer an IPv6 endpoint in
# brackets, with the op of the client; WANT lists "TYPE OP" per line.
user_server_lines() {
	local want=$1 got

	[[ "$(head -n 1 "$srv_out")" == "server listening on $(endpoint "$a1" "$uport") (user path), "* ]] ||
		{ echo "first line:"; head -n 1 "$srv_out"; return 1; }
	got=$(sed -n 's/^connection [0-9]\+ from \[[0-9a-f:]\+\]:[0-9]\+: \(lat\|bw\) \([a-z]\+\),.*/\1 \2/p' \
	      "$srv_out")
	[ "$got" = "$want" ] && return 0
	echo "want:"
	echo "$want"
	echo "got (every line of the server):"
	cat "$srv_out"
	return 1
}

# perftest reaches an IPv6 RDMA CM server where its usage lists
# --ipv6-addr; compare leaves it out otherwise, saying why.
perftest_ipv6() {
	command -v ib_send_lat >/dev/null &&
		ib_send_lat --help 2>&1 | grep -q -- '--ipv6-addr'
}

compare_lat() {
	local paths=kernel,user out=$KV_TMP/cmp-lat.out

	perftest_ipv6 && paths=kernel,user,perftest
	kv_run "$out" "$KV_TMP/cmp-lat.err" timeout 600 kvperf compare lat \
		op send addr "$a0" port "$cport" size 64 rounds 1 iters 100 ||
		{ cat "$KV_TMP/cmp-lat.err" "$out"; return 1; }
	cmp table "$out" lat send 1 "$paths" 64 || { cat "$out"; return 1; }
	if [ "$paths" = kernel,user ] && command -v ib_send_lat >/dev/null &&
	   ! grep -q '; perftest off (ib_send_lat [^ ]* reaches an RDMA CM server over IPv4 only: it has no --ipv6-addr)$' "$out"; then
		echo "the header does not say why perftest is left out:"
		cat "$out"
		return 1
	fi
}

compare_bw() {
	local out=$KV_TMP/cmp-bw.out

	kv_run "$out" "$KV_TMP/cmp-bw.err" timeout 600 kvperf -j compare bw \
		op write addr "$a1" port "$cport" sizes 4096-8192 rounds 1 \
		iters 200 no-perftest ||
		{ cat "$KV_TMP/cmp-bw.err" "$out"; return 1; }
	cmp json "$out" bw write 1 kernel,user 4096,8192 ||
		{ cut -c1-2000 "$out"; return 1; }
}

counters_zero() {
	local c

	for c in run_count server_count connection_count pinned_bytes; do
		[ "$(cat "$sysfs/$c")" = 0 ] || return 1
	done
}

clean_up() {
	local id rc=0

	while read -r id; do
		kvperf run delete "$id" || { echo "run delete $id failed"; rc=1; }
	done < <(sort -un "$KV_IDS")
	: >"$KV_IDS"
	kvperf server stop "$(cat "$KV_TMP/server")" ||
		{ echo "server stop failed"; rc=1; }
	if ! kv_wait 10 counters_zero; then
		grep . "$sysfs"/run_count "$sysfs"/server_count \
			"$sysfs"/connection_count "$sysfs"/pinned_bytes
		rc=1
	fi
	return "$rc"
}

ops="send write read"
# server start, show, live peer (3); against the kernel server: lat, 3
# ops x 2 clients (6), run show's title (1), bw from 2 clients and the
# text table (3); against the user server: lat from the kernel (3), bw
# from both clients (2), its lines (1); compare lat and bw (2); counters
# (1); kernel log (1)
ktap_set_plan $((3 + 6 + 1 + 3 + 3 + 2 + 1 + 2 + 1 + 1))
kv_dmesg_mark

kv_check "server start addr $a0: 'server N listening on $(endpoint "$a0" "$kport")'" \
	start_server
[ -s "$KV_TMP/server" ] || kv_bail "no server, no runs"
kv_on_exit "kvperf server stop $(cat "$KV_TMP/server")"
kv_check "server show: '$(endpoint "$a0" "$kport") dev $KVPERF_DEV0 conns 0' in text, addr $a0 in JSON" \
	server_idle
kv_check "server show while a run is connected: 1 connection, its peer IPv6 in JSON and '[ADDR]:PORT' in text" \
	live_peer

for op in $ops; do
	kv_check "kernel client, kernel server: lat $op over IPv6, 64 B x 100, JSON addr $a0" \
		lat_case "k2k-lat-$op" kernel "$op" "$a0" "$kport"
	kv_check "user client, kernel server: lat $op over IPv6, 64 B x 100, JSON addr $a0" \
		lat_case "u2k-lat-$op" user "$op" "$a0" "$kport"
done
kv_check "run show: '# run N: lat send to $(endpoint "$a0" "$kport") dev $KVPERF_DEV0, verify, state done'" \
	show_title k2k-lat-send send
kv_check "kernel client, kernel server: bw write over IPv6, 16 KiB x 100 x 2 QPs, verified" \
	bw_case k2k-bw-write kernel write "$a0" "$kport" 2
kv_check "user client, kernel server: bw send over IPv6, 16 KiB x 100 x 3 QPs, verified, the server's count" \
	bw_case u2k-bw-send user send "$a0" "$kport" 3
kv_check "run bw's text over IPv6: '# run N: bw write to $(endpoint "$a0" "$kport") ...' and the table of run show" \
	bw_text

srv_out=$KV_TMP/user-server.out
kvperf server start addr "$a1" port "$uport" path user >"$srv_out" 2>&1 &
srv_pid=$!
kv_on_exit "kill $srv_pid"
listening() {
	grep -q "^server listening on " "$srv_out"
}
kv_wait 30 listening ||
	kv_bail "the user-path server on $a1 did not listen: $(cat "$srv_out")"

for op in $ops; do
	kv_check "kernel client, user server: lat $op over IPv6, 64 B x 100, JSON addr $a1" \
		lat_case "k2u-lat-$op" kernel "$op" "$a1" "$uport"
done
kv_check "kernel client, user server: bw read over IPv6, 16 KiB x 100 x 2 QPs" \
	bw_case k2u-bw-read kernel read "$a1" "$uport" 2
kv_check "user client, user server: bw write over IPv6, 16 KiB x 100 x 1 QP, verified" \
	bw_case u2u-bw-write user write "$a1" "$uport" 1
kv_check "user server: 'server listening on $(endpoint "$a1" "$uport") (user path)', then each IPv6 peer in brackets with its op" \
	user_server_lines "$(printf '%s\n' 'lat send' 'lat write' 'lat read' \
		'bw read' 'bw read' 'bw write')"
kill -TERM "$srv_pid"
wait "$srv_pid"

kv_check "compare lat op send over IPv6: kernel and user columns (perftest where it reaches IPv6, else the reason in the header)" \
	compare_lat
kv_check "compare -j bw op write sizes 4K-8K over IPv6 no-perftest: a row per size, each consistent" \
	compare_bw
kv_check "runs deleted, servers stopped: run_count, server_count, connection_count, pinned_bytes are 0" \
	clean_up
kv_dmesg_check

ktap_finished
