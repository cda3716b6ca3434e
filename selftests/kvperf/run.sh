#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kvperf selftests as one KTAP stream, the way the kselftest runner
# does: every test script (*.sh but lib.sh and run.sh) and every compiled
# test program in this directory, each under the `settings` timeout, its
# own KTAP output nested as "# " lines. Exit status: 0 when all passed
# (skips allowed), 1 when any failed, 4 when all were skipped.
#
# usage: run.sh [TEST...]   (names as in the directory; default: all)

set -u

dir=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
timeout=120
if [ -r "$dir/settings" ]; then
	t=$(sed -n 's/^timeout=\([0-9]\+\)$/\1/p' "$dir/settings")
	[ -n "$t" ] && timeout=$t
fi

tests=()
if [ $# -gt 0 ]; then
	for t in "$@"; do
		t=$(basename "$t")
		if [ ! -f "$dir/$t" ]; then
			echo "run.sh: no test $t in $dir" >&2
			exit 2
		fi
		tests+=("$t")
	done
else
	for f in "$dir"/*; do
		t=$(basename "$f")
		case "$t" in
		lib.sh | run.sh) continue ;;
		*.sh) tests+=("$t") ;;
		*.c | *.h | *.py | Makefile | config | settings) continue ;;
		*) [ -f "$f" ] && [ -x "$f" ] && tests+=("$t") ;;
		esac
	done
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
	echo "# selftests: kvperf: $t"
	start=$SECONDS
	case "$t" in
	*.sh) cmd=(bash "$dir/$t") ;;
	*) cmd=("$dir/$t") ;;
	esac
	# The test's own KTAP, nested; stderr too, so nothing is lost.
	(cd "$dir" && timeout -k 5 "$timeout" "${cmd[@]}" 2>&1 </dev/null) |
		tee "$log" | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	echo "# $t: $((SECONDS - start)) s"
	case "$rc" in
	0)
		echo "ok $n selftests: kvperf: $t"
		pass=$((pass + 1))
		;;
	4)
		why=$(sed -n 's/^1\.\.0 # SKIP *//p' "$log" | head -n 1)
		echo "ok $n selftests: kvperf: $t # SKIP${why:+ $why}"
		skip=$((skip + 1))
		;;
	124 | 137)
		echo "not ok $n selftests: kvperf: $t # TIMEOUT $timeout seconds"
		fail=$((fail + 1))
		;;
	*)
		echo "not ok $n selftests: kvperf: $t # exit=$rc"
		fail=$((fail + 1))
		;;
	esac
done
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"

[ "$fail" -gt 0 ] && exit 1
[ "$n" -gt 0 ] && [ "$skip" -eq "$n" ] && exit 4
exit 0
