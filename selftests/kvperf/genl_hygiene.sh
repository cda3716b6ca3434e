#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netlink family behaves with the rest of the system. A run whose
# results outgrow a message (a latency sweep of every size, a bandwidth
# run of 16 queue pairs) is dumped whole through a 4 KiB receive buffer,
# split over messages that say where they continue, and `run show`
# prints each run once with all its results. While a run of 16 queue
# pairs of tx-depth 4096 is deleted, the generic netlink controller
# keeps answering within 100 ms (times the suite's time scale): the
# family holds no global lock. A user without CAP_NET_ADMIN reading a
# device does not make the module probe it (no max_inline until a
# privileged reader or a run has), and a device moved to another RDMA
# network namespace is not listed.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "adds and removes a Soft-RoCE device"
[ -x "$PY" ] || kv_skip_all "no $PY"
command -v setpriv >/dev/null || kv_skip_all "no setpriv (util-linux)"
kv_require_module

ktap_set_plan 8

addr=$KVPERF_ADDR0
dev1=$KVPERF_DEV1
nd1=$KVPERF_NETDEV1
sysfs=/sys/kernel/kvperf
kv_track_runs
kv_on_exit "kvperf server stop 1 2>/dev/null; kvperf -j server show | grep -o '{\"id\":[0-9]*' | cut -d: -f2 | xargs -r -n1 kvperf server stop"
patient=(timeout "$(kv_scaled 5000)ms")
kv_dmesg_mark

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# run_id NAME ARGS...: kvperf -j run ARGS; its id noted
run_id() {
	local name=$1 rc id

	shift
	kv_run "$KV_TMP/$name.json" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 300)" kvperf -j run "$@" "${patient[@]}"
	rc=$?
	id=$(sed -n '1s/^\[\?{"id":\([0-9]\+\),.*/\1/p' "$KV_TMP/$name.json")
	[ -n "$id" ] && echo "$id" >>"$KV_IDS" && echo "$id" >"$KV_TMP/$name.id"
	[ "$rc" = 0 ] || { echo "run $*: exit $rc"; cat "$KV_TMP/$name.err"; return 1; }
}

kv_check "server start addr $addr" kvperf server start addr "$addr"

big_runs() {
	run_id sweep lat op send addr "$addr" sizes all iters 3 warmup 0 || return 1
	run_id wide bw addr "$addr" op write sizes 2-64K iters 20 qps 16
}
kv_check "a latency run of every size (23) and a bandwidth run of 16 queue pairs x 16 sizes complete" big_runs

# every run, dumped through a 4 KiB buffer, has all of its results; the
# bandwidth run (16 sizes x 16 queue pairs, about 20 KiB) took several
# messages
small_dump() {
	local out=$KV_TMP/dump.txt sweep wide

	sweep=$(cat "$KV_TMP/sweep.id") wide=$(cat "$KV_TMP/wide.id")
	kv_py "$KV_DIR/genl_watch.py" dump-runs 4096 >"$out" || { cat "$out"; return 1; }
	grep -qx "id=$sweep messages=[0-9]* results=23" "$out" &&
	grep -qx "id=$wide messages=[0-9]* results=16" "$out" &&
	! grep -qx "id=$wide messages=1 results=16" "$out" ||
		{ echo "want id=$sweep and id=$wide whole, over several messages:"; cat "$out"; return 1; }
}
kv_check "dumped with a 4 KiB buffer: every result there, the 16-QP run split over messages" small_dump

show_whole() {
	kvperf -j run show >"$KV_TMP/show.json" || return 1
	kv_py - "$KV_TMP/show.json" "$(cat "$KV_TMP/sweep.id")" \
		"$(cat "$KV_TMP/wide.id")" <<-'EOF'
	import json, sys
	runs = json.load(open(sys.argv[1]))
	ids = [r["id"] for r in runs]
	for rid, want in ((int(sys.argv[2]), 23), (int(sys.argv[3]), 16)):
	    if ids.count(rid) != 1:
	        sys.exit(f"run {rid} listed {ids.count(rid)} times")
	    run = next(r for r in runs if r["id"] == rid)
	    n = len(run.get("results", []))
	    if n != want:
	        sys.exit(f"run {rid}: {n} results, want {want}")
	EOF
}
kv_check "run show prints each run once with all its results" show_whole

# While a run of 16 queue pairs with 4096 requests in flight each is
# deleted, the controller keeps answering.  Were the delete to hold the
# generic netlink lock, a request made as it starts would wait for all of
# it; so the slowest answer must stay under a tenth of the delete's time
# (and may always take 100 ms x the time scale).  Both sides slow down
# together on a loaded machine, which an absolute limit alone did not.
delete_stalls_nobody() {
	local id watch=$KV_TMP/watch.txt t0 t1 ms max limit

	kvperf -j run bw addr "$addr" op write size 64 qps 16 tx-depth 4096 \
		time 600 no-wait >"$KV_TMP/long.json" 2>"$KV_TMP/long.err" ||
		{ cat "$KV_TMP/long.err"; return 1; }
	id=$(grep -o '"id":[0-9]*' "$KV_TMP/long.json" | head -n 1 | cut -d: -f2)
	[ -n "$id" ] || { echo "no run id:"; cat "$KV_TMP/long.json"; return 1; }
	echo "$id" >>"$KV_IDS"
	kv_wait 60 kv_run_measuring "$id" || { echo "run $id: $(cat "$sysfs/runs/$id/state")"; return 1; }
	# the watcher asks from "ready" until the delete has returned
	kv_start_ready "$watch" "$PY" -S "$KV_DIR/genl_watch.py" ctrl-latency ||
		return 1
	t0=$(kv_ms)
	kvperf run delete "$id" || { kv_stop_ready; return 1; }
	t1=$(kv_ms)
	kv_stop_ready || { cat "$watch" "$watch.err"; return 1; }
	grep -q '^requests=[1-9]' "$watch" ||
		{ echo "the watcher asked nothing during the delete:"; cat "$watch" "$watch.err"; return 1; }
	max=$(sed -n 's/.*max_ms=\([0-9]*\).*/\1/p' "$watch")
	ms=$((t1 - t0))
	limit=$((ms / 10))
	[ "$limit" -ge $((100 * kv_time_scale)) ] || limit=$((100 * kv_time_scale))
	echo "delete took $ms ms; controller: $(tail -n 1 "$watch")" >"$KV_TMP/delete.txt"
	[ -n "$max" ] && [ "$max" -lt "$limit" ] ||
		{ echo "the controller took up to ${max:-?} ms (limit $limit)"; return 1; }
}
kv_check "deleting a 16 x tx-depth 4096 run: nlctrl never waits for it (slowest answer < delete time / 10)" \
	delete_stalls_nobody
[ -r "$KV_TMP/delete.txt" ] && kv_diag <"$KV_TMP/delete.txt"

# A fresh device: nobody's dev show does not probe it, root's does.
no_probe() {
	rdma link delete "$dev1" || return 1
	rdma link add "$dev1" type rxe netdev "$nd1" || return 1
	kv_wait 20 nobody kvperf dev show "$dev1" || return 1
	nobody kvperf -j dev show "$dev1" >"$KV_TMP/nobody1.json" || return 1
	if grep -q '"max_inline"' "$KV_TMP/nobody1.json"; then
		echo "an unprivileged read probed $dev1"
		return 1
	fi
	kvperf -j dev show "$dev1" >"$KV_TMP/root.json" || return 1
	grep -q '"max_inline":[0-9]' "$KV_TMP/root.json" ||
		{ echo "root sees no max_inline"; cat "$KV_TMP/root.json"; return 1; }
	nobody kvperf -j dev show "$dev1" >"$KV_TMP/nobody2.json" || return 1
	grep -q '"max_inline":[0-9]' "$KV_TMP/nobody2.json" ||
		{ echo "nobody does not see the probed limit"; return 1; }
}
kv_check "dev show as nobody: no probe of a fresh device (no max_inline); as root: probed, then seen by all" no_probe

# In exclusive mode a device moved to another namespace is not ours.
other_netns() {
	local rc=0

	# only while no other namespace exists
	rdma system set netns exclusive || return 1
	ip netns add kvperf-t || { rdma system set netns shared; return 1; }
	if rdma dev set "$dev1" netns kvperf-t 2>"$KV_TMP/move.err"; then
		kvperf -j dev show >"$KV_TMP/devs.json" || rc=1
		grep -q "\"name\":\"$dev1\"" "$KV_TMP/devs.json" &&
			{ echo "$dev1 listed from another namespace"; rc=1; }
		kvperf dev show "$dev1" >"$KV_TMP/dev1.out" 2>&1 &&
			{ echo "dev show $dev1 answered"; rc=1; }
		grep -q "no RDMA device named $dev1" "$KV_TMP/dev1.out" ||
			{ cat "$KV_TMP/dev1.out"; rc=1; }
	elif grep -q "Operation not supported" "$KV_TMP/move.err"; then
		# Soft-RoCE cannot change namespace; real HCAs (mlx5) can
		rc=4
	else
		echo "cannot move $dev1: $(cat "$KV_TMP/move.err")"
		rc=1
	fi
	# deleting the namespace gives the device back to init_net
	ip netns del kvperf-t
	kv_wait 20 kvperf dev show "$dev1" || { echo "$dev1 not back"; rc=1; }
	kv_wait 20 rdma system set netns shared || rc=1
	return "$rc"
}
other_netns
case $? in
0) kv_result "a device in another RDMA namespace (exclusive mode) is neither listed nor found" 0 ;;
4) kv_skip "a device in another RDMA namespace is neither listed nor found" \
	"$dev1 (Soft-RoCE) cannot change namespace (EOPNOTSUPP)" ;;
*) kv_result "a device in another RDMA namespace (exclusive mode) is neither listed nor found" 1 ;;
esac

kv_check "kernel log clean" kv_dmesg_check

ktap_finished
