#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The limits of servers and latency runs, and malformed requests: what the
# tool can judge alone is a usage error (exit 2), checked on the host
# (selftests/usage_test.sh) and here once; everything else is
# refused by the kernel (exit 1) with its extack message, and the same
# checks hold for raw generic-netlink requests that bypass the tool.
# Range limits, unknown ids, addresses no device has, the listener, run
# and pinned-memory limits; the largest message size works; afterwards a
# run still completes and the module's counters are clean.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "sets the server's limits and reads its state on this host"
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_module

addr=$KVPERF_ADDR0
sysfs=/sys/kernel/kvperf
stall=/sys/kernel/debug/kvperf/stall_servers
pinned_param=/sys/module/kvperf/parameters/max_pinned_mb
[ -w "$stall" ] || kv_skip_all "no $stall (debugfs not mounted?)"
[ -w "$pinned_param" ] || kv_skip_all "no $pinned_param"
max_pinned_mb=$(cat "$pinned_param")
# An address nothing routes to: the run fails at once, resolving it.
nowhere=10.9.9.9

kv_on_exit "echo $max_pinned_mb > $pinned_param"
server_param=/sys/module/kvperf/parameters/max_server_pinned_mb
max_server_pinned_mb=$(cat "$server_param")
kv_on_exit "echo $max_server_pinned_mb > $server_param"
kv_on_exit "echo N > $stall"
kv_on_exit kv_delete_runs
kv_on_exit kv_stop_servers

lat() {
	kv_py "$KV_DIR/latlib.py" "$@"
}

# Runs that must not time out: the default timeout (5000 ms without a
# completion or event), scaled; an overloaded host has stalled even a
# 64-byte ping-pong that long.
patient=(timeout "$(kv_scaled 5000)ms")


# Raw requests the tool would not send, "DESCRIPTION|ANSWER|REQUEST":
# the kernel answers each with ANSWER, "ERRNO: extack message" (an
# extended regex for the whole line).
range="ERANGE: integer out of range"
raw_cases=(
	"run-start size 0|$range|run-start op=send addr=$addr size=0"
	"run-start size 8388609|$range|run-start op=send addr=$addr size=8388609"
	"run-start size-max 8388609|$range|run-start op=send addr=$addr size_max=8388609"
	"run-start iterations 0|$range|run-start op=send addr=$addr iterations=0"
	"run-start iterations 100000001|$range|run-start op=send addr=$addr iterations=100000001"
	"run-start duration-ms 0|$range|run-start op=send addr=$addr duration_ms=0"
	"run-start duration-ms 3600001|$range|run-start op=send addr=$addr duration_ms=3600001"
	"run-start warmup 1000001|$range|run-start op=send addr=$addr warmup=1000001"
	"run-start timeout-ms 9|$range|run-start op=send addr=$addr timeout_ms=9"
	"run-start timeout-ms 600001|$range|run-start op=send addr=$addr timeout_ms=600001"
	"run-start inline 4097|$range|run-start op=send addr=$addr inline=4097"
	"run-start op 3|$range|run-start op=3 addr=$addr"
	"run-start poll 3|$range|run-start op=send addr=$addr poll=3"
	"run-start type 3 (neither lat, bw nor io)|$range|run-start type=3 op=send addr=$addr"
	"run-start port 0|$range|run-start op=send addr=$addr port=0"
	"run-start size-max < size|EINVAL: kvperf: size-max is smaller than size|run-start op=send addr=$addr size=64 size_max=2"
	"run-start iterations and duration-ms|EINVAL: kvperf: iterations and duration-ms exclude each other|run-start op=send addr=$addr iterations=10 duration_ms=1000"
	"run-start tx-depth on a latency run|EINVAL: kvperf: that attribute applies to bandwidth runs only|run-start op=send addr=$addr tx_depth=4"
	"run-start no op|EINVAL: kvperf: missing operation \(send, write or read\)|run-start addr=$addr"
	"run-start no addr|EINVAL: kvperf: missing server address|run-start op=send"
	"run-start an 8-byte address|EINVAL: kvperf: an address is 4 \(IPv4\) or 16 \(IPv6\) bytes|run-start op=send addr=0xc612000100000000"
	"run-start a 3-byte address|ERANGE: binary attribute size out of range|run-start op=send addr=0xc61200"
	"run-start read with inline|EINVAL: kvperf: inline applies to send and write only|run-start op=read addr=$addr inline=64"
	"run-start stats 2|$range|run-start op=send addr=$addr stats=2"
	"run-start bw with stats off|EINVAL: kvperf: stats off applies to latency runs only: bandwidth runs take no per-iteration statistics|run-start type=bw op=write addr=$addr stats=off"
	"run-get id 0|$range|run-get id=0"
	"run-get id 9999|ENOENT: kvperf: no run with that id|run-get id=9999"
	"run-stop id 9999|ENOENT: kvperf: no run with that id|run-stop id=9999"
	"run-delete without id|EINVAL: kvperf: missing run id|run-delete"
	"server-start without addr|EINVAL: kvperf: missing address to listen on|server-start port=3000"
	"server-start on 198.18.5.5|EADDRNOTAVAIL: kvperf: cannot bind: no RDMA device has that address|server-start addr=198.18.5.5"
	"server-start with an all-zero key|EINVAL: kvperf: the key is all zero, which means no key|server-start addr=$addr port=18561 key=0x00000000000000000000000000000000"
	"server-start bidir 2|$range|server-start addr=$addr port=18561 bidir=2"
	"server-stop id 9999|ENOENT: kvperf: no server with that id|server-stop id=9999"
	"server-stop without id|EINVAL: kvperf: missing server id|server-stop"
)

no_such_run() {
	local c

	for c in show stop delete; do
		kv_refused "no run with that id" "No such file or directory" id \
			-- run "$c" 9999 || return 1
	done
}

no_such_server() {
	local c

	for c in show stop; do
		kv_refused "no server with that id" "No such file or directory" id \
			-- server "$c" 9999 || return 1
	done
}

nothing_created() {
	[ "$(kvperf -j run show)" = "[]" ] ||
		{ echo "runs: $(kvperf -j run show)"; return 1; }
	server_count_is 1
}

start_server() {
	local out

	out=$(kvperf -j server start addr "$addr" "$@" 2>&1) ||
		{ echo "$out"; return 1; }
	sed -n 's/^{"id":\([0-9]\+\),.*/\1/p' <<<"$out" | grep -q . ||
		{ echo "unexpected output '$out'"; return 1; }
}

server_count_is() {
	[ "$(cat "$sysfs/server_count")" = "$1" ] && return 0
	echo "server_count $(cat "$sysfs/server_count"), want $1"
	return 1
}

# Eight listeners in all (the one on the default port and seven more);
# the ninth is refused.
listeners() {
	local p

	for p in 3001 3002 3003 3004 3005 3006 3007; do
		start_server port "$p" || return 1
	done
	server_count_is 8 || return 1
	kv_refused "too many listeners \(at most 8\)" "No space left on device" \
		-- server start addr "$addr" port 3008 || return 1
	server_count_is 8
}

stop_extra_servers() {
	local i

	for i in $(kvperf -j server show | grep -o '{"id":[0-9]*,"addr":"[^"]*","port":300[0-9]' |
		   sed 's/{"id":\([0-9]*\),.*/\1/'); do
		kvperf server stop "$i" || { echo "server stop $i failed"; return 1; }
	done
	server_count_is 1
}

pinned_limit() {
	echo 1 >"$pinned_param" || return 1
	kv_refused "pinned-memory limit reached \(module parameter max_pinned_mb\)" \
		"Cannot allocate memory" -- run lat op write addr "$addr" \
		size 4M iters 1
}

# The servers' own pool of 1 MiB: the run's 2 x 512 KiB fit in its
# pool, the server's 2 x 512 KiB and queue entries do not fit in its
# own. Five times: the CM flushes the client's queue pair before it
# reports the reject, and the reject's reason must win that race every
# time.
pinned_server() {
	local rc i err=0

	echo "$max_pinned_mb" >"$pinned_param" || return 1
	echo 1 >"$server_param" || return 1
	for i in 1 2 3 4 5; do
		kv_run "$KV_TMP/out" "$KV_TMP/err" timeout "$(kv_scaled 60)" \
			kvperf run lat op write addr "$addr" size 512K iters 1 \
			"${patient[@]}"
		rc=$?
		if [ "$rc" != 1 ] ||
		   ! grep -qE "^kvperf: run [0-9]+ failed: the server's pinned-memory limit is reached" "$KV_TMP/err"; then
			echo "attempt $i: exit $rc"
			cat "$KV_TMP/err" "$KV_TMP/out"
			err=1
			break
		fi
	done
	echo "$max_server_pinned_mb" >"$server_param"
	[ "$err" = 0 ] || return 1
	grep -qx 0 "$sysfs/pinned_bytes" ||
		{ echo "pinned_bytes $(cat "$sysfs/pinned_bytes") after the runs"; return 1; }
}

largest() {
	kv_run "$KV_TMP/big.json" "$KV_TMP/big.err" timeout "$(kv_scaled 120)" \
		kvperf -j run lat op write addr "$addr" size 8M iters 1 warmup 0 \
		"${patient[@]}" ||
		{ cat "$KV_TMP/big.err" "$KV_TMP/big.json"; return 1; }
	lat run "$KV_TMP/big.json" --state 'done' --sizes 8388608 --iters 1
}

# Eight runs kept in progress by silent servers (they connect, then
# nothing completes before their 600 s timeout, the longest there is, not
# scaled): a ninth is refused.
in_progress() {
	local i out

	echo Y >"$stall" || return 1
	: >"$KV_TMP/busy"
	for i in 1 2 3 4 5 6 7 8; do
		out=$(kvperf -j run lat op send addr "$addr" iters 10 \
		      timeout 600 no-wait 2>&1) ||
			{ echo "run $i: $out"; return 1; }
		sed -n 's/^{"id":\([0-9]\+\)}$/\1/p' <<<"$out" >>"$KV_TMP/busy"
	done
	[ "$(wc -l <"$KV_TMP/busy")" = 8 ] || { echo "8 ids expected"; return 1; }
	kv_refused "too many runs in progress \(at most 8\)" \
		"Device or resource busy" -- run lat op send addr "$addr" \
		iters 10 no-wait
}

all_stopped() {
	local i

	while read -r i; do
		grep -qx stopped "$sysfs/runs/$i/state" || return 1
	done <"$KV_TMP/busy"
}

stop_busy() {
	local i

	while read -r i; do
		kvperf run stop "$i" || { echo "run stop $i failed"; return 1; }
	done <"$KV_TMP/busy"
	echo N >"$stall"
	kv_wait 10 all_stopped ||
		{ echo "not all stopped after $(kv_scaled 10) s:"; kvperf run show | grep '^# run'; return 1; }
}

# Runs that fail at once fill the 32 places; the 33rd run is refused.
kept() {
	local n i

	n=$(cat "$sysfs/run_count")
	for ((i = n; i < 32; i++)); do
		echo "run-start op=send addr=$nowhere iterations=1"
	done | lat nl --retry-busy - >"$KV_TMP/fill.out"
	grep -v '^OK: $' "$KV_TMP/fill.out" && return 1
	[ "$(cat "$sysfs/run_count")" = 32 ] ||
		{ echo "run_count $(cat "$sysfs/run_count"), want 32"; return 1; }
	kv_refused "too many runs kept \(at most 32\): delete finished runs" \
		"No space left on device" -- run lat op send addr "$addr" \
		iters 1 || return 1
	[ "$(cat "$sysfs/run_count")" = 32 ] ||
		{ echo "run_count $(cat "$sysfs/run_count") after the refusal"; return 1; }
}

# Raw run-delete requests, all from one process.
delete_all() {
	find "$sysfs/runs" -mindepth 1 -maxdepth 1 -type d -printf 'run-delete id=%f\n' |
		lat nl - >"$KV_TMP/delete.out"
	grep -v '^OK: $' "$KV_TMP/delete.out" && return 1
	grep -qx 0 "$sysfs/run_count" ||
		{ echo "run_count $(cat "$sysfs/run_count")"; return 1; }
}

still_works() {
	kv_run "$KV_TMP/last.json" "$KV_TMP/last.err" timeout "$(kv_scaled 60)" \
		kvperf -j run lat op send addr "$addr" size 64 iters 100 \
		"${patient[@]}" ||
		{ cat "$KV_TMP/last.err" "$KV_TMP/last.json"; return 1; }
	lat run "$KV_TMP/last.json" --state 'done' --sizes 64 --iters 100
}

counters_zero() {
	local c

	for c in run_count server_count connection_count pinned_bytes; do
		grep -qx 0 "$sysfs/$c" || return 1
	done
}

clean() {
	local i

	delete_all || return 1
	for i in $(kvperf -j server show | grep -o '{"id":[0-9]*' | cut -d: -f2); do
		kvperf server stop "$i" || { echo "server stop $i failed"; return 1; }
	done
	kv_wait 10 counters_zero && return 0
	grep -H . "$sysfs"/*_count "$sysfs/pinned_bytes"
	return 1
}

case "${KVPERF_KVER:-$(uname -r)}" in
6.1.*) belongs="the address belongs to another device" ;;
*) belongs="the address belongs to $KVPERF_DEV0, not $KVPERF_DEV1" ;;
esac

kv_dmesg_mark
ktap_set_plan $((21 + ${#raw_cases[@]}))

kv_check "server start addr $addr" start_server || kv_bail "no server"

# What the tool judges alone: exit 2, no run. Checked on the host
# (selftests/usage_test.sh); one here shows the installed tool refusing
# in the guest: the size one beyond the largest, which completes below.
kv_check "size 8388609: usage error" \
	kv_usage_error "out of range" run lat op send addr "$addr" size 8388609
kv_check "cpu 9999: refused, 'that CPU is not online'" \
	kv_refused "that CPU is not online" "Invalid argument" cpu \
	-- run lat op send addr "$addr" cpu 9999
kv_check "run show/stop/delete 9999: 'no run with that id'" no_such_run
kv_check "server show/stop 9999: 'no server with that id'" no_such_server
kv_check "server start on 198.18.5.5: 'cannot bind: no RDMA device has that address'" \
	kv_refused "cannot bind: no RDMA device has that address" \
	"Cannot assign requested address" -- server start addr 198.18.5.5
kv_check "server start dev $KVPERF_DEV1 addr $addr: '$belongs'" \
	kv_refused "$belongs" "Invalid argument" \
	-- server start dev "$KVPERF_DEV1" addr "$addr" port 3000
kv_check "server start on $addr twice: 'address and port already in use'" \
	kv_refused "address and port already in use" "Address already in use" \
	-- server start addr "$addr"
kv_check "8 listeners; the 9th: 'too many listeners (at most 8)'" listeners
kv_check "the 7 extra listeners stop" stop_extra_servers
kv_check "max_pinned_mb 1, size 4M: 'pinned-memory limit reached'" pinned_limit
kv_check "max_server_pinned_mb 1, size 512K: the server's own limit fails the run (5 times)" \
	pinned_server
kv_check "size 8M, the largest, completes" largest
kv_check "8 runs in progress; the 9th: 'too many runs in progress (at most 8)'" \
	in_progress
kv_check "the 8 runs stop" stop_busy
kv_check "32 runs kept; the 33rd: 'too many runs kept (at most 32)'" kept
kv_check "all runs delete (raw run-delete)" delete_all

# The kernel's own checks, without the tool's: one raw request each.
kv_raw_results raw_cases
kv_check "nothing was created by the refused requests" nothing_created
kv_check "afterwards a 100-iteration run completes" still_works
kv_check "runs deleted, server stopped: counters are 0" clean
kv_dmesg_check

ktap_finished
