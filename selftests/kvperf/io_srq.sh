#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# I/O runs against targets whose receives are one shared receive queue
# (kvperf server start ... srq N), the kernel's on $KVPERF_ADDR0 and the
# user path's: every byte verified through them, from both hosts, with
# several queues, segments and a random mix; credits granted from the
# queue's depth, at most what each connection asked for, and given back
# when it ends; a connection that finds none left, and one that asks for
# in-capsule data, refused with their reasons and counted; the queue's
# memory counted and freed; stop, server stop, rmmod and the device's
# removal with I/Os in flight end in bounded time, leaving nothing
# behind; bad srq values refused by name, by the tool (here srq 4097;
# the others on the host, in selftests/usage_test.sh) and by the kernel.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "removes a Soft-RoCE device and reads the target's SRQ on this host"
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_ko
kv_require_module

addr=$KVPERF_ADDR0
sysfs=/sys/kernel/kvperf
uport=18540
# a device of its own, removed while a run uses its listener's queue
dev8=rxe8
nd8=kvd8
addr8=198.19.8.1
[ -e "/sys/class/infiniband/$dev8" ] && kv_skip_all "$dev8 already exists"
ip link show "$nd8" >/dev/null 2>&1 && kv_skip_all "$nd8 already exists"
kv_track_runs
# shellcheck disable=SC2016 # expanded when the hook runs
kv_on_exit 'kv_module_loaded || kv_insmod'
kv_on_exit "ip link del $nd8 2>/dev/null"
kv_on_exit "rdma link delete $dev8 2>/dev/null"
# the runs kv_io_start and verify_case start are not tracked: all go
kv_on_exit kv_delete_runs
patient=(timeout "$(kv_scaled 10000)ms")
# what a queue of 32 pins: 32 capsules of 512 bytes and 32 receive
# entries of 64 (kmod/io_srq.c)
srq32_pinned=$((32 * 512 + 32 * 64))

io() {
	kv_py "$KV_DIR/iolib.py" "$@"
}

# srq_server DEPTH [ADDR]: a kernel listener on ADDR (default $addr)
# with a shared receive queue of DEPTH; its id goes to $KV_TMP/server.
srq_server() {
	local out

	out=$(kvperf server start addr "${2:-$addr}" srq "$1" 2>&1) ||
		{ echo "$out"; return 1; }
	sed -n 's/^server \([0-9]\+\) listening on .*/\1/p' <<<"$out" |
		grep . >"$KV_TMP/server" ||
		{ echo "unexpected output: '$out'"; return 1; }
}

# srq_show ID KEY: a key of the listener's JSON object.
srq_show() {
	kvperf -j server show "$1" | kv_py -c '
import json, sys
s = json.load(sys.stdin)
s = s[0] if isinstance(s, list) else s
print(s.get(sys.argv[1]))
' "$2"
}

# srq_is ID KEY WANT: the key has that value, or say what it has.
srq_is() {
	local got

	got=$(srq_show "$1" "$2") || return 1
	[ "$got" = "$3" ] && return 0
	echo "server $1: $2 $got, want $3"
	return 1
}

# The listener reports its queue, nothing granted, and its memory.
shows_srq() {
	local id

	id=$(cat "$KV_TMP/server")
	srq_is "$id" srq 32 && srq_is "$id" srq_granted 0 &&
		srq_is "$id" pinned "$srq32_pinned"
}

# verify_case NAME PORT IOS ARGS...: IOS verified I/Os, each queue's part
# checked, against the target on PORT.
verify_case() {
	local name=$1 port=$2 ios=$3 queues=1 a prev=

	shift 3
	for a in "$@"; do
		[ "${prev:-}" = queues ] && queues=$a
		prev=$a
	done
	kv_run "$KV_TMP/$name.json" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 120)" kvperf -j run io addr "$addr" \
		port "$port" iters $((ios / queues)) verify "$@" \
		"${patient[@]}" ||
		{ echo "run io $*: failed"; cat "$KV_TMP/$name.err" "$KV_TMP/$name.json"; return 1; }
	io run "$KV_TMP/$name.json" --ios "$ios" --queues "$queues" --verify \
		"${want[@]}"
}

# Two queues of 24 on a queue of 32: the first is granted 24, the second
# 8; the server shows 32 granted while they run; a third connection finds
# none left and is refused, counted as busy; stopping the run gives the
# credits back.
credits_split() {
	local id sid busy out

	sid=$(cat "$KV_TMP/server")
	busy=$(srq_show "$sid" refused_busy) || return 1
	id=$(kv_io_start "$addr" rw read bs 4K qd 24 queues 2 verify) ||
		return 1
	srq_is "$sid" srq_granted 32 || return 1
	srq_is "$sid" conn_count 2 || return 1
	out=$(kvperf run io addr "$addr" qd 1 iters 10 "${patient[@]}" 2>&1) &&
		{ echo "a third connection was served: $out"; return 1; }
	grep -q "the server's shared receive queue has no credits left" <<<"$out" ||
		{ echo "refused with: $out"; return 1; }
	srq_is "$sid" refused_busy $((busy + 1)) || return 1
	kvperf run stop "$id" || return 1
	kv_wait 5 kv_run_ended "$id" || { echo "run $id is $(kv_run_state "$id")"; return 1; }
	[ "$(kv_run_state "$id")" = stopped ] ||
		{ echo "run $id is $(kv_run_state "$id"): $(cat "$sysfs/runs/$id/error")"; return 1; }
	kv_wait 5 srq_is "$sid" srq_granted 0 >/dev/null ||
		srq_is "$sid" srq_granted 0
}

# A write with in-capsule data: refused by a listener whose queue has
# room for capsules only, counted as a bad request.
inline_refused() {
	local sid n out

	sid=$(cat "$KV_TMP/server")
	n=$(srq_show "$sid" refused_request) || return 1
	out=$(kvperf run io addr "$addr" rw write bs 4K inline-data 4K \
		iters 10 "${patient[@]}" 2>&1) &&
		{ echo "served: $out"; return 1; }
	grep -q "the server's shared receive queue takes no in-capsule data (inline-data)" <<<"$out" ||
		{ echo "refused with: $out"; return 1; }
	srq_is "$sid" refused_request $((n + 1))
}

# While the listener lives only its queue stays pinned; the connections'
# memory is freed.
srq_only_left() {
	grep -qx 0 "$sysfs/connection_count" &&
		grep -qx "$(($(cat "$KV_TMP/server.pinned")))" "$sysfs/pinned_bytes"
}

# run stop with two queues of 16 in flight: stopped within 5 s, the
# connections freed, the queue's credits back.
stop_mid_run() {
	local id

	cat "$sysfs/pinned_bytes" >"$KV_TMP/server.pinned"
	id=$(kv_io_start "$addr" rw randmix 50 bs 16K qd 16 queues 2 \
		verify) || return 1
	kvperf run stop "$id" || return 1
	kv_wait 5 kv_run_ended "$id" || { echo "run $id is $(kv_run_state "$id")"; return 1; }
	[ "$(kv_run_state "$id")" = stopped ] || { echo "state $(kv_run_state "$id")"; return 1; }
	kv_wait 10 srq_only_left ||
		{ echo "connection_count $(cat "$sysfs/connection_count"), pinned_bytes $(cat "$sysfs/pinned_bytes"), want 0 and $(cat "$KV_TMP/server.pinned")"; return 1; }
	srq_is "$(cat "$KV_TMP/server")" srq_granted 0
}

# rmmod with a listener's queue and a run of two queues on it: returns
# within 10 s; insmod finds nothing left.
rmmod_mid_run() {
	local start

	srq_server 64 || return 1
	kv_io_start "$addr" rw write bs 8K qd 16 queues 2 verify >/dev/null ||
		return 1
	start=$SECONDS
	timeout "$(kv_scaled 30)" rmmod kvperf || { echo "rmmod failed"; return 1; }
	[ $((SECONDS - start)) -lt "$(kv_scaled 10)" ] ||
		{ echo "rmmod took $((SECONDS - start)) s"; return 1; }
	[ -e /sys/module/kvperf ] && { echo "still loaded"; return 1; }
	kv_insmod || { echo "insmod failed"; return 1; }
	kv_counters_zero ||
		{ grep -H . "$sysfs"/*_count "$sysfs/pinned_bytes"; return 1; }
}

server_gone() {
	! kvperf server show "$1" >/dev/null 2>&1
}

# A listener with a queue on $dev8 and two queues of 16 I/Os on it when
# the device goes: the run fails saying why, the listener is stopped by
# the module's ib_client remove callback before rdma link delete returns
# (not later, by the RDMA CM's removal event), and everything (its queue
# included) is freed.
dev_removed() {
	local id sid err log

	ip link add "$nd8" type dummy && ip addr add "$addr8/24" dev "$nd8" &&
		ip link set "$nd8" up &&
		rdma link add "$dev8" type rxe netdev "$nd8" &&
		kv_wait 10 kv_dev_listed "$dev8" || return 1
	srq_server 48 "$addr8" || return 1
	sid=$(cat "$KV_TMP/server")
	id=$(kv_io_start "$addr8" rw write bs 16K qd 16 queues 2) || return 1
	srq_is "$sid" srq_granted 32 || return 1
	log=$(kv_klog | wc -l)
	timeout "$(kv_scaled 60)" rdma link delete "$dev8" ||
		{ echo "rdma link delete $dev8 failed"; return 1; }
	server_gone "$sid" ||
		{ echo "server $sid still listed when rdma link delete returned"; return 1; }
	kv_klog | tail -n +"$((log + 1))" |
		grep -q "server $sid: its device $dev8 is being removed; stopping it" ||
		{ echo "no 'server $sid: its device $dev8 is being removed' in the kernel log"; return 1; }
	kv_wait 30 kv_run_ended "$id" || { echo "run $id is $(kv_run_state "$id")"; return 1; }
	err=$(cat "$sysfs/runs/$id/error")
	if [ "$(kv_run_state "$id")" != failed ] ||
	   ! grep -qE 'the RDMA device was removed|the server closed the connection' <<<"$err"; then
		echo "state $(kv_run_state "$id"), error '$err'"
		return 1
	fi
	kv_all_freed || return 1
	ip link del "$nd8"
}

# listening PORT FILE: the user-path server in FILE listens on PORT.
listening() {
	grep -q "^server listening on $addr:$1 (user path).*srq 16" "$2"
}

# The user-path target with a queue of 16: a kernel host's two queues of
# 12 are granted 12 and 4, verified, and a third connection meanwhile
# is refused; the user host's mix is verified too; a write with
# in-capsule data is refused with the same reason as the module's.
user_target() {
	local id out

	id=$(kv_io_start "$addr" port "$uport" rw read bs 4K qd 12 \
		queues 2) || return 1
	out=$(kvperf run io addr "$addr" port "$uport" qd 1 iters 10 \
		"${patient[@]}" 2>&1) &&
		{ echo "a third connection was served: $out"; return 1; }
	grep -q "the server's shared receive queue has no credits left" <<<"$out" ||
		{ echo "refused with: $out"; return 1; }
	kvperf run stop "$id" || return 1
	kv_wait 5 kv_run_ended "$id" || { echo "run $id is $(kv_run_state "$id")"; return 1; }
	want=(--rw write --qd 12)
	verify_case ut-w "$uport" 200 rw write bs 4K qd 12 queues 2 || return 1
	want=(--rw read --qd 12 --segments 4)
	verify_case ut-r "$uport" 200 rw read bs 128K qd 12 queues 2 \
		segments 4 || return 1
	want=(--rw read --read-pct 50 --qd 8 --reg pre)
	verify_case uu-mix "$uport" 200 rw randmix 50 bs 16K qd 8 path user ||
		return 1
	out=$(kvperf run io addr "$addr" port "$uport" rw write bs 4K \
		inline-data 4K iters 10 "${patient[@]}" 2>&1) &&
		{ echo "served: $out"; return 1; }
	grep -q "the server's shared receive queue takes no in-capsule data (inline-data)" <<<"$out" ||
		{ echo "refused with: $out"; return 1; }
}

# Kernel refusals, raw: "DESC|WANT|REQUEST".
raw_cases=(
	"server, srq 0|ERANGE: integer out of range|server-start addr=$addr port=18541 srq=0"
	"server, srq 4097|ERANGE: integer out of range|server-start addr=$addr port=18541 srq=4097"
)

kv_dmesg_mark
ktap_set_plan $((15 + ${#raw_cases[@]}))

kv_check "server start srq 32 on $addr" srq_server 32 ||
	kv_bail "no server"
kv_check "the listener shows srq 32, 0 granted, and its queue's memory pinned" \
	shows_srq
want=(--rw read --qd 8)
kv_check "verify read 4 KiB, qd 8, queues 2: 400 I/Os through the shared queue" \
	verify_case k-r 18515 400 rw read bs 4K qd 8 queues 2
want=(--rw write --qd 8 --inv local)
kv_check "verify write 4 KiB, qd 8, queues 2, inv local: 400 I/Os" \
	verify_case k-w 18515 400 rw write bs 4K qd 8 queues 2 inv local
want=(--rw read --read-pct 50 --qd 4 --segments 4)
kv_check "verify randmix 50, 128 KiB in 4 segments, qd 4, queues 2: 200 I/Os" \
	verify_case k-mix 18515 200 rw randmix 50 bs 128K qd 4 queues 2 \
	segments 4
want=(--rw write --qd 8 --reg pre)
kv_check "path user host, verify write 4 KiB, qd 8: 200 I/Os" \
	verify_case u-w 18515 200 rw write bs 4K qd 8 path user
kv_check "qd 24, queues 2 on srq 32: 32 granted, a third connection refused and counted, the credits back at stop" \
	credits_split
kv_check "inline-data: refused by the listener with a shared queue, counted" \
	inline_refused
kv_check "run stop with 2 queues of 16 in flight: stopped, connections freed, the queue kept" \
	stop_mid_run
kv_check "server stop with 2 queues in flight: the run fails saying so, the queue freed too" \
	kv_io_server_stop_mid_run "$addr" rw read bs 4K qd 16 queues 2
kv_check "rmmod with a listener's queue and 2 queues in flight: within 10 s, nothing left" \
	rmmod_mid_run
kv_check "rdma link delete under a listener's queue in use: the run fails, the listener stopped by then, freed" \
	dev_removed

srv_out=$KV_TMP/user-target.out
kvperf server start addr "$addr" port "$uport" path user srq 16 \
	>"$srv_out" 2>&1 &
srv_pid=$!
kv_on_exit "kill $srv_pid 2>/dev/null"
kv_wait 30 listening "$uport" "$srv_out"
kv_check "the user-path target with srq 16: 2 queues of 12 granted all, a third refused; both hosts verified; inline-data refused" \
	user_target
kill "$srv_pid"
kv_check "server start srq 4097: a usage error naming the range (1 to 4096)" \
	kv_usage_error "invalid srq '4097' \(1 to 4096\)" \
	server start addr "$addr" srq 4097
kv_raw_results raw_cases
kv_dmesg_check
ktap_finished
