#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the benchmark. For each Debian kernel (or the one -k
# names), boot the Soft-RoCE VM, run the fixed matrix there
# (selftests/bench_guest.sh: send, write and read latency and bandwidth
# at several sizes, each a kvperf compare of the kernel path, the user
# path and perftest; and the statistics overhead), then write
# DIR/<date>-<kernel>.{json,md,svg} (selftests/bench_report.py). A
# benchmark, not a test: it fails when it could not measure or the VM
# run failed (its kernel log included), never on a number.
#
# --clock icount (the default): vmtest.sh -i, QEMU's instruction-count
# clock with one vCPU. Timings are instruction time (one guest
# instruction is one nanosecond) and repeat to about 1 %; softirq
# polling only. --clock wall: the wall clock with two vCPUs and
# idle=poll (wake-ups are what TCG makes expensive), busy and softirq
# polling, noisy (20-50 % a cell).
#
# --short: the tiny matrix, into build/bench/, followed by KTAP checks
# of the three files (make check), or with --gate DIR by the regression
# gate against DIR/<kernel>.json, the baseline of the same kernel
# (make bench-check; a kernel without a baseline is skipped, saying so);
# --gate DIR --update writes that baseline instead.
#
# usage: bench.sh [--short [--gate DIR [--update]]] [--clock icount|wall]
#                 [-k KVER] [-o DIR]

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

short='' kvers=() dir='' clock=icount gate='' update=''
while [ $# -gt 0 ]; do
	case $1 in
	--short) short=--short ;;
	--clock) clock=$2; shift ;;
	--gate) gate=$2; shift ;;
	--update) update=1 ;;
	-k) kvers+=("$2"); shift ;;
	-o) dir=$2; shift ;;
	*) echo "usage: $0 [--short [--gate DIR [--update]]]" \
		"[--clock icount|wall] [-k KVER] [-o DIR]" >&2
	   exit 2 ;;
	esac
	shift
done
case $clock in
icount) vmopts=(-i) ;;
wall) vmopts=(-a idle=poll) ;;
*) echo "$0: --clock $clock: icount or wall" >&2; exit 2 ;;
esac
if { [ -n "$gate" ] && [ -z "$short" ]; } ||
   { [ -n "$update" ] && [ -z "$gate" ]; }; then
	echo "$0: --gate needs --short, --update needs --gate" >&2
	exit 2
fi
if [ -n "$gate" ] && [ "$clock" != icount ]; then
	echo "$0: --gate: the gate is on the icount clock only" >&2
	exit 2
fi
[ -n "$dir" ] || dir=$([ -n "$short" ] && echo build/bench ||
		      echo Documentation/benchmarks)
[ ${#kvers[@]} -gt 0 ] || mapfile -t kvers < <(selftests/kernels.sh)
mkdir -p "$dir"

# the harness tests put a fake VM run here
vmtest=${KVPERF_VMTEST:-selftests/vmtest.sh}
rc=0
for kver in "${kvers[@]}"; do
	baseline=
	if [ -n "$gate" ] && [ -z "$update" ]; then
		# the baseline of this kernel: its full version, or the one
		# file a prefix of it names
		baseline=$gate/$kver.json
		if [ ! -f "$baseline" ]; then
			mapfile -t found < <(ls "$gate/$kver"[.+-]*.json 2>/dev/null)
			baseline=${found[0]:-}
			[ ${#found[@]} = 1 ] || baseline=
		fi
		if [ -z "$baseline" ]; then
			echo "# bench-check: $kver skipped: no baseline" \
			     "$gate/$kver.json" >&2
			continue
		fi
	fi
	raw=build/bench/raw-$kver
	rm -rf "$raw"
	mkdir -p "$raw"
	echo "# bench: $kver${short:+ (short)}, $clock clock, results in $dir" >&2
	if ! "$vmtest" -k "$kver" -t 7200 "${vmopts[@]}" -- \
		bash selftests/bench_guest.sh "$raw" $short >&2; then
		# A failed VM run (a BUG, WARNING, Oops or stall in the kernel
		# log, a timeout, a crash) fails the benchmark, whatever it
		# measured; the guest's last step writes env.txt, so with it
		# the report still shows what was measured.
		rc=1
		if [ ! -s "$raw/env.txt" ]; then
			echo "# bench: the VM run on $kver failed; no report" >&2
			continue
		fi
		echo "# bench: the VM run on $kver failed (above);" \
		     "the report has what was measured" >&2
	fi
	full=$(sed -n 's/^kernel=//p' "$raw/env.txt" 2>/dev/null)
	base=$dir/$(date +%F)-${full:-$kver}
	cmd="make bench KVER=$kver"
	[ "$clock" = wall ] && base+=-wall cmd+=" CLOCK=wall"
	[ -n "$short" ] && cmd="selftests/bench.sh --short --clock $clock -k $kver"
	# the newest earlier report of this kernel and clock, for the
	# repeatability section (kept aside: this run may overwrite it). By
	# the date in its name: in a fresh clone every report has the same
	# modification time.
	prev=()
	# shellcheck disable=SC2012 # the names are ours: date-kernel.json
	old=$(ls "$dir"/*-"$full${base##*"$full"}".json 2>/dev/null | tail -n 1)
	if [ -n "$old" ]; then
		cp "$old" "$raw/previous-${old##*/}" &&
			prev=(--previous "$raw/previous-${old##*/}")
	fi
	if ! python3 selftests/bench_report.py report "$raw" "$base" $short \
		--command "$cmd" "${prev[@]}"; then
		echo "# bench: no report for $kver" >&2
		rc=1
		continue
	fi
	echo "# bench: wrote $base.json, $base.md, $base.svg" >&2
	if [ -n "$update" ]; then
		mkdir -p "$gate" &&
		python3 selftests/bench_report.py baseline "$base" \
			"$gate/$full.json" || rc=1
		echo "# bench-check: wrote the baseline $gate/$full.json" >&2
	elif [ -n "$gate" ]; then
		python3 selftests/bench_report.py gate "$base" "$baseline" || rc=1
	elif [ -n "$short" ]; then
		python3 selftests/bench_report.py check "$base" --short || rc=1
	else
		cat "$base.md"
	fi
done
exit $rc
