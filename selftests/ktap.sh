# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# KTAP results for the host-side checks (lint.sh, spec_test.sh,
# harness_test.sh); the VM tests use the kernel's ktap_helpers.sh
# through selftests/kvperf/lib.sh.

n=0 fail=0
# result OK NAME [diagnostic file]: one result from a status; on failure
# the first 60 lines of the file become diagnostics.
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		fail=$((fail + 1))
		echo "not ok $n $2"
		[ -n "${3:-}" ] && [ -s "$3" ] && sed 's/^/# /' "$3" | head -n 60
	fi
}

# diag FILE: a copy of FILE whose lines no KTAP reader takes for a
# result (a program's own "ok" lines among them), and print its name,
# for result's diagnostics
diag() {
	sed 's/^/| /' "$1" >"$1.diag"
	echo "$1.diag"
}
