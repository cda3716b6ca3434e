#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The limits of bandwidth runs: what the tool can judge alone (the spec's
# ranges of tx-depth, qps, post-list, signal-every and interval, the form
# of a CPU list, warm-up times, keywords of run bw alone) is a usage
# error (exit 2), checked on the host (selftests/usage_test.sh) and here
# once, on both paths; everything else is refused by the kernel (exit 1)
# with its extack message, and the same holds for raw generic-netlink
# requests that bypass the tool, policy ranges included; refused requests
# create nothing. A CPU list naming a CPU that is offline, or that the
# machine does not have, is refused as not online. The pinned-memory
# limit refuses a run that does not fit at start (and takes one that
# fits exactly) and fails one the server cannot take; the server's 16
# connections per listener fail the 17th; a failed run frees what it had
# connected. The shortest and longest intervals work. A run that names no
# timeout gets one from what it can have in flight (1 ms per KiB, 5 s to
# 120 s): a 1 MiB bidir read that outlasts a fixed 5 s passes with it, and
# a silent server (the debugfs stall_servers hook) fails a run after that
# derived time, not before and not much later.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "sets the module's fault switches and limits on both ends of a connection"
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_module

addr=$KVPERF_ADDR0
sysfs=/sys/kernel/kvperf
debugfs=/sys/kernel/debug/kvperf
pinned_param=/sys/module/kvperf/parameters/max_pinned_mb
[ -w "$pinned_param" ] || kv_skip_all "no $pinned_param"
[ -d "$debugfs/runs" ] || kv_skip_all "no $debugfs (debugfs not mounted?)"
stall=$debugfs/stall_servers
[ -w "$stall" ] || kv_skip_all "no $stall"
max_pinned_mb=$(cat "$pinned_param")
ncpus=$(getconf _NPROCESSORS_CONF)
cpu1_online=/sys/devices/system/cpu/cpu1/online

kv_on_exit "echo $max_pinned_mb > $pinned_param"
kv_on_exit "echo N > $stall"
server_param=/sys/module/kvperf/parameters/max_server_pinned_mb
max_server_pinned_mb=$(cat "$server_param")
kv_on_exit "echo $max_server_pinned_mb > $server_param"
[ -w "$cpu1_online" ] && kv_on_exit "echo 1 > $cpu1_online"
kv_on_exit kv_delete_runs
kv_on_exit kv_stop_servers

bw() {
	kv_py "$KV_DIR/bwlib.py" "$@"
}

lat() {
	kv_py "$KV_DIR/latlib.py" "$@"
}

run_count() {
	cat "$sysfs/run_count"
}

# refused MSG STRERROR [ATTR] -- ARGS...: kv_refused, and no run created.
refused() {
	local n

	n=$(run_count)
	kv_refused "$@" || return 1
	[ "$(run_count)" = "$n" ] ||
		{ echo "kvperf: run_count $n -> $(run_count)"; return 1; }
}

einval="Invalid argument"
bwrun=(run bw op send addr "$addr")

# The CPU list names a CPU the machine does not have (beyond
# nr_cpu_ids): as for cpu 9999, it is not online.
cpus_absent() {
	refused "cpus names a CPU that is not online" "$einval" \
		"cpus \"$ncpus\"" -- "${bwrun[@]}" qps 2 cpus "$ncpus"
}

# A CPU that exists but is offline.
cpus_offline() {
	local rc=0

	echo 0 >"$cpu1_online" || { echo "cannot take CPU 1 offline"; return 1; }
	refused "cpus names a CPU that is not online" "$einval" 'cpus "0-1"' \
		-- "${bwrun[@]}" qps 2 cpus 0-1 || rc=1
	echo 1 >"$cpu1_online" || { echo "cannot bring CPU 1 back"; return 1; }
	return "$rc"
}

start_server() {
	local out

	out=$(kvperf -j server start addr "$addr" "$@" 2>&1) ||
		{ echo "$out"; return 1; }
	sed -n 's/^{"id":\([0-9]\+\),.*/\1/p' <<<"$out" | grep -q . ||
		{ echo "unexpected output '$out'"; return 1; }
}

freed() {
	grep -qx 0 "$sysfs/connection_count" && grep -qx 0 "$sysfs/pinned_bytes"
}

all_freed() {
	kv_wait 20 freed && return 0
	echo "$(kv_scaled 20) s later: connection_count $(cat "$sysfs/connection_count")," \
		"pinned_bytes $(cat "$sysfs/pinned_bytes")"
	return 1
}

state_of() {
	cat "$sysfs/runs/$1/state" 2>/dev/null
}

# Runs that must not time out: the default timeout (5000 ms without a
# completion), scaled. Deep queues of large messages on several queue
# pairs complete a signaled batch only every qps x 100 messages, which a
# loaded host can stretch past 5 s.
patient=(timeout "$(kv_scaled 5000)ms")

# A run that holds connections and pins until stopped: days of messages
# under TCG, its thread asleep between completions. Nothing here checks
# its timeout, and it must outlive every other run of the test on a host
# that may starve the guest: a minute without a completion, scaled.
holder=(iters 100000000 poll workqueue)
holder_patience=(timeout "$(kv_scaled 60000)ms")

# start_long NAME ARGS...: kvperf -j run bw ARGS no-wait, measuring; its
# id in $KV_TMP/NAME.id.
start_long() {
	local name=$1 out id

	shift
	out=$(kvperf -j run bw "$@" "${holder_patience[@]}" no-wait 2>&1) ||
		{ echo "kvperf -j run bw $* no-wait: $out"; return 1; }
	id=$(sed -n 's/^{"id":\([0-9]\+\)}$/\1/p' <<<"$out")
	[ -n "$id" ] || { echo "no-wait printed '$out'"; return 1; }
	echo "$id" >"$KV_TMP/$name.id"
	kv_wait 30 grep -qx running "$sysfs/runs/$id/state" ||
		{ echo "run $id not running after $(kv_scaled 30) s:"; kvperf run show "$id"; return 1; }
}

stop_long() {
	local id

	id=$(cat "$KV_TMP/$1.id") || return 1
	kvperf run stop "$id" || return 1
	kv_wait 15 grep -qx stopped "$sysfs/runs/$id/state" && return 0
	echo "run $id $(state_of "$id") $(kv_scaled 15) s after run stop:"
	kvperf run show "$id"
	return 1
}

# run_fails NAME REGEX ARGS...: kvperf run bw ARGS exits 1 with "kvperf:
# run N failed: " and a reason matching REGEX.
run_fails() {
	local name=$1 re=$2 rc id

	shift 2
	kv_run "$KV_TMP/$name.out" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 90)" kvperf run bw "$@" "${patient[@]}"
	rc=$?
	id=$(sed -n 's/^# run \([0-9]\+\): .*/\1/p' "$KV_TMP/$name.out")
	if [ "$rc" != 1 ] ||
	   ! grep -qE "^kvperf: run $id failed: ($re)" "$KV_TMP/$name.err"; then
		echo "kvperf run bw $*: exit $rc, want 1 and 'run N failed: $re'"
		cat "$KV_TMP/$name.err" "$KV_TMP/$name.out"
		return 1
	fi
}

# run_done NAME ARGS...: kvperf -j run bw ARGS is done.
run_done() {
	local name=$1

	shift
	kv_run "$KV_TMP/$name.json" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 90)" kvperf -j run bw "$@" "${patient[@]}" ||
		{ cat "$KV_TMP/$name.err" "$KV_TMP/$name.json"; return 1; }
}

pinned_is() {
	grep -qx "$1" "$sysfs/pinned_bytes"
}

# With pins held by a small run, qps 16 x 2 x 8 MiB (256 MiB, all of the
# default limit) does not fit: refused at start.
pinned_limit() {
	local rc=0

	all_freed || return 1
	start_long hold op write addr "$addr" size 64 "${holder[@]}" ||
		return 1
	refused "pinned-memory limit reached \(module parameter max_pinned_mb\)" \
		"Cannot allocate memory" -- "${bwrun[@]}" qps 16 size 8M || rc=1
	refused "pinned-memory limit reached \(module parameter max_pinned_mb\)" \
		"Cannot allocate memory" -- "${bwrun[@]}" qps 16 sizes 2-8M || rc=1
	stop_long hold || rc=1
	return "$rc"
}

# max_pinned_mb 2 for runs, max_server_pinned_mb 1 for the server's
# connections: 3 queue pairs of 128 KiB messages pin 768 KiB and their
# queue entries on each side, done. 4 fit the run but not the server
# (1 MiB of buffers and their queue entries), which refuses a
# connection: the run fails and frees what it had. 9 (2.25 MiB) are
# refused at start.
pinned_small() {
	local rc=0

	all_freed || return 1
	echo 2 >"$pinned_param" || return 1
	echo 1 >"$server_param" || return 1
	if run_done pin3 op write addr "$addr" size 128K iters 50 qps 3; then
		bw run "$KV_TMP/pin3.json" --state 'done' --qps 3 --iters 50 || rc=1
	else
		rc=1
	fi
	run_fails pin4 "the server's pinned-memory limit is reached" \
		op write addr "$addr" size 128K iters 50 qps 4 || rc=1
	all_freed || rc=1
	refused "pinned-memory limit reached \(module parameter max_pinned_mb\)" \
		"Cannot allocate memory" -- "${bwrun[@]}" size 128K qps 9 || rc=1
	echo "$max_pinned_mb" >"$pinned_param"
	echo "$max_server_pinned_mb" >"$server_param"
	return "$rc"
}

conn_count_is() {
	grep -qx "$1" "$sysfs/connection_count"
}

# 14 of the listener's 16 connections taken by a run: a run of 4 queue
# pairs gets 2 and fails on the third, freeing its 2 (the first run's 28
# connections and pins are all that is left); a run of 2 takes the last
# two and is done.
server_conns() {
	local rc=0 pin=$((2 * 14 * 2 * 4096))

	all_freed || return 1
	start_long fourteen op write addr "$addr" size 64 qps 14 \
		"${holder[@]}" || return 1
	conn_count_is 28 || { echo "connection_count $(cat "$sysfs/connection_count"), want 28"; rc=1; }
	pinned_is "$pin" || { echo "pinned_bytes $(cat "$sysfs/pinned_bytes"), want $pin"; rc=1; }
	run_fails conn17 "the server has too many connections" \
		op write addr "$addr" size 64 iters 50 qps 4 || rc=1
	if ! kv_wait 20 conn_count_is 28 || ! pinned_is "$pin"; then
		echo "after the failed run: connection_count $(cat "$sysfs/connection_count"), pinned_bytes $(cat "$sysfs/pinned_bytes"), want 28 and $pin"
		rc=1
	fi
	if run_done conn16 op write addr "$addr" size 64 iters 50 qps 2; then
		bw run "$KV_TMP/conn16.json" --state 'done' --qps 2 --iters 50 || rc=1
	else
		rc=1
	fi
	stop_long fourteen || rc=1
	all_freed || rc=1
	return "$rc"
}

# The queue is deeper than the device takes: only where max_qp_wr is
# small enough (rxe's is not).
max_qp_wr() {
	local wr

	wr=$(kvperf -j dev show "$KVPERF_DEV0" | sed -n 's/.*"max_qp_wr":\([0-9]*\).*/\1/p')
	if [ -z "$wr" ] || [ "$wr" -gt 4200 ]; then
		kv_skip "tx-depth above the device's max_qp_wr fails the run" \
			"$KVPERF_DEV0's max_qp_wr ${wr:-?} is above the deepest queue (4096)"
		return
	fi
	kv_check "tx-depth 4096 above max_qp_wr $wr: 'the queue depth exceeds the device's max_qp_wr'" \
		run_fails deepq "the queue depth exceeds the device's max_qp_wr" \
		op write addr "$addr" size 64 iters 10 tx-depth 4096
}

# interval 10, the shortest: windows of about 10 ms; interval 60000, the
# longest, in a 1 s run: no window at all, the peak is the average. A
# loaded host stretches the windows, never shrinks them: the median's
# upper bound grows with the time scale and the count of windows in the
# 0.5 s shrinks by it; the lower bound stays.
intervals() {
	local id rc=0

	run_done short op write addr "$addr" size 4096 time 0.5 interval 10ms ||
		return 1
	id=$(sed -n 's/^{"id":\([0-9]\+\),.*/\1/p' "$KV_TMP/short.json")
	bw run "$KV_TMP/short.json" --state 'done' --timed --field interval_ms=10 ||
		rc=1
	bw series "$debugfs/runs/$id/series" "$KV_TMP/short.json" \
		--window "5000000-$(kv_scaled 100000000)" \
		--min-windows $(((10 + kv_time_scale - 1) / kv_time_scale)) ||
		{ head -20 "$debugfs/runs/$id/series"; rc=1; }
	run_done long op write addr "$addr" size 4096 time 1 interval 60 ||
		return 1
	id=$(sed -n 's/^{"id":\([0-9]\+\),.*/\1/p' "$KV_TMP/long.json")
	bw run "$KV_TMP/long.json" --state 'done' --timed \
		--field interval_ms=60000 || rc=1
	bw series "$debugfs/runs/$id/series" "$KV_TMP/long.json" ||
		{ cat "$debugfs/runs/$id/series"; rc=1; }
	[ "$(grep -vc '^#' "$debugfs/runs/$id/series")" = 0 ] ||
		{ echo "windows in a 1 s run with interval 60:"; cat "$debugfs/runs/$id/series"; rc=1; }
	return "$rc"
}

# Raw requests the tool would not send, "DESCRIPTION|ANSWER|REQUEST": the
# kernel answers each with ANSWER, "ERRNO: extack message" (an extended
# regex for the whole line).
range="ERANGE: integer out of range"
policy="EINVAL: Attribute failed policy validation"
bwonly="EINVAL: kvperf: that attribute applies to bandwidth runs only"
bwio="EINVAL: kvperf: that attribute applies to bandwidth and I/O runs only"
rs="run-start type=bw op=send addr=$addr"
rl="run-start type=lat op=send addr=$addr"
list255=$(printf '0,%.0s' $(seq 1 127))0
junk255=$(printf 'x%.0s' $(seq 1 255))
raw_cases=(
	"bw tx-depth 0|$range|$rs tx_depth=0"
	"bw tx-depth 4097|$range|$rs tx_depth=4097"
	"bw qps 0|$range|$rs qps=0"
	"bw qps 17|$range|$rs qps=17"
	"bw post-list 0|$range|$rs post_list=0"
	"bw post-list 65|$range|$rs post_list=65"
	"bw signal-every 0|$range|$rs signal_every=0"
	"bw signal-every 4097|$range|$rs signal_every=4097"
	"bw interval-ms 9|$range|$rs interval_ms=9"
	"bw interval-ms 60001|$range|$rs interval_ms=60001"
	"bw warmup-ms 0|$range|$rs warmup_ms=0"
	"bw warmup-ms 600001|$range|$rs warmup_ms=600001"
	"bw iterations 0|$range|$rs iterations=0"
	"bw size 8388609|$range|$rs size=8388609"
	"bw cpus of 256 characters|$policy|$rs cpus=${list255},0"
	"bw cpus of 255 characters, not a list|EINVAL: kvperf: cpus is not a CPU list such as 0-3,6|$rs cpus=$junk255"
	"bw cpus 3-1|EINVAL: kvperf: cpus is not a CPU list such as 0-3,6|$rs qps=4 cpus=3-1"
	"bw cpus 0-1 with 1 qp|EINVAL: kvperf: more cpus than qps: each CPU's thread needs a queue pair|$rs cpus=0-1"
	"bw cpus $ncpus (no such CPU)|EINVAL: kvperf: cpus names a CPU that is not online|$rs qps=2 cpus=$ncpus"
	"bw cpus and cpu|EINVAL: kvperf: cpu and cpus exclude each other|$rs cpus=0 cpu=0"
	"bw post-list 8 > tx-depth 4|EINVAL: kvperf: post-list is larger than tx-depth|$rs tx_depth=4 post_list=8"
	"bw post-list 64 > tx-depth 63|EINVAL: kvperf: post-list is larger than tx-depth|$rs tx_depth=63 post_list=64"
	"bw signal-every 5 > tx-depth 4|EINVAL: kvperf: signal-every is larger than tx-depth|$rs tx_depth=4 signal_every=5"
	"bw signal-every 129 > the default tx-depth 128|EINVAL: kvperf: signal-every is larger than tx-depth|$rs signal_every=129"
	"bw read verify|EINVAL: kvperf: verify applies to send and write bandwidth only|run-start type=bw op=read addr=$addr verify=1"
	"bw read inline|EINVAL: kvperf: inline applies to send and write only|run-start type=bw op=read addr=$addr inline=64"
	"bw warmup and warmup-ms|EINVAL: kvperf: warmup and warmup-ms exclude each other|$rs warmup=10 warmup_ms=100"
	"bw iterations and duration-ms|EINVAL: kvperf: iterations and duration-ms exclude each other|$rs iterations=10 duration_ms=1000"
	"bw size-max < size|EINVAL: kvperf: size-max is smaller than size|$rs size=64 size_max=2"
	"lat tx-depth|$bwonly|$rl tx_depth=4"
	"lat qps|$bwio|$rl qps=2"
	"lat cpus|$bwio|$rl cpus=0"
	"lat post-list|$bwonly|$rl post_list=2"
	"lat signal-every|$bwonly|$rl signal_every=2"
	"lat bidir|$bwonly|$rl bidir=1"
	"lat interval-ms|$bwio|$rl interval_ms=100"
	"lat, no type, qps|$bwio|run-start op=send addr=$addr qps=2"
)

# The default timeout (kmod/timeout.h), worked out here from the rule:
# the largest message x tx-depth x qps (twice with bidir) in KiB, as ms,
# 5000 to 120000.
default_timeout_ms() {
	local kib=$(($1 * $2 * $3 * $4 / 1024))

	[ "$kib" -lt 5000 ] && kib=5000
	[ "$kib" -gt 120000 ] && kib=120000
	echo "$kib"
}

# 1 MiB reads both ways, 16 deep, no timeout given: 32 MiB in flight and
# one signaled completion per 16 reads, which on Soft-RoCE under TCG
# comes later than a fixed 5 s would wait. The run reports the timeout
# the rule gives (32768 ms) and completes.
bidir_default() {
	local want

	want=$(default_timeout_ms 1048576 16 1 2)
	kv_run "$KV_TMP/bidir.json" "$KV_TMP/bidir.err" \
		timeout "$(kv_scaled 120)" kvperf -j run bw op read \
		addr "$addr" size 1M tx-depth 16 iters 16 warmup 0 bidir
	echo "exit $?, want timeout_ms $want"
	tail -n 3 "$KV_TMP/bidir.err"
	bw run "$KV_TMP/bidir.json" --state "done" --field "timeout_ms=$want"
}

# A silent server and a run at bandwidth's defaults (64 KiB x 128, no
# timeout given): it fails 'no completion or event within the timeout'
# of the rule (8192 ms), no sooner, and within 5 s (scaled) after it.
stalled_default() {
	local want start took rc

	want=$(default_timeout_ms 65536 128 1 1)
	echo Y >"$stall" || return 1
	start=$(kv_ms)
	kv_run "$KV_TMP/stall.json" "$KV_TMP/stall.err" \
		timeout "$(kv_scaled 60)" kvperf -j run bw op send addr "$addr"
	rc=$?
	took=$(($(kv_ms) - start))
	echo N >"$stall"
	echo "exit $rc after $took ms, want a failure after $want ms"
	tail -n 3 "$KV_TMP/stall.err"
	[ "$rc" = 1 ] || return 1
	[ "$took" -ge "$want" ] || { echo "failed before its timeout"; return 1; }
	[ "$took" -le $((want + $(kv_scaled 5000))) ] ||
		{ echo "more than $(kv_scaled 5000) ms after its timeout"; return 1; }
	grep -q "no completion or event within the timeout ($want ms)" \
		"$KV_TMP/stall.err" || return 1
	bw run "$KV_TMP/stall.json" --state failed --field "timeout_ms=$want"
}

still_works() {
	run_done last op send addr "$addr" size 4096 iters 200 qps 2 || return 1
	bw run "$KV_TMP/last.json" --state 'done' --qps 2 --iters 200
}

counters_zero() {
	local c

	for c in run_count server_count connection_count pinned_bytes; do
		grep -qx 0 "$sysfs/$c" || return 1
	done
}

clean() {
	local i

	for i in $(kvperf -j run show | grep -o '"id":[0-9]*' | cut -d: -f2); do
		kvperf run delete "$i" || { echo "run delete $i failed"; return 1; }
	done
	for i in $(kvperf -j server show | grep -o '{"id":[0-9]*' | cut -d: -f2); do
		kvperf server stop "$i" || { echo "server stop $i failed"; return 1; }
	done
	kv_wait 20 counters_zero && return 0
	grep -H . "$sysfs"/*_count "$sysfs/pinned_bytes"
	return 1
}

kv_dmesg_mark
ktap_set_plan $((16 + ${#raw_cases[@]}))

kv_check "server start addr $addr" start_server || kv_bail "no server"

# The settings that exclude each other: the run model's, before either
# path, exit 2 and the same line on both. The tool's other refusals are
# checked on the host (selftests/usage_test.sh); this one shows the
# installed tool refusing in the guest, creating no run.
kv_check "tx-depth 4 post-list 8: usage error on both paths, 'post-list is larger than tx-depth'" \
	kv_same_usage_error "post-list is larger than tx-depth" \
	"${bwrun[@]}" tx-depth 4 post-list 8

# What only the host can judge: the kernel's checks, exit 1 and its message.
kv_check "cpus 0-1 with 1 qp: refused, 'more cpus than qps'" \
	refused "more cpus than qps: each CPU's thread needs a queue pair" \
	"$einval" 'cpus "0-1"' -- "${bwrun[@]}" cpus 0-1
kv_check "cpus $ncpus (no such CPU): refused, 'cpus names a CPU that is not online'" \
	cpus_absent
if [ -w "$cpu1_online" ]; then
	kv_check "cpus 0-1 with CPU 1 offline: refused, 'cpus names a CPU that is not online'" \
		cpus_offline
else
	kv_skip "cpus 0-1 with CPU 1 offline: refused" "$cpu1_online is not writable"
fi
kv_check "qps 16 x 8 MiB with other pins: 'pinned-memory limit reached'" \
	pinned_limit
kv_check "max_pinned_mb 2, max_server_pinned_mb 1: qps 3 x 128K done, qps 4 fails at the server, qps 9 refused" \
	pinned_small
kv_check "14 connections taken: qps 4 fails 'too many connections', freeing its own; qps 2 done" \
	server_conns
max_qp_wr
kv_check "interval 10ms and interval 60: windows of ~10 ms; none" intervals
# the rule allows for a link of 1 MB/s: a guest slowed beyond the suite's
# usual time scale (a debug kernel's) is slower than that
if [ "$kv_time_scale" -le "$kv_usual_time_scale" ]; then
	kv_check "size 1M tx-depth 16 bidir read, no timeout: done, timeout_ms $(default_timeout_ms 1048576 16 1 2)" \
		bidir_default
else
	kv_skip "size 1M tx-depth 16 bidir read, no timeout: done" \
		"KVPERF_TIME_SCALE=$kv_time_scale, above the suite's $kv_usual_time_scale: the guest is slower than the default allows for"
fi
kv_check "stall_servers, bw at its defaults: fails after timeout_ms $(default_timeout_ms 65536 128 1 1), within 5 s more" \
	stalled_default

# The kernel's own checks, without the tool's: one raw request each.
runs_before=$(run_count)
kv_raw_results raw_cases
kv_check "nothing was created by the refused raw requests" \
	test "$(run_count)" = "$runs_before"
kv_check "afterwards a 2-QP run completes" still_works
kv_check "runs deleted, server stopped: counters are 0" clean
kv_dmesg_check

ktap_finished
