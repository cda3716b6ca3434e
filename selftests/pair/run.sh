#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The two-guest suite (selftests/vmpair.sh runs it in both guests). In
# guest A selftests/suite_run.sh runs this folder's plan: one KTAP
# stream. In guest B it runs the peer part of
# each planned test, in the same order, once A's part has started
# (TEST.a-start in the pair directory), with its output in B's run
# directory (TEST.log) and its exit status in TEST.b-end; it stops when
# guest A has finished.
#
# usage: run.sh [TEST...]

set -u

dir=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
if [ "${KVPERF_PEER_ROLE:-}" != b ]; then
	KV_SUITE_DIR=$dir KV_SUITE=pair exec bash "$dir/../suite_run.sh" "$@"
fi

pair=${KVPERF_PAIR_DIR:?not in a two-guest run}
out=${KVPERF_RUNDIR:?}
timeout=$(sed -n 's/^timeout=\([0-9]\+\)$/\1/p' "$dir/settings")
timeout=$((${timeout:-300} * ${KVPERF_TIME_SCALE:-1}))
if [ $# -gt 0 ]; then
	tests=("$@")
else
	mapfile -t tests < <(make -s --no-print-directory -C "$dir" print-tests)
fi
mkdir -p "$pair/sync"
for t in "${tests[@]}"; do
	t=$(basename "$t" .sh)
	while [ ! -e "$pair/sync/$t.a-start" ]; do
		[ -e "$pair/a-finished" ] && exit 0
		sleep 0.2
	done
	echo "# peer part of $t"
	timeout -k 5 "$timeout" bash "$dir/$t.sh" >"$out/$t.log" 2>&1 </dev/null
	rc=$?
	echo "# peer part of $t: exit $rc"
	echo "$rc" >"$pair/sync/$t.b-end.tmp"
	mv -f "$pair/sync/$t.b-end.tmp" "$pair/sync/$t.b-end"
done
