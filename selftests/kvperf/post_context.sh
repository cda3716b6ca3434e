#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# post-context {process|bh}: where the kernel path's client posts its
# data-path work requests. Against a server on $KVPERF_ADDR0, latency
# runs of every op and bandwidth runs (queue pairs, post lists, bidir
# send, whose receives the completion handler posts) with post-context bh
# complete with the iterations asked for, and report "bh" in run lat's
# and run show's JSON, in sysfs and in the text title; a run without it
# reports "process" and says nothing in text; bh with path user is a
# usage error before anything starts (and so is a value that is neither,
# checked on the host, in selftests/usage_test.sh); the kernel refuses a
# value beyond the enum itself; compare's post-context both adds a
# kernel-bh column measured like the others; and the module's counters
# are back to 0 at the end.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "sets the module's fault switches on both ends of a connection"
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_module

addr=$KVPERF_ADDR0
sysfs=/sys/kernel/kvperf
kv_track_runs
# Runs that must not time out: the default timeout, scaled (see
# lat_basic.sh).
patient=(timeout "$(kv_scaled 5000)ms")

lat() {
	kv_py "$KV_DIR/latlib.py" "$@"
}

bw() {
	kv_py "$KV_DIR/bwlib.py" "$@"
}

# run NAME TYPE ARGS...: kvperf -j run TYPE ARGS into $KV_TMP/NAME.json,
# the run's id into $KV_TMP/NAME.id; fails unless it exits 0.
run() {
	local name=$1 type=$2

	shift 2
	kv_run_json "$name" "$(kv_scaled 150)" kvperf -j run "$type" "$@" \
		"${patient[@]}"
}

# reports NAME CONTEXT: run show's JSON and sysfs say CONTEXT for the
# run of NAME, as run lat|bw's own JSON did.
reports() {
	local name=$1 want=$2 id got f

	id=$(cat "$KV_TMP/$name.id") || { echo "no run id"; return 1; }
	kvperf -j run show "$id" >"$KV_TMP/$name.show.json" ||
		{ echo "kvperf -j run show $id failed"; return 1; }
	for f in "$KV_TMP/$name.json" "$KV_TMP/$name.show.json"; do
		got=$(kv_py -c 'import json, sys
d = json.load(open(sys.argv[1]))
d = d[0] if isinstance(d, list) else d
print(d.get("post_context", "(absent)"))' "$f") || return 1
		[ "$got" = "$want" ] ||
			{ echo "$(basename "$f"): post_context $got, want $want"; return 1; }
	done
	got=$(cat "$sysfs/runs/$id/post_context") ||
		{ echo "no $sysfs/runs/$id/post_context"; return 1; }
	[ "$got" = "$want" ] ||
		{ echo "sysfs post_context '$got', want '$want'"; return 1; }
}

# lat_bh OP POLL: 300 iterations of 64 B with post-context bh, done,
# ordered statistics, "bh" everywhere.
lat_bh() {
	local op=$1 poll=$2

	run "lat-$op" lat op "$op" addr "$addr" size 64 iters 300 \
		poll "$poll" post-context bh || return 1
	lat run "$KV_TMP/lat-$op.json" --state 'done' --op "$op" --iters 300 \
		--sizes 64 --max-err-ppm 10000 --field "poll=$poll" \
		--field post_context=bh || return 1
	reports "lat-$op" bh
}

lat_default() {
	run lat-default lat op send addr "$addr" size 64 iters 100 || return 1
	lat run "$KV_TMP/lat-default.json" --state 'done' --op send \
		--iters 100 --sizes 64 --field post_context=process ||
		return 1
	reports lat-default process
}

# text NAME WANT ARGS...: the title line of kvperf run lat ARGS says
# ", post-context bh," exactly when WANT is bh.
text() {
	local name=$1 want=$2 id title

	shift 2
	kv_run "$KV_TMP/$name.txt" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 150)" kvperf run lat "$@" "${patient[@]}" ||
		{ echo "kvperf run lat $*: exit $?"; cat "$KV_TMP/$name.err"; return 1; }
	id=$(sed -n 's/^# run \([0-9]\+\): .*/\1/p' "$KV_TMP/$name.txt")
	[ -n "$id" ] && echo "$id" >>"$KV_IDS"
	title=$(head -n 1 "$KV_TMP/$name.txt")
	if [ "$want" = bh ]; then
		[[ $title == *", post-context bh, state done" ]] ||
			{ echo "title '$title' lacks ', post-context bh'"; return 1; }
	elif [[ $title == *post-context* ]]; then
		echo "title '$title' names the default"
		return 1
	fi
}

# bw_bh NAME OP QPS ARGS...: 300 messages of 4 KiB per queue pair with
# post-context bh, done, every message counted, "bh" everywhere.
bw_bh() {
	local name=$1 op=$2 qps=$3 extra=()

	shift 3
	[[ " $* " == *" bidir "* ]] && extra=(--bidir)
	run "$name" bw op "$op" addr "$addr" size 4096 iters 300 qps "$qps" \
		post-context bh "$@" || return 1
	bw run "$KV_TMP/$name.json" --state 'done' --op "$op" --qps "$qps" \
		--iters 300 --sizes 4096 --field post_context=bh \
		"${extra[@]}" ||
		{ sed 's/^/json: /' "$KV_TMP/$name.json" | cut -c1-2000; return 1; }
	reports "$name" bh
}

# The kernel's own range: a value beyond the enum never reaches a run.
raw_range() {
	local got

	got=$(lat nl run-start op=send addr="$addr" post_context=2 2>&1)
	[ "$got" = "ERANGE: integer out of range" ] ||
		{ echo "run-start post-context=2: '$got', want 'ERANGE: integer out of range'"; return 1; }
}

# compare -j lat ... post-context both: kernel, kernel-bh and user
# columns, each with its round's value > 0, median, min and max.
compare_both() {
	kv_run "$KV_TMP/cmp.json" "$KV_TMP/cmp.err" \
		timeout "$(kv_scaled 300)" kvperf -j compare lat op send \
		addr "$addr" size 64 rounds 1 iters 200 no-perftest \
		post-context both ||
		{ echo "kvperf -j compare: exit $?"; cat "$KV_TMP/cmp.err";
		  cut -c1-2000 "$KV_TMP/cmp.json"; return 1; }
	kv_py "$KV_DIR/comparelib.py" json "$KV_TMP/cmp.json" lat send 1 \
		kernel,kernel-bh,user 64 ||
		{ cut -c1-3000 "$KV_TMP/cmp.json"; return 1; }
}

clean_up() {
	local id rc=0

	while read -r id; do
		kvperf run delete "$id" || { echo "run delete $id failed"; rc=1; }
	done < <(sort -un "$KV_IDS")
	: >"$KV_IDS"
	kvperf server stop "$(cat "$KV_TMP/server")" ||
		{ echo "server stop failed"; rc=1; }
	kv_counters_back_to_zero 10 || rc=1
	return "$rc"
}

kv_dmesg_mark
ktap_set_plan 15

kv_check "server start addr $addr: 'server N listening on $addr:18515'" \
	kv_server_start "$addr" || kv_bail "no server, no runs"
kv_on_exit "kvperf server stop $(cat "$KV_TMP/server")"

kv_check "lat send, poll busy, post-context bh: 300 iterations, done, 'bh' in JSON, run show and sysfs" \
	lat_bh send busy
kv_check "lat write, poll softirq, post-context bh: 300 iterations, done, 'bh' everywhere" \
	lat_bh write softirq
kv_check "lat read, poll workqueue, post-context bh: 300 iterations, done, 'bh' everywhere" \
	lat_bh read workqueue
kv_check "lat without post-context: 'process' in JSON, run show and sysfs" \
	lat_default
kv_check "run lat post-context bh: ', post-context bh' in the title" \
	text text-bh bh op send addr "$addr" size 64 iters 50 post-context bh
kv_check "run lat without it: the title does not name the default" \
	text text-default process op send addr "$addr" size 64 iters 50
kv_check "bw send, 2 QPs, softirq, post-list 4, post-context bh: 300 each, all received, 'bh' everywhere" \
	bw_bh bw-send send 2 poll softirq post-list 4 signal-every 8
kv_check "bw write, busy, post-context bh: 300 messages, 'bh' everywhere" \
	bw_bh bw-write write 1 poll busy
kv_check "bw send bidir, post-context bh: the handler posts the receives, 300 each way" \
	bw_bh bw-bidir send 1 poll softirq bidir
kv_check "path user post-context bh: usage error, kernel path only, no run" \
	kv_usage_error "post-context bh applies to the kernel path only" \
	run lat op send addr "$addr" path user post-context bh
kv_check "raw run-start post-context 2: the kernel's range refuses it" \
	raw_range
kv_check "compare -j lat post-context both rounds 1 iters 200: a kernel-bh column > 0" \
	compare_both
kv_check "runs deleted, server stopped: the module's counters are 0" \
	clean_up
kv_dmesg_check

ktap_finished
