#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's kselftest runner's KTAP (run_kselftest.sh, or make
# run_tests) on stdin, to stdout with two things added that make check
# needs: each test's seconds, "# NAME: N s" before its result (the time
# table), and, on the result line of a test that skipped whole, the
# reason its own "1..0 # SKIP" gave (the runner prints "# SKIP" alone;
# the tally counts a skip without a reason as a failure). Exit status:
# 0 when all passed (skips allowed), 1 when any failed, 4 when all were
# skipped, 2 when there was no result.
#
# usage: ksft_times.sh COLLECTION   (as the runner names it: drivers/kvperf)

set -u
col=${1:?usage: ksft_times.sh COLLECTION}
why='' start=$SECONDS n=0 fail=0 skip=0

while IFS= read -r line; do
	case $line in
	"# selftests: $col: "*)
		start=$SECONDS why=''
		;;
	"# 1..0 # SKIP "*)
		[ -z "$why" ] && why=${line#"# 1..0 # SKIP "}
		;;
	"ok "*" selftests: $col: "* | "not ok "*" selftests: $col: "*)
		name=${line#*" selftests: $col: "}
		echo "# ${name%% *}: $((SECONDS - start)) s"
		n=$((n + 1))
		case $line in
		"not ok "*) fail=$((fail + 1)) ;;
		*" # SKIP") skip=$((skip + 1)) line+=" ${why:-(no reason given)}" ;;
		*" # SKIP "*) skip=$((skip + 1)) ;;
		esac
		;;
	esac
	printf '%s\n' "$line"
done
[ "$fail" -gt 0 ] && exit 1
[ "$n" -gt 0 ] && [ "$skip" -eq "$n" ] && exit 4
[ "$n" -gt 0 ] || exit 2
exit 0
