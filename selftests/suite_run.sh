#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a suite that is not a kselftest directory (the two-guest suite,
# selftests/pair/) as one KTAP stream, the way the kselftest runner
# does: every test its Makefile plans (a planned test that is missing
# fails), each under the `settings` timeout times the time scale, its own
# KTAP output nested as "# " lines, its seconds in a "# NAME: N s" line
# (make check's table). Exit status: 0 when all passed (skips allowed), 1
# when any failed, 4 when all were skipped. The VM suite runs through the
# kernel's own runner instead (selftests/kvperf/run.sh).
#
# usage: KV_SUITE_DIR=DIR KV_SUITE=NAME suite_run.sh [TEST...]
#        (names as in DIR; default: DIR's plan; NAME in the results)

set -u

dir=$(cd "${KV_SUITE_DIR:?names the suite folder}" && pwd)
suite=${KV_SUITE:?names the suite}
timeout=120 scale=${KVPERF_TIME_SCALE:-}
if [ -r "$dir/settings" ]; then
	t=$(sed -n 's/^timeout=\([0-9]\+\)$/\1/p' "$dir/settings")
	[ -n "$t" ] && timeout=$t
fi
# the per-test limit grows with the suite's time scale (see lib.sh)
timeout=$((timeout * ${scale:-1}))

tests=()
if [ $# -gt 0 ]; then
	for t in "$@"; do
		tests+=("$(basename "$t")")
	done
else
	# The plan is the Makefile's list, not what happens to be in the
	# folder: a planned test that is missing is a failure, not a gap.
	mapfile -t tests < <(make -s --no-print-directory -C "$dir" print-tests)
	if [ ${#tests[@]} -eq 0 ]; then
		echo "suite_run.sh: no tests in $dir/Makefile (make print-tests)" >&2
		exit 2
	fi
fi

log=$(mktemp /tmp/kvperf-run.XXXXXX) || exit 1
trap 'rm -f "$log"' EXIT

echo "TAP version 13"
echo "1..${#tests[@]}"
n=0
pass=0
fail=0
skip=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	echo "# selftests: $suite: $t"
	start=$SECONDS
	case "$t" in
	*.sh) cmd=(bash "$dir/$t") ;;
	*) cmd=("$dir/$t") ;;
	esac
	if [ ! -f "$dir/$t" ] || { [ "${t%.sh}" = "$t" ] && [ ! -x "$dir/$t" ]; }; then
		echo "not ok $n selftests: $suite: $t # missing: no $dir/$t"
		fail=$((fail + 1))
		continue
	fi
	# The test's own KTAP, nested; stderr too, so nothing is lost.
	(cd "$dir" && timeout -k 5 "$timeout" "${cmd[@]}" 2>&1 </dev/null) |
		tee "$log" | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	echo "# $t: $((SECONDS - start)) s"
	case "$rc" in
	0)
		echo "ok $n selftests: $suite: $t"
		pass=$((pass + 1))
		;;
	4)
		why=$(sed -n 's/^1\.\.0 # SKIP *//p' "$log" | head -n 1)
		echo "ok $n selftests: $suite: $t # SKIP${why:+ $why}"
		skip=$((skip + 1))
		;;
	124 | 137)
		echo "not ok $n selftests: $suite: $t # TIMEOUT $timeout seconds"
		fail=$((fail + 1))
		;;
	*)
		echo "not ok $n selftests: $suite: $t # exit=$rc"
		fail=$((fail + 1))
		;;
	esac
done
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"

[ "$fail" -gt 0 ] && exit 1
[ "$n" -gt 0 ] && [ "$skip" -eq "$n" ] && exit 4
exit 0
