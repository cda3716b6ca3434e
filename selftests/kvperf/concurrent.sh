#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two measuring runs at once, and what the servers say about them. Two
# kernel servers listen, on $KVPERF_ADDR0 (rxe0) and $KVPERF_ADDR1
# (rxe1). Pairs of kernel-path runs are started together with no-wait:
# two latency runs and two bandwidth runs against the two servers, then
# two of each against the same server. Each pair is held at the start
# line by the debugfs stall_servers hook (the servers accept the
# connections, then answer nothing), so that both runs are seen in state
# running at the same moment whatever the load of the host, and the
# servers are counted then: kvperf -j server show must list exactly the
# live connections the pair made (a latency run one, a bandwidth run one
# per queue pair; the op and size of each) and sysfs's connection_count
# twice as many (client and server side). Released together, both runs
# then measure at the same time and end done with the iterations, sizes
# and queue pairs asked, no mismatches (verify) and ordered statistics;
# the servers' connections drop to 0; and once the runs are deleted and
# the servers stopped, the module's counters are back to 0 and the kernel
# log is clean.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "runs between two local devices"
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_module

sysfs=/sys/kernel/kvperf
stall=/sys/kernel/debug/kvperf/stall_servers
[ -w "$stall" ] || kv_skip_all "no $stall (debugfs not mounted?)"
kv_on_exit "echo N > $stall"
kv_track_runs
# The runs' silence timeout: long enough for a pair held at the start
# and counted on a slow host.
silence=$(($(kv_scaled 20) * 1000))

lat() {
	kv_py "$KV_DIR/latlib.py" "$@"
}

bw() {
	kv_py "$KV_DIR/bwlib.py" "$@"
}

srv() {
	kv_py "$KV_DIR/serverlib.py" "$@"
}

state() {
	cat "$sysfs/runs/$1/state" 2>/dev/null
}

# start_server N ADDR DEV: a kernel server on ADDR, its id in
# $KV_TMP/srvN; server show has it, on DEV, with no connection.
start_server() {
	local n=$1 addr=$2 dev=$3 out id

	out=$(kvperf server start addr "$addr" 2>&1) ||
		{ echo "$out"; return 1; }
	[[ $out =~ ^server\ ([0-9]+)\ listening\ on\ (.*)$ ]] ||
		{ echo "unexpected output: '$out'"; return 1; }
	id=${BASH_REMATCH[1]}
	echo "$id" >"$KV_TMP/srv$n"
	[ "${BASH_REMATCH[2]}" = "$addr:18515" ] ||
		{ echo "'$out', want 'server $id listening on $addr:18515'"; return 1; }
	kvperf -j server show >"$KV_TMP/servers.json" || return 1
	srv server "$KV_TMP/servers.json" "$id" "$addr" 18515 "$dev" &&
		srv conns "$KV_TMP/servers.json" "$id="
}

# start NAME TYPE ARGS...: kvperf -j run TYPE ARGS no-wait; the run's id
# in $KV_TMP/NAME.id.
start() {
	local name=$1 type=$2 out id

	shift 2
	out=$(kvperf -j run "$type" "$@" no-wait 2>&1) ||
		{ echo "kvperf -j run $type $* no-wait: $out"; return 1; }
	id=$(sed -n 's/^{"id":\([0-9]\+\)}$/\1/p' <<<"$out")
	[ -n "$id" ] || { echo "no-wait printed '$out', want {\"id\":N}"; return 1; }
	echo "$id" >>"$KV_IDS"
	echo "$id" >"$KV_TMP/$name.id"
}

# pair A TYPE ARGS... -- B TYPE ARGS...: with the servers stalled, start
# runs A and B at the same time (two no-wait requests in parallel), with
# the silence timeout and softirq polling: busy-polling run threads
# waiting for stalled servers would take both vCPUs from this script.
pair() {
	local a=("$1" "$2") b=() pa pb ra rb

	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		a+=("$1")
		shift
	done
	shift
	b=("$@")
	echo Y >"$stall" || return 1
	start "${a[@]}" timeout "${silence}ms" poll softirq &
	pa=$!
	start "${b[@]}" timeout "${silence}ms" poll softirq &
	pb=$!
	wait "$pa"
	ra=$?
	wait "$pb"
	rb=$?
	[ "$ra" = 0 ] && [ "$rb" = 0 ]
}

both_running() {
	[ "$(state "$1")" = running ] && [ "$(state "$2")" = running ]
}

# Both runs are running, or one of them has ended (waiting longer would
# not see them overlap).
running_or_ended() {
	both_running "$1" "$2" || ended "$1" || ended "$2"
}

ended() {
	case "$(state "$1")" in
	done | failed | stopped) return 0 ;;
	esac
	return 1
}

# overlap A B CONNS SPEC...: runs A and B (names) are in state running at
# the same moment, and a server show taken while both still run (they
# were running before and after it) lists exactly the connections of
# SPEC (serverlib.py conns), with sysfs's connection_count CONNS x 2.
# Then the servers are released, whatever the outcome.
overlap() {
	local rc

	count "$@"
	rc=$?
	echo N >"$stall"
	return "$rc"
}

count() {
	local a b want=$3 cc tries=0

	a=$(cat "$KV_TMP/$1.id") && b=$(cat "$KV_TMP/$2.id") || return 1
	shift 3
	if ! kv_wait 60 running_or_ended "$a" "$b" ||
	   ! both_running "$a" "$b"; then
		echo "runs $a and $b were never seen running at once:" \
			"$a $(state "$a"), $b $(state "$b")"
		kvperf run show "$a"
		kvperf run show "$b"
		return 1
	fi
	while :; do
		tries=$((tries + 1))
		if both_running "$a" "$b"; then
			kvperf -j server show >"$KV_TMP/snap.json" &&
				cc=$(cat "$sysfs/connection_count") &&
				both_running "$a" "$b" && break
		fi
		if ended "$a" || ended "$b"; then
			echo "a run ended before the servers could be counted" \
				"while both ran ($tries tries):" \
				"$a $(state "$a"), $b $(state "$b")"
			return 1
		fi
		sleep 0.1
	done
	echo "runs $a and $b both running, counted at try $tries" \
		"($(date +%T.%N | cut -c1-12))" >"$KV_TMP/overlap.msg"
	srv conns "$KV_TMP/snap.json" "$@" || return 1
	[ "$cc" = $((2 * want)) ] && return 0
	echo "connection_count $cc while both ran, want $((2 * want))" \
		"($want client and $want server connections)"
	return 1
}

# What overlap saw, as a KTAP diagnostic.
show_overlap() {
	[ -s "$KV_TMP/overlap.msg" ] && ktap_print_msg "$(cat "$KV_TMP/overlap.msg")"
	rm -f "$KV_TMP/overlap.msg"
}

# finish NAME CHECKER ARGS...: run NAME ends; its JSON from run show
# passes CHECKER's run check with ARGS.
finish() {
	local name=$1 check=$2 id

	shift 2
	id=$(cat "$KV_TMP/$name.id") || return 1
	if ! kv_wait 120 ended "$id"; then
		echo "run $id still $(state "$id") after 120 s"
		return 1
	fi
	kvperf -j run show "$id" >"$KV_TMP/$name.json" ||
		{ echo "run show $id failed"; return 1; }
	"$check" run "$KV_TMP/$name.json" --state 'done' "$@" && return 0
	cut -c1-2000 "$KV_TMP/$name.json"
	return 1
}

servers_idle() {
	kvperf -j server show >"$KV_TMP/idle.json" &&
		srv conns "$KV_TMP/idle.json" "$(cat "$KV_TMP/srv0")=" \
			"$(cat "$KV_TMP/srv1")=" >/dev/null &&
		[ "$(cat "$sysfs/connection_count")" = 0 ]
}

# After a pair: no server keeps a connection, nothing is connected.
idle() {
	kv_wait 10 servers_idle && return 0
	srv conns "$KV_TMP/idle.json" "$(cat "$KV_TMP/srv0")=" \
		"$(cat "$KV_TMP/srv1")="
	echo "connection_count $(cat "$sysfs/connection_count")"
	return 1
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
	for s in srv0 srv1; do
		kvperf server stop "$(cat "$KV_TMP/$s")" ||
			{ echo "server stop $(cat "$KV_TMP/$s") failed"; rc=1; }
	done
	[ "$(kvperf -j run show)" = "[]" ] ||
		{ echo "runs left: $(kvperf -j run show)"; rc=1; }
	[ "$(kvperf -j server show)" = "[]" ] ||
		{ echo "servers left: $(kvperf -j server show)"; rc=1; }
	if ! kv_wait 10 counters_zero; then
		grep . "$sysfs"/run_count "$sysfs"/server_count \
			"$sysfs"/connection_count "$sysfs"/pinned_bytes
		rc=1
	fi
	return "$rc"
}

# 2 servers; 4 pairs x (both started, overlap and accounting, 2 results,
# idle after); counters; kernel log
ktap_set_plan $((2 + 4 * 5 + 2))
kv_dmesg_mark

kv_check "server start addr $KVPERF_ADDR0: listening, server show has it on $KVPERF_DEV0 with 0 connections" \
	start_server 0 "$KVPERF_ADDR0" "$KVPERF_DEV0"
[ -s "$KV_TMP/srv0" ] || kv_bail "no server on $KVPERF_ADDR0"
kv_on_exit "kvperf server stop $(cat "$KV_TMP/srv0")"
kv_check "server start addr $KVPERF_ADDR1: listening, server show has it on $KVPERF_DEV1 with 0 connections" \
	start_server 1 "$KVPERF_ADDR1" "$KVPERF_DEV1"
[ -s "$KV_TMP/srv1" ] || kv_bail "no server on $KVPERF_ADDR1"
kv_on_exit "kvperf server stop $(cat "$KV_TMP/srv1")"
s0=$(cat "$KV_TMP/srv0")
s1=$(cat "$KV_TMP/srv1")

# (a) two servers, latency
kv_check "lat to two servers: send 64 B x 300 to $KVPERF_ADDR0 and write 4 KiB x 200 to $KVPERF_ADDR1 started together with no-wait" \
	pair a-lat-0 lat op send addr "$KVPERF_ADDR0" size 64 iters 300 verify \
		-- a-lat-1 lat op write addr "$KVPERF_ADDR1" size 4096 iters 200 verify
kv_check "lat to two servers: both running at once; server show: 1 connection on each (send/64, write/4096), connection_count 4" \
	overlap a-lat-0 a-lat-1 2 "$s0=send/64" "$s1=write/4096"
show_overlap
kv_check "lat to two servers: send run done, 300 iterations of 64 B, no mismatches, ordered statistics" \
	finish a-lat-0 lat --op send --iters 300 --sizes 64 --verify \
	--max-err-ppm 10000 --field addr="$KVPERF_ADDR0" --field dev="$KVPERF_DEV0"
kv_check "lat to two servers: write run done, 200 iterations of 4 KiB, no mismatches, ordered statistics" \
	finish a-lat-1 lat --op write --iters 200 --sizes 4096 --verify \
	--max-err-ppm 10000 --field addr="$KVPERF_ADDR1" --field dev="$KVPERF_DEV1"
kv_check "lat to two servers: after the runs, server show has 0 connections, connection_count 0" \
	idle

# (a) two servers, bandwidth
kv_check "bw to two servers: write 64 KiB x 100 x 2 QPs to $KVPERF_ADDR0 and send 16 KiB x 200 x 3 QPs to $KVPERF_ADDR1 started together with no-wait" \
	pair a-bw-0 bw op write addr "$KVPERF_ADDR0" size 65536 iters 100 qps 2 verify \
		-- a-bw-1 bw op send addr "$KVPERF_ADDR1" size 16384 iters 200 qps 3 verify
kv_check "bw to two servers: both running at once; server show: 2 connections (write/64K) and 3 (send/16K), connection_count 10" \
	overlap a-bw-0 a-bw-1 5 "$s0=write/65536*2" "$s1=send/16384*3"
show_overlap
kv_check "bw to two servers: write run done, 2 x 100 messages of 64 KiB, no mismatches" \
	finish a-bw-0 bw --op write --qps 2 --iters 100 --sizes 65536 --verify \
	--field addr="$KVPERF_ADDR0"
kv_check "bw to two servers: send run done, 3 x 200 messages of 16 KiB, all counted by the server, no mismatches" \
	finish a-bw-1 bw --op send --qps 3 --iters 200 --sizes 16384 --verify \
	--field addr="$KVPERF_ADDR1"
kv_check "bw to two servers: after the runs, server show has 0 connections, connection_count 0" \
	idle

# (b) one server, latency
kv_check "lat to one server: write 64 B x 300 and send 1 KiB x 300 to $KVPERF_ADDR0 started together with no-wait" \
	pair b-lat-0 lat op write addr "$KVPERF_ADDR0" size 64 iters 300 verify \
		-- b-lat-1 lat op send addr "$KVPERF_ADDR0" size 1024 iters 300 verify
kv_check "lat to one server: both running at once; server show: 2 connections on it (write/64, send/1024), none on the other, connection_count 4" \
	overlap b-lat-0 b-lat-1 2 "$s0=write/64,send/1024" "$s1="
show_overlap
kv_check "lat to one server: write run done, 300 iterations of 64 B, no mismatches, ordered statistics" \
	finish b-lat-0 lat --op write --iters 300 --sizes 64 --verify \
	--max-err-ppm 10000
kv_check "lat to one server: send run done, 300 iterations of 1 KiB, no mismatches, ordered statistics" \
	finish b-lat-1 lat --op send --iters 300 --sizes 1024 --verify \
	--max-err-ppm 10000
kv_check "lat to one server: after the runs, server show has 0 connections, connection_count 0" \
	idle

# (b) one server, bandwidth
kv_check "bw to one server: read 16 KiB x 100 x 2 QPs and write 64 KiB x 50 x 4 QPs to $KVPERF_ADDR0 started together with no-wait" \
	pair b-bw-0 bw op read addr "$KVPERF_ADDR0" size 16384 iters 100 qps 2 \
		-- b-bw-1 bw op write addr "$KVPERF_ADDR0" size 65536 iters 50 qps 4 verify
kv_check "bw to one server: both running at once; server show: 6 connections on it (read/16K x 2, write/64K x 4), connection_count 12" \
	overlap b-bw-0 b-bw-1 6 "$s0=read/16384*2,write/65536*4" "$s1="
show_overlap
kv_check "bw to one server: read run done, 2 x 100 messages of 16 KiB" \
	finish b-bw-0 bw --op read --qps 2 --iters 100 --sizes 16384
kv_check "bw to one server: write run done, 4 x 50 messages of 64 KiB, no mismatches" \
	finish b-bw-1 bw --op write --qps 4 --iters 50 --sizes 65536 --verify
kv_check "bw to one server: after the runs, server show has 0 connections, connection_count 0" \
	idle

kv_check "runs deleted, servers stopped: run_count, server_count, connection_count, pinned_bytes are 0" \
	clean_up
kv_dmesg_check

ktap_finished
