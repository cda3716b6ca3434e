#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Device hotplug: a Soft-RoCE device added while kvperf is loaded shows up
# in `kvperf dev show` and goes away when it is removed, both with
# `rdma link delete` and by deleting its netdev; `kvperf -j monitor` sees a
# dev-add and a dev-del event with the same index for each, and nothing
# about the devices left alone; SIGINT ends the monitor with exit 0.
# Listeners and connections: a server started, a 2 s latency run against
# it and the server stopped give a monitor server-started, conn-accepted,
# conn-closed and server-stopped with the server's id, address and port;
# the run's progress events reach `kvperf -j monitor progress` only.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "removes a Soft-RoCE device under runs"
command -v rdma >/dev/null || kv_skip_all "no rdma tool (iproute2)"
kv_require_module

dev=rxe2
nd=kvd2
addr=198.18.2.1
[ -e "/sys/class/infiniband/$dev" ] && kv_skip_all "$dev already exists"
ip link show "$nd" >/dev/null 2>&1 && kv_skip_all "$nd already exists"
kv_on_exit "rdma link delete $dev; ip link del $nd"

kv_dmesg_mark
ktap_set_plan 19

mon_out=$KV_TMP/monitor.out
mon_err=$KV_TMP/monitor.err

make_netdev() {
	ip link add "$nd" type dummy &&
	ip addr add "$addr/24" dev "$nd" &&
	ip link set "$nd" up
}

# The monitor announces itself once subscribed; events before that line
# could be missed. Started here, not under kv_check's subshell, so that
# this shell can wait for it.
kvperf -j monitor >"$mon_out" 2>"$mon_err" &
mon_pid=$!
kv_on_exit "kill -KILL $mon_pid"

# monitor_started [ERR PID]: the monitor (default: the first) subscribed.
monitor_started() {
	local err=${1:-$mon_err} pid=${2:-$mon_pid}

	if ! kv_wait 10 grep -q 'monitoring kvperf events' "$err"; then
		echo "no 'monitoring kvperf events' on stderr within $(kv_scaled 10) s:"
		cat "$err"
		return 1
	fi
	kill -0 "$pid" 2>/dev/null || { echo "the monitor exited"; return 1; }
}

dev_index() {
	kvperf -j dev show "$dev" | kv_py -c '
import json, sys
d = json.load(sys.stdin)
print(d[0]["ifindex"] if isinstance(d, list) else d["ifindex"])'
}

# Leaves the index dev show reports in $KV_TMP/index.
appears() {
	local idx

	rm -f "$KV_TMP/index"
	kv_wait 10 kv_dev_listed "$dev" ||
		{ echo "$dev not in kvperf dev show after $(kv_scaled 10) s:"; kvperf dev show; return 1; }
	idx=$(dev_index) || { echo "kvperf -j dev show $dev failed"; return 1; }
	echo "$idx" >"$KV_TMP/index"
}

dev_gone() {
	! kv_dev_listed "$dev"
}

mon_lines_ge() {
	[ "$(wc -l <"$mon_out")" -ge "$1" ]
}

disappears() {
	kv_wait 10 dev_gone ||
		{ echo "$dev still in kvperf dev show after $(kv_scaled 10) s"; return 1; }
	local rc

	kv_run "$KV_TMP/out" "$KV_TMP/err" kvperf dev show "$dev"
	rc=$?
	[ "$rc" = 1 ] ||
		{ echo "kvperf dev show $dev: exit $rc, expected 1"; cat "$KV_TMP/err"; return 1; }
}

# Wait until the monitor printed N lines.
monitor_saw() {
	kv_wait 10 mon_lines_ge "$1" ||
		{ echo "monitor printed $(wc -l <"$mon_out") lines, want $1:"; cat "$mon_out"; return 1; }
}

# The monitor's events, compared with what happened: add, del, add, del of
# $dev, with the indices dev show reported.
events_match() {
	kv_py - "$mon_out" "$dev" "${indices[@]}" <<-'EOF'
	import json, sys
	path, dev, idx = sys.argv[1], sys.argv[2], [int(i) for i in sys.argv[3:]]
	want = [("dev-add", idx[0]), ("dev-del", idx[0]),
	        ("dev-add", idx[1]), ("dev-del", idx[1])]
	got, bad = [], []
	for line in open(path, encoding="utf-8"):
	    try:
	        ev = json.loads(line)
	    except ValueError as e:
	        bad.append(f"not JSON: {line.rstrip()!r}: {e}")
	        continue
	    if not isinstance(ev, dict):
	        bad.append(f"not an object: {line.rstrip()!r}")
	        continue
	    if set(ev) != {"event", "ifindex", "ifname"}:
	        bad.append(f"fields {sorted(ev)}, want event, index, name")
	    if ev.get("ifname") != dev:
	        bad.append(f"event about another device: {ev}")
	        continue
	    got.append((ev.get("event"), ev.get("ifindex")))
	if got != want:
	    bad.append(f"events {got}, want {want}")
	for b in bad:
	    print(b)
	sys.exit(1 if bad else 0)
	EOF
}

indices=()
kv_check "kvperf -j monitor starts and says it is monitoring" monitor_started
kv_check "dummy netdev $nd with $addr" make_netdev
kv_check "rdma link add $dev type rxe netdev $nd" \
	rdma link add "$dev" type rxe netdev "$nd"
kv_check "$dev appears in kvperf dev show" appears
indices+=("$(cat "$KV_TMP/index" 2>/dev/null || echo -1)")
kv_check "rdma link delete $dev" rdma link delete "$dev"
kv_check "$dev disappears, dev show $dev exits 1" disappears
kv_check "rdma link add $dev again" rdma link add "$dev" type rxe netdev "$nd"
kv_check "$dev appears again" appears
indices+=("$(cat "$KV_TMP/index" 2>/dev/null || echo -1)")
kv_check "ip link del $nd" ip link del "$nd"
kv_check "$dev disappears with its netdev" disappears
kv_check "the monitor printed 4 events" monitor_saw 4
kv_check "dev-add and dev-del of $dev with its index, each time, and nothing else" \
	events_match

mon_gone() {
	! kill -0 "$mon_pid" 2>/dev/null
}
kill -INT "$mon_pid" 2>/dev/null
if kv_wait 5 mon_gone; then
	wait "$mon_pid"
	rc=$?
	kv_result "SIGINT stops the monitor with exit 0" "$rc" \
		"monitor exit status $rc: $(cat "$mon_err")"
else
	kv_result "SIGINT stops the monitor with exit 0" 1 \
		"still running $(kv_scaled 5) s after SIGINT"
fi
# Listener and connection events, and progress only when asked for: a
# plain monitor and a progress one watch a server start, a 2 s latency
# run (progress about once a second) and the server stop.
srv_addr=$KVPERF_ADDR0
plain_out=$KV_TMP/plain.out
prog_out=$KV_TMP/progress.out
kvperf -j monitor >"$plain_out" 2>"$plain_out.err" &
plain_pid=$!
kv_on_exit "kill -KILL $plain_pid"
kvperf -j monitor progress >"$prog_out" 2>"$prog_out.err" &
prog_pid=$!
kv_on_exit "kill -KILL $prog_pid"

two_monitors() {
	monitor_started "$plain_out.err" "$plain_pid" &&
		monitor_started "$prog_out.err" "$prog_pid"
}

server_closed() {
	grep -q '"event":"conn-closed"' "$plain_out" &&
		grep -q '"event":"server-stopped"' "$plain_out"
}

# A server, a run against it, the server stopped; the run's id and the
# server's noted for the checks below.
server_cycle() {
	local out

	kv_server_start "$srv_addr" || return 1
	out=$(kvperf -j run lat op send addr "$srv_addr" size 64 time 2 \
		timeout "$(kv_scaled 5000)ms" 2>&1) || { echo "run: $out"; return 1; }
	sed -n '1s/^\[\?{"id":\([0-9]\+\),.*/\1/p' <<<"$out" >"$KV_TMP/run_id"
	kvperf run delete "$(cat "$KV_TMP/run_id")" || return 1
	kvperf server stop "$(cat "$KV_TMP/server")" || return 1
	kv_wait 10 server_closed ||
		{ echo "no conn-closed and server-stopped within $(kv_scaled 10) s:"; cat "$plain_out"; return 1; }
}

# server_events_match FILE: the events of the server, in order, with its
# id, address and port; a run's progress in FILE only with "progress".
server_events_match() {
	kv_py - "$1" "$(cat "$KV_TMP/server")" "$srv_addr" \
		"$(cat "$KV_TMP/run_id")" "$2" <<-'EOF'
	import json, sys
	path, sid, addr, rid, progress = sys.argv[1:]
	sid, rid = int(sid), int(rid)
	want = ["server-started", "conn-accepted", "conn-closed",
	        "server-stopped"]
	got, prog, bad = [], 0, []
	for line in open(path, encoding="utf-8"):
	    ev = json.loads(line)
	    kind = ev.get("event")
	    if kind == "run-progress" and ev.get("id") == rid:
	        prog += 1
	    if not kind.startswith(("server-", "conn-")):
	        continue
	    got.append(kind)
	    if (ev.get("id"), ev.get("addr"), ev.get("port")) != (sid, addr, 18515):
	        bad.append(f"not server {sid} on {addr}:18515: {ev}")
	    if kind.startswith("conn-") and (ev.get("peer_addr") != addr or
	                                     ev.get("op") != "send" or
	                                     ev.get("size_max") != 64):
	        bad.append(f"not the run's connection (send, 64 B from {addr}): {ev}")
	    if kind == "conn-closed" and not ev.get("iterations"):
	        bad.append(f"closed without iterations served: {ev}")
	if got != want:
	    bad.append(f"events {got}, want {want}")
	if progress == "progress" and prog < 1:
	    bad.append(f"no run-progress event of run {rid}")
	if progress != "progress" and prog:
	    bad.append(f"{prog} run-progress events without 'progress'")
	for b in bad:
	    print(b)
	sys.exit(1 if bad else 0)
	EOF
}

kv_check "kvperf -j monitor and kvperf -j monitor progress start" two_monitors
kv_check "server start on $srv_addr, a 2 s latency run, server stop" server_cycle
kv_check "monitor: server-started, conn-accepted, conn-closed, server-stopped; no progress" \
	server_events_match "$plain_out" plain
kv_check "monitor progress: the same, and the run's progress" \
	server_events_match "$prog_out" progress
kv_check "module counters back to 0" kv_counters_back_to_zero 10
kv_dmesg_check

ktap_finished
