#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel path and the user path speak one wire protocol: a kernel-path
# client (kvperf run ...) against a user-path server (kvperf server start
# ... path user), and a user-path client (kvperf run ... path user)
# against the kernel's server, pass for every op. For each direction and
# each of send, write and read: a latency run over a range of sizes (with
# verify for send and write) completes every size with the iterations
# asked and ordered statistics; a bandwidth run on two queue pairs (with
# verify for send and write) moves exactly qps x iters messages, the
# server counting every message of a send run; and a bidirectional run
# moves the same back. The user-path server prints one line per
# connection, with the op the client asked for, and exits 0 on SIGTERM;
# a user-path client where nothing listens fails, saying so; the kernel
# log stays clean and the module's counters are back to 0 at the end.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "the user-path server runs on this host"
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_module

addr=$KVPERF_ADDR0
uport=18600		# the user-path server's port
kport=18515		# the kernel server's (the default)
kv_track_runs

lat() {
	kv_py "$KV_DIR/latlib.py" "$@"
}

bw() {
	kv_py "$KV_DIR/bwlib.py" "$@"
}

# Runs that must not time out: the default timeout (5000 ms without a
# completion), scaled. A bandwidth run signals a completion every 100
# messages of 64 KiB on each queue pair, which a loaded host can stretch
# past 5 s.
patient=(timeout "$(kv_scaled 5000)ms")

# run_json NAME ARGS...: kvperf -j run ARGS into $KV_TMP/NAME.json (a
# kernel-path run's id noted for deletion); fails unless it exits 0.
run_json() {
	local name=$1

	shift
	kv_run_json "$name" "$(kv_scaled 300)" kvperf -j run "$@"
}

show_json() {
	sed 's/^/json: /' "$KV_TMP/$1.json" | cut -c1-2000
}

# lat_case NAME PATH OP PORT: a latency run of OP from PATH's client over
# sizes 2 to 64 KiB, 40 iterations each, verified for send and write.
lat_case() {
	local name=$1 path=$2 op=$3 port=$4 v=() check=(--max-err-ppm 10000)

	[ "$op" != read ] && v=(verify) && check+=(--verify)
	run_json "$name" lat op "$op" addr "$addr" port "$port" \
		sizes 2-65536 iters 40 "${v[@]}" path "$path" "${patient[@]}" ||
		return 1
	lat run "$KV_TMP/$name.json" --state 'done' --op "$op" --iters 40 \
		--sizes 2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536 \
		--field path="$path" --field port="$port" "${check[@]}" &&
		return 0
	show_json "$name"
	return 1
}

# bw_case NAME PATH OP PORT [bidir]: a bandwidth run of OP from PATH's
# client, 64 KiB x 150 on each of two queue pairs (verified for send and
# write), or with bidir 4 KiB x 200 both ways on one.
bw_case() {
	local name=$1 path=$2 op=$3 port=$4 more=() check=()

	if [ "${5:-}" = bidir ]; then
		more=(size 4096 iters 200 bidir)
		check=(--qps 1 --iters 200 --sizes 4096 --bidir)
	else
		more=(size 65536 iters 150 qps 2)
		check=(--qps 2 --iters 150 --sizes 65536)
		[ "$op" != read ] && more+=(verify) && check+=(--verify)
	fi
	run_json "$name" bw op "$op" addr "$addr" port "$port" \
		"${more[@]}" path "$path" "${patient[@]}" || return 1
	bw run "$KV_TMP/$name.json" --state 'done' --op "$op" "${check[@]}" \
		--field path="$path" --field port="$port" && return 0
	show_json "$name"
	return 1
}

ops="send write read"
# 3 ops x (lat, bw, bidir) x 2 directions, the user server's lines and
# exit, the refused client, the kernel log, the counters
ktap_set_plan $((3 * 3 * 2 + 5))
kv_dmesg_mark

# 1. kernel-path client, user-path server
srv_out=$KV_TMP/user-server.out
kvperf server start addr "$addr" port "$uport" path user \
	>"$srv_out" 2>&1 &
srv_pid=$!
kv_on_exit "kill $srv_pid"
listening() {
	grep -q "^server listening on $addr:$uport (user path)" "$srv_out"
}
kv_wait 30 listening ||
	kv_bail "the user-path server did not listen: $(cat "$srv_out")"

for op in $ops; do
	kv_check "kernel client, user server: lat $op, sizes 2-64K x 40" \
		lat_case "k2u-lat-$op" kernel "$op" "$uport"
	kv_check "kernel client, user server: bw $op, 64K x 150 x 2 QPs" \
		bw_case "k2u-bw-$op" kernel "$op" "$uport"
	kv_check "kernel client, user server: bw $op bidir, 4K x 200 each way" \
		bw_case "k2u-bidir-$op" kernel "$op" "$uport" bidir
done

# The server's account: one line per connection, in the order the runs
# made them (a bandwidth run one per queue pair), with the client's op.
want_conns() {
	local op

	for op in $ops; do
		echo "lat $op"
		echo "bw $op"
		echo "bw $op"
		echo "bw $op"
	done
}

server_lines() {
	kv_server_conns "$srv_out" "$(want_conns)"
}

kv_check "user server: a line per connection with its op (12)" server_lines
# (the server is this shell's child: wait for it here, not in kv_check's
# subshell)
kill -TERM "$srv_pid"
wait "$srv_pid"
rc=$?
kv_result "user server: exits 0 on SIGTERM" "$rc" \
	"the user-path server exited with $rc"

# 2. user-path client, kernel-path server
out=$(kvperf server start addr "$addr" port "$kport" 2>&1) ||
	kv_bail "server start addr $addr: $out"
kid=$(echo "$out" | sed -n 's/^server \([0-9]\+\) listening.*/\1/p')
kv_on_exit "kvperf server stop $kid"

for op in $ops; do
	kv_check "user client, kernel server: lat $op, sizes 2-64K x 40" \
		lat_case "u2k-lat-$op" user "$op" "$kport"
	kv_check "user client, kernel server: bw $op, 64K x 150 x 2 QPs" \
		bw_case "u2k-bw-$op" user "$op" "$kport"
	kv_check "user client, kernel server: bw $op bidir, 4K x 200 each way" \
		bw_case "u2k-bidir-$op" user "$op" "$kport" bidir
done

refused() {
	local rc want="connection rejected (is a kvperf server listening there?)"

	kv_run "$KV_TMP/none.out" "$KV_TMP/none.err" timeout "$(kv_scaled 60)" \
		kvperf run lat op send addr "$addr" port $((uport + 7)) \
		size 64 iters 10 path user
	rc=$?
	if [ "$rc" != 1 ] || ! grep -qF "$want" "$KV_TMP/none.err"; then
		echo "exit $rc, want 1 and '$want'"
		cat "$KV_TMP/none.err"
		return 1
	fi
}
kv_check "user client where nothing listens: exit 1, 'connection rejected'" \
	refused

timeout "$(kv_scaled 60)" kvperf server stop "$kid" 2>&1 | kv_diag
for i in $(cat "$KV_IDS"); do
	timeout "$(kv_scaled 60)" kvperf run delete "$i" 2>&1 | kv_diag
done
: >"$KV_IDS"
kv_check "module counters back to 0" kv_counters_back_to_zero 60
kv_dmesg_check

ktap_finished
