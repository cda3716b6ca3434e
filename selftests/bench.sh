#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the benchmark. For each Debian kernel (or the one -k
# names), boot the Soft-RoCE VM with idle=poll (wake-ups are what TCG
# makes expensive), run the fixed matrix there (selftests/bench_guest.sh:
# send, write and read latency at 2 B, 64 B, 4 KiB and 64 KiB and
# bandwidth at 4 KiB, 64 KiB and 1 MiB, busy and softirq polling, each a
# kvperf compare of the kernel path, the user path and perftest; and the
# statistics overhead), then write DIR/<date>-<kernel>.{json,md,svg}
# (selftests/bench_report.py). A benchmark, not a test: it fails when it
# could not measure or the VM run failed (its kernel log included),
# never on a number.
#
# --short: the tiny matrix make check runs, into build/bench/, followed
# by KTAP checks of the three files.
#
# usage: bench.sh [--short] [-k KVER] [-o DIR]

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

short= kvers=() dir=
while [ $# -gt 0 ]; do
	case $1 in
	--short) short=--short ;;
	-k) kvers+=("$2"); shift ;;
	-o) dir=$2; shift ;;
	*) echo "usage: $0 [--short] [-k KVER] [-o DIR]" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$dir" ] || dir=$([ -n "$short" ] && echo build/bench ||
		      echo Documentation/benchmarks)
[ ${#kvers[@]} -gt 0 ] || mapfile -t kvers < <(selftests/kernels.sh)
mkdir -p "$dir"

# the harness tests put a fake VM run here
vmtest=${KVPERF_VMTEST:-selftests/vmtest.sh}
rc=0
for kver in "${kvers[@]}"; do
	raw=build/bench/raw-$kver
	rm -rf "$raw"
	mkdir -p "$raw"
	echo "# bench: $kver${short:+ (short)}, results in $dir" >&2
	if ! "$vmtest" -k "$kver" -t 3600 -a idle=poll -- \
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
	[ -n "$short" ] && cmd="selftests/bench.sh --short -k $kver"
	if ! python3 selftests/bench_report.py report "$raw" "$base" $short \
		--command "$cmd"; then
		echo "# bench: no report for $kver" >&2
		rc=1
		continue
	fi
	echo "# bench: wrote $base.json, $base.md, $base.svg" >&2
	if [ -n "$short" ]; then
		python3 selftests/bench_report.py check "$base" --short || rc=1
	else
		cat "$base.md"
	fi
done
exit $rc
