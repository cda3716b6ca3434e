#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# I/O runs of several queues (kvperf run io ... queues N [cpus LIST])
# against the kernel target on $KVPERF_ADDR0: one connection and thread
# per queue, bound to the listed CPUs in turn; each result has every
# queue's part, and the parts add up to it exactly (I/Os, minimum,
# maximum, mean, the debugfs histogram); verify passes on every queue;
# the issue's acceptance command prints its interval lines and a
# summary with a line per queue; the limits are refused by name; the
# pinned memory counts every queue; and a run stopped, a server stopped,
# rmmod and the device's removal with all queues' I/Os in flight end in
# bounded time, leaving nothing behind.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "removes a Soft-RoCE device under I/O"
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_ko
kv_require_module
[ "$(nproc)" -ge 2 ] || kv_skip_all "one CPU: the queues' CPUs cannot differ"

addr=$KVPERF_ADDR0
sysfs=/sys/kernel/kvperf
# a device of its own, removed while a run of several queues runs on it
dev8=rxe8
nd8=kvd8
addr8=198.19.8.1
[ -e "/sys/class/infiniband/$dev8" ] && kv_skip_all "$dev8 already exists"
ip link show "$nd8" >/dev/null 2>&1 && kv_skip_all "$nd8 already exists"
debugfs=/sys/kernel/debug/kvperf
kv_track_runs
# shellcheck disable=SC2016 # expanded when the hook runs
kv_on_exit 'kv_module_loaded || kv_insmod'
kv_on_exit "ip link del $nd8 2>/dev/null"
kv_on_exit "rdma link delete $dev8 2>/dev/null"
patient=(timeout "$(kv_scaled 10000)ms")

io() {
	kv_py "$KV_DIR/iolib.py" "$@"
}

# io_run NAME ARGS...: kvperf -j run io ARGS into $KV_TMP/NAME.json.
io_run() {
	local name=$1

	shift
	kv_run "$KV_TMP/$name.json" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 120)" kvperf -j run io addr "$addr" "$@" \
		"${patient[@]}" ||
		{ echo "kvperf -j run io $*: failed"; cat "$KV_TMP/$name.err" "$KV_TMP/$name.json"; return 1; }
}

# want N WHAT REGEX: N of $out's lines match REGEX ("3+": 3 or more), or
# WHAT, the count and N go into the caller's bad.
want() {
	local n min=${1%+}

	n=$(grep -cE "$3" "$out")
	if [ "$min" = "$1" ]; then
		[ "$n" -eq "$min" ]
	else
		[ "$n" -ge "$min" ]
	fi || bad+=("$2: $n lines, want $1")
}

# The issue's acceptance command (its interval in this tool's syntax):
# interval lines, a read and a write block, each with its registration
# share, its CPU per I/O and a line per queue; what is missing is named.
acceptance() {
	local out=$KV_TMP/acc.out bad=() why

	kv_run "$out" "$KV_TMP/acc.err" timeout "$(kv_scaled 120)" \
		kvperf run io addr "$addr" rw randmix 70 bs 4K qd 16 queues 2 \
		time 5 interval 1 "${patient[@]}" ||
		{ echo "the run failed (exit $?):"; cat "$KV_TMP/acc.err" "$out"; return 1; }
	want 1+ "interval lines" '^  \[ *[0-9]+\.[0-9] s\] randmix: IOPS=[0-9]+\.[0-9]{3}, BW=[0-9]+\.[0-9]{3}MiB/s$'
	why=$(kv_interval_lines "$out" randmix 1000) || bad+=("$why")
	want 4 "queue lines" '^  queue [01] \(cpu -\): IOPS=[0-9]+\.[0-9]{3}, [0-9]+ I/Os in [0-9]+\.[0-9]{3} ms, clat \(usec\): avg=[0-9.]+, min=[0-9.]+, 50\.00th=\[[0-9.]+\], 99\.00th=\[[0-9.]+\], max=[0-9.]+$'
	want 1+ "header with queues 2, qd 16, read-pct 70" '^# path kernel, .*queues 2, qd 16, .*read-pct 70'
	want 1+ "read block" '^ read: IOPS=[0-9.]+, BW=[0-9.]+MiB/s \([0-9]+ I/Os of 4096 bytes'
	want 1+ "write block" '^ write: IOPS=[0-9.]+, BW=[0-9.]+MiB/s \([0-9]+ I/Os of 4096 bytes'
	want 2 "percentile lines" '^  clat percentiles \(usec\): 50\.00th='
	want 2 "registration lines" '^  reg \(usec\): avg=[0-9]+\.[0-9]{2}, [0-9]+\.[0-9]{3}% of clat;'
	want 2 "CPU lines" '^  cpu \(usec/IO\): host=[0-9]+\.[0-9]{2}, target=[0-9]+\.[0-9]{2}$'
	[ ${#bad[@]} = 0 ] && return 0
	printf '%s\n' "${bad[@]}"
	cat "$out" "$KV_TMP/acc.err"
	return 1
}

# The same in JSON, 2 s: every queue's part adds up to its result, and
# the debugfs histogram holds all queues' I/Os.
randmix_json() {
	local id

	io_run mixq rw randmix 70 bs 4K qd 16 queues 2 time 2 || return 1
	io run "$KV_TMP/mixq.json" --rw read --read-pct 70 --qd 16 --queues 2 \
		--min-ios 2 --min-elapsed 2000000000 || return 1
	id=$(kv_json_id "$KV_TMP/mixq.json") || return 1
	io hist "$KV_TMP/mixq.json" "$debugfs/runs/$id/histogram"
}

# verify_case NAME IOS ARGS...: IOS verified I/Os over the queues.
verify_case() {
	local name=$1 ios=$2

	shift 2
	io_run "$name" iters $((ios / queues)) verify "$@" || return 1
	io run "$KV_TMP/$name.json" --ios "$ios" --queues "$queues" --verify \
		"${want[@]}"
}

stats_off() {
	io_run offq rw write bs 4K qd 2 queues 2 cpus 0-1 iters 100 \
		stats off || return 1
	io run "$KV_TMP/offq.json" --rw write --qd 2 --queues 2 --cpus 0-1 \
		--ios 200 --stats-off
}

raw_cases=(
	"io, more cpus than queues|EINVAL: kvperf: more cpus than queues: each CPU's thread needs a queue|run-start type=io op=read addr=$addr qps=1 cpus=0-1"
	"io with cpu and cpus|EINVAL: kvperf: cpu and cpus exclude each other|run-start type=io op=read addr=$addr qps=2 cpu=0 cpus=0-1"
	"io with 17 queues|ERANGE: integer out of range|run-start type=io op=read addr=$addr qps=17"
	"io with 0 queues|ERANGE: integer out of range|run-start type=io op=read addr=$addr qps=0"
	"qps on a latency run|EINVAL: kvperf: that attribute applies to bandwidth and I/O runs only|run-start op=send addr=$addr qps=2"
)

server_gone() {
	! kvperf server show "$1" >/dev/null 2>&1
}

# A server on $dev8, and four queues of 16 I/Os on it when the device
# goes: the run fails saying why, every queue's connection and block is
# freed, and the listener on the device stops by itself.
dev_removed() {
	local id sid err start

	ip link add "$nd8" type dummy && ip addr add "$addr8/24" dev "$nd8" &&
		ip link set "$nd8" up &&
		rdma link add "$dev8" type rxe netdev "$nd8" &&
		kv_wait 10 kv_dev_listed "$dev8" || return 1
	sid=$(kvperf server start addr "$addr8" | sed -n 's/^server \([0-9]\+\) .*/\1/p')
	[ -n "$sid" ] || { echo "no server on $addr8"; return 1; }
	id=$(kv_io_start "$addr8" rw write bs 16K qd 16 queues 4) || return 1
	start=$SECONDS
	timeout "$(kv_scaled 60)" rdma link delete "$dev8" ||
		{ echo "rdma link delete $dev8 failed"; return 1; }
	echo "rdma link delete took $((SECONDS - start)) s"
	kv_wait 30 kv_run_ended "$id" || { echo "run $id is $(kv_run_state "$id")"; return 1; }
	err=$(cat "$sysfs/runs/$id/error")
	if [ "$(kv_run_state "$id")" != failed ] ||
	   ! grep -qE 'the RDMA device was removed|the server closed the connection' <<<"$err"; then
		echo "state $(kv_run_state "$id"), error '$err'"
		return 1
	fi
	kv_all_freed || return 1
	kv_wait 5 server_gone "$sid" ||
		{ echo "server $sid still listed after its device went"; return 1; }
	ip link del "$nd8"
}

kv_dmesg_mark
ktap_set_plan $((14 + ${#raw_cases[@]}))

kv_check "server start on $addr" kv_server_start "$addr" ||
	kv_bail "no server"
kv_check "acceptance: randmix 70 bs 4K qd 16 queues 2 time 5 interval 1: interval lines, a read and a write block with the registration share, CPU per I/O and a line per queue" \
	acceptance
kv_check "randmix 70 queues 2 time 2: each queue's part adds up to its result exactly; the histogram agrees" \
	randmix_json
queues=3 want=(--rw read --qd 4 --cpus 0-1)
kv_check "verify read 4 KiB qd 4, queues 3 on cpus 0-1: 300 I/Os, 100 per queue, the CPUs dealt in turn" \
	verify_case q-read 300 rw read bs 4K qd 4 queues 3 cpus 0-1
queues=2 want=(--rw write --bs 131072 --segments 4 --reg pre --cpus 1)
kv_check "verify write 128 KiB in 4 segments, reg pre, queues 2 on cpu 1: 40 I/Os" \
	verify_case q-write 40 rw write bs 128K segments 4 reg pre qd 4 queues 2 cpus 1
kv_check "stats off, queues 2: each queue's I/Os and mean time" stats_off
# (the other usage errors: selftests/usage_test.sh, on the host)
kv_check "queues 17: a usage error, out of range (1 to 16)" \
	kv_usage_error "queues '17' is out of range \(1 to 16\)" \
	run io addr "$addr" queues 17
kv_raw_results raw_cases
# 16 queues of 32 blocks of 1 MiB: 512 MiB on the host side alone.
kv_check "bs 1M qd 32 queues 16: refused, pinned-memory limit" \
	kv_io_pinned_refused "$addr" bs 1M qd 32 queues 16 iters 10
kv_check "run stop with 4 queues of 16 I/Os in flight: stopped within 5 s, freed" \
	kv_io_stop_mid_run "$addr" 8 rw write bs 64K qd 16 queues 4 cpus 0-1
kv_check "server stop with 3 queues of 16 I/Os in flight: the run fails saying so, freed" \
	kv_io_server_stop_mid_run "$addr" rw read bs 4K qd 16 queues 3 verify
kv_check "rmmod with 4 queues of 32 I/Os in flight returns within 10 s; insmod: counters 0" \
	kv_io_rmmod_mid_run "$addr" rw read bs 16K qd 32 queues 4 inv local
kv_check "rdma link delete with 4 queues of 16 I/Os in flight: the run fails saying so, freed, its server gone" \
	dev_removed
kv_check "runs deleted, servers stopped: counters 0" kv_clean_all
kv_dmesg_check
ktap_finished
