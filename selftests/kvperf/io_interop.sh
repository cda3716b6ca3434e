#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# I/O runs across the paths: the kernel's host (kvperf run io) against
# the user-path target (kvperf server start ... path user). verify passes
# for reads and writes of 512 B, 4 KiB, 128 KiB and 1 MiB (in 4 segments
# from 4 KiB on), with the blocks registered per I/O and invalidated by
# the target or by the host, and registered once at connect; a random mix
# with in-capsule writes passes too. The user target checks what it is
# written: with a payload corrupted on its side (its fault injection), a
# verified write run fails with the target's mismatch. The target reports
# its CPU time, and the server prints a line per connection; it exits 0
# on SIGTERM, and the kernel log stays clean.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_vm
kv_require_root
kv_require_cli
kv_require_rxe
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_module

addr=$KVPERF_ADDR0
uport=18610		# the user-path target
fport=18611		# the one that corrupts what it checks
kv_track_runs
patient=(timeout "$(kv_scaled 10000)ms")

io() {
	kv_py "$KV_DIR/iolib.py" "$@"
}

# io_case NAME ARGS...: a kernel host's run io against the user target,
# into $KV_TMP/NAME.json, deleted from the module once read.
io_case() {
	local name=$1 rc

	shift
	kv_run_json "$name" "$(kv_scaled 120)" kvperf -j run io addr "$addr" \
		port "$uport" "$@" "${patient[@]}"
	rc=$?
	[ -r "$KV_TMP/$name.id" ] &&
		kvperf run delete "$(cat "$KV_TMP/$name.id")" >/dev/null 2>&1
	return $rc
}

# verify_case RW BS REG [INV]: IOS verified I/Os at qd 4, in 4 segments
# from 4 KiB on.
verify_case() {
	local rw=$1 bs=$2 reg=$3 inv=${4:-} name segs=4 ios=40 args

	[ "$bs" = 512 ] && segs=1
	[ "$bs" = 1M ] && ios=8
	name=v-$rw-$bs-$reg${inv:+-$inv}
	args=(rw "$rw" bs "$bs" reg "$reg" segments "$segs" qd 4 iters "$ios"
	      verify)
	[ -n "$inv" ] && args+=(inv "$inv")
	io_case "$name" "${args[@]}" || return 1
	io run "$KV_TMP/$name.json" --rw "$rw" --bs "$(numfmt --from=iec "$bs")" \
		--reg "$reg" ${inv:+--inv "$inv"} --segments "$segs" --qd 4 \
		--ios "$ios" --verify
}

listening() {
	grep -q "^server listening on $addr:$1 (user path)" "$2"
}

cases=0
for rw in read write; do
	for bs in 512 4K 128K 1M; do
		cases=$((cases + 3))
	done
done
# the cases, the mix, the corrupted write, the lines, two exits, the log
ktap_set_plan $((cases + 6))
kv_dmesg_mark

srv_out=$KV_TMP/user-target.out
kvperf server start addr "$addr" port "$uport" path user >"$srv_out" 2>&1 &
srv_pid=$!
kv_on_exit "kill $srv_pid"
kv_wait 30 listening "$uport" "$srv_out" ||
	kv_bail "the user-path server did not listen: $(cat "$srv_out")"

for rw in read write; do
	for bs in 512 4K 128K 1M; do
		kv_check "kernel host, user target: verify $rw $bs, reg frwr, inv remote" \
			verify_case "$rw" "$bs" frwr remote
		kv_check "kernel host, user target: verify $rw $bs, reg frwr, inv local" \
			verify_case "$rw" "$bs" frwr local
		kv_check "kernel host, user target: verify $rw $bs, reg pre" \
			verify_case "$rw" "$bs" pre
	done
done

# 400 I/Os, 70 % reads, writes of up to 4 KiB in their commands.
mix_case() {
	io_case mix rw randmix 70 bs 4K segments 2 qd 16 iters 400 \
		inline-data 4K verify || return 1
	io run "$KV_TMP/mix.json" --rw read --read-pct 70 --segments 2 \
		--qd 16 --ios 400 --inline-data 4096 --verify
}
kv_check "kernel host, user target: randmix 70, inline-data 4K, 400 verified I/Os" \
	mix_case

# A target that corrupts the first payload it checks: the host's verified
# write run fails with the target's word for it.
corrupted() {
	local out=$KV_TMP/fault-target.out pid rc id
	local want="the target found written data that differ from the pattern (verify)"

	KVPERF_FAULT_CORRUPT_PAYLOADS=1 kvperf server start addr "$addr" \
		port "$fport" path user >"$out" 2>&1 &
	pid=$!
	kv_wait 30 listening "$fport" "$out" ||
		{ kill "$pid"; cat "$out"; return 1; }
	kv_run "$KV_TMP/fault.json" "$KV_TMP/fault.err" \
		timeout "$(kv_scaled 120)" kvperf -j run io addr "$addr" \
		port "$fport" rw write bs 4K qd 1 iters 20 verify "${patient[@]}"
	rc=$?
	kill -TERM "$pid"
	wait "$pid"
	id=$(kv_json_id "$KV_TMP/fault.json") &&
		kvperf run delete "$id" >/dev/null 2>&1
	if [ "$rc" = 0 ] || ! grep -qF "$want" "$KV_TMP/fault.err"; then
		echo "exit $rc, want a failure saying '$want'"
		cat "$KV_TMP/fault.err" "$KV_TMP/fault.json"
		return 1
	fi
}
kv_check "a user target that finds a written payload wrong fails the host's run" \
	corrupted

# One line per connection, in order, with the run's type and op (a mixed
# run's op is read on the wire).
want_conns() {
	local rw bs

	for rw in read write; do
		for bs in 512 4K 128K 1M; do
			printf 'io %s\n' "$rw" "$rw" "$rw"
		done
	done
	echo "io read"
}

server_lines() {
	kv_server_conns "$srv_out" "$(want_conns)"
}
kv_check "user target: a line per connection, io and its op ($((cases + 1)))" \
	server_lines

no_errors() {
	! grep -i "ended\|error" "$srv_out"
}
kv_check "user target: no connection ended in error" no_errors

kill -TERM "$srv_pid"
wait "$srv_pid"
rc=$?
kv_result "user target: exits 0 on SIGTERM" "$rc" \
	"the user-path server exited with $rc"
kv_dmesg_check

ktap_finished
