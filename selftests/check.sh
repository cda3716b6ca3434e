#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test kvperf has. Installs what is missing, builds,
# then runs the host unit tests, the spec checks, the static checks, the
# VM suite on each Debian kernel and the short benchmark, and totals
# their KTAP results in a last line "N passed, N failed". Logs go to
# build/check/.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
logs=build/check
mkdir -p "$logs"

passed=0 failed=0 skipped=0
start=$(date +%s)

# run_phase NAME CMD...: run a KTAP-producing command, stream its output,
# and add its top-level results to the totals. A command that fails
# without reporting a failed test counts as one failed test itself.
run_phase() {
	local name=$1 log=$logs/$1.log t0 rc p f s
	shift
	t0=$(date +%s)
	echo "# ---- $name: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	p=$(grep -cE '^ok [0-9]+' "$log" | head -n 1)
	s=$(grep -cE '^ok [0-9]+.*# *SKIP' "$log" | head -n 1)
	f=$(grep -cE '^not ok [0-9]+' "$log" | head -n 1)
	p=$((p - s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited with status $rc"
		f=1
	fi
	if [ $((p + f + s)) -eq 0 ]; then
		echo "not ok - $name ran no test"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	echo "# ---- $name: $p passed, $f failed, $s skipped in $(( $(date +%s) - t0 )) s"
}

if ! selftests/deps.sh --check >/dev/null; then
	selftests/deps.sh || { echo "0 passed, 1 failed"; exit 1; }
fi

echo "# ---- build"
if ! make -s all ksrc selftests >"$logs/build.log" 2>&1; then
	cat "$logs/build.log"
	echo "not ok - build"
	echo "0 passed, 1 failed"
	exit 1
fi

mapfile -t kvers < <(selftests/kernels.sh)

run_phase unit make -s -C user test
run_phase spec selftests/spec/spec_test.sh
run_phase lint selftests/lint.sh
for kver in "${kvers[@]}"; do
	run_phase "vm-$kver" selftests/vmtest.sh -k "$kver"
done
# make bench works: its short matrix on one kernel, into build/bench/
run_phase bench-short selftests/bench.sh --short -k "${kvers[-1]}"

echo "# make check took $(( $(date +%s) - start )) s; logs in $logs/"
# skipped tests are neither: said on their own line, before the totals
[ "$skipped" -gt 0 ] && echo "# $skipped skipped (see the SKIP lines above)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
