#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test kvperf has. Installs what is missing, builds,
# then runs the host unit tests, the spec checks, the tool's usage
# errors (usage_test.sh), the static checks, the
# harness's own tests, the packaging tests (selftests/packaging/), the
# VM suite on 6.1 (plain Soft-RoCE, every feature once: KVPERF_LANE=
# feature) and on 6.12's DMA lane (vmtest.sh -d: an IOMMU and the
# Soft-RoCE of selftests/rxe-dma/, every test with its full matrices),
# then the two-guest suite (vmpair.sh, stock 6.12 and 6.1), and totals
# their KTAP results (selftests/ktap_tally.py: every leaf result, nested
# ones included, plans checked) in a last line "N passed, N failed, N
# skipped". A skip that is not on selftests/expected-skips (each there
# with its reason) counts as a failure. Before that line, a table of
# every phase's seconds (and every VM script's), with the retries each
# phase made ("# retry:" lines: a guest booted again, a perftest run
# repeated). Logs go to build/check/.
#
# Long work has targets of its own: make check-fuzz (the fuzzers' soak),
# make bench-check (the benchmark's gate), make check-debug, check-load.
#
# --load [KVER]: make check-load instead: the VM suite on one kernel
# (default: the newest 6.12) while a second guest keeps both host cores
# busy beside it; the same closing line.
#
# --fabric: make check-fabric instead: the four-guest suite
# (selftests/fabric/, see selftests/vmcluster.sh), the same closing line;
# not in make check, whose budget it does not fit yet.
#
# --pair: make check-pair instead: the two-guest suite (selftests/pair/,
# guest A on the newest 6.12, guest B on the newest 6.1, see
# selftests/vmpair.sh), with the same closing line.
#
# --debug: make check-debug instead: the VM suite on a debug kernel
# (KASAN, lockdep, kmemleak, UBSAN, DMA-API debug) built once by
# selftests/debug-kernel/build.sh and cached outside the clone, at a
# larger time scale (KVPERF_TIME_SCALE, default 10), then a kmemleak scan
# after rmmod kvperf (selftests/debug-kernel/suite.sh); any report in
# the kernel log fails it. The same closing line. TEST.sh...: those
# scripts of the suite only (make check-debug TESTS="module.sh ...").
#
# --fuzz: make check-fuzz instead: the fuzzers' long soak
# (KVPERF_FUZZ_SOAK=1: nl_fuzz.sh and wire_fuzz.sh, each with a fresh
# seed it prints for a replay) on each kernel's lane as make check runs
# it; the same closing line. make check runs their short smoke.
#
# Both Debian kernels must be installed (make deps does it): without one
# of them, the run fails at once, naming it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
logs=build/check
load=
load_kver=
pair=
fabric=
debug=
debug_tests=()
fuzz=
case "${1:-}" in
--load)
	load=1 load_kver=${2:-}
	logs=build/check-load
	;;
--pair)
	pair=1
	logs=build/check-pair
	;;
--fabric)
	fabric=1
	logs=build/check-fabric
	;;
--debug)
	debug=1
	logs=build/check-debug
	shift
	debug_tests=("$@")
	;;
--fuzz)
	fuzz=1
	logs=build/check-fuzz
	;;
'') ;;
*) echo "usage: $0 [--load [KVER] | --pair | --fabric | --debug [TEST.sh...] | --fuzz]" >&2
   exit 2 ;;
esac
mkdir -p "$logs"

passed=0 failed=0 skipped=0
start=$(date +%s)
expected=selftests/expected-skips
# the closing table: "NAME SECONDS RETRIES" a phase, "+SCRIPT SECONDS"
# after it for each test program a runner timed
timing=()

# timing_table: the phases' and scripts' seconds, and the total
timing_table() {
	local row name secs retries total=0	# total: of the retries

	echo "# ---- seconds per phase (and per script of a VM phase), retries made"
	for row in "${timing[@]}"; do
		read -r name secs retries <<<"$row"
		case "$name" in
		+*) printf '#     %-34s %6d s\n' "${name#+}" "$secs" ;;
		*) printf '#   %-36s %6d s  %d retries\n' "$name" "$secs" "${retries:-0}"
		   total=$((total + ${retries:-0})) ;;
		esac
	done
	secs=$(( $(date +%s) - start ))
	printf '#   %-36s %6d s  %d retries (%d min %02d s)\n' total "$secs" \
		"$total" $((secs / 60)) $((secs % 60))
}

totals() {
	[ ${#timing[@]} -gt 0 ] && timing_table
	echo "$passed passed, $failed failed, $skipped skipped"
}

# run_phase NAME STREAMS CMD...: run a KTAP-producing command, stream its
# output, and add every result it printed to the totals. STREAMS is how
# many top-level KTAP streams the command prints (one per test program);
# a shortfall, a plan not kept or a skip without a reason is a failure,
# and so is a command that fails without reporting a failed test.
run_phase() {
	local name=$1 streams=$2 log=$logs/$1.log t0 rc
	shift 2
	t0=$(date +%s)
	echo "# ---- $name: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	phase_tally "$name" "$streams" "$rc" "$t0"
}

# phase_tally NAME STREAMS RC T0: add the results of phase NAME (its log,
# its command's status RC, its start T0) to the totals and the timing
# table.
phase_tally() {
	local name=$1 streams=$2 rc=$3 t0=$4 log=$logs/$1.log
	local p f s tally retries t secs

	tally=$(python3 selftests/ktap_tally.py --streams "$streams" \
		--phase "$name" --expected "$expected" "$log")
	printf '%s\n' "$tally" | grep '^# tally:'
	read -r p f s < <(printf '%s\n' "$tally" | sed -n 's/^tally: //p')
	if [ -z "${s:-}" ]; then
		echo "not ok - $name: its log could not be tallied"
		p=0 f=1 s=0
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited with status $rc"
		f=1
	fi
	if [ $((p + f + s)) -eq 0 ]; then
		echo "not ok - $name ran no test"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	retries=$(grep -cE '^(# )+retry: ' "$log")
	echo "# ---- $name: $p passed, $f failed, $s skipped in $(( $(date +%s) - t0 )) s, $retries retries"
	timing+=("$name $(( $(date +%s) - t0 )) $retries")
	# the seconds of each test program a runner timed ("# NAME: N s")
	while read -r t secs; do
		timing+=("+${t%:} $secs")
	done < <(sed -n 's/^# \([A-Za-z0-9_.-]*:\) \([0-9]*\) s$/\1 \2/p' "$log")
}

t0=$(date +%s)
if ! selftests/deps.sh --check >/dev/null; then
	selftests/deps.sh || { echo "not ok - make deps"; failed=1; totals; exit 1; }
fi
timing+=("deps $(( $(date +%s) - t0 )) 0")

mapfile -t kvers < <(selftests/kernels.sh)
if ! selftests/kernels.sh --require >/dev/null; then
	echo "not ok - the Debian kernels the suite runs on are installed (above)"
	failed=1
	totals
	exit 1
fi

echo "# ---- build"
t0=$(date +%s)
if ! make -s -j"$(nproc)" all ksrc selftests >"$logs/build.log" 2>&1; then
	cat "$logs/build.log"
	echo "not ok - build"
	failed=1
	totals
	exit 1
fi
timing+=("build $(( $(date +%s) - t0 )) 0")
# the kselftest install is made: the guests' vmtest.sh leaves it as it is
export KVPERF_SELFTESTS_MADE=1

if [ -n "$load" ]; then
	# The load: a guest of the other kernel spinning on both vCPUs,
	# started first and stopped when the suite is done.
	[ -n "$load_kver" ] || load_kver=${kvers[-1]}
	other=${kvers[0]}
	[ "$other" = "$load_kver" ] && other=${kvers[-1]}
	KVPERF_NO_MODULE=1 selftests/vmtest.sh -k "$other" -t 7200 -- \
		bash -c 'for i in 1 2; do (while :; do :; done) & done; wait' \
		>"$logs/load-guest.log" 2>&1 &
	loadpid=$!
	trap 'kill -TERM $loadpid 2>/dev/null' EXIT
	echo "# ---- load: a $other guest spinning on 2 vCPUs beside the suite (pid $loadpid)"
	# Sharing the CPUs, the whole plan takes about twice as long as
	# alone (on 6.12 on 2026-12-06, 24 of its 29 scripts in 2100 s,
	# vmtest.sh's limit, against 1025 s for all alone): the guest gets
	# twice that limit; each script keeps its own (settings' timeout,
	# scaled), which is what catches a hang.
	# shellcheck source=selftests/vm/defaults.sh
	. selftests/vm/defaults.sh
	lscale=${KVPERF_TIME_SCALE:-$vm_default_time_scale}
	run_phase "vm-$load_kver-loaded" 1 selftests/vmtest.sh -k "$load_kver" \
		-t $((2 * 700 * lscale))
	if ! kill -0 "$loadpid" 2>/dev/null; then
		echo "not ok - the load guest ran throughout (it ended early; see $logs/load-guest.log)"
		failed=$((failed + 1))
	fi
	kill -TERM "$loadpid" 2>/dev/null
	wait "$loadpid" 2>/dev/null
	trap - EXIT
	echo "# make check-load took $(( $(date +%s) - start )) s; logs in $logs/"
	totals
	[ "$failed" -eq 0 ]
	exit
fi

# The two-guest suite: A on the newest 6.12, B on the 6.1 (both
# directions between the two kernels, and a peer that dies).
pair_phase() {
	run_phase pair-"${kvers[-1]}"-"${kvers[0]}" 1 \
		selftests/vmpair.sh -k "${kvers[-1]}" -p "${kvers[0]}"
}
# the fabric suite: four guests, kvc0 to kvc3, 6.12 and 6.1 in turn
fabric_phase() {
	run_phase fabric 1 selftests/vmcluster.sh
}
if [ -n "$fabric" ]; then
	fabric_phase
	echo "# make check-fabric took $(( $(date +%s) - start )) s; logs in $logs/"
	totals
	[ "$failed" -eq 0 ]
	exit
fi
if [ -n "$pair" ]; then
	pair_phase
	echo "# make check-pair took $(( $(date +%s) - start )) s; logs in $logs/"
	totals
	[ "$failed" -eq 0 ]
	exit
fi

# The VM suite on each Debian kernel: on its DMA lane (an IOMMU and a
# Soft-RoCE that maps through it, vmtest.sh -d) where its series has a
# patch in selftests/rxe-dma/, else on stock Soft-RoCE. The newest
# kernel runs the whole plan with its full combination matrices; the
# others every feature once (KVPERF_LANE=feature, see lib.sh's
# kv_full_lane). Stock 6.12 Soft-RoCE runs in the two-guest suite.
# A kernel on stock Soft-RoCE (6.1) runs the suite from a kernel tree
# (intree_suite), the others from its kselftest install (run.sh): both
# ways a user runs it, through the kernel's runner.

#
# On the newest kernel's DMA lane, the scripts of bounce_tests (data
# paths, payloads verified) run on the bounce-buffer lane instead
# (vmtest.sh -b: swiotlb bounces every mapping, so a missing
# ib_dma_sync_*() shows as a payload that fails its check), the rest of
# the plan behind the IOMMU; dma.sh, which checks each lane's own
# behaviour, runs on both.
bounce_tests=(lat_basic.sh bw_basic.sh verify_fault.sh)

# The scripts the older kernels' lanes leave to others: those HW mode
# runs, which the two-guest suite's hw_mode.sh runs on 6.1 as the client
# of 6.12's servers over the link; and those whose subject is user space
# (compare's rounds, columns and perftest; the README's lines), which
# the newest kernel's lanes run.
not_on_older=(bad_input.sh bw_basic.sh lat_basic.sh nl_malformed.sh
	      compare.sh compare_io.sh readme_examples.sh)

# intree_suite KVER: the suite on KVER as a kernel developer runs it,
# from a copy of selftests/kvperf in a kernel tree (make -C
# tools/testing/selftests TARGETS=drivers/kvperf run_tests, see
# selftests/intree.sh): the plan but not_on_older.
intree_suite() {
	local tests

	if ! selftests/intree.sh prepare >"$logs/intree-prepare.log" 2>&1; then
		tail -n 20 "$logs/intree-prepare.log"
		echo "not ok 1 selftests/intree.sh prepare (log: $logs/intree-prepare.log)"
		return 1
	fi
	mapfile -t tests < <(make -s --no-print-directory \
		-C selftests/kvperf print-tests |
		grep -vxF -f <(printf '%s\n' "${not_on_older[@]}"))
	selftests/vmtest.sh -k "$1" -- selftests/intree.sh run "${tests[@]}"
}

vm_lanes() {
	local kver series lane rest

	for kver in "${kvers[@]}"; do
		lane=feature
		[ "$kver" = "${kvers[-1]}" ] && lane=full
		series=$(sed -n 's/^\([0-9]\+\.[0-9]\+\)[.+-].*/\1/p' <<<"$kver")
		if [ ! -e "selftests/rxe-dma/rdma_rxe-$series.patch" ] &&
			[ $# = 0 ]; then
			KVPERF_LANE=$lane run_phase "vm-$kver" 1 \
				intree_suite "$kver"
		elif [ ! -e "selftests/rxe-dma/rdma_rxe-$series.patch" ]; then
			KVPERF_LANE=$lane run_phase "vm-$kver" 1 \
				selftests/vmtest.sh -k "$kver" "$@"
		elif [ $# -gt 0 ] || [ "$lane" != full ]; then
			KVPERF_LANE=$lane run_phase "vm-dma-$kver" 1 \
				selftests/vmtest.sh -d -k "$kver" "$@"
		else
			mapfile -t rest < <(make -s --no-print-directory \
				-C selftests/kvperf print-tests |
				grep -vxF -f <(printf '%s\n' "${bounce_tests[@]}"))
			KVPERF_LANE=$lane run_phase "vm-dma-$kver" 1 \
				selftests/vmtest.sh -d -k "$kver" -- \
				selftests/kvperf/run.sh "${rest[@]}"
			KVPERF_LANE=$lane run_phase "vm-bounce-$kver" 1 \
				selftests/vmtest.sh -b -k "$kver" -- \
				selftests/kvperf/run.sh dma.sh "${bounce_tests[@]}"
		fi
	done
}

if [ -n "$fuzz" ]; then
	KVPERF_FUZZ_SOAK=1 vm_lanes -- selftests/kvperf/run.sh nl_fuzz.sh wire_fuzz.sh
	echo "# make check-fuzz took $(( $(date +%s) - start )) s; logs in $logs/"
	totals
	[ "$failed" -eq 0 ]
	exit
fi
if [ -n "$debug" ]; then
	echo "# ---- debug kernel: selftests/debug-kernel/build.sh (log: $logs/debug-kernel.log)"
	if ! kdir=$(selftests/debug-kernel/build.sh 2>"$logs/debug-kernel.log" |
		    tail -n 1) || [ -z "$kdir" ]; then
		tail -n 30 "$logs/debug-kernel.log"
		echo "not ok - the debug kernel builds"
		failed=1
		totals
		exit 1
	fi
	tail -n 1 "$logs/debug-kernel.log"
	echo "# ---- debug kernel $(cat "$kdir/kernelrelease") in $kdir"
	# Each script has its own limit (settings' timeout, scaled): the
	# guest's is the sum of theirs, not vmtest.sh's default.
	scale=${KVPERF_TIME_SCALE:-10}
	KVPERF_TIME_SCALE=$scale run_phase vm-debug 2 \
		selftests/vmtest.sh -K "$kdir" -t $((3600 * scale)) -- \
		selftests/debug-kernel/suite.sh "${debug_tests[@]}"
	echo "# make check-debug took $(( $(date +%s) - start )) s; logs in $logs/"
	totals
	[ "$failed" -eq 0 ]
	exit
fi

# the unit-test programs, one per selftests/unit/test_*.c (kmod/stats.c's
# test_stats among them), one KTAP stream each
run_phase unit "$(ls selftests/unit/test_*.c | wc -l)" make -s -C user test
# the spec's own checks, then the user documentation's units and limits
# against the spec and the tool's help: two KTAP streams
spec_phase() {
	local rc=0

	selftests/spec/spec_test.sh || rc=1
	selftests/spec/readme_test.sh || rc=1
	return "$rc"
}
run_phase spec 2 spec_phase
# the usage errors the tool reports before it talks to the module
run_phase usage 1 selftests/usage_test.sh
run_phase lint 1 selftests/lint.sh
run_phase harness 1 selftests/harness_test.sh
# the man page, completion, make install and make dist (no VM)
run_phase packaging "$(selftests/packaging/run.sh --count)" \
	selftests/packaging/run.sh
vm_lanes
pair_phase

echo "# make check took $(( $(date +%s) - start )) s; logs in $logs/"
totals
[ "$failed" -eq 0 ]
