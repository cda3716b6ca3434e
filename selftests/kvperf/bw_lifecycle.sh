#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How bandwidth runs with deep queues on many queue pairs (qps 8,
# tx-depth 128) end when they do not simply finish: run stop (keeping the
# sizes completed), a waiting run bw stopped by another command, the
# server stopped mid-run, run delete mid-run with the run's sysfs and
# debugfs files held open, stop and delete while the queue pairs still
# connect, the RDMA device removed mid-run (then re-created and used
# again), and rmmod mid-run. Each ends in bounded time in the right state
# with the right reason and frees every connection and all pinned memory;
# while such a run measures, the module counts exactly its connections
# and pinned buffers. kvperf -j monitor sees one run-finished event per
# run. A silent server (the debugfs stall_servers hook) fails a run by
# the run's own timeout.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "removes a Soft-RoCE device and the module under a server, runs from the second local device"
[ -x "$PY" ] || kv_skip_all "no $PY"
command -v rdma >/dev/null || kv_skip_all "no rdma tool (iproute2)"
kv_require_ko
[ -r "$KVPERF_KO" ] || kv_skip_all "KVPERF_KO=$KVPERF_KO is not readable"
kv_require_module

addr=$KVPERF_ADDR0
addr1=$KVPERF_ADDR1
sysfs=/sys/kernel/kvperf
debugfs=/sys/kernel/debug/kvperf
[ -d "$debugfs/runs" ] || kv_skip_all "no $debugfs (debugfs not mounted?)"
stall=$debugfs/stall_servers
[ -w "$stall" ] || kv_skip_all "no $stall"
dev9=rxe9
nd9=kvd9
addr9=198.19.9.1
[ -e "/sys/class/infiniband/$dev9" ] && kv_skip_all "$dev9 already exists"
ip link show "$nd9" >/dev/null 2>&1 && kv_skip_all "$nd9 already exists"

# Runs that must not time out: the default timeout (5000 ms without a
# completion), scaled. Deep queues of large messages on several queue
# pairs complete a signaled batch only every qps x 100 messages, which a
# loaded host can stretch past 5 s.
patient=(timeout "$(kv_scaled 5000)ms")
# The deep queues on many queue pairs every long run here has, sampled
# every 100 ms (the first sample says the run measures).
deep=(qps 8 tx-depth 128 interval 100ms "${patient[@]}")
# A run that lasts: days under TCG. Not a time: busy-polling threads can
# starve this script long enough for a timed run to end first.
forever=(iters 100000000)
# What a connection pins for messages of 64 KiB: two buffers.
conn_pinned=$((2 * 65536))

# Undone in reverse order, whatever happened.
# shellcheck disable=SC2016 # expanded when the hook runs
kv_on_exit 'kv_module_loaded || kv_insmod'
kv_on_exit "echo N > $stall"
kv_on_exit "ip link del $nd9"
kv_on_exit "rdma link delete $dev9"
kv_on_exit kv_delete_runs
kv_on_exit kv_stop_servers

bw() {
	kv_py "$KV_DIR/bwlib.py" "$@"
}

lat() {
	kv_py "$KV_DIR/latlib.py" "$@"
}

# The final state of each run, for the monitor check: "ID STATE" lines.
finals=$KV_TMP/finals

state_of() {
	cat "$sysfs/runs/$1/state" 2>/dev/null
}

state_is() {
	[ "$(state_of "$1")" = "$2" ]
}

ended() {
	case "$(state_of "$1")" in
	done | failed | stopped) return 0 ;;
	esac
	return 1
}

# running ID: the run measures: state running, and a sampling window of
# its measured phase closed (every 100 ms; the first completions of deep
# queues of large messages take longer to come).
running() {
	state_is "$1" running &&
		grep -q '^[0-9]' "$debugfs/runs/$1/series" 2>/dev/null
}

# start_long NAME ARGS...: kvperf -j run bw ARGS no-wait; the run's id
# goes to $KV_TMP/NAME.id once it measures.
start_long() {
	local name=$1 out id

	shift
	out=$(kvperf -j run bw "$@" no-wait 2>&1) ||
		{ echo "kvperf -j run bw $* no-wait: $out"; return 1; }
	id=$(sed -n 's/^{"id":\([0-9]\+\)}$/\1/p' <<<"$out")
	[ -n "$id" ] || { echo "no-wait printed '$out', want {\"id\":N}"; return 1; }
	echo "$id" >"$KV_TMP/$name.id"
	kv_wait 30 running "$id" ||
		{ echo "run $id not measuring after $(kv_scaled 30) s:"; kvperf run show "$id"; return 1; }
}

id_of() {
	cat "$KV_TMP/$1.id" 2>/dev/null
}

# until_ended ID SECONDS: wait for the run to end (SECONDS times the time
# scale, as kv_wait does), print how long it took.
until_ended() {
	local start=$SECONDS

	kv_wait "$2" ended "$1" ||
		{ echo "run $1 still $(state_of "$1") after $(kv_scaled "$2") s"; return 1; }
	echo "run $1 ended $(state_of "$1") after $((SECONDS - start)) s"
}

# error_matches ID REGEX: the run failed for the expected reason.
error_matches() {
	local err

	err=$(cat "$sysfs/runs/$1/error")
	state_is "$1" failed || { echo "run $1 is $(state_of "$1"), not failed"; return 1; }
	grep -qE -- "$2" <<<"$err" ||
		{ echo "run $1 error '$err' does not match /$2/"; return 1; }
}

freed() {
	grep -qx 0 "$sysfs/connection_count" && grep -qx 0 "$sysfs/pinned_bytes"
}

# all_freed: no connection and nothing pinned, within 30 s (scaled; a run
# tears its queue pairs down one by one).
all_freed() {
	kv_wait 30 freed && return 0
	echo "$(kv_scaled 30) s later: connection_count $(cat "$sysfs/connection_count")," \
		"pinned_bytes $(cat "$sysfs/pinned_bytes")"
	kvperf server show
	return 1
}

mon_out=$KV_TMP/monitor.out
mon_err=$KV_TMP/monitor.err
kvperf -j monitor >"$mon_out" 2>"$mon_err" &
mon_pid=$!
kv_on_exit "kill -KILL $mon_pid"

monitor_started() {
	kv_wait 10 grep -q 'monitoring kvperf events' "$mon_err" ||
		{ echo "no 'monitoring kvperf events' within $(kv_scaled 10) s:"; cat "$mon_err"; return 1; }
	kill -0 "$mon_pid" 2>/dev/null || { echo "the monitor exited"; return 1; }
}

start_server() {
	local out

	out=$(kvperf -j server start addr "$1" 2>&1) || { echo "$out"; return 1; }
	sed -n 's/^{"id":\([0-9]\+\),.*/\1/p' <<<"$out" | grep . >"$KV_TMP/$2.sid" ||
		{ echo "unexpected output '$out'"; return 1; }
}

# quick_run NAME ADDR: 8 queue pairs of 100 x 4 KiB, done.
quick_run() {
	local id

	kv_run "$KV_TMP/$1.json" "$KV_TMP/$1.err" timeout "$(kv_scaled 90)" \
		kvperf -j run bw op write addr "$2" size 4096 iters 100 "${deep[@]}" ||
		{ cat "$KV_TMP/$1.err" "$KV_TMP/$1.json"; return 1; }
	bw run "$KV_TMP/$1.json" --state 'done' --qps 8 --iters 100 \
		--field tx_depth=128 || return 1
	id=$(sed -n 's/^{"id":\([0-9]\+\),.*/\1/p' "$KV_TMP/$1.json")
	echo "$id done" >>"$finals"
}

# While a long run measures, the module counts its 8 connections and the
# server's 8, and the buffers of all 16.
long_holds() {
	local id i

	start_long long op write addr "$addr" size 65536 "${forever[@]}" \
		"${deep[@]}" || return 1
	id=$(id_of long)
	grep -qx 16 "$sysfs/connection_count" ||
		{ echo "connection_count $(cat "$sysfs/connection_count"), want 16"; return 1; }
	grep -qx $((16 * conn_pinned)) "$sysfs/pinned_bytes" ||
		{ echo "pinned_bytes $(cat "$sysfs/pinned_bytes"), want 16 x $conn_pinned"; return 1; }
	for ((i = 0; i < 8; i++)); do
		[ -d "$sysfs/runs/$id/qp$i" ] || { echo "no $sysfs/runs/$id/qp$i"; return 1; }
	done
	[ ! -e "$sysfs/runs/$id/qp8" ] || { echo "$sysfs/runs/$id/qp8 exists"; return 1; }
}

stop_long() {
	local id

	id=$(id_of long) || return 1
	kvperf run stop "$id" || { echo "run stop $id failed"; return 1; }
	until_ended "$id" 30 || return 1
	echo "$id stopped" >>"$finals"
	state_is "$id" stopped || { echo "state $(state_of "$id")"; return 1; }
	# No size completed: nothing measured is kept.
	kvperf -j run show "$id" >"$KV_TMP/long.json" || return 1
	bw run "$KV_TMP/long.json" --state stopped --sizes ""
}

# size_done ID SIZE: sysfs shows SIZE (or a larger one) completed.
size_done() {
	[ -n "$(cat "$sysfs/runs/$1/messages")" ] &&
		[ "$(cat "$sysfs/runs/$1/size")" -ge "$2" ]
}

# Stopped once 64 and 128 bytes are done: those (at least) are kept,
# with all their messages.
stop_multi() {
	local id

	start_long multi op send addr "$addr" sizes 64-1M iters 100 qps 4 \
		tx-depth 128 interval 100ms "${patient[@]}" || return 1
	id=$(id_of multi)
	kv_wait 60 size_done "$id" 128 ||
		{ echo "size 128 not done after $(kv_scaled 60) s"; kvperf run show "$id"; return 1; }
	kvperf run stop "$id" || { echo "run stop $id failed"; return 1; }
	until_ended "$id" 30 || return 1
	echo "$id stopped" >>"$finals"
	kvperf -j run show "$id" >"$KV_TMP/multi.json" || return 1
	bw run "$KV_TMP/multi.json" --state stopped --qps 4 --iters 100 \
		--min-results 2
}

last_run_id() {
	find "$sysfs/runs" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' |
		sort -n | tail -n 1
}

# new_run ID: the newest run is not ID and measures.
new_run() {
	local id

	id=$(last_run_id)
	[ -n "$id" ] && [ "$id" != "$1" ] && running "$id"
}

# A waiting `kvperf run bw` ends with exit 1 and "run N stopped" when
# another command stops its run, printing what it has.
stop_waiting() {
	local before id pid rc

	before=$(last_run_id)
	kvperf run bw op read addr "$addr" size 16384 "${forever[@]}" qps 2 \
		interval 100ms "${patient[@]}" >"$KV_TMP/wait.out" 2>"$KV_TMP/wait.err" &
	pid=$!
	if ! kv_wait 30 new_run "$before"; then
		echo "no new running run after $(kv_scaled 30) s"
		kill "$pid"
		return 1
	fi
	id=$(last_run_id)
	kvperf run stop "$id" || { echo "run stop $id failed"; kill "$pid"; return 1; }
	if ! kv_wait 30 eval '! kill -0 '"$pid"; then
		echo "kvperf run bw still waiting $(kv_scaled 30) s after run stop"
		kill "$pid"
		return 1
	fi
	wait "$pid"
	rc=$?
	echo "$id stopped" >>"$finals"
	[ "$rc" = 1 ] || { echo "exit $rc, want 1"; cat "$KV_TMP/wait.err"; return 1; }
	grep -qx "kvperf: run $id stopped" "$KV_TMP/wait.err" ||
		{ echo "stderr:"; cat "$KV_TMP/wait.err"; return 1; }
	grep -q "^# run $id: bw read .* state stopped$" "$KV_TMP/wait.out" ||
		{ echo "stdout:"; cat "$KV_TMP/wait.out"; return 1; }
}

server_stopped() {
	local sid id

	start_server "$addr1" one || return 1
	sid=$(cat "$KV_TMP/one.sid")
	start_long srvstop op write addr "$addr1" size 16384 poll softirq \
		"${forever[@]}" "${deep[@]}" || { kvperf server stop "$sid"; return 1; }
	id=$(id_of srvstop)
	kvperf server stop "$sid" || { echo "server stop $sid failed"; return 1; }
	until_ended "$id" 30 || return 1
	echo "$id failed" >>"$finals"
	error_matches "$id" "the server closed the connection" || return 1
	kv_run "$KV_TMP/out" "$KV_TMP/err" kvperf server show "$sid" &&
		{ echo "server $sid still listed"; return 1; }
	return 0
}

# The server answers no control message but keeps its connections: the
# run's own timeout (1000 ms, scaled: it also bounds each step of the 8
# connects, which a loaded host slows) ends the run, with every queue
# pair's receives and registrations released.
stalled() {
	local start=$SECONDS rc id ms limit

	ms=$(kv_scaled 1000)
	limit=$(kv_scaled 30)
	echo Y >"$stall" || return 1
	kv_run "$KV_TMP/stall.json" "$KV_TMP/stall.err" timeout "$(kv_scaled 60)" \
		kvperf -j run bw op send addr "$addr" size 4096 iters 1000 \
		qps 8 tx-depth 128 timeout "${ms}ms"
	rc=$?
	echo N >"$stall"
	id=$(sed -n 's/^{"id":\([0-9]\+\),.*/\1/p' "$KV_TMP/stall.json")
	[ -n "$id" ] && echo "$id failed" >>"$finals"
	echo "exit $rc after $((SECONDS - start)) s"
	cat "$KV_TMP/stall.err"
	[ "$rc" = 1 ] || return 1
	[ $((SECONDS - start)) -le "$limit" ] || { echo "took more than $limit s"; return 1; }
	grep -qE "^kvperf: run $id failed: no completion or event within .*$ms ms" \
		"$KV_TMP/stall.err" || return 1
	bw run "$KV_TMP/stall.json" --state failed --field "timeout_ms=$ms"
}

# run delete while the run measures, with a file of its qp0 directory
# and its debugfs series open: the files fail to read afterwards, no
# more.
delete_running() {
	local id start rc=0 d

	start_long del op send addr "$addr" size 16384 "${forever[@]}" \
		"${deep[@]}" ||
		return 1
	id=$(id_of del)
	exec 7<"$sysfs/runs/$id/qp0/messages" 8<"$debugfs/runs/$id/series" ||
		return 1
	start=$SECONDS
	timeout "$(kv_scaled 60)" kvperf run delete "$id" ||
		{ echo "run delete $id failed"; rc=1; }
	echo "run delete took $((SECONDS - start)) s"
	[ $((SECONDS - start)) -le "$(kv_scaled 30)" ] ||
		{ echo "more than $(kv_scaled 30) s"; rc=1; }
	cat <&7 >/dev/null 2>&1 && { echo "qp0/messages still reads"; rc=1; }
	cat <&8 >/dev/null 2>&1 && { echo "the series still reads"; rc=1; }
	exec 7<&- 8<&-
	for d in "$sysfs/runs/$id" "$debugfs/runs/$id"; do
		[ -e "$d" ] && { echo "$d still exists"; rc=1; }
	done
	kv_run "$KV_TMP/out" "$KV_TMP/err" kvperf run show "$id" &&
		{ echo "run $id still shown"; rc=1; }
	return "$rc"
}

gone() {
	[ ! -e "$sysfs/runs/$1" ]
}

# Stopped, and deleted, right after the start: while the 8 queue pairs
# connect.
early() {
	local out id id2

	out=$(kvperf -j run bw op write addr "$addr" size 16384 \
	      "${forever[@]}" "${deep[@]}" no-wait) || { echo "$out"; return 1; }
	id=$(sed -n 's/^{"id":\([0-9]\+\)}$/\1/p' <<<"$out")
	kvperf run stop "$id" || { echo "run stop $id failed"; return 1; }
	until_ended "$id" 30 || return 1
	echo "$id stopped" >>"$finals"
	state_is "$id" stopped ||
		{ echo "run $id $(state_of "$id"): $(cat "$sysfs/runs/$id/error")"; return 1; }
	out=$(kvperf -j run bw op write addr "$addr" size 16384 poll workqueue \
	      "${forever[@]}" "${deep[@]}" no-wait) || { echo "$out"; return 1; }
	id2=$(sed -n 's/^{"id":\([0-9]\+\)}$/\1/p' <<<"$out")
	timeout "$(kv_scaled 60)" kvperf run delete "$id2" ||
		{ echo "run delete $id2 failed"; return 1; }
	kv_wait 1 gone "$id2" || { echo "run $id2 still in sysfs"; return 1; }
	# the monitor may or may not see this one finish: no final state
	all_freed
}

make_dev9() {
	ip link add "$nd9" type dummy &&
	ip addr add "$addr9/24" dev "$nd9" &&
	ip link set "$nd9" up &&
	rdma link add "$dev9" type rxe netdev "$nd9" &&
	kv_wait 10 kv_dev_listed "$dev9" &&
	start_server "$addr9" nine
}

dev9_removed() {
	local id start=$SECONDS

	start_long nine op write addr "$addr9" size 65536 "${forever[@]}" \
		"${deep[@]}" || return 1
	id=$(id_of nine)
	timeout "$(kv_scaled 60)" rdma link delete "$dev9" ||
		{ echo "rdma link delete $dev9 failed"; return 1; }
	echo "rdma link delete took $((SECONDS - start)) s"
	until_ended "$id" 30 || return 1
	echo "$id failed" >>"$finals"
	error_matches "$id" "the RDMA device was removed|the server closed the connection"
}

server_gone() {
	! kvperf server show "$1" >/dev/null 2>&1
}

# The listener on the removed device stops by itself, leaving only the
# server on $addr.
dev9_cleaned() {
	local sid

	all_freed || return 1
	sid=$(cat "$KV_TMP/nine.sid")
	kv_wait 5 server_gone "$sid" ||
		{ echo "server $sid still listed after its device went"; return 1; }
	grep -qx 1 "$sysfs/server_count" ||
		{ echo "server_count $(cat "$sysfs/server_count"), want 1"; return 1; }
}

# The same device name on the same netdev again: a server and a deep run
# on it work.
dev9_again() {
	rdma link add "$dev9" type rxe netdev "$nd9" ||
		{ echo "rdma link add $dev9 failed"; return 1; }
	kv_wait 10 kv_dev_listed "$dev9" ||
		{ echo "$dev9 not listed after $(kv_scaled 10) s"; return 1; }
	start_server "$addr9" nine || return 1
	quick_run again "$addr9" || return 1
	grep -q "\"dev\":\"$dev9\"" "$KV_TMP/again.json" ||
		{ echo "the run was not on $dev9"; return 1; }
	kvperf server stop "$(cat "$KV_TMP/nine.sid")" &&
		rdma link delete "$dev9" && ip link del "$nd9"
}

monitor_events() {
	# shellcheck disable=SC2046 # "ID STATE" pairs
	lat events "$mon_out" $(cat "$finals") && return 0
	echo "monitor output:"
	grep finished "$mon_out"
	return 1
}

nothing_left() {
	grep -qx 0 "$sysfs/run_count" && grep -qx 0 "$sysfs/server_count" &&
		freed
}

clean_all() {
	local i rc=0

	for i in $(kvperf -j run show | grep -o '"id":[0-9]*' | cut -d: -f2); do
		kvperf run delete "$i" || rc=1
	done
	for i in $(kvperf -j server show | grep -o '{"id":[0-9]*' | cut -d: -f2); do
		kvperf server stop "$i" || rc=1
	done
	kv_wait 20 nothing_left ||
		{ grep -H . "$sysfs"/*_count "$sysfs/pinned_bytes"; rc=1; }
	return "$rc"
}

# rmmod while a deep run measures: returns promptly, leaving nothing.
rmmod_mid_run() {
	local start p

	start_server "$addr" main || return 1
	start_long rm op write addr "$addr" size 16384 poll softirq \
		"${forever[@]}" "${deep[@]}" ||
		return 1
	start=$SECONDS
	timeout "$(kv_scaled 60)" rmmod kvperf || { echo "rmmod failed"; return 1; }
	echo "rmmod took $((SECONDS - start)) s"
	[ $((SECONDS - start)) -le "$(kv_scaled 30)" ] ||
		{ echo "more than $(kv_scaled 30) s"; return 1; }
	for p in /sys/module/kvperf "$sysfs" "$debugfs"; do
		[ -e "$p" ] && { echo "$p still exists"; return 1; }
	done
	return 0
}

after_reload() {
	kv_insmod || { echo "insmod failed"; return 1; }
	grep -H . "$sysfs"/*_count "$sysfs/pinned_bytes" | grep -v ':0$' &&
		{ echo "counters not 0 after insmod"; return 1; }
	[ "$(kvperf -j run show)" = "[]" ] || { echo "runs after insmod"; return 1; }
	start_server "$addr" main || return 1
	quick_run reload "$addr" || return 1
	clean_all
}

kv_dmesg_mark
ktap_set_plan 25
: >"$finals"

kv_check "kvperf -j monitor starts" monitor_started
kv_check "server start on $addr" start_server "$addr" main ||
	kv_bail "no server"
kv_check "qps 8 tx-depth 128, 100 x 4 KiB each: done" quick_run quick "$addr"
kv_check "a long qps 8 run measures: 16 connections, 16 x 128 KiB pinned, qp0-qp7" \
	long_holds
kv_check "run stop ends it as stopped within 30 s, with no size kept" \
	stop_long
kv_check "no connection or pinned memory left" all_freed
kv_check "sizes 64-1M qps 4 stopped after 128: stopped, completed sizes kept" \
	stop_multi
kv_check "a waiting run bw exits 1 with 'run N stopped' when stopped" \
	stop_waiting
kv_check "no connection or pinned memory left" all_freed
kv_check "server stop mid-run: the run fails 'the server closed the connection'" \
	server_stopped
kv_check "after the server stop: connections and pinned memory freed" \
	all_freed
kv_check "run delete mid-run, its qp0 and series files open: gone, reads fail" \
	delete_running
kv_check "after the delete: connections and pinned memory freed" all_freed
kv_check "stop, and delete, while the queue pairs connect: freed" early
kv_check "a silent server (stall_servers) fails a qps 8 run by its timeout (1000 ms, scaled)" \
	stalled
kv_check "after the silent server: connections and pinned memory freed" \
	all_freed
kv_check "$dev9 on $nd9 ($addr9) with a server" make_dev9
kv_check "rdma link delete $dev9 mid-run (qps 8 tx-depth 128): the run fails" \
	dev9_removed
[ -r "$sysfs/runs/$(id_of nine)/error" ] &&
	ktap_print_msg "the run on $dev9: $(cat "$sysfs/runs/$(id_of nine)/error")"
kv_check "after the removal: freed, its server gone" dev9_cleaned
kv_check "$dev9 re-created: a server and a qps 8 run on it work" dev9_again
kv_check "kvperf -j monitor saw one run-finished per run, with its state" \
	monitor_events
kill -INT "$mon_pid" 2>/dev/null
kv_check "all runs deleted, servers stopped: counters 0" clean_all
kv_check "rmmod mid-run (qps 8 tx-depth 128) returns within 30 s, leaving nothing" \
	rmmod_mid_run
kv_check "insmod again: counters 0, a server and a qps 8 run work" after_reload
kv_dmesg_check

ktap_finished
