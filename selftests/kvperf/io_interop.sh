#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# I/O runs across the paths: the kernel's host (kvperf run io) against
# the user-path target (kvperf server start ... path user), the user
# path's host (run io ... path user) against the kernel's target and
# against the user-path target. verify passes for reads and writes of
# 512 B, 4 KiB, 128 KiB and 1 MiB (in 4 segments from 4 KiB on): the
# kernel host's with its blocks registered per I/O and invalidated by the
# target or by itself, and registered once at connect; the user host's
# registered once (it has no FRWR), and with memory windows (reg mw, 512
# B and 128 KiB) bound per I/O and invalidated by the target or by
# itself, against either target, the windows' binding and invalidation a part of the
# I/Os' time; the kernel host refuses reg mw. Random mixes with in-capsule writes
# pass on two queues, the user host's bound to CPUs; the user host's
# stats off works. Each side checks what it is given: a user target that
# corrupts a payload it checks fails the host's verified write run with
# the target's mismatch, and a user host that corrupts a read it checks
# counts it. Each target reports its CPU time, the user target prints a
# line per connection and exits 0 on SIGTERM, and the kernel log stays
# clean.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "the user-path target runs on this host"
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_module

addr=$KVPERF_ADDR0
uport=18610		# the user-path target
fport=18611		# the one that corrupts what it checks
kport=18515		# the kernel's target (the default)
kv_track_runs
patient=(timeout "$(kv_scaled 10000)ms")

io() {
	kv_py "$KV_DIR/iolib.py" "$@"
}

# io_case NAME PORT ARGS...: run io against addr:PORT into
# $KV_TMP/NAME.json; a kernel host's run is deleted from the module once
# read.
io_case() {
	local name=$1 port=$2 rc

	shift 2
	kv_run_json "$name" "$(kv_scaled 120)" kvperf -j run io addr "$addr" \
		port "$port" "$@" "${patient[@]}"
	rc=$?
	[ -r "$KV_TMP/$name.id" ] &&
		kvperf run delete "$(cat "$KV_TMP/$name.id")" >/dev/null 2>&1
	return $rc
}

# verify_case HOST PORT RW BS REG [INV]: verified I/Os at qd 4, 40 (1 MiB:
# 8), in 4 segments from 4 KiB on, by the HOST path's host.
verify_case() {
	local host=$1 port=$2 rw=$3 bs=$4 reg=$5 inv=${6:-} name segs=4 ios=40
	local args

	[ "$bs" = 512 ] && segs=1
	[ "$bs" = 1M ] && ios=8
	name=v-$host-$port-$rw-$bs-$reg${inv:+-$inv}
	args=(rw "$rw" bs "$bs" segments "$segs" qd 4 iters "$ios" verify
	      path "$host")
	# the user path registers once without being told
	[ "$host" = kernel ] || [ "$reg" != pre ] && args+=(reg "$reg")
	[ -n "$inv" ] && args+=(inv "$inv")
	io_case "$name" "$port" "${args[@]}" || return 1
	io run "$KV_TMP/$name.json" --rw "$rw" --bs "$(numfmt --from=iec "$bs")" \
		--reg "$reg" ${inv:+--inv "$inv"} --segments "$segs" --qd 4 \
		--ios "$ios" --verify
}

# mix_case HOST PORT: 400 I/Os on each of 2 queues at qd 8, 70 % reads,
# writes of up to 4 KiB in their commands; the user host's queues bound to
# CPUs 0 and 1.
mix_case() {
	local host=$1 port=$2 name=mix-$1-$2 reg=frwr cpus=()

	if [ "$host" = user ]; then
		reg=pre
		cpus=(cpus 0-1)
	fi
	io_case "$name" "$port" rw randmix 70 bs 4K segments 2 qd 8 queues 2 \
		"${cpus[@]}" iters 400 inline-data 4K verify path "$host" ||
		return 1
	io run "$KV_TMP/$name.json" --rw read --read-pct 70 --segments 2 \
		--qd 8 --queues 2 ${cpus:+--cpus 0-1} --ios 800 \
		--inline-data 4096 --reg "$reg" --verify
}

listening() {
	grep -q "^server listening on $addr:$1 (user path)" "$2"
}

# the sizes of the verify matrix: below a page, a page and the largest
# on the full lane; the feature lane (lib.sh's kv_full_lane) takes one
# below a page and one of several segments
sizes="512 4K 1M"
kv_full_lane || sizes="512 128K"
n=$(wc -w <<<"$sizes")
# the memory windows' sizes, a user host's alone: the same on every lane
mw_sizes="512 128K"
nmw=$(wc -w <<<"$mw_sizes")
# Kernel refusals, raw: "DESC|WANT|REQUEST".
mw_raw=(
	"io with reg mw|ERANGE: integer out of range|run-start type=io op=read addr=$addr reg=mw"
)
# kernel host, user target: 3 registrations x 2 x N sizes, the mix;
# user host, kernel target: 2 x N sizes, the mix, stats off; user host,
# user target: 2 x 2 sizes, the mix; user host, reg mw: 2 targets x 2 x
# 2 sizes x 2 invalidations, its shares, the kernel's refusals; the
# corrupted write and read, the lines, no error, the exit, the log
ktap_set_plan $((6 * n + 1 + 2 * n + 2 + 4 + 1 + 8 * nmw + 1 + ${#mw_raw[@]} + 2 + 4))
kv_dmesg_mark

srv_out=$KV_TMP/user-target.out
kvperf server start addr "$addr" port "$uport" path user >"$srv_out" 2>&1 &
srv_pid=$!
kv_on_exit "kill $srv_pid"
kv_wait 30 listening "$uport" "$srv_out" ||
	kv_bail "the user-path server did not listen: $(cat "$srv_out")"
out=$(kvperf server start addr "$addr" port "$kport" 2>&1) ||
	kv_bail "server start addr $addr: $out"
kid=$(echo "$out" | sed -n 's/^server \([0-9]\+\) listening.*/\1/p')
kv_on_exit "kvperf server stop $kid"

# 1. kernel host, user target
for rw in read write; do
	for bs in $sizes; do
		kv_check "kernel host, user target: verify $rw $bs, reg frwr, inv remote" \
			verify_case kernel "$uport" "$rw" "$bs" frwr remote
		kv_check "kernel host, user target: verify $rw $bs, reg frwr, inv local" \
			verify_case kernel "$uport" "$rw" "$bs" frwr local
		kv_check "kernel host, user target: verify $rw $bs, reg pre" \
			verify_case kernel "$uport" "$rw" "$bs" pre
	done
done
kv_check "kernel host, user target: randmix 70, inline-data 4K, 2 queues x 400 verified I/Os" \
	mix_case kernel "$uport"

# 2. user host, kernel target
for rw in read write; do
	for bs in $sizes; do
		kv_check "user host, kernel target: verify $rw $bs, registered once" \
			verify_case user "$kport" "$rw" "$bs" pre
	done
done
kv_check "user host, kernel target: randmix 70, inline-data 4K, 2 queues on cpus 0-1 x 400 verified I/Os" \
	mix_case user "$kport"

stats_off() {
	io_case off "$kport" rw read bs 4K qd 8 iters 300 stats off \
		path user || return 1
	io run "$KV_TMP/off.json" --rw read --qd 8 --ios 300 --reg pre \
		--stats-off
}
kv_check "user host, kernel target: stats off, 300 I/Os, the mean alone" \
	stats_off

# 3. user host, user target
for rw in read write; do
	for bs in 4K 1M; do
		kv_check "user host, user target: verify $rw $bs, registered once" \
			verify_case user "$uport" "$rw" "$bs" pre
	done
done
kv_check "user host, user target: randmix 70, inline-data 4K, 2 queues on cpus 0-1 x 400 verified I/Os" \
	mix_case user "$uport"

# 4. user host, memory windows: against each target, invalidated by it
# or by the host
for port in "$kport" "$uport"; do
	[ "$port" = "$kport" ] && target=kernel || target=user
	for rw in read write; do
		for bs in $mw_sizes; do
			for inv in remote local; do
				kv_check "user host, $target target: verify $rw $bs, reg mw, inv $inv" \
					verify_case user "$port" "$rw" "$bs" mw "$inv"
			done
		done
	done
done

# Binding and invalidating the windows are parts of the I/Os' time, as
# the kernel host's FRWR registration and LOCAL_INV are.
mw_shares() {
	io_case mw-shares "$kport" rw read bs 4K qd 4 iters 200 reg mw \
		inv local path user || return 1
	io run "$KV_TMP/mw-shares.json" --rw read --qd 4 --ios 200 \
		--reg mw --inv local || return 1
	kv_py - "$KV_TMP/mw-shares.json" <<'EOF'
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    res = json.load(f)["results"][0]
parts = {k: res.get(k) for k in ("reg_ns", "inv_ns", "reg_pct", "inv_pct")}
if not all(parts.values()) or float(parts["reg_pct"]) <= 0 or \
        float(parts["inv_pct"]) <= 0:
    sys.exit(f"reg mw, inv local: want every part above 0, got {parts}")
EOF
}
kv_check "user host, reg mw, inv local, -j stats on: reg_ns, inv_ns and their shares above 0" \
	mw_shares

# The kernel host has no memory windows: the module says so itself.
kv_raw_results mw_raw

# A target that corrupts the first payload it checks: the host's verified
# write run fails with the target's word for it.
corrupted_write() {
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
	corrupted_write

# A user host that corrupts the first read it checks counts it, once.
corrupted_read() {
	KVPERF_FAULT_CORRUPT_PAYLOADS=1 io_case fault-read "$kport" rw read \
		bs 4K qd 2 iters 30 verify path user || return 1
	io run "$KV_TMP/fault-read.json" --rw read --qd 2 --ios 30 --reg pre \
		--verify --mismatches 1
}
kv_check "a user host that finds a read's data wrong counts it: mismatches 1" \
	corrupted_read

# One line per connection, in order, with the run's type and op (a mixed
# run's op is read on the wire, and it has a connection per queue).
want_conns() {
	local rw bs

	for rw in read write; do
		for bs in $sizes; do
			printf 'io %s\n' "$rw" "$rw" "$rw"
		done
	done
	printf 'io read\nio read\n'
	for rw in read write; do
		printf 'io %s\n' "$rw" "$rw"
	done
	printf 'io read\nio read\n'
	for rw in read write; do
		for bs in $mw_sizes; do
			printf 'io %s\n' "$rw" "$rw"
		done
	done
}
server_lines() {
	kv_server_conns "$srv_out" "$(want_conns)"
}
kv_check "user target: a line per connection, io and its op ($((6 * n + 4 * nmw + 8)))" \
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
