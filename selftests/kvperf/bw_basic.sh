#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bandwidth runs that work: against a server on $KVPERF_ADDR0 (in HW mode,
# remote.sh, on the remote host), every op
# with one queue pair and with several on the CPUs of a list, with post
# lists and selective signaling, in each poll mode, completes with exactly
# qps x iters messages, each queue pair on its CPU and with its iterations,
# and for send runs every message counted by the server; the deepest and
# shallowest queues, 16 queue pairs, warm-up by time, verify and bidir do
# too; a busy-polling thread's CPU time covers its measured phase,
# however short; a size range gives one row per size; a timed run with an
# interval gets a progress event and a debugfs series window per interval,
# which agree with each other and with the results; the text output shows
# live lines, perftest's table and a line per queue pair with the numbers
# of run show; netlink, sysfs (down to the qp<N> directories, and the CPU
# figures of bidir runs) and the debugfs series agree; run delete removes
# the run's files; and the module's counters are back to 0 once runs are
# deleted and the server is stopped.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
[ -x "$PY" ] || kv_skip_all "no $PY"
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] ||
	kv_skip_all "needs 2 online CPUs for the runs on cpus 0-1"
kv_require_module
kv_require_peer

addr=$KV_SERVER_ADDR	# the servers' (the remote host's in HW mode)
sysfs=/sys/kernel/kvperf
debugfs=/sys/kernel/debug/kvperf
kv_track_runs
# Runs that must not time out: the default timeout (5000 ms without a
# completion), scaled. Deep queues of large messages on several queue
# pairs complete a signaled batch only every qps x 100 messages, which a
# loaded host can stretch past 5 s.
patient=(timeout "$(kv_scaled 5000)ms")

bw() {
	kv_py "$KV_DIR/bwlib.py" "$@"
}

# per_scale N: N over the time scale, rounded up: how many of N events
# due within a time still come when the host is that much slower.
per_scale() {
	echo $((($1 + kv_time_scale - 1) / kv_time_scale))
}

lat() {
	kv_py "$KV_DIR/latlib.py" "$@"
}

counters="run_count server_count connection_count pinned_bytes"

counters_are() {
	local want=$1 c v

	for c in $counters; do
		v=$(cat "$sysfs/$c") || return 1
		[ "$v" = "$want" ] || return 1
	done
}

show_counters() {
	local c

	for c in $counters; do
		echo "$c: $(cat "$sysfs/$c" 2>&1)"
	done
}


id_of() {
	cat "$KV_TMP/$1.id" 2>/dev/null
}

# bw_run NAME ARGS...: kvperf -j run bw ARGS into $KV_TMP/NAME.json, the
# run's id into $KV_TMP/NAME.id; fails unless it exits 0.
bw_run() {
	local name=$1

	shift
	kv_run_json "$name" "$(kv_scaled 120)" kvperf -j run bw "$@" "${patient[@]}"
}

# bw_text NAME ARGS...: kvperf run bw ARGS (text) into $KV_TMP/NAME.txt,
# then its run show -j into $KV_TMP/NAME.json.
bw_text() {
	local name=$1 rc id

	shift
	kv_run "$KV_TMP/$name.txt" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 120)" kvperf run bw "$@" "${patient[@]}"
	rc=$?
	id=$(sed -n 's/^# run \([0-9]\+\): .*/\1/p' "$KV_TMP/$name.txt")
	[ -n "$id" ] && echo "$id" >>"$KV_IDS" && echo "$id" >"$KV_TMP/$name.id"
	if [ "$rc" != 0 ] || [ -z "$id" ]; then
		echo "kvperf run bw $*: exit $rc"
		sed 's/^/stderr: /' "$KV_TMP/$name.err"
		sed 's/^/stdout: /' "$KV_TMP/$name.txt"
		return 1
	fi
	kvperf -j run show "$id" >"$KV_TMP/$name.json" ||
		{ echo "kvperf -j run show $id failed"; return 1; }
}

# check NAME BWLIB-RUN-OPTIONS...: the run's JSON holds together.
check() {
	local name=$1

	shift
	bw run "$KV_TMP/$name.json" "$@" && return 0
	sed 's/^/json: /' "$KV_TMP/$name.json" | cut -c1-2000
	return 1
}

# op_case NAME OP QPS CPUS(-|list|cpu:N) QP-CPUS POLL POST SIGNAL:
# ITERS iterations of 4 KiB on QPS queue pairs; each queue pair on its
# CPU (QP-CPUS) with its iterations, done.
op_case() {
	local name=$1 op=$2 qps=$3 cpus=$4 qpcpus=$5 poll=$6 post=$7 sig=$8
	local iters=$9 args=()

	case "$cpus" in
	-) ;;
	cpu:*) args+=(cpu "${cpus#cpu:}") ;;
	*) args+=(cpus "$cpus") ;;
	esac
	bw_run "$name" op "$op" addr "$addr" size 4096 iters "$iters" \
		qps "$qps" poll "$poll" post-list "$post" signal-every "$sig" \
		"${args[@]}" || return 1
	check "$name" --state 'done' --op "$op" --qps "$qps" --iters "$iters" \
		--sizes 4096 --qp-cpus "$qpcpus" --field "poll=$poll" \
		--field "post_list=$post" --field "signal_every=$sig" \
		--field tx_depth=128 --field "addr=$addr" --field port=18515 \
		--field "dev=$KVPERF_DEV0" --field warmup=16
}

mon_out=$KV_TMP/monitor.out
mon_err=$KV_TMP/monitor.err

monitor_started() {
	kv_wait 10 grep -q 'monitoring kvperf events' "$mon_err" ||
		{ echo "no 'monitoring kvperf events' within $(kv_scaled 10) s:"; cat "$mon_err"; return 1; }
	kill -0 "$mon_pid" 2>/dev/null || { echo "the monitor exited"; return 1; }
}

depths() {
	bw_run shallow op send addr "$addr" size 64 iters 500 tx-depth 1 \
		signal-every 1 || return 1
	check shallow --state 'done' --qps 1 --iters 500 --sizes 64 \
		--field tx_depth=1 --field signal_every=1 --field post_list=1 ||
		return 1
	# 500 is no multiple of 32: the last list and signal are partial.
	bw_run equal op write addr "$addr" size 64 iters 500 tx-depth 32 \
		signal-every 32 post-list 32 poll softirq || return 1
	check equal --state 'done' --iters 500 --sizes 64 --field tx_depth=32 \
		--field signal_every=32 --field post_list=32
}

deepest() {
	bw_run deep op send addr "$addr" size 64 iters 4096 tx-depth 4096 \
		signal-every 4096 post-list 64 || return 1
	check deep --state 'done' --iters 4096 --sizes 64 --field tx_depth=4096 \
		--field signal_every=4096 --field post_list=64
}

# The default signal-every is 100, or tx-depth when smaller.
defaults() {
	bw_run dflt op write addr "$addr" size 64 iters 200 tx-depth 50 ||
		return 1
	check dflt --state 'done' --iters 200 --qps 1 --field tx_depth=50 \
		--field signal_every=50 --field post_list=1 --field warmup=16 \
		--field poll=busy --field size=64 --field size_max=64
}

many_qps() {
	bw_run many op send addr "$addr" size 64 iters 50 qps 16 warmup 0 \
		inline 64 || return 1
	check many --state 'done' --qps 16 --iters 50 --sizes 64 \
		--field warmup=0 --field inline=64
}

warmup_time() {
	bw_run wtime op read addr "$addr" size 1024 iters 300 qps 2 \
		warmup 200ms || return 1
	check wtime --state 'done' --qps 2 --iters 300 --sizes 1024 \
		--field warmup_ms=200
}

verify_op() {
	local op=$1

	bw_run "verify-$op" op "$op" addr "$addr" sizes 4096-8192 iters 200 \
		qps 2 verify || return 1
	check "verify-$op" --state 'done' --op "$op" --qps 2 --iters 200 \
		--sizes 4096,8192 --verify
}

# bidir_op OP [gbits]: the server sends as much back; text output with
# tx, rx and total rows.
bidir_op() {
	local op=$1

	shift
	bw_text "bidir-$op" op "$op" addr "$addr" size 4096 iters 200 qps 2 \
		bidir "$@" || return 1
	check "bidir-$op" --state 'done' --op "$op" --qps 2 --iters 200 \
		--bidir || return 1
	bw table "$KV_TMP/bidir-$op.txt" "$KV_TMP/bidir-$op.json" \
		${1:+--gbits} || { cat "$KV_TMP/bidir-$op.txt"; return 1; }
}

# sysfs and JSON show a bidir run's CPU figures alike: the size's CPU
# time over the same wall time (the longer direction's), and over the
# messages of both directions. sysfs truncates to an integer, JSON keeps
# two decimals: both are checked against the value the JSON's own
# counters give.
bidir_cpu_agree() {
	kv_py - "$KV_TMP/bidir-send.json" "$sysfs/runs/$(id_of bidir-send)" <<-'EOF'
	import json, sys
	run = json.load(open(sys.argv[1]))[0]
	r = run["results"][-1]
	wall = max(r["elapsed_ns"], r["rx_elapsed_ns"])
	msgs = r["messages"] + r["rx_messages"]
	exact = {"cpu_percent": (r["cpu_ns"] * 100, wall),
	         "cpu_ns_per_msg": (r["cpu_ns"], msgs)}
	bad = []
	for k, (num, den) in exact.items():
	    s = int(open(f"{sys.argv[2]}/{k}").read())
	    if s != num // den or abs(r[k] - num / den) > 0.0051:
	        bad.append(f"sysfs {k} {s}, JSON {r[k]}, counters give "
	                   f"{num / den:.4f} (cpu_ns {r['cpu_ns']}, "
	                   f"tx {r['messages']} messages in {r['elapsed_ns']} ns, "
	                   f"rx {r['rx_messages']} in {r['rx_elapsed_ns']} ns)")
	print("\n".join(bad))
	sys.exit(1 if bad else 0)
	EOF
}

# A busy-polling thread spins through the whole measured phase, however
# short: its CPU time is never 0, though these sizes take a few ms each,
# less than a scheduler tick (the scheduler's count is brought up to date
# at both ends). How much of the phase it is depends on how much of the
# CPU rxe's own workers take, so only the 0 is checked.
cpu_short() {
	bw_run short op write addr "$addr" sizes 2-64 iters 50 qps 2 ||
		return 1
	check short --state 'done' --qps 2 --iters 50 --field poll=busy ||
		return 1
	kv_py - "$KV_TMP/short.json" <<-'EOF'
	import json, sys
	run = json.load(open(sys.argv[1]))
	bad = [f"size {r['size']}: cpu_ns {r['cpu_ns']} for "
	       f"{r['messages']} messages in {r['elapsed_ns']} ns"
	       for r in run["results"] if r["cpu_ns"] <= 0]
	print("\n".join(bad))
	sys.exit(1 if bad else 0)
	EOF
}

sweep() {
	bw_text sweep op send addr "$addr" sizes 4096-16384 iters 200 ||
		return 1
	check sweep --state 'done' --qps 1 --iters 200 \
		--sizes 4096,8192,16384 || return 1
	bw table "$KV_TMP/sweep.txt" "$KV_TMP/sweep.json" ||
		{ cat "$KV_TMP/sweep.txt"; return 1; }
}

# What run bw printed at the end is what run show prints.
same_as_show() {
	local id

	id=$(id_of sweep) || return 1
	kvperf run show "$id" >"$KV_TMP/sweep.show" ||
		{ echo "run show $id failed"; return 1; }
	sed -n '/^# run /,$p' "$KV_TMP/sweep.txt" >"$KV_TMP/sweep.tail"
	diff -u "$KV_TMP/sweep.tail" "$KV_TMP/sweep.show"
}

timed() {
	local id

	bw_run timed op write addr "$addr" size 4096 time 2 interval 250ms ||
		return 1
	check timed --state 'done' --timed --sizes 4096 --min-elapsed 2000000000 \
		--field duration_ms=2000 --field interval_ms=250 \
		--field iterations='(absent)' || return 1
	id=$(id_of timed)
	# its events are in before its run-finished
	kv_wait 10 grep -q "\"run-finished\",\"id\":$id," "$mon_out" ||
		{ echo "no run-finished event for run $id"; return 1; }
	cp "$debugfs/runs/$id/series" "$KV_TMP/timed.series"
}

# On a loaded host the windows stretch (the sampling thread wakes late),
# they never shrink: the upper bound of the median grows with the time
# scale, the count of windows in the 2 s shrinks by it, the lower bound
# stays.
timed_events() {
	bw events "$mon_out" "$(id_of timed)" "$KV_TMP/timed.series" \
		"$KV_TMP/timed.json" --min "$(per_scale 4)" \
		--gap "150000000-$(kv_scaled 600000000)" && return 0
	grep "\"id\":$(id_of timed)," "$mon_out"
	cat "$KV_TMP/timed.series"
	return 1
}

timed_series() {
	bw series "$KV_TMP/timed.series" "$KV_TMP/timed.json" \
		--window "150000000-$(kv_scaled 600000000)" \
		--min-windows "$(per_scale 4)" && return 0
	cat "$KV_TMP/timed.series"
	return 1
}

# The acceptance example: a line a second (4 of the 5 when idle, fewer
# when a loaded host stretches the windows), then the table with its CPU
# columns and a line per queue pair.
acceptance() {
	bw_text accept op write addr "$addr" size 65536 time 5 qps 4 \
		interval 1 || return 1
	check accept --state 'done' --timed --qps 4 --sizes 65536 \
		--min-elapsed 5000000000 --qp-cpus -1,-1,-1,-1 || return 1
	bw table "$KV_TMP/accept.txt" "$KV_TMP/accept.json" \
		--live "$(per_scale 4)" ||
		{ cat "$KV_TMP/accept.txt"; return 1; }
}

# agree NAME: run show, sysfs and the debugfs series agree on the run.
agree() {
	local id

	id=$(id_of "$1") || { echo "no run id"; return 1; }
	kvperf -j run show "$id" >"$KV_TMP/$1.show.json" ||
		{ echo "kvperf -j run show $id failed"; return 1; }
	bw agree "$KV_TMP/$1.show.json" "$sysfs/runs/$id" \
		"$debugfs/runs/$id/series" --same "$KV_TMP/$1.json" && return 0
	grep -r . "$sysfs/runs/$id" | head -60
	cat "$debugfs/runs/$id/series"
	return 1
}

no_connections() {
	if ! kv_wait 10 grep -qx 0 "$sysfs/connection_count"; then
		echo "connection_count still $(cat "$sysfs/connection_count") $(kv_scaled 10) s after the runs"
		return 1
	fi
	grep -qx 0 "$sysfs/pinned_bytes" ||
		{ echo "pinned_bytes $(cat "$sysfs/pinned_bytes") with no connection"; return 1; }
}

monitor_events() {
	local id args=()

	kill -INT "$mon_pid" 2>/dev/null
	wait "$mon_pid"
	while read -r id; do
		args+=("$id" 'done')
	done < <(sort -un "$KV_IDS")
	lat events "$mon_out" "${args[@]}" && return 0
	grep finished "$mon_out"
	return 1
}

delete_run() {
	local id rc d

	id=$(id_of "$1") || { echo "no run id"; return 1; }
	for d in "$sysfs/runs/$id/qp3" "$debugfs/runs/$id/series"; do
		[ -e "$d" ] || { echo "no $d before delete"; return 1; }
	done
	kvperf run delete "$id" || { echo "run delete $id failed"; return 1; }
	sed -i "/^$id\$/d" "$KV_IDS"
	for d in "$sysfs/runs/$id" "$debugfs/runs/$id"; do
		[ -e "$d" ] && { echo "$d still exists"; return 1; }
	done
	kv_run "$KV_TMP/out" "$KV_TMP/err" kvperf run show "$id"
	rc=$?
	if [ "$rc" != 1 ] || ! grep -q 'no run with that id' "$KV_TMP/err"; then
		echo "run show $id after delete: exit $rc, want 1 and 'no run with that id'"
		cat "$KV_TMP/err" "$KV_TMP/out"
		return 1
	fi
}

clean_up() {
	local id rc=0

	while read -r id; do
		kvperf run delete "$id" || { echo "run delete $id failed"; rc=1; }
	done < <(sort -un "$KV_IDS")
	: >"$KV_IDS"
	kv_server_stop ||
		{ echo "server stop failed"; rc=1; }
	[ "$(kvperf -j run show)" = "[]" ] ||
		{ echo "runs left: $(kvperf -j run show)"; rc=1; }
	if ! kv_wait 10 counters_are 0; then
		show_counters
		rc=1
	fi
	return "$rc"
}

kv_dmesg_mark
ktap_set_plan 40

kvperf -j monitor progress >"$mon_out" 2>"$mon_err" &
mon_pid=$!
kv_on_exit "kill -KILL $mon_pid"
kv_check "kvperf -j monitor progress starts" monitor_started
kv_check "server start addr $addr: 'server N listening on $addr:18515'" \
	kv_server_start "$addr" || kv_bail "no server, no runs"
kv_on_exit kv_server_stop

# NAME OP QPS CPUS QP-CPUS POLL POST-LIST SIGNAL-EVERY ITERS
kv_check "send, 1 QP, busy, signal-every 1: 300 x 4 KiB, all received by the server" \
	op_case send1 send 1 - -1 busy 1 1 300
kv_check "write, 1 QP, softirq, post-list 8, signal-every 32: 300 messages" \
	op_case write1 write 1 - -1 softirq 8 32 300
kv_check "read, 1 QP, workqueue: 300 messages" \
	op_case read1 read 1 - -1 workqueue 1 100 300
kv_check "send, 4 QPs on cpus 0-1 (0,1,0,1), softirq, post-list 8, signal-every 32: 200 each" \
	op_case send4 send 4 0-1 0,1,0,1 softirq 8 32 200
kv_check "write, 4 QPs on cpus 0-1, busy, signal-every 1: 200 each" \
	op_case write4 write 4 0-1 0,1,0,1 busy 1 1 200
kv_check "read, 3 QPs on cpus 0-1 (0,1,0), busy, post-list 8: 200 each" \
	op_case read3 read 3 0-1 0,1,0 busy 8 100 200
kv_check "write, 4 QPs, no cpus, workqueue: one thread, no CPU of its own" \
	op_case write4u write 4 - -1,-1,-1,-1 workqueue 4 32 200
kv_check "send, 2 QPs, cpu 1: both on CPU 1" \
	op_case send2c send 2 cpu:1 1,1 busy 1 100 200
kv_check "read, 2 QPs, cpus 1, softirq, post-list 4: both on CPU 1" \
	op_case read2c read 2 1 1,1 softirq 4 32 200
kv_check "tx-depth 1 signal-every 1; tx-depth = signal-every = post-list 32: 500 each" \
	depths
kv_check "tx-depth 4096, signal-every 4096, post-list 64: 4096 messages" \
	deepest
kv_check "tx-depth 50 alone: signal-every 50, post-list 1, warmup 16, busy" \
	defaults
kv_check "qps 16 (the most), warmup 0, inline 64: 16 queue pairs of 50" \
	many_qps
kv_check "warmup 200ms: 300 measured messages per queue pair, not more" \
	warmup_time
for op in send write; do
	kv_check "$op verify, sizes 4096-8192, 2 QPs: no mismatches" \
		verify_op "$op"
done
kv_check "send bidir, 2 QPs: rx_messages 400; tx, rx and total rows" \
	bidir_op send
kv_check "write bidir gbits, 2 QPs: rx_messages 400; rows in Gb/s" \
	bidir_op write gbits
kv_check "read bidir, 2 QPs: rx_messages 400; tx, rx and total rows" \
	bidir_op read
kv_check "bidir: sysfs cpu_percent and cpu_ns_per_msg agree with JSON" \
	bidir_cpu_agree
kv_check "busy, sizes 2-64 x 50 x 2 QPs: cpu_ns above 0 for each size" \
	cpu_short
kv_check "sizes 4096-16384 iters 200: rows for 4096, 8192, 16384" sweep
kv_check "run bw's final output is run show's" same_as_show
kv_check "time 2 interval 250: done, at least 2 s measured" timed
kv_check "time 2 interval 250: >= 4 progress events ~250 ms apart, the series' windows" \
	timed_events
kv_check "time 2 interval 250: series windows ~250 ms, within the results" \
	timed_series
kv_check "write 64 KiB time 5 qps 4 interval 1000: >= 4 live lines, the table, 4 qp lines" \
	acceptance
for name in send1 write4 read3 sweep bidir-write accept; do
	kv_check "$name: run show, sysfs (with qp<N>) and the debugfs series agree" \
		agree "$name"
done
kv_check "no connection and nothing pinned once the runs ended" \
	no_connections
kv_check "kvperf -j monitor saw each run finish done, once" monitor_events
kv_check "run delete removes the run's sysfs (qp<N> too) and debugfs directories" \
	delete_run write4
kv_check "runs deleted, server stopped: run_count, server_count, connection_count, pinned_bytes are 0" \
	clean_up
kv_dmesg_check

ktap_finished
