#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kvperf selftests the way a user does: the kernel's own
# run_kselftest.sh from the kselftest tree `make selftests` installs
# (build/kselftest, the kernel's selftests Makefile with
# TARGETS=drivers/kvperf; KVPERF_KSELFTEST names another install). Each
# test runs under the `settings` timeout times KVPERF_TIME_SCALE (the
# runner's -o). On the way through, each test's seconds are printed as
# "# NAME: N s" before its result (make check's table), and a test that
# skipped whole gets its reason on its result line (the runner prints
# "# SKIP" alone; the suite's tally needs the reason). Exit status: 0
# when all passed (skips allowed), 1 when any failed, 4 when all were
# skipped, 2 when there is nothing to run.
#
# usage: run.sh [TEST...]   (names as in the directory; default: the plan)

set -u

top=${KVPERF_TOP:-$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)}
inst=${KVPERF_KSELFTEST:-$top/build/kselftest}
col=drivers/kvperf
if [ ! -x "$inst/run_kselftest.sh" ] || [ ! -d "$inst/$col" ]; then
	echo "run.sh: no kselftest install of $col in $inst (make selftests)" >&2
	exit 2
fi
timeout=$(sed -n 's/^timeout=\([0-9]\+\)$/\1/p' "$inst/$col/settings")
args=(-o "$((${timeout:-45} * ${KVPERF_TIME_SCALE:-1}))")
for t in "$@"; do
	args+=(-t "$col:$(basename "$t")")
done

# times: the runner's KTAP on stdin, to stdout with the seconds and
# skip reasons added; exits with the suite's status.
times() {
	local line name why='' start=$SECONDS n=0 fail=0 skip=0

	while IFS= read -r line; do
		case $line in
		"# selftests: $col: "*)
			start=$SECONDS why=
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
	[ "$fail" -gt 0 ] && return 1
	[ "$n" -gt 0 ] && [ "$skip" -eq "$n" ] && return 4
	[ "$n" -gt 0 ] || return 2
	return 0
}

# (the runner's own status says nothing of the results; "No such test"
# prints no result, status 2)
"$inst/run_kselftest.sh" "${args[@]}" </dev/null 2>&1 | times
