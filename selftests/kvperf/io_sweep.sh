#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# I/O runs that sweep block sizes (kvperf run io ... bss LIST) against the
# kernel target on $KVPERF_ADDR0: each size in turn, smallest first, with
# its own results, I/O counts and CPU times; verify passes at 512 B, 4 KiB,
# 128 KiB and 1 MiB in one run, for reads and writes, with segments, mixed
# at random, and from the user path's host; the debugfs histogram holds
# each size's I/Os, sysfs shows the last size; a sweep's interval lines
# say their size; a sweep stopped in its second size ends in bounded time
# with the first size's results; bad input is refused by name, by the
# tool (here a bss it cannot parse; the others on the host, in
# selftests/usage_test.sh) and by the kernel; the pinned-memory limit
# counts the largest size.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "reads the target's counters and limits on this host"
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_module

addr=$KVPERF_ADDR0
sysfs=/sys/kernel/kvperf
debugfs=/sys/kernel/debug/kvperf
kv_track_runs
patient=(timeout "$(kv_scaled 10000)ms")
all=512,4096,131072,1048576

sweep() {
	kv_py "$KV_DIR/iosweeplib.py" "$@"
}

# sweep_run NAME ARGS...: kvperf -j run io ARGS into $KV_TMP/NAME.json.
sweep_run() {
	local name=$1

	shift
	kv_run_json "$name" "$(kv_scaled 240)" kvperf -j run io addr "$addr" \
		"$@" "${patient[@]}"
}

# verify_sweep PATH RW [INV [REG]]: one run, 8 verified I/Os of each of
# 512 B, 4 KiB, 128 KiB and 1 MiB at qd 2.
verify_sweep() {
	local path=$1 rw=$2 inv=${3:-} reg=${4:-frwr} name

	name=v-$path-$rw${inv:+-$inv}-$reg
	[ "$path" = user ] && [ -z "${4:-}" ] && reg=pre
	sweep_run "$name" rw "$rw" bss 512,4K,128K,1M qd 2 iters 8 verify \
		path "$path" ${inv:+inv "$inv"} ${4:+reg "$reg"} || return 1
	sweep run "$KV_TMP/$name.json" --sizes "$all" --rw "$rw" --ios 8 \
		--qd 2 --verify --path "$path" --reg "$reg" ${inv:+--inv "$inv"}
}

# segments_sweep RW: 4 KiB to 1 MiB, each I/O's block in 4 segments.
segments_sweep() {
	sweep_run "s-$1" rw "$1" bss 4K,128K,1M segments 4 qd 4 iters 16 \
		verify || return 1
	sweep run "$KV_TMP/s-$1.json" --sizes 4096,131072,1048576 --rw "$1" \
		--segments 4 --qd 4 --ios 16 --verify
}

# mixed_sweep: 4K-16K at random, half reads: a read and a write result
# per size, smallest first; the histogram holds each one's I/Os.
mixed_sweep() {
	local id

	sweep_run mix rw randmix 50 bss 4K-16K qd 4 iters 100 verify ||
		return 1
	sweep run "$KV_TMP/mix.json" --sizes 4096,8192,16384 --read-pct 50 \
		--ios 100 --qd 4 --verify || return 1
	id=$(kv_json_id "$KV_TMP/mix.json") || return 1
	kv_py "$KV_DIR/iolib.py" hist "$KV_TMP/mix.json" \
		"$debugfs/runs/$id/histogram" ||
		{ cat "$debugfs/runs/$id/histogram"; return 1; }
}

# The run's sysfs directory shows its last size: 1 MiB, its I/Os and its
# CPU per I/O, as JSON's last result says.
sysfs_last() {
	local id

	id=$(kv_json_id "$KV_TMP/v-kernel-write-remote-frwr.json") || return 1
	kv_py - "$KV_TMP/v-kernel-write-remote-frwr.json" "$sysfs/runs/$id" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
last = run["results"][-1]
want = {"size": last["bs"], "iterations": last["ios"],
        "cpu_ns_per_io": last["cpu_per_io_ns"],
        "target_cpu_ns_per_io": last["target_cpu_per_io_ns"],
        "mismatches": last["mismatches"]}
bad = []
for name, val in want.items():
    got = open(f"{sys.argv[2]}/{name}").read().strip()
    if got != str(val):
        bad.append(f"sysfs {name} {got!r}, JSON {val!r}")
if last["bs"] != 1048576:
    bad.append(f"last result's bs {last['bs']}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
}

# A sweep's interval lines say their block size: 4 KiB's, then 8 KiB's,
# each BW its IOPS times that size.
sweep_intervals() {
	local out=$KV_TMP/iv.out

	kv_run "$out" "$KV_TMP/iv.err" timeout "$(kv_scaled 120)" \
		kvperf run io addr "$addr" bss 4K,8K qd 4 time 1 interval 0.25 \
		"${patient[@]}" || { cat "$KV_TMP/iv.err" "$out"; return 1; }
	awk '
		$1 == "[" && $4 == "read:" {
			iops = $5; bw = $6; bs = $8
			sub(/^IOPS=/, "", iops); sub(/,$/, "", iops)
			sub(/^BW=/, "", bw); sub(/MiB\/s$/, "", bw)
			sub(/\)$/, "", bs)
			if ($7 != "(bs" || (bs != 4096 && bs != 8192)) { bad++; next }
			if (bs < last) bad++
			last = bs
			want = iops * bs / 1048576
			if (bw < want - 0.002 || bw > want + 0.002) bad++
			n[bs]++
		}
		END { exit !(n[4096] >= 2 && n[8192] >= 2 && !bad) }' "$out" &&
		grep -q '^# path kernel, .*bss 4K,8K,' "$out" &&
		[ "$(grep -c '^ read: IOPS=' "$out")" = 2 ] && return 0
	echo "want 2 or more lines of 4096, then of 8192, each BW = IOPS x bs, then two blocks:"
	cat "$out"
	return 1
}

# first_size_done ID: run ID completed a size, or it ended.
first_size_done() {
	grep -qx '[1-9][0-9]*' "$sysfs/runs/$1/iterations" || kv_run_ended "$1"
}

# A sweep stopped while it measures its second size (64 KiB): it ends
# within 5 s, stopped, with the first size's result, and frees everything.
stop_second() {
	local out id

	out=$(kvperf -j run io addr "$addr" bss 4K,64K qd 16 time 6 \
		timeout "$(kv_scaled 10000)ms" no-wait 2>&1) ||
		{ echo "no-wait: $out"; return 1; }
	id=$(sed -n 's/^{"id":\([0-9]\+\)}$/\1/p' <<<"$out")
	[ -n "$id" ] || { echo "no-wait printed '$out'"; return 1; }
	# sysfs shows the last size completed: 4 KiB's I/Os once it is done
	# (a run that ended before that fails the check at once)
	kv_wait 60 first_size_done "$id" &&
		grep -qx '[1-9][0-9]*' "$sysfs/runs/$id/iterations" ||
		{ echo "run $id: no size completed"; kvperf run show "$id"; return 1; }
	[ "$(cat "$sysfs/runs/$id/size")" = 4096 ] ||
		{ echo "size $(cat "$sysfs/runs/$id/size") after the first size"; return 1; }
	kvperf run stop "$id" || return 1
	kv_wait 5 kv_run_ended "$id" ||
		{ echo "run $id is $(kv_run_state "$id") after 5 s"; return 1; }
	kvperf -j run show "$id" >"$KV_TMP/stopped.json" || return 1
	kv_py - "$KV_TMP/stopped.json" <<'EOF' || return 1
import json, sys
run = json.load(open(sys.argv[1]))
run = run[0] if isinstance(run, list) else run
got = [r["bs"] for r in run.get("results", [])]
if run["state"] != "stopped" or got != [4096] or run["results"][0]["ios"] < 1:
    print(f"state {run['state']}, results' bs {got}, want stopped, [4096]")
    sys.exit(1)
EOF
	kv_all_freed
}

# Kernel refusals, raw: "DESC|WANT|REQUEST".
raw_cases=(
	"io, bss with size|EINVAL: kvperf: bss and size exclude each other: a sweep names its block sizes|run-start type=io op=read addr=$addr size=4096 bss=8192"
	"io, bss of 256 B|EINVAL: kvperf: a sweep's block sizes are powers of two from 512 B to 1 MiB|run-start type=io op=read addr=$addr bss=768"
	"io, bss of none|EINVAL: kvperf: a sweep's block sizes are powers of two from 512 B to 1 MiB|run-start type=io op=read addr=$addr bss=0"
	"io, bss of 2 MiB|ERANGE: integer out of range|run-start type=io op=read addr=$addr bss=2097152"
	"io, bss from 1 KiB in 4 segments|EINVAL: kvperf: the block does not split into that many segments of whole 512-byte units|run-start type=io op=read addr=$addr bss=1049600 segments=4"
	"bss on a latency run|EINVAL: kvperf: that attribute applies to I/O runs only|run-start op=send addr=$addr bss=4096"
	"bss on a bandwidth run|EINVAL: kvperf: that attribute applies to I/O runs only|run-start type=bw op=write addr=$addr bss=4096"
)

kv_dmesg_mark
ktap_set_plan $((1 + 8 + 2 + 1 + 1 + 1 + 1 + 1 + ${#raw_cases[@]} + 3))

kv_check "server start on $addr" kv_server_start "$addr" ||
	kv_bail "no server"
for rw in read write; do
	for inv in remote local; do
		kv_check "bss 512,4K,128K,1M: verify $rw, inv $inv: 8 I/Os of each size, smallest first" \
			verify_sweep kernel "$rw" "$inv"
	done
	kv_check "path user, bss 512,4K,128K,1M: verify $rw: 8 I/Os of each size" \
		verify_sweep user "$rw"
	kv_check "path user, reg mw, inv local, bss 512,4K,128K,1M: verify $rw: a window bound and invalidated per I/O" \
		verify_sweep user "$rw" local mw
done
for rw in read write; do
	kv_check "bss 4K,128K,1M in 4 segments: verify $rw" segments_sweep "$rw"
done
kv_check "bss 4K-16K, randmix 50: a read and a write result per size, 100 verified I/Os each, the histogram agrees" \
	mixed_sweep
kv_check "sysfs shows the sweep's last size" sysfs_last
kv_check "bss 4K,8K, interval 0.25: lines of 4096, then of 8192, then a block per size" \
	sweep_intervals
kv_check "run stop in the second size: stopped within 5 s, the first size's result kept, freed" \
	stop_second
kv_check "bss 3K: a usage error naming the lists and ranges it takes" \
	kv_usage_error "invalid bss '3K' \(powers of two from 512 to 1M: a list such as 512,4K,1M, or a range such as 4K-64K\)" \
	run io addr "$addr" bss 3K
kv_raw_results raw_cases
# 4 KiB and 1 MiB at qd 256: the largest size's blocks are beyond the
# pinned-memory limit (max_pinned_mb 256), though the smallest's are not.
kv_check "bss 4K,1M qd 256: refused, the largest size's pinned memory" \
	kv_io_pinned_refused "$addr" bss 4K,1M qd 256 iters 10
kv_check "runs deleted, servers stopped: counters 0" kv_clean_all
kv_dmesg_check
ktap_finished
