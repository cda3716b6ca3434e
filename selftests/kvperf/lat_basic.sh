#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Latency runs that work: against a server on $KVPERF_ADDR0 (in HW mode,
# remote.sh, on the remote host), every op in
# every poll mode completes with the iterations asked for and ordered
# statistics (on a KVPERF_LANE=feature lane, every op and every poll
# mode, not every pair: lib.sh's kv_full_lane); size ranges and "sizes
# all" give
# one row per power of two under perftest's header; a timed run measures;
# netlink, sysfs and the debugfs histogram report the same numbers for a
# run; with stats off a run reports its iterations and their mean and
# nothing that needs per-iteration samples, on the kernel and the user
# path; run delete removes its files; and the module's counters are back
# to 0 once runs are deleted and the server is stopped. (verify, with no
# mismatch and with the ones a fault switch makes: verify_fault.sh.)

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_module
kv_require_peer

addr=$KV_SERVER_ADDR	# the servers' (the remote host's in HW mode)
sysfs=/sys/kernel/kvperf
debugfs=/sys/kernel/debug/kvperf
kv_track_runs
# Runs that must not time out: the default timeout (5000 ms without a
# completion or event), scaled; an overloaded host has stalled even a
# 64-byte ping-pong that long.
patient=(timeout "$(kv_scaled 5000)ms")

# perftest's ib_send_lat header, then kvperf's own columns.
header=' #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]   t_p90[usec]  t_p99.99[usec]  mismatches'

lat() {
	kv_py "$KV_DIR/latlib.py" "$@"
}

# The module's counters: runs and servers that exist, live RDMA
# connections (client and server side), bytes pinned for buffers.
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

# lat_run NAME ARGS...: kvperf -j run lat ARGS into $KV_TMP/NAME.json,
# noting the run's id for deletion; fails unless it exits 0.
lat_run() {
	local name=$1

	shift
	kv_run_json "$name" "$(kv_scaled 150)" kvperf -j run lat "$@" "${patient[@]}"
}

# run_id NAME: the id of the run whose JSON is $KV_TMP/NAME.json.
run_id() {
	kv_json_id "$KV_TMP/$1.json"
}

# op_poll OP POLL: 300 iterations of 64 bytes, done, ordered statistics.
op_poll() {
	local op=$1 poll=$2

	lat_run "$op-$poll" op "$op" addr "$addr" size 64 iters 300 \
		poll "$poll" || return 1
	lat run "$KV_TMP/$op-$poll.json" --state 'done' --op "$op" --iters 300 \
		--sizes 64 --max-err-ppm 10000 --field "poll=$poll" \
		--field "addr=$addr" --field port=18515 \
		--field "dev=$KVPERF_DEV0" --field size=64 \
		--field iterations=300
}

# stats_off OP: 300 iterations of 64 B with stats off: done, exactly
# 300, a positive mean that is the elapsed time over the iterations, and
# no min, max, stdev or percentiles.
stats_off() {
	local op=$1

	lat_run "off-$op" op "$op" addr "$addr" size 64 iters 300 \
		stats off || return 1
	lat run "$KV_TMP/off-$op.json" --state 'done' --op "$op" --iters 300 \
		--sizes 64 --stats-off --field stats=off --field iterations=300
}

timed_off() {
	lat_run off-timed op write addr "$addr" size 8 time 1 stats off ||
		return 1
	lat run "$KV_TMP/off-timed.json" --state 'done' --op write --sizes 8 \
		--min-iters 1 --stats-off --field duration_ms=1000 \
		--min-elapsed 1000000000
}

# user_path STATS: the same loops run by the tool on libibverbs, against
# the kernel's server.
user_path() {
	local stats=$1 check=(--max-err-ppm 10000)

	[ "$stats" = off ] && check=(--stats-off)
	lat_run "user-$stats" op send addr "$addr" size 64 iters 300 \
		stats "$stats" path user || return 1
	lat run "$KV_TMP/user-$stats.json" --state 'done' --op send \
		--iters 300 --sizes 64 --field path=user --field id='(absent)' \
		"${check[@]}"
}

# table NAME SIZES ITERS ARGS...: the text table of kvperf run lat ARGS
# has perftest's header and one row per size with ITERS iterations (with
# "stats off" in ARGS, a mean and "-" for the rest); the run's id goes to
# $KV_TMP/NAME.id.
table() {
	local name=$1 sizes=$2 iters=$3 rc id off=()

	shift 3
	[[ " $* " == *" stats off "* ]] && off=(--stats-off)
	kv_run "$KV_TMP/$name.txt" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 150)" kvperf run lat "$@" "${patient[@]}"
	rc=$?
	id=$(sed -n 's/^# run \([0-9]\+\): .*/\1/p' "$KV_TMP/$name.txt")
	[ -n "$id" ] && echo "$id" >>"$KV_IDS" && echo "$id" >"$KV_TMP/$name.id"
	if [ "$rc" != 0 ]; then
		echo "kvperf run lat $*: exit $rc"
		cat "$KV_TMP/$name.err" "$KV_TMP/$name.txt"
		return 1
	fi
	grep -q "^# run $id: lat .* state done$" "$KV_TMP/$name.txt" ||
		{ echo "no '# run N: ... state done' line:"; cat "$KV_TMP/$name.txt"; return 1; }
	lat table "$KV_TMP/$name.txt" --sizes "$sizes" --iters "$iters" \
		--header "$header" "${off[@]}" ||
		{ cat "$KV_TMP/$name.txt"; return 1; }
}

# show_json NAME: kvperf -j run show of the run in $KV_TMP/NAME.id.
show_json() {
	local id

	id=$(cat "$KV_TMP/$1.id") || return 1
	kvperf -j run show "$id" >"$KV_TMP/$1.json" ||
		{ echo "kvperf -j run show $id failed"; return 1; }
}

timed_run() {
	lat_run timed op send addr "$addr" size 64 time 2 || return 1
	# The measured time is at least the time asked for.
	lat run "$KV_TMP/timed.json" --state 'done' --op send --sizes 64 \
		--min-iters 1 --field duration_ms=2000 \
		--field iterations='(absent)' --min-elapsed 2000000000
}

# agree NAME: run show repeats what run lat printed, and sysfs and the
# debugfs histogram agree with it.
agree() {
	local id

	id=$(run_id "$1") || { echo "no run id"; return 1; }
	kvperf -j run show "$id" >"$KV_TMP/$1.show.json" ||
		{ echo "kvperf -j run show $id failed"; return 1; }
	agree_files "$KV_TMP/$1.show.json" "$id" --same "$KV_TMP/$1.json"
}

# agree_files JSON ID [--same JSON2]
agree_files() {
	local json=$1 id=$2

	shift 2
	lat agree "$json" "$sysfs/runs/$id" "$debugfs/runs/$id/histogram" "$@" ||
		{ echo "sysfs:"; grep -H . "$sysfs/runs/$id"/* 2>&1 | head -30
		  echo "histogram:"; head -40 "$debugfs/runs/$id/histogram"; return 1; }
}

delete_run() {
	local id rc

	id=$(run_id "$1") || { echo "no run id"; return 1; }
	if [ ! -d "$sysfs/runs/$id" ] || [ ! -e "$debugfs/runs/$id/histogram" ]; then
		echo "run $id has no sysfs or debugfs directory before delete"
		return 1
	fi
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

all_agree() {
	show_json all || return 1
	agree_files "$KV_TMP/all.json" "$(cat "$KV_TMP/all.id")" \
		--run --state 'done' --op write --iters 3 --sizes "$sizes_all"
}

no_connections() {
	if ! kv_wait 10 grep -qx 0 "$sysfs/connection_count"; then
		echo "connection_count still $(cat "$sysfs/connection_count") $(kv_scaled 10) s after the runs"
		return 1
	fi
	grep -qx 0 "$sysfs/pinned_bytes" ||
		{ echo "pinned_bytes $(cat "$sysfs/pinned_bytes") with no connection"; return 1; }
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
	[ "$(kv_peer kvperf -j server show)" = "[]" ] ||
		{ echo "servers left: $(kv_peer kvperf -j server show)"; rc=1; }
	if ! kv_wait 10 counters_are 0; then
		show_counters
		rc=1
	fi
	return "$rc"
}

kv_dmesg_mark
# op and poll mode: every pair, or on the feature lane each op busy (the
# runs "agree" reads) and the other two modes once each (send softirq,
# which delete_run deletes)
if kv_full_lane; then
	op_polls=(send-busy send-softirq send-workqueue write-busy write-softirq
		  write-workqueue read-busy read-softirq read-workqueue)
else
	op_polls=(send-busy write-busy read-busy send-softirq read-workqueue)
fi
ktap_set_plan $((20 + ${#op_polls[@]}))

kv_check "server start addr $addr: 'server N listening on $addr:18515'" \
	kv_server_start "$addr" || kv_bail "no server, no runs"
kv_on_exit kv_server_stop

for op_poll in "${op_polls[@]}"; do
	kv_check "${op_poll%-*}, poll ${op_poll#*-}: 300 iterations of 64 B, done, min <= p50 <= p99 <= max" \
		op_poll "${op_poll%-*}" "${op_poll#*-}"
done
kv_check "sizes 2-64 iters 50: perftest's header and rows for 2, 4, ..., 64" \
	table range 2,4,8,16,32,64 50 op send addr "$addr" sizes 2-64 iters 50
sizes_all=$(for ((s = 2; s <= 8388608; s *= 2)); do printf '%s,' "$s"; done)
sizes_all=${sizes_all%,}
start=$SECONDS
# warmup 1: the default 16 warmups per size would triple the time spent.
kv_check "write sizes all iters 3 warmup 1: 23 rows, 2 B to 8 MiB" \
	table all "$sizes_all" 3 op write addr "$addr" sizes all iters 3 \
	warmup 1
ktap_print_msg "sizes all took $((SECONDS - start)) s"
kv_check "time 2: iterations > 0, all percentiles, at least 2 s measured" \
	timed_run
for op in send write read; do
	kv_check "$op: run show, sysfs and the debugfs histogram agree" \
		agree "$op-busy"
done
for op in send write read; do
	kv_check "$op stats off, 300 iterations of 64 B: done, mean = elapsed / iterations, no min/max/stdev/percentiles" \
		stats_off "$op"
done
kv_check "write stats off time 1: iterations > 0, the mean, at least 1 s measured" \
	timed_off
kv_check "read stats off sizes 2-8: 'stats off' in the title, t_avg and '-' in the other cells" \
	table off 2,4,8 50 op read addr "$addr" sizes 2-8 iters 50 stats off
kv_check "stats off: run show and sysfs agree (stats off, no min/max/stdev/percentile files), the histogram is empty" \
	agree off-send
kv_check "path user, stats on: 300 iterations, all statistics" \
	user_path on
kv_check "path user, stats off: 300 iterations, the mean, no min/max/stdev/percentiles" \
	user_path off
kv_check "sizes all: run show has the 23 sizes; sysfs shows the last, 8 MiB" \
	all_agree
kv_check "no connection and nothing pinned once the runs ended" \
	no_connections
kv_check "run delete removes the run's sysfs and debugfs directories" \
	delete_run send-softirq
kv_check "runs deleted, server stopped: run_count, server_count, connection_count, pinned_bytes are 0" \
	clean_up
kv_dmesg_check

ktap_finished
