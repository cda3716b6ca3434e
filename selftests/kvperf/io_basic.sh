#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# I/O runs (kvperf run io) against the kernel target on $KVPERF_ADDR0:
# verify passes (every size, both invalidations and in 4 segments:
# io_sweep.sh's sweeps), for reads and writes mixed at random (rw
# randmix), and on blocks registered
# once at connect (reg pre), and for writes carried in their commands
# (inline-data: no registration, no invalidation), with the I/Os, block size,
# queue depth and rates reported as asked; every poll mode, a timed run
# and stats off work; the text is fio's summary, with a line per
# interval when asked; sysfs says what JSON
# says; bad input is refused by name, by the tool and by the kernel; and
# a run stopped, a server stopped and rmmod with many I/Os in flight end
# in bounded time, leaving nothing behind.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "stops the target and reads its state on this host"
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_ko
kv_require_module

addr=$KVPERF_ADDR0
sysfs=/sys/kernel/kvperf
debugfs=/sys/kernel/debug/kvperf
kv_track_runs
# shellcheck disable=SC2016 # expanded when the hook runs
kv_on_exit 'kv_module_loaded || kv_insmod'
patient=(timeout "$(kv_scaled 10000)ms")

io() {
	kv_py "$KV_DIR/iolib.py" "$@"
}

lat() {
	kv_py "$KV_DIR/latlib.py" "$@"
}

# io_run NAME ARGS...: kvperf -j run io ARGS into $KV_TMP/NAME.json; the
# runs kept so far (checked) deleted first when the module's table of 32
# is nearly full.
io_run() {
	local name=$1

	shift
	if [ "$(cat "$sysfs/run_count")" -ge 30 ]; then
		delete_runs || { echo "cannot delete the runs kept"; return 1; }
	fi
	kv_run "$KV_TMP/$name.json" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 120)" kvperf -j run io addr "$addr" "$@" \
		"${patient[@]}" ||
		{ echo "kvperf -j run io $*: failed"; cat "$KV_TMP/$name.err" "$KV_TMP/$name.json"; return 1; }
}

# verify_case RW BS INV QD IOS: a verified run of IOS I/Os.
verify_case() {
	io_run "v-$1-$2-$3" rw "$1" bs "$2" inv "$3" qd "$4" iters "$5" \
		verify || return 1
	io run "$KV_TMP/v-$1-$2-$3.json" --rw "$1" --bs "$(numfmt --from=iec "$2")" \
		--inv "$3" --qd "$4" --ios "$5" --verify
}

# randmix_case INV SEGMENTS: 400 verified I/Os, 70 % of them reads drawn
# at random, at qd 16; a result per direction, and the debugfs histogram
# holds each one's I/Os.
randmix_case() {
	local name="mix-$1-$2" id

	io_run "$name" rw randmix 70 bs 4K qd 16 inv "$1" segments "$2" \
		iters 400 verify || return 1
	io run "$KV_TMP/$name.json" --rw read --read-pct 70 --bs 4096 --qd 16 \
		--inv "$1" --segments "$2" --ios 400 --verify || return 1
	id=$(kv_json_id "$KV_TMP/$name.json") || return 1
	io hist "$KV_TMP/$name.json" "$debugfs/runs/$id/histogram" ||
		{ cat "$debugfs/runs/$id/histogram"; return 1; }
}

# A timed randmix run with an interval: a randmix line per interval, then
# a read block and a write block, each with the run's CPU per I/O.
randmix_text() {
	local out=$KV_TMP/mix.out n

	kv_run "$out" "$KV_TMP/mix.err" timeout "$(kv_scaled 120)" \
		kvperf run io addr "$addr" rw randmix 30 bs 4K qd 8 time 2 \
		interval 0.5 "${patient[@]}" ||
		{ cat "$KV_TMP/mix.err" "$out"; return 1; }
	n=$(kv_interval_lines "$out" randmix 500)
	if [ -z "$n" ] &&
	   grep -qE '^  \[ *[0-9]+\.[0-9] s\] randmix: IOPS=[0-9]+\.[0-9]{3}, BW=[0-9]+\.[0-9]{3}MiB/s$' "$out" &&
	   grep -qE '^# path kernel, .*qd 8, inv remote, segments 1, read-pct 30,' "$out" &&
	   [ "$(grep -cE '^ (read|write): IOPS=[0-9]+\.[0-9]{3}, BW=' "$out")" = 2 ] &&
	   grep -A5 '^ read: IOPS=' "$out" | grep -q '^ write: IOPS=' &&
	   [ "$(grep -c '^  clat percentiles (usec): ' "$out")" = 2 ] &&
	   [ "$(grep -cE '^  cpu \(usec/IO\): host=[0-9]+\.[0-9]{2}, target=[0-9]+\.[0-9]{2}$' "$out")" = 2 ]; then
		return 0
	fi
	echo "interval lines: ${n:-as many as the run lasted intervals}; want those, then a read and a write block:"
	cat "$out"
	return 1
}

# pre_case RW BS SEGMENTS: verified I/Os on blocks registered once, at
# connect (reg pre): nothing registers or invalidates per I/O.
pre_case() {
	local name="pre-$1-$2" ios=40

	[ "$2" = 1M ] && ios=8
	io_run "$name" rw "$1" bs "$2" reg pre segments "$3" qd 4 \
		iters "$ios" verify || return 1
	io run "$KV_TMP/$name.json" --rw "$1" --bs "$(numfmt --from=iec "$2")" \
		--reg pre --segments "$3" --qd 4 --ios "$ios" --verify
}

pre_randmix() {
	io_run pre-mix rw randmix 50 bs 4K reg pre qd 16 iters 400 verify ||
		return 1
	io run "$KV_TMP/pre-mix.json" --rw read --read-pct 50 --reg pre \
		--qd 16 --ios 400 --verify
}

# inline_case NAME RW BS INLINE QD IOS [--inv|--reg V]: verified I/Os with
# in-capsule data up to INLINE bytes: writes that fit register and
# invalidate nothing, the others (and reads) as ever.
inline_case() {
	local name=$1 rw=$2 bs=$3 inl=$4 qd=$5 ios=$6 mode=() want=(--rw "$2")

	[ $# -ge 8 ] && mode=("${7#--}" "$8") && want+=("$7" "$8")
	case $rw in
	randmix) want=(--rw read --read-pct 50); rw="randmix 50" ;;
	esac
	# shellcheck disable=SC2086 # "randmix 50" is two words
	io_run "$name" rw $rw bs "$bs" inline-data "$inl" qd "$qd" \
		iters "$ios" verify "${mode[@]}" || return 1
	io run "$KV_TMP/$name.json" "${want[@]}" \
		--bs "$(numfmt --from=iec "$bs")" --qd "$qd" --ios "$ios" \
		--verify --inline-data "$(numfmt --from=iec "$inl")"
}

poll_case() {
	io_run "poll-$1" rw "$2" bs 4K qd 4 iters 100 poll "$1" verify || return 1
	io run "$KV_TMP/poll-$1.json" --rw "$2" --qd 4 --ios 100 --verify
}

timed() {
	io_run timed rw read bs 4K qd 8 time 1 || return 1
	io run "$KV_TMP/timed.json" --qd 8 --min-ios 1 --min-elapsed 1000000000
}

stats_off() {
	io_run off rw write bs 4K qd 1 iters 100 stats off || return 1
	io run "$KV_TMP/off.json" --rw write --ios 100 --stats-off
}

# The text is fio's job summary, with the registration's and the
# invalidation's part of the latency (none: the target invalidates).
text_summary() {
	kv_run "$KV_TMP/text.out" "$KV_TMP/text.err" timeout "$(kv_scaled 120)" \
		kvperf run io addr "$addr" bs 4K qd 2 iters 100 verify "${patient[@]}" ||
		{ cat "$KV_TMP/text.err" "$KV_TMP/text.out"; return 1; }
	grep -qE '^# run [0-9]+: io read to .* state done$' "$KV_TMP/text.out" &&
		grep -qE '^# path kernel, .*qd 2, inv remote' "$KV_TMP/text.out" &&
		grep -qE '^ read: IOPS=[0-9]+\.[0-9]{3}, BW=[0-9]+\.[0-9]{3}MiB/s \(100 I/Os of 4096 bytes in [0-9]+\.[0-9]{3} ms\)$' \
			"$KV_TMP/text.out" &&
		grep -qE '^  clat \(usec\): min=[0-9.]+, max=[0-9.]+, avg=[0-9.]+, stdev=[0-9.]+$' \
			"$KV_TMP/text.out" &&
		grep -qE '^  clat percentiles \(usec\): 50\.00th=\[[0-9.]+\], 90\.00th=\[[0-9.]+\], 99\.00th=\[[0-9.]+\], 99\.90th=\[[0-9.]+\], 99\.99th=\[[0-9.]+\]$' \
			"$KV_TMP/text.out" &&
		grep -qE '^  reg \(usec\): avg=[0-9]+\.[0-9]{2}, [0-9]+\.[0-9]{3}% of clat; inv \(usec\): avg=0\.00, 0\.000% of clat$' \
			"$KV_TMP/text.out" &&
		grep -qx '  verify: 0 I/Os with wrong data' "$KV_TMP/text.out" &&
		return 0
	cat "$KV_TMP/text.out"
	return 1
}

# interval_lines OUT RW: OUT has an interval line of RW per 500 ms of
# the run (kv_interval_lines), each with a BW that is its IOPS times
# 4 KiB, then the summary.
interval_lines() {
	local n why

	n=$(awk -v rw="$2" '
		$1 == "[" && $4 == rw ":" {
			iops = $5; bw = $6
			sub(/^IOPS=/, "", iops); sub(/,$/, "", iops)
			sub(/^BW=/, "", bw); sub(/MiB\/s$/, "", bw)
			want = iops * 4096 / 1048576
			if (bw < want - 0.002 || bw > want + 0.002) bad++
			n++
		}
		END { print bad ? -1 : n + 0 }' "$1")
	why=$(kv_interval_lines "$1" "$2" 500)
	if [ "$n" -lt 1 ] || [ -n "$why" ] || ! grep -q "^ read: IOPS=" "$1" ||
	   ! grep -qE '^  \[ *[0-9]+\.[0-9] s\] [a-z]+: IOPS=[0-9]+\.[0-9]{3}, BW=[0-9]+\.[0-9]{3}MiB/s$' "$1"; then
		echo "$n $2 interval lines (-1: a BW not IOPS x 4 KiB), want one per 500 ms of the run, then the summary:"
		[ -n "$why" ] && echo "$why"
		cat "$1"
		return 1
	fi
}

# interval: a line per interval with its rates while the run runs, then
# the summary; -j has the interval and no such line.
intervals() {
	kv_run "$KV_TMP/iv.out" "$KV_TMP/iv.err" timeout "$(kv_scaled 120)" \
		kvperf run io addr "$addr" bs 4K qd 4 time 2 interval 0.5 "${patient[@]}" ||
		{ cat "$KV_TMP/iv.err" "$KV_TMP/iv.out"; return 1; }
	interval_lines "$KV_TMP/iv.out" read || return 1
	if ! grep -q 'interval 500 ms' "$KV_TMP/iv.out"; then
		echo "no 'interval 500 ms' in the header:"
		cat "$KV_TMP/iv.out"
		return 1
	fi
	io_run ivj bs 4K qd 4 time 1 interval 0.5 || return 1
	grep -q '"interval_ms":500' "$KV_TMP/ivj.json" &&
		[ "$(wc -l <"$KV_TMP/ivj.json")" = 1 ] && return 0
	cat "$KV_TMP/ivj.json"
	return 1
}

# interval on the user path: the user host's lines, as the kernel's, for
# a randmix run of two queues; -j has none.
user_intervals() {
	kv_run "$KV_TMP/uiv.out" "$KV_TMP/uiv.err" timeout "$(kv_scaled 120)" \
		kvperf run io addr "$addr" rw randmix 70 bs 4K qd 4 queues 2 \
		time 2 interval 0.5 path user "${patient[@]}" ||
		{ cat "$KV_TMP/uiv.err" "$KV_TMP/uiv.out"; return 1; }
	interval_lines "$KV_TMP/uiv.out" randmix || return 1
	grep -q 'interval 500 ms' "$KV_TMP/uiv.out" ||
		{ echo "no 'interval 500 ms' in the header:"; cat "$KV_TMP/uiv.out"; return 1; }
	kv_run "$KV_TMP/uivj.json" "$KV_TMP/uivj.err" timeout "$(kv_scaled 120)" \
		kvperf -j run io addr "$addr" bs 4K qd 4 time 1 interval 0.5 \
		path user "${patient[@]}" ||
		{ cat "$KV_TMP/uivj.err" "$KV_TMP/uivj.json"; return 1; }
	grep -q '"interval_ms":500' "$KV_TMP/uivj.json" &&
		[ "$(wc -l <"$KV_TMP/uivj.json")" = 1 ] && return 0
	cat "$KV_TMP/uivj.json"
	return 1
}

# The run's sysfs directory says what its JSON says.
sysfs_agrees() {
	local id

	# the module keeps 32 runs: the ones before are checked
	delete_runs || return 1
	io_run agree bs 512 qd 4 iters 200 || return 1
	id=$(kv_json_id "$KV_TMP/agree.json") || return 1
	io sysfs "$KV_TMP/agree.json" "$sysfs/runs/$id"
}

# Kernel refusals, raw: "DESC|WANT|REQUEST".
raw_cases=(
	"io with op send|EINVAL: kvperf: an I/O run reads or writes: op read or write|run-start type=io op=send addr=$addr"
	"io with a 1000-byte block|EINVAL: kvperf: an I/O run's block size is a multiple of 512 from 512 B to 1 MiB|run-start type=io op=read addr=$addr size=1000"
	"io with a 2 MiB block|EINVAL: kvperf: an I/O run's block size is a multiple of 512 from 512 B to 1 MiB|run-start type=io op=write addr=$addr size=2097152"
	"io with size-max|EINVAL: kvperf: that attribute does not apply to I/O runs|run-start type=io op=read addr=$addr size_max=4096"
	"io with inline|EINVAL: kvperf: that attribute does not apply to I/O runs|run-start type=io op=write addr=$addr inline=64"
	"io with tx-depth|EINVAL: kvperf: that attribute applies to bandwidth runs only|run-start type=io op=read addr=$addr tx_depth=4"
	"qd on a latency run|EINVAL: kvperf: that attribute applies to I/O runs only|run-start op=send addr=$addr qd=4"
	"inv on a bandwidth run|EINVAL: kvperf: that attribute applies to I/O runs only|run-start type=bw op=write addr=$addr inv=local"
	"segments on a latency run|EINVAL: kvperf: that attribute applies to I/O runs only|run-start op=read addr=$addr segments=2"
	"io, 1 KiB in 4 segments|EINVAL: kvperf: the block does not split into that many segments of whole 512-byte units|run-start type=io op=read addr=$addr size=1024 segments=4"
	"io with segments 17|ERANGE: integer out of range|run-start type=io op=read addr=$addr segments=17"
	"io with qd 0|ERANGE: integer out of range|run-start type=io op=read addr=$addr qd=0"
	"io with qd 257|ERANGE: integer out of range|run-start type=io op=read addr=$addr qd=257"
	"io with inv 2|ERANGE: integer out of range|run-start type=io op=read addr=$addr inv=2"
	"io, read-pct with op write|EINVAL: kvperf: read-pct mixes writes into a read run: it goes with op read|run-start type=io op=write addr=$addr read_pct=50"
	"io with read-pct 100|ERANGE: integer out of range|run-start type=io op=read addr=$addr read_pct=100"
	"read-pct on a latency run|EINVAL: kvperf: that attribute applies to I/O runs only|run-start op=read addr=$addr read_pct=50"
	"io, inv with reg pre|EINVAL: kvperf: inv applies to reg frwr: a registration made at connect is never invalidated|run-start type=io op=read addr=$addr reg=pre inv=remote"
	"io with reg mw|ERANGE: integer out of range|run-start type=io op=read addr=$addr reg=mw"
	"io with reg 3|ERANGE: integer out of range|run-start type=io op=read addr=$addr reg=3"
	"reg on a bandwidth run|EINVAL: kvperf: that attribute applies to I/O runs only|run-start type=bw op=write addr=$addr reg=pre"
	"io, inline-data on a read run|EINVAL: kvperf: inline-data carries writes: a read run has none|run-start type=io op=read addr=$addr inline_data=4096"
	"io with inline-data 16385|ERANGE: integer out of range|run-start type=io op=write addr=$addr inline_data=16385"
	"inline-data on a latency run|EINVAL: kvperf: that attribute applies to I/O runs only|run-start op=send addr=$addr inline_data=64"
)

# delete_runs: every run kept so far (the module keeps 32 at most).
delete_runs() {
	local i

	for i in $(kvperf -j run show | grep -o '"id":[0-9]*' | cut -d: -f2); do
		kvperf run delete "$i" || return 1
	done
}

# 256 blocks of 1 MiB on each side are beyond the default pinned-memory
# limit (max_pinned_mb 256): refused by name, nothing started.
pinned_limit() {
	delete_runs || return 1
	kv_io_pinned_refused "$addr" bs 1M qd 256 iters 10
}

# reg pre at every size; on the feature lane (lib.sh's kv_full_lane)
# one below a page and the largest
pre_sizes="512 4K 128K 1M"
kv_full_lane || pre_sizes="512 1M"
kv_dmesg_mark
ktap_set_plan $((1 + 3 + 2 * $(wc -w <<<"$pre_sizes") + 1 + 5 + 2 + 6 + ${#raw_cases[@]} + 8))

kv_check "server start on $addr" kv_server_start "$addr" ||
	kv_bail "no server"
# (verify of every size, both invalidations, and in 4 segments: one
# sweep a case in io_sweep.sh; here one run at the depth asked)
kv_check "verify read 4 KiB qd 8, inv remote: 200 I/Os, no mismatch, the depth as asked" \
	verify_case read 4K remote 8 200
kv_check "randmix 70, inv remote: 400 verified I/Os, a read and a write result, about 70 % reads, the histogram agrees" \
	randmix_case remote 1
kv_check "randmix 70, inv local, 4 segments: 400 verified I/Os, a read and a write result, the histogram agrees" \
	randmix_case local 4
kv_check "randmix 30, time 2, interval 0.5: randmix lines, then a read and a write block, each with CPU per I/O" \
	randmix_text
for rw in read write; do
	for bs in $pre_sizes; do
		segs=4
		[ "$bs" = 512 ] && segs=1
		kv_check "reg pre: verify $rw $bs in $segs segments qd 4, no time registering or invalidating" \
			pre_case "$rw" "$bs" "$segs"
	done
done
kv_check "reg pre, randmix 50: 400 verified I/Os, a read and a write result" \
	pre_randmix
kv_check "inline-data 4K: verify write 512 B, inv remote: nothing registered or invalidated" \
	inline_case inl-512 write 512 4K 8 200
kv_check "inline-data 4K: verify write 4 KiB, inv local: nothing registered or invalidated" \
	inline_case inl-4k write 4K 4K 8 200 --inv local
kv_check "inline-data 16K: verify write 16 KiB, reg pre: the data in the capsule" \
	inline_case inl-16k write 16K 16K 8 200 --reg pre
kv_check "inline-data 4K: verify write 8 KiB: too large, registered as ever" \
	inline_case inl-8k write 8K 4K 8 200
kv_check "inline-data 4K, randmix 50: 400 verified I/Os, the reads registered, the writes not" \
	inline_case inl-mix randmix 4K 4K 16 400
kv_check "poll softirq: a verified read run" poll_case softirq read
kv_check "poll workqueue: a verified write run" poll_case workqueue write
kv_check "time 1: measures at least 1 s" timed
kv_check "stats off: I/Os and their mean, no samples" stats_off
kv_check "the text is fio's summary: IOPS, BW, clat and its percentiles, verify" \
	text_summary
kv_check "interval 0.5: a line of IOPS and BW per interval, then the summary; none with -j" \
	intervals
kv_check "path user, randmix, 2 queues, interval 0.5: the user host's lines, as the kernel's; none with -j" \
	user_intervals
kv_check "sysfs says what JSON says" sysfs_agrees
# (the tool's other usage errors: selftests/usage_test.sh, on the host)
kv_check "bs 1000: a usage error, 'block size is a multiple of 512 from 512 B to 1 MiB'" \
	kv_usage_error "block size is a multiple of 512 from 512 B to 1 MiB" \
	run io addr "$addr" bs 1000
kv_raw_results raw_cases
kv_check "bs 1M qd 256: refused, pinned-memory limit" pinned_limit
kv_check "run stop with 32 I/Os in flight: stopped within 5 s, freed" \
	kv_io_stop_mid_run "$addr" 2 rw write bs 64K qd 32
kv_check "server stop with 16 I/Os in flight: the run fails saying so, freed" \
	kv_io_server_stop_mid_run "$addr" rw read bs 4K qd 16 verify
kv_check "rmmod with 32 I/Os in flight returns within 10 s; insmod: counters 0" \
	kv_io_rmmod_mid_run "$addr" rw read bs 16K qd 32 inv local
kv_check "runs deleted, servers stopped: counters 0" kv_clean_all
kv_dmesg_check
ktap_finished
