#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of make bench (selftests/bench.sh runs it in the VM):
# the benchmark matrix as `kvperf -j compare` runs, each into its own file
# of OUTDIR, and the statistics overhead as alternating `kvperf -j run lat
# ... stats on` / `stats off` pairs on the kernel and the user path.
# A measurement that fails leaves an .err file next to where its result
# would have been; the report says so.
#
# usage: bench_guest.sh OUTDIR [--short]

set -u
out=$1
short=${2:-}
addr=$KVPERF_ADDR0
mkdir -p "$out"

# measure NAME CMD...: CMD's stdout into OUTDIR/NAME.json, or its
# stderr into OUTDIR/NAME.err when it fails.
measure() {
	local name=$1

	shift
	echo "bench: $name: $*" >&2
	if ! timeout 900 "$@" >"$out/$name.json" 2>"$out/$name.err"; then
		echo "bench: $name failed: $(head -c 300 "$out/$name.err")" >&2
		# a compare with a failed measurement still printed the rest;
		# the .err beside it tells the report what is missing
		[ -s "$out/$name.json" ] || rm -f "$out/$name.json"
		return 1
	fi
	rm -f "$out/$name.err"
}

if [ "$short" = --short ]; then
	polls="busy" lat_sizes="64" bw_sizes="65536" rounds=1
	lat_iters=200 ovh_rounds=2 ovh_iters=300
else
	polls="busy softirq" lat_sizes="2 64 4096 65536"
	bw_sizes="4096 65536 1048576"
	lat_iters=1000 ovh_rounds=5 ovh_iters=3000
	# TCG's noise needs more than 3 rounds for a stable median
	rounds=5
fi

# Messages per queue pair for a bandwidth size: about 32 MiB of traffic
# (8 MiB in the short run), at least 50 messages.
bw_iters() {
	local total=$((32 << 20)) n

	[ "$short" = --short ] && total=$((8 << 20))
	n=$((total / $1))
	[ "$n" -lt 50 ] && n=50
	[ "$n" -gt 5000 ] && n=5000
	echo "$n"
}

kvperf server start addr "$addr" >/dev/null || exit 1

for poll in $polls; do
	for op in send write read; do
		for size in $lat_sizes; do
			# (64 KiB round trips take milliseconds under TCG)
			n=$lat_iters
			[ "$size" -ge 65536 ] && [ "$n" -gt 300 ] && n=300
			measure "lat-$op-$size-$poll" kvperf -j compare lat \
				op "$op" addr "$addr" size "$size" \
				rounds "$rounds" iters "$n" poll "$poll"
		done
		for size in $bw_sizes; do
			[ "$short" = --short ] && [ "$op" != write ] && continue
			measure "bw-$op-$size-$poll" kvperf -j compare bw \
				op "$op" addr "$addr" size "$size" \
				rounds "$rounds" iters "$(bw_iters "$size")" \
				poll "$poll"
		done
	done
done

# Statistics on and off, alternating, the same loop: send 64 B, busy.
for ((r = 1; r <= ovh_rounds; r++)); do
	for path in kernel user; do
		for stats in on off; do
			measure "ovh-$path-$stats-$r" kvperf -j run lat \
				op send addr "$addr" size 64 iters "$ovh_iters" \
				stats "$stats" path "$path"
		done
	done
done
for id in $(kvperf -j run show | grep -o '{"id":[0-9]*' | cut -d: -f2); do
	kvperf run delete "$id" >/dev/null 2>&1
done
kvperf server stop "$(kvperf -j server show | grep -o '{"id":[0-9]*' |
	cut -d: -f2 | head -n 1)" >/dev/null 2>&1

# The environment the report records.
{
	echo "kernel=$(uname -r)"
	echo "dev=$KVPERF_DEV0"
	echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "cpus=$(getconf _NPROCESSORS_ONLN)"
	# without the harness's own kvtop=/kvrun= words: paths of the host
	echo "cmdline=$(sed -E 's/ kv(top|run)=[^ ]*//g' /proc/cmdline)"
} >"$out/env.txt"
