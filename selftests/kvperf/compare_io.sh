#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kvperf compare io: the kernel host and the user host side by side
# against the kernel target, and the kernel target and the user target
# side by side for the kernel host. A randmix compare prints a block per
# statistic (IOPS, p50, p99, reg+inv share) with the three columns, a
# row per direction and the ratios of the medians; -j holds every round
# with the settings, and the kernel host's per-I/O FRWR shows as a share
# of its latency where the user host (reg pre) has none; reg pre has no
# share anywhere; stats off leaves IOPS alone; verify with 4 segments
# passes on all three pairings; bad arguments are refused before
# anything runs; SIGTERM stops it mid-column; compare leaves no server
# or run; the log stays clean.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "starts both paths' targets on this host"
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_module

addr=$KVPERF_ADDR0
sysfs=/sys/kernel/kvperf

cmp() {
	kv_py "$KV_DIR/compareiolib.py" "$@"
}

# compare NAME ARGS...: kvperf ARGS into $KV_TMP/NAME.out; fails unless
# it exits 0.
compare() {
	local name=$1 rc

	shift
	kv_run "$KV_TMP/$name.out" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 600)" kvperf "$@"
	rc=$?
	[ "$rc" = 0 ] && return 0
	echo "kvperf $*: exit $rc"
	sed 's/^/stderr: /' "$KV_TMP/$name.err"
	sed 's/^/stdout: /' "$KV_TMP/$name.out" | cut -c1-2000
	return 1
}

# check NAME COMPAREIOLIB-ARGS...: the output of NAME holds together.
check() {
	local name=$1 what=$2

	shift 2
	cmp "$what" "$KV_TMP/$name.out" "$@" && return 0
	sed 's/^/output: /' "$KV_TMP/$name.out" | cut -c1-3000
	return 1
}

# softirq: with busy polling the hosts and the targets spin, one on each
# vCPU of the guest, and rxe's work waits for the scheduler's tick.
randmix_table() {
	compare mix compare io addr "$addr" rw randmix 70 bs 4K qd 8 \
		queues 2 iters 300 poll softirq rounds 2 &&
		check mix table \
			"# compare io randmix 70, bs 4096, qd 8, queues 2, segments 1, reg frwr, inv remote" \
			2 read,write
}

frwr_json() {
	compare frwr -j compare io addr "$addr" rw read bs 8K qd 4 \
		iters 200 inv local poll softirq rounds 2 &&
		check frwr json 2 rw=read,bs=8192,qd=4,queues=1,segments=1,reg=frwr,inv=local,poll=softirq,iterations=200 \
			read frwr
}

pre_json() {
	compare pre -j compare io addr "$addr" rw write bs 4K qd 4 \
		iters 200 reg pre poll softirq rounds 1 &&
		check pre json 1 rw=write,bs=4096,qd=4,reg=pre,inline_data=0 \
			write pre
}

stats_off_json() {
	compare off -j compare io addr "$addr" rw read bs 4K qd 2 \
		iters 200 stats off poll softirq rounds 1 &&
		check off json 1 rw=read,qd=2 read off
}

# verify: every byte of every I/O, on every pairing compare runs; a
# mismatch would fail the run, and so the compare.
verify_segments() {
	compare verify compare io addr "$addr" rw write bs 128K segments 4 \
		qd 2 iters 40 verify poll softirq rounds 1 &&
		check verify table \
			"# compare io write, bs 131072, qd 2, queues 1, segments 4, reg frwr, inv remote" \
			1 write
}

run_count_is() {
	[ "$(cat "$sysfs/run_count")" = "$1" ]
}

# target_conns_accepted: the kernel target's "CONNS ACCEPTED" (the only
# kernel server: the one compare started)
target_conns_accepted() {
	kvperf -j server show |
		sed -n 's/.*"conn_count":\([0-9]*\).*"accepted":\([0-9]*\).*/\1 \2/p'
}

# user_host_measures: no kernel run (the kernel column's came and went),
# and the kernel target has a live connection it accepted after the
# kernel host's one: the user host's.
user_host_measures() {
	local c

	run_count_is 0 || return 1
	read -r -a c <<<"$(target_conns_accepted)"
	[ "${c[0]:-0}" -ge 1 ] && [ "${c[1]:-0}" -ge 2 ]
}

# stopped_in_user_host: SIGTERM while the user host measures (the
# kernel column's run came and went, and the user host is connected to
# the kernel target, as seen just before the signal) ends compare at
# once (exit 1, "interrupted"), well before that run's 12 s, nothing
# left.
stopped_in_user_host() {
	local pid rc t0

	kvperf compare io addr "$addr" bs 4K qd 4 time 12 poll softirq \
		rounds 5 >"$KV_TMP/stop.out" 2>"$KV_TMP/stop.err" &
	pid=$!
	if ! kv_wait 120 run_count_is 1 || ! kv_wait 60 user_host_measures; then
		kill -KILL "$pid"
		wait "$pid"
		echo "the kernel column's run did not come and go, then the user host connect to the kernel target:"
		echo "run_count $(cat "$sysfs/run_count"), target conns, accepted: $(target_conns_accepted)"
		cat "$KV_TMP/stop.err"
		return 1
	fi
	t0=$SECONDS
	kill -TERM "$pid"
	kv_wait 60 sh -c "! kill -0 $pid 2>/dev/null" || {
		kill -KILL "$pid"
		wait "$pid"
		echo "compare still runs 60 s after SIGTERM"
		return 1
	}
	wait "$pid"
	rc=$?
	if [ "$rc" != 1 ] || ! grep -qx "kvperf: interrupted" "$KV_TMP/stop.err"; then
		echo "exit $rc, want 1 and 'kvperf: interrupted'"
		cat "$KV_TMP/stop.err"
		return 1
	fi
	if [ $((SECONDS - t0)) -gt "$(kv_scaled 2)" ]; then
		echo "compare took $((SECONDS - t0)) s to stop the user host"
		return 1
	fi
	nothing_left
}

nothing_left() {
	[ "$(cat "$sysfs/server_count")" = 0 ] || {
		echo "server_count $(cat "$sysfs/server_count")"
		kvperf server show
		return 1
	}
	[ "$(cat "$sysfs/run_count")" = 0 ] || {
		echo "run_count $(cat "$sysfs/run_count")"
		kvperf run show
		return 1
	}
}

ktap_set_plan 9
kv_dmesg_mark

kv_check "compare io rw randmix 70 qd 8 queues 2 rounds 2: IOPS, p50, p99, reg+inv blocks, a row per direction, ratios of the medians" \
	randmix_table
kv_check "compare -j io rw read reg frwr inv local rounds 2: settings, every round, medians, ratios; the kernel host's FRWR a share > 0, the user host's none" \
	frwr_json
kv_check "compare -j io rw write reg pre: no registration share in any column" \
	pre_json
kv_check "compare -j io stats off: IOPS in every column, no latency, no share" \
	stats_off_json
kv_check "compare io rw write bs 128K segments 4 verify: every pairing verified" \
	verify_segments
# (its other usage errors: selftests/usage_test.sh, on the host)
kv_check "port 65535: refused, PORT+1 is the user target's" \
	kv_usage_error "invalid port '65535' \\(1 to 65534: PORT\\+1 is the user target's\\)" \
	compare io addr "$addr" port 65535
kv_check "SIGTERM while the user host measures: compare ends at once, interrupted, nothing left" \
	stopped_in_user_host
kv_check "no kernel server or run left behind, none started by the refused ones" \
	nothing_left
kv_dmesg_check

ktap_finished
