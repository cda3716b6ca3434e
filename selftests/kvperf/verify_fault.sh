#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# verify finds what is wrong, not only that nothing is. A fault switch
# flips one byte of each of the next K payloads a verify check inspects
# (the module's debugfs corrupt_payloads, the user path's
# KVPERF_FAULT_CORRUPT_PAYLOADS environment variable), and a run reports
# exactly K mismatches, all in the payloads checked first, and 0 in those
# checked after the switch ran out.
#
# Latency runs (send, write, read) verify every payload on the client:
# the switch of the client's path, against a kernel server and a user
# server, over two sizes of 10 payloads: K at the first size, 0 at the
# second. Bandwidth runs (send, write) verify on the server, one payload
# per queue pair at the end of each size: the switch of the server's
# path, from a kernel client and a user client, over three sizes on two
# queue pairs: 2, 1 and 0 mismatches. After each run the switch is back
# to 0: debugfs reads 0 (and a user-path client leaves it alone), and a
# user server's next run finds nothing wrong.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "Soft-RoCE's fault switches corrupt payloads"
kv_require_module

addr=$KVPERF_ADDR0
switch=/sys/kernel/debug/kvperf/corrupt_payloads
env_switch=KVPERF_FAULT_CORRUPT_PAYLOADS
kport=18515		# the kernel server's (the default)
uport=18620		# the user server of the latency runs
bport=18621		# the user servers of the bandwidth runs, one after another
k=3			# corruptions per run

# No switch of this shell's environment may reach a process by accident.
unset "$env_switch"
[ -w "$switch" ] || kv_skip_all "no $switch (debugfs not mounted?)"
kv_on_exit "echo 0 >$switch"

# The file, its mode and its resting value.
switch_file() {
	local mode

	mode=$(stat -c %a "$switch") || return 1
	[ "$mode" = 600 ] || { echo "mode $mode, want 600"; return 1; }
	[ "$(cat "$switch")" = 0 ] ||
		{ echo "reads '$(cat "$switch")', want 0"; return 1; }
	echo 2 >"$switch" || return 1
	if [ "$(cat "$switch")" != 2 ]; then
		echo "wrote 2, reads '$(cat "$switch")'"
		return 1
	fi
	echo 0 >"$switch"
}

# Under TCG on a busy host every process costs a noticeable fraction of a
# second, so what runs once per check is bash builtins but for the runs
# themselves: no Python, no grep, no cat.

# per_size FILE: set $got to "SIZE:MISMATCHES ..." for the results of the
# run kvperf -j printed to FILE (one line: each result starts with its
# size, and only results have a mismatches key); fail unless the run is
# done and verified.
got=
per_size() {
	local json='' rest

	got=
	read -r -d '' json <"$1"
	[[ $json == *'"state":"done"'* ]] || { got="(not done)"; return 1; }
	[[ $json == *'"verify":true'* ]] || { got="(not verified)"; return 1; }
	rest=${json#*'"results":'}
	while [[ $rest =~ \{\"size\":([0-9]+) ]]; do
		got+="${got:+ }${BASH_REMATCH[1]}:"
		rest=${rest#*'{"size":'}
		[[ $rest =~ \"mismatches\":([0-9]+) ]] || return 1
		got+=${BASH_REMATCH[1]}
		rest=${rest#*'"mismatches":'}
	done
}

# expect NAME WANT ARGS...: kvperf -j run ARGS (a kernel-path run is
# deleted after) reports per size the mismatches of WANT ("SIZE:N ...");
# the JSON and the tool's stderr are the diagnostics when not.
expect() {
	local name=$1 want=$2 json=$KV_TMP/$1.json err=$KV_TMP/$1.err
	local rc line=''

	shift 2
	kv_run "$json" "$err" timeout 120 "$@"
	rc=$?
	read -r line <"$json"
	[[ $line =~ ^\[?\{\"id\":([0-9]+), ]] &&
		kvperf run delete "${BASH_REMATCH[1]}" >/dev/null 2>&1
	per_size "$json" && [ "$rc" = 0 ] && [ "$got" = "$want" ] && return 0
	echo "${KVPERF_FAULT_CORRUPT_PAYLOADS:+KVPERF_FAULT_CORRUPT_PAYLOADS=$KVPERF_FAULT_CORRUPT_PAYLOADS }$*: exit $rc"
	echo "size:mismatches '$got', want '$want'"
	sed 's/^/stderr: /' "$err"
	sed 's/^/json: /' "$json" | cut -c1-3000
	return 1
}

# switch_drained: debugfs reads 0 again.
switch_drained() {
	local v

	read -r v <"$switch"
	[ "$v" = 0 ] && return 0
	echo "$switch reads $v after the run, want 0"
	return 1
}

# lat_case PATH PORT OP: a latency run of OP from PATH's client against
# the server on PORT, sizes 64 and 128 B, 2 warm-up and 8 measured
# iterations each, all verified, with $k corruptions on the client's
# switch (the variable exported to this function's run only): $k
# mismatches at 64 B (the payloads checked first), none at 128 B;
# debugfs at 0 after.
lat_case() {
	local path=$1 port=$2 op=$3

	echo 0 >"$switch"
	if [ "$path" = kernel ]; then
		echo "$k" >"$switch"
	else
		local -x KVPERF_FAULT_CORRUPT_PAYLOADS=$k
	fi
	expect "lat-$path-$port-$op" "64:$k 128:0" kvperf -j run lat op "$op" \
		addr "$addr" port "$port" sizes 64-128 warmup 2 iters 8 verify \
		path "$path" && switch_drained
}

# bw_run NAME PATH PORT OP K: a bandwidth run of OP from PATH's client,
# sizes 4, 8 and 16 KiB, 2 queue pairs of 2 + 16 messages, verified. The
# server checks one payload per queue pair at the end of each size, one
# size after the other: K corruptions (up to 6) are min(K, 2)
# mismatches at 4 KiB, the next up to 2 at 8 KiB, the rest at 16 KiB.
bw_run() {
	local name=$1 path=$2 port=$3 op=$4 left=$5 want='' size n

	for size in 4096 8192 16384; do
		n=$((left < 2 ? left : 2))
		left=$((left - n))
		want+="${want:+ }$size:$n"
	done
	expect "$name" "$want" kvperf -j run bw op "$op" addr "$addr" \
		port "$port" sizes 4096-16384 qps 2 warmup 2 iters 16 verify \
		path "$path"
}

# bw_kernel PATH OP: against the kernel server with $k corruptions on
# debugfs, then debugfs at 0.
bw_kernel() {
	local path=$1 op=$2

	echo "$k" >"$switch"
	bw_run "bw-$path-kernel-$op" "$path" "$kport" "$op" "$k" &&
		switch_drained
}

# user_server PORT [K]: a user server in the background, with
# KVPERF_FAULT_CORRUPT_PAYLOADS=K in its environment, or none; its pid
# in $user_pid.
user_pid=
user_server() {
	local port=$1 out=$KV_TMP/user-server-$1.out

	(
		[ -n "${2:-}" ] && export "$env_switch=$2"
		exec kvperf server start addr "$addr" port "$port" path user
	) >"$out" 2>&1 &
	user_pid=$!
	kv_on_exit "kill $user_pid"
	listening() {
		grep -q "^server listening on $addr:$port (user path)" "$out"
	}
	kv_wait 30 listening && return 0
	echo "the user server on port $port did not listen:"
	cat "$out"
	return 1
}

user_server_stop() {
	kill -TERM "$user_pid" 2>/dev/null
	wait "$user_pid"
}

paths="kernel user"
lat_ops="send write read"
bw_ops="send write"
# the file; latency: 2 paths x 2 servers x 3 ops; bandwidth: 2 paths x
# 2 ops x (kernel server, user server, its next run); the kernel log
ktap_set_plan $((1 + 2 * 2 * 3 + 2 * 2 * 3 + 1))
kv_dmesg_mark

kv_check "debugfs corrupt_payloads: mode 0600, reads 0, takes a count" \
	switch_file

out=$(kvperf server start addr "$addr" port "$kport" 2>&1) ||
	kv_bail "server start addr $addr: $out"
kid=$(echo "$out" | sed -n 's/^server \([0-9]\+\) listening.*/\1/p')
kv_on_exit "kvperf server stop $kid"
# the latency runs' user server, without the switch
user_server "$uport" || kv_bail "no user server"
lat_user_pid=$user_pid

# Latency: the client verifies, so the client's path has the switch.
for path in $paths; do
	if [ "$path" = kernel ]; then
		how="debugfs $k" after="debugfs back to 0"
	else
		how="$env_switch=$k" after="debugfs untouched"
	fi
	for srv in kernel user; do
		port=$kport
		[ "$srv" = user ] && port=$uport
		for op in $lat_ops; do
			kv_check "lat $op, $path client, $srv server, $how: 64 B $k mismatches, 128 B 0; $after" \
				lat_case "$path" "$port" "$op"
		done
	done
done
user_pid=$lat_user_pid
user_server_stop

# Bandwidth: the server verifies, so the server's path has the switch:
# debugfs for the kernel server; for a user server, its environment,
# read once per process, so a server of its own per case, whose next run
# shows the switch drained.
for path in $paths; do
	for op in $bw_ops; do
		what="bw $op, $path client"
		kv_check "$what, kernel server, debugfs $k: mismatches 2, 1, 0 at 4, 8, 16 KiB; debugfs back to 0" \
			bw_kernel "$path" "$op"

		echo 0 >"$switch"
		what="$what, user server"
		if ! user_server "$bport" "$k" >"$KV_TMP/us.err"; then
			kv_result "$what, $env_switch=$k: mismatches 2, 1, 0 at 4, 8, 16 KiB" \
				1 "$(cat "$KV_TMP/us.err")"
			kv_skip "$what, its next run: no mismatches" "no user server"
			continue
		fi
		kv_check "$what, $env_switch=$k: mismatches 2, 1, 0 at 4, 8, 16 KiB" \
			bw_run "bw-$path-user-$op" "$path" "$bport" "$op" "$k"
		kv_check "$what, its next run: no mismatches (the switch drained)" \
			bw_run "bw-$path-user-$op-next" "$path" "$bport" "$op" 0
		user_server_stop
		bport=$((bport + 1))
	done
done

timeout 60 kvperf server stop "$kid" >/dev/null 2>&1
kv_dmesg_check

ktap_finished
