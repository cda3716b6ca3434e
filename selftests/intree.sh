#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The suite as a kernel developer has it: selftests/kvperf copied (not
# linked) into tools/testing/selftests/drivers/kvperf of a tree
# extracted from linux-source-6.12, and run by the kernel's own
# selftests Makefile, `make -C tools/testing/selftests
# TARGETS=drivers/kvperf run_tests`. make check's 6.1 lane runs its
# suite this way (selftests/check.sh).
#
# usage: intree.sh prepare      on the host: build/intree made afresh
#                               (the part of linux-source-6.12 make
#                               ksrc extracts: the selftests Makefile,
#                               lib.mk, the runner, kselftest/,
#                               scripts/subarch.include, tools/net/ynl;
#                               our folder copied in) and built there
#        intree.sh run [TEST...] in the guest: make run_tests in that
#                               tree (TEST...: those scripts of the plan
#                               only, as TEST_PROGS), each test's
#                               timeout the settings' times
#                               KVPERF_TIME_SCALE; the KTAP through
#                               ksft_times.sh, whose status is this one's
#
# The fuzzers and nl_malformed include kvperf's UAPI headers and link
# its user-path libraries: KVPERF_SRC names this checkout for the build.

set -u

top=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd -P)
tree=$top/build/intree
ksft=$tree/tools/testing/selftests
col=drivers/kvperf
ksrc=$top/build/ksrc	# what make ksrc extracts from linux-source-6.12

usage() {
	echo "usage: intree.sh prepare | run [TEST...]" >&2
	exit 2
}

prepare() {
	make -s --no-print-directory -C "$top" ksrc || exit 1
	rm -rf "$tree"
	mkdir -p "$tree"
	# build/ksrc's drivers/kvperf is make selftests' link to our folder
	cp -a "$ksrc/." "$tree/" && rm -rf "$ksft/drivers" || exit 1
	# a copy of the sources as git has them: no build products
	mkdir -p "$ksft/$col"
	git -C "$top" ls-files -z selftests/kvperf |
		sed -z 's|^selftests/kvperf/||' |
		(cd "$top/selftests/kvperf" && xargs -0 cp --parents -t "$ksft/$col") ||
		exit 1
	make -s --no-print-directory -C "$ksft" TARGETS="$col" \
		KVPERF_SRC="$top" all || exit 1
	# the guest reads the tree from a read-only share (selftests/vm/init.sh)
	/usr/bin/python3 -m compileall -q "$ksft/$col" >/dev/null
}

run() {
	local timeout

	[ -f "$ksft/$col/settings" ] ||
		{ echo "intree.sh: no $ksft/$col (intree.sh prepare)" >&2; exit 2; }
	# the guest reads the tree from a read-only share: nothing is rebuilt
	make -q -s --no-print-directory -C "$ksft" TARGETS="$col" \
		KVPERF_SRC="$top" all >/dev/null 2>&1 ||
		{ echo "intree.sh: $ksft/$col is older than its sources (intree.sh prepare)" >&2; exit 2; }
	timeout=$(sed -n 's/^timeout=\([0-9]\+\)$/\1/p' "$ksft/$col/settings")
	# the variable run_kselftest.sh -o sets, read by the kernel's runner
	export kselftest_override_timeout=$((${timeout:-45} * ${KVPERF_TIME_SCALE:-1}))
	make -s --no-print-directory -C "$ksft" TARGETS="$col" \
		KVPERF_SRC="$top" ${1+TEST_PROGS="$*"} run_tests </dev/null 2>&1 |
		bash "$top/selftests/ksft_times.sh" "$col"
}

case ${1:-} in
prepare) [ $# = 1 ] || usage; prepare ;;
run) shift; run "$@" ;;
*) usage ;;
esac
