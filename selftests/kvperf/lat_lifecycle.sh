#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How latency runs end when they do not simply finish: run stop (keeping
# the sizes completed), a silent server (the stall_servers fault hook) and
# the run's timeout, the server stopped mid-run, no server at all, the
# RDMA device removed mid-run, and rmmod mid-run. Each ends in bounded
# time in the right state with the right reason, and frees its
# connections and pinned memory. Control commands need CAP_NET_ADMIN;
# show does not. kvperf -j monitor sees one run-finished event per run.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "removes a Soft-RoCE device and the module under a server"
[ -x "$PY" ] || kv_skip_all "no $PY"
command -v rdma >/dev/null || kv_skip_all "no rdma tool (iproute2)"
command -v setpriv >/dev/null || kv_skip_all "no setpriv (util-linux)"
kv_require_ko
[ -r "$KVPERF_KO" ] || kv_skip_all "KVPERF_KO=$KVPERF_KO is not readable"
kv_require_module

addr=$KVPERF_ADDR0
addr1=$KVPERF_ADDR1
sysfs=/sys/kernel/kvperf
debugfs=/sys/kernel/debug/kvperf
stall=$debugfs/stall_servers
[ -w "$stall" ] || kv_skip_all "no $stall (debugfs not mounted?)"
dev9=rxe9
nd9=kvd9
addr9=198.19.9.1
[ -e "/sys/class/infiniband/$dev9" ] && kv_skip_all "$dev9 already exists"
ip link show "$nd9" >/dev/null 2>&1 && kv_skip_all "$nd9 already exists"

# Undone in reverse order, whatever happened.
# shellcheck disable=SC2016 # expanded when the hook runs
kv_on_exit 'kv_module_loaded || kv_insmod'
kv_on_exit "ip link del $nd9"
kv_on_exit "rdma link delete $dev9"
kv_on_exit kv_delete_runs
kv_on_exit kv_stop_servers
kv_on_exit "echo N > $stall"

lat() {
	kv_py "$KV_DIR/latlib.py" "$@"
}

# Runs that must not time out: the default timeout (5000 ms without a
# completion or event), scaled; an overloaded host has stalled even a
# 64-byte ping-pong that long.
patient=(timeout "$(kv_scaled 5000)ms")

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

# running ID: the run measures (state running, some iterations done).
running() {
	local p

	state_is "$1" running || return 1
	p=$(kvperf -j run show "$1" | sed -n 's/.*"progress":\([0-9]*\).*/\1/p')
	[ "${p:-0}" -gt 0 ]
}

# start_long NAME ARGS...: a run of 10^8 iterations (days under TCG) with
# no-wait; its id goes to $KV_TMP/NAME.id once it measures.
start_long() {
	local name=$1 out id

	shift
	out=$(kvperf -j run lat "$@" "${patient[@]}" no-wait 2>&1) ||
		{ echo "kvperf -j run lat $* no-wait: $out"; return 1; }
	id=$(sed -n 's/^{"id":\([0-9]\+\)}$/\1/p' <<<"$out")
	[ -n "$id" ] || { echo "no-wait printed '$out', want {\"id\":N}"; return 1; }
	echo "$id" >"$KV_TMP/$name.id"
	kv_wait 20 running "$id" ||
		{ echo "run $id not measuring after $(kv_scaled 20) s:"; kvperf run show "$id"; return 1; }
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

# all_freed: no connection and nothing pinned, within 10 s (scaled).
all_freed() {
	kv_wait 10 freed && return 0
	echo "$(kv_scaled 10) s later: connection_count $(cat "$sysfs/connection_count")," \
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

quick_run() {
	kv_run "$KV_TMP/quick.json" "$KV_TMP/quick.err" \
		timeout "$(kv_scaled 60)" kvperf -j run lat op send addr "$addr" iters 100 \
		"${patient[@]}" ||
		{ cat "$KV_TMP/quick.err" "$KV_TMP/quick.json"; return 1; }
	lat run "$KV_TMP/quick.json" --state 'done' --iters 100 || return 1
	echo "$(sed -n 's/^{"id":\([0-9]\+\),.*/\1/p' "$KV_TMP/quick.json") done" >>"$finals"
}

# A long run holds two connections (client and server side) and pinned
# memory while it measures.
long_holds() {
	start_long long op write addr "$addr" size 64 iters 100000000 || return 1
	grep -qx 2 "$sysfs/connection_count" ||
		{ echo "connection_count $(cat "$sysfs/connection_count"), want 2"; return 1; }
	[ "$(cat "$sysfs/pinned_bytes")" -gt 0 ] ||
		{ echo "pinned_bytes $(cat "$sysfs/pinned_bytes") while running"; return 1; }
}

stop_long() {
	local id

	id=$(id_of long) || return 1
	kvperf run stop "$id" || { echo "run stop $id failed"; return 1; }
	until_ended "$id" 5 || return 1
	echo "$id stopped" >>"$finals"
	state_is "$id" stopped || { echo "state $(state_of "$id")"; return 1; }
	# No size completed: nothing measured is kept.
	kvperf -j run show "$id" >"$KV_TMP/long.json" || return 1
	lat run "$KV_TMP/long.json" --state stopped --sizes ""
}

# size_done ID SIZE: sysfs shows SIZE (or a larger one) completed.
size_done() {
	[ -n "$(cat "$sysfs/runs/$1/iterations")" ] &&
		[ "$(cat "$sysfs/runs/$1/size")" -ge "$2" ]
}

sizes_all=$(for ((s = 2; s <= 8388608; s *= 2)); do printf '%s,' "$s"; done)

# Wait for sysfs to show size 8 completed, then stop: 2, 4 and 8 (at
# least) are kept, with all their iterations.
stop_multi() {
	local id

	start_long multi op write addr "$addr" sizes all iters 200 || return 1
	id=$(id_of multi)
	kv_wait 30 size_done "$id" 8 ||
		{ echo "size 8 not done after $(kv_scaled 30) s"; kvperf run show "$id"; return 1; }
	kvperf run stop "$id" || { echo "run stop $id failed"; return 1; }
	until_ended "$id" 5 || return 1
	echo "$id stopped" >>"$finals"
	kvperf -j run show "$id" >"$KV_TMP/multi.json" || return 1
	lat run "$KV_TMP/multi.json" --state stopped --iters 200 \
		--sizes-prefix "$sizes_all" --min-results 3
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

# A waiting `kvperf run lat` ends with exit 1 and "run N stopped" when
# another command stops its run, printing what it has.
stop_waiting() {
	local before id pid rc

	before=$(last_run_id)
	kvperf run lat op send addr "$addr" iters 100000000 "${patient[@]}" \
		>"$KV_TMP/wait.out" 2>"$KV_TMP/wait.err" &
	pid=$!
	if ! kv_wait 20 new_run "$before"; then
		echo "no new running run after $(kv_scaled 20) s"
		kill "$pid"
		return 1
	fi
	id=$(last_run_id)
	kvperf run stop "$id" || { echo "run stop $id failed"; kill "$pid"; return 1; }
	if ! kv_wait 10 eval '! kill -0 '"$pid"; then
		echo "kvperf run lat still waiting $(kv_scaled 10) s after run stop"
		kill "$pid"
		return 1
	fi
	wait "$pid"
	rc=$?
	echo "$id stopped" >>"$finals"
	[ "$rc" = 1 ] || { echo "exit $rc, want 1"; cat "$KV_TMP/wait.err"; return 1; }
	grep -qx "kvperf: run $id stopped" "$KV_TMP/wait.err" ||
		{ echo "stderr:"; cat "$KV_TMP/wait.err"; return 1; }
	grep -q "^# run $id: lat send .* state stopped$" "$KV_TMP/wait.out" ||
		{ echo "stdout:"; cat "$KV_TMP/wait.out"; return 1; }
}

# The servers answer nothing but keep the connection: only the run's own
# timeout (500 ms, scaled: it also bounds each step of the connect, which
# a loaded host slows) ends it.
stalled() {
	local start=$SECONDS rc id ms limit

	ms=$(kv_scaled 500)
	limit=$(kv_scaled 15)
	echo Y >"$stall" || return 1
	kv_run "$KV_TMP/stall.json" "$KV_TMP/stall.err" \
		timeout "$(kv_scaled 60)" kvperf -j run lat op send addr "$addr" \
		size 64 iters 1000 timeout "${ms}ms"
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
	lat run "$KV_TMP/stall.json" --state failed --field "timeout_ms=$ms"
}

server_stopped() {
	local sid id

	start_server "$addr1" one || return 1
	sid=$(cat "$KV_TMP/one.sid")
	start_long srvstop op write addr "$addr1" size 64 iters 100000000 ||
		{ kvperf server stop "$sid"; return 1; }
	id=$(id_of srvstop)
	kvperf server stop "$sid" || { echo "server stop $sid failed"; return 1; }
	until_ended "$id" 10 || return 1
	echo "$id failed" >>"$finals"
	error_matches "$id" "the server closed the connection" || return 1
	kv_run "$KV_TMP/out" "$KV_TMP/err" kvperf server show "$sid" &&
		{ echo "server $sid still listed"; return 1; }
	return 0
}

# run_fails NAME SECONDS REGEX ARGS...: kvperf run lat ARGS exits 1 within
# SECONDS (times the time scale) with "kvperf: run N failed: " and a
# reason matching REGEX.
run_fails() {
	local name=$1 limit re=$3 start=$SECONDS rc id

	limit=$(kv_scaled "$2")
	shift 3
	kv_run "$KV_TMP/$name.out" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 60)" kvperf run lat "$@"
	rc=$?
	id=$(sed -n 's/^# run \([0-9]\+\): .*/\1/p' "$KV_TMP/$name.out")
	[ -n "$id" ] && echo "$id failed" >>"$finals"
	echo "exit $rc after $((SECONDS - start)) s"
	cat "$KV_TMP/$name.err"
	[ "$rc" = 1 ] || return 1
	[ $((SECONDS - start)) -le "$limit" ] ||
		{ echo "took more than $limit s"; return 1; }
	grep -qE "^kvperf: run $id failed: ($re)" "$KV_TMP/$name.err"
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

	start_long nine op write addr "$addr9" size 64 iters 100000000 ||
		return 1
	id=$(id_of nine)
	timeout "$(kv_scaled 30)" rdma link delete "$dev9" ||
		{ echo "rdma link delete $dev9 failed"; return 1; }
	echo "rdma link delete took $((SECONDS - start)) s"
	until_ended "$id" 10 || return 1
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
	ip link del "$nd9"
}

unpriv() {
	setpriv --inh-caps=-net_admin --ambient-caps=-net_admin \
		--bounding-set=-net_admin "$@"
}

# refused ARGS...: without CAP_NET_ADMIN, kvperf ARGS exits 1 with EPERM.
refused() {
	local rc

	kv_run "$KV_TMP/out" "$KV_TMP/err" unpriv timeout "$(kv_scaled 20)" kvperf "$@"
	rc=$?
	if [ "$rc" != 1 ] || ! grep -q "Operation not permitted" "$KV_TMP/err"; then
		echo "unprivileged kvperf $*: exit $rc"
		cat "$KV_TMP/err" "$KV_TMP/out"
		return 1
	fi
}

unprivileged() {
	local runs servers id sid rc=0

	runs=$(cat "$sysfs/run_count")
	servers=$(cat "$sysfs/server_count")
	id=$(id_of long)
	sid=$(cat "$KV_TMP/main.sid")
	refused server start addr "$addr1" || rc=1
	refused server stop "$sid" || rc=1
	refused run lat op send addr "$addr" iters 10 no-wait || rc=1
	refused run stop "$id" || rc=1
	refused run delete "$id" || rc=1
	if [ "$(cat "$sysfs/run_count")" != "$runs" ] ||
	   [ "$(cat "$sysfs/server_count")" != "$servers" ]; then
		echo "run_count or server_count changed"
		rc=1
	fi
	return "$rc"
}

unprivileged_show() {
	local id sid out

	id=$(id_of long)
	sid=$(cat "$KV_TMP/main.sid")
	out=$(unpriv kvperf -j run show "$id") || { echo "run show: $out"; return 1; }
	grep -q "^\[{\"id\":$id," <<<"$out" || { echo "run show: $out"; return 1; }
	out=$(unpriv kvperf -j server show) || { echo "server show: $out"; return 1; }
	grep -q "{\"id\":$sid," <<<"$out" || { echo "server show: $out"; return 1; }
	unpriv kvperf run show >/dev/null || { echo "text run show failed"; return 1; }
}

monitor_events() {
	# shellcheck disable=SC2046 # "ID STATE" pairs
	lat events "$mon_out" $(cat "$finals") && return 0
	echo "monitor output:"
	cat "$mon_out"
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
	kv_wait 10 nothing_left ||
		{ grep -H . "$sysfs"/*_count "$sysfs/pinned_bytes"; rc=1; }
	return "$rc"
}

# rmmod while a run measures: returns promptly, then the module loads
# again with nothing left over.
rmmod_mid_run() {
	local start

	start_server "$addr" main || return 1
	start_long rm op write addr "$addr" size 64 iters 100000000 || return 1
	start=$SECONDS
	timeout "$(kv_scaled 30)" rmmod kvperf || { echo "rmmod failed"; return 1; }
	echo "rmmod took $((SECONDS - start)) s"
	[ $((SECONDS - start)) -lt "$(kv_scaled 10)" ] ||
		{ echo "not less than $(kv_scaled 10) s"; return 1; }
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
	quick_run || return 1
	clean_all
}

kv_dmesg_mark
ktap_set_plan 23
: >"$finals"

kv_check "kvperf -j monitor starts" monitor_started
kv_check "server start on $addr" start_server "$addr" main ||
	kv_bail "no server"
kv_check "a 100-iteration send run is done" quick_run
kv_check "a long run measures: 2 connections, memory pinned" long_holds
kv_check "run stop ends it as stopped within 5 s, with no size kept" stop_long
kv_check "sizes all stopped after size 8: stopped, completed sizes kept" \
	stop_multi
kv_check "a waiting run lat exits 1 with 'run N stopped' when stopped" \
	stop_waiting
kv_check "no connection or pinned memory left" all_freed
kv_check "stall_servers: timeout 500 (scaled) fails 'no completion or event within' that" \
	stalled
kv_check "after the stall: connections and pinned memory freed" all_freed
kv_check "server stop mid-run: the run fails 'the server closed the connection'" \
	server_stopped
kv_check "no server listening: fails 'connection rejected' within 10 s" \
	run_fails nosrv 10 "connection rejected" op send addr "$addr1" iters 10
kv_check "nobody at the address: fails within the default 5000 ms timeout" \
	run_fails nohost 15 "timed out connecting|unreachable|did not answer" \
	op send addr "${addr1%.*}.77" iters 10
kv_check "$dev9 on $nd9 ($addr9) with a server" make_dev9
kv_check "rdma link delete $dev9 mid-run: the run fails" dev9_removed
[ -r "$sysfs/runs/$(id_of nine)/error" ] &&
	ktap_print_msg "the run on $dev9: $(cat "$sysfs/runs/$(id_of nine)/error")"
kv_check "after the removal: freed, its server can be stopped" dev9_cleaned
kv_check "without CAP_NET_ADMIN: server start/stop, run lat/stop/delete get EPERM" \
	unprivileged
kv_check "without CAP_NET_ADMIN: run show and server show work" \
	unprivileged_show
kv_check "kvperf -j monitor saw one run-finished per run, with its state" \
	monitor_events
kill -INT "$mon_pid" 2>/dev/null
kv_check "all runs deleted, servers stopped: counters 0" clean_all
kv_check "rmmod mid-run returns within 10 s, leaving nothing" rmmod_mid_run
kv_check "insmod again: counters 0, a server and a run work" after_reload
kv_dmesg_check

ktap_finished
