#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of make bench (selftests/bench.sh runs it in the VM):
# the benchmark matrix as `kvperf -j compare ... post-context both` runs
# (the kernel path posting from process context and with bottom halves
# disabled, the user path, perftest), each into its own file of OUTDIR,
# and the statistics overhead as alternating `kvperf -j run lat
# ... stats on` / `stats off` pairs on the kernel and the user path;
# between them the I/O matrix (bench_report.py's io_matrix()), each a
# `kvperf -j compare io` of the kernel host and target, the user host
# and the user target.
# A measurement that fails leaves an .err file next to where its result
# would have been; the report says so.
#
# The matrix depends on the guest's clock (KVPERF_CLOCK, set by
# vmtest.sh). On the deterministic clock (icount, one vCPU): softirq
# polling only, no write latency, and no perftest in write bandwidth
# (ib_write_bw has no -e): a busy poller, and write latency's receiver,
# which watches its buffer's last byte as perftest does, spin on the
# only CPU until the scheduler's tick, so they would measure the tick
# (4 ms). On the wall clock: busy and softirq polling,
# with more rounds against the host's noise. The cells come from
# bench_report.py's matrix(); rounds and iterations are set here.
#
# usage: bench_guest.sh OUTDIR [--short]

set -u
out=$1
short=${2:-}
addr=$KVPERF_ADDR0
clock=${KVPERF_CLOCK:-wall}
mkdir -p "$out"

# measure NAME CMD...: CMD's stdout into RES/NAME.json, or its stderr
# into RES/NAME.err when it fails. RES is OUTDIR, or on the
# instruction-count clock a directory in the guest's memory whose files
# go to OUTDIR at the end.
res=$out
measure() {
	local name=$1

	shift
	echo "bench: $name: $*" >&2
	if ! timeout 900 "$@" >"$res/$name.json" 2>"$res/$name.err"; then
		echo "bench: $name failed: $(head -c 300 "$res/$name.err")" >&2
		# a compare with a failed measurement still printed the rest;
		# the .err beside it tells the report what is missing
		[ -s "$res/$name.json" ] || rm -f "$res/$name.json"
		return 1
	fi
	rm -f "$res/$name.err"
}

if [ "$clock" = icount ]; then
	# instruction time repeats to about 1 %: three rounds show it
	rounds=3 ovh_poll=softirq
	# 2000 round trips: a p50 within one histogram bucket (0.7 %)
	lat_iters=2000 ovh_rounds=3 ovh_iters=2000
else
	rounds=5 ovh_poll=busy lat_iters=1000 ovh_rounds=5 ovh_iters=3000
fi
if [ "$short" = --short ]; then
	if [ "$clock" = icount ]; then
		rounds=2 ovh_rounds=2
	else
		rounds=1 lat_iters=200 ovh_rounds=2 ovh_iters=300
	fi
fi

# Latency iterations for a size: round trips of 64 KiB and more take
# milliseconds under TCG.
lat_iters_for() {
	local n=$lat_iters

	[ "$1" -ge 65536 ] && [ "$n" -gt 300 ] && n=300
	[ "$1" -ge 1048576 ] && [ "$n" -gt 100 ] && n=100
	echo "$n"
}

# On the instruction-count clock the programs run from memory and the
# results stay in the guest's memory until the matrix is done (see
# selftests/quiet_guest.sh); on either clock the slab caches keep their
# empty slabs.
# shellcheck source=selftests/quiet_guest.sh
. "$(dirname "$0")/quiet_guest.sh"
if [ "$clock" = icount ]; then
	if ! quiet_pin_programs; then
		echo "bench: cannot copy the programs into memory" >&2
		exit 1
	fi
	res=$quiet_mem/results
	mkdir "$res" || exit 1
fi
quiet_hold_slabs

# Messages per queue pair for a bandwidth size: about 64 MiB of traffic,
# at least 50 and at most 30000 messages (0.4 to 1.5 s of instruction time
# a run); the short run 8 MiB and at most 5000. A run of 5000 small
# messages lasts 40 to 80 ms, and a one-off step of a millisecond or
# two (not traced) moved such cells by 2 to 4 % between rounds and
# reports; in a run two to six times as long it weighs that much less.
bw_iters() {
	local total=$((64 << 20)) most=30000 n

	[ "$short" = --short ] && total=$((8 << 20)) most=5000
	n=$((total / $1))
	[ "$n" -lt 50 ] && n=50
	[ "$n" -gt "$most" ] && n=$most
	echo "$n"
}

# The cells, in bench_report.py's order (it reads the results by the
# same table). No kernel server yet: each compare starts its own
# servers, all reaping completions with the compare's poll.
cells=(python3 "$(dirname "$0")/bench_report.py" cells --clock "$clock")
[ "$short" = --short ] && cells+=(--short)
# read whole before the first cell, so that no Python is still exiting
# beside it
matrix=$("${cells[@]}") || exit 1

# cell_cmd ROUNDS KIND OP SIZE POLL: the compare of one cell, into cmd
cell_cmd() {
	local iters extra=()

	if [ "$2" = lat ]; then
		iters=$(lat_iters_for "$4")
	else
		iters=$(bw_iters "$4")
	fi
	# ib_write_bw has no -e, so it would poll busily: on one vCPU that
	# measures the scheduler's tick, not perftest
	[ "$clock" = icount ] && [ "$3" = write ] && extra=(no-perftest)
	cmd=(kvperf -j compare "$2" op "$3" addr "$addr" size "$4"
	     rounds "$1" iters "$iters" poll "$5" post-context both
	     "${extra[@]}")
}

# One round of send latency at 2 B (the full matrix's first cell),
# unrecorded, so that the matrix's first cell is not also the boot's
# first measurement (of twelve such compares in a row on 6.12 the first
# had the kernel path a bucket slower than the seven after it). The
# user path's spread in that cell is its own; see
# Documentation/benchmarks.rst.
cell_cmd 1 lat send 2 softirq
timeout 900 "${cmd[@]}" >/dev/null 2>&1

while read -r kind op size poll <&3; do
	cell_cmd "$rounds" "$kind" "$op" "$size" "$poll"
	measure "$kind-$op-$size-$poll" "${cmd[@]}"
done 3<<<"$matrix"

# Statistics on and off, alternating, the same loop: send 64 B.
# compare io, after the matrix: the kernel host and target, the user host
# and the user target; reads and writes one at a time, then deep reads
iocells=(python3 "$(dirname "$0")/bench_report.py" iocells --clock "$clock")
[ "$short" = --short ] && iocells+=(--short)
iomatrix=$("${iocells[@]}") || exit 1
while read -r rw bs qd poll <&3; do
	iters=$lat_iters
	[ "$qd" -gt 1 ] && iters=$((lat_iters * 4))
	measure "io-$rw-$bs-qd$qd-$poll" kvperf -j compare io addr "$addr" \
		rw "$rw" bs "$bs" qd "$qd" iters "$iters" poll "$poll" \
		rounds "$rounds"
done 3<<<"$iomatrix"

kvperf server start addr "$addr" poll "$ovh_poll" >/dev/null || exit 1
for ((r = 1; r <= ovh_rounds; r++)); do
	for path in kernel user; do
		for stats in on off; do
			measure "ovh-$path-$stats-$r" kvperf -j run lat \
				op send addr "$addr" size 64 iters "$ovh_iters" \
				stats "$stats" path "$path" poll "$ovh_poll"
		done
	done
done
for id in $(kvperf -j run show | grep -o '{"id":[0-9]*' | cut -d: -f2); do
	kvperf run delete "$id" >/dev/null 2>&1
done
kvperf server stop "$(kvperf -j server show | grep -o '{"id":[0-9]*' |
	cut -d: -f2 | head -n 1)" >/dev/null 2>&1

[ "$res" = "$out" ] || cp "$res"/* "$out"/ || exit 1

# The environment the report records.
{
	echo "kernel=$(uname -r)"
	echo "dev=$KVPERF_DEV0"
	echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "cpus=$(getconf _NPROCESSORS_ONLN)"
	echo "clock=$clock"
	echo "slab=min_partial $quiet_slab_hold in $quiet_slab_caches caches"
	# without the harness's own kvtop=/kvrun= words: paths of the host
	echo "cmdline=$(sed -E 's/ kv(top|run)=[^ ]*//g' /proc/cmdline)"
} >"$out/env.txt"
