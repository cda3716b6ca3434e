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
# "# SKIP" alone; the suite's tally needs the reason): both by
# selftests/ksft_times.sh, whose exit status is run.sh's: 0 when all
# passed (skips allowed), 1 when any failed, 4 when all were skipped, 2
# when there is nothing to run.
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

# (the runner's own status says nothing of the results: ksft_times.sh's
# is the suite's; "No such test" prints no result, status 2)
"$inst/run_kselftest.sh" "${args[@]}" </dev/null 2>&1 |
	bash "$top/selftests/ksft_times.sh" "$col"
