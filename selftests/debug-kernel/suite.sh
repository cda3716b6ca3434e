#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# suite.sh [TEST.sh...]: the debug lane's guest command (make check-debug
# runs it with vmtest.sh -K). Runs the VM suite (selftests/kvperf/run.sh,
# all of it or the scripts named), then removes kvperf.ko and has
# kmemleak scan twice: a second KTAP stream, one test, fails when it
# reports an unreferenced object. Objects that boot left unreferenced
# are cleared before the suite starts. The report is also saved as
# $KVPERF_RUNDIR/kmemleak. Exit status: non-zero when either part failed.
#
# The kernel log (KASAN, lockdep, UBSAN, DMA-API reports) is vmtest.sh's
# to scan.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd -P)
kl=/sys/kernel/debug/kmemleak

if [ ! -w "$kl" ]; then
	echo "debug-kernel/suite.sh: no $kl: not a kmemleak kernel" >&2
	exit 1
fi
# What boot and the setup left unreferenced is not the suite's: two
# scans find it (kmemleak reports only objects older than 5 s), clear
# forgets it.
echo scan >"$kl"
sleep 6
echo scan >"$kl"
echo clear >"$kl"

# A debug kernel under TCG answers a deep queue of Soft-RoCE traffic far
# slower than RDMA CM's ACK timeout (about 0.5 s, retried 7 times)
# expects: runs' queue pairs wait 4.3 s a try instead (2^20 * 4.096 us).
export KVPERF_MODULE_PARAMS=${KVPERF_MODULE_PARAMS:-ack_timeout=20}
bash "$top/selftests/kvperf/run.sh" "$@"
rc=$?

echo "TAP version 13"
echo "1..1"
if grep -q '^kvperf ' /proc/modules && ! rmmod kvperf; then
	echo "# rmmod kvperf failed: leaks of kvperf.ko not checked"
	echo "not ok 1 debug: kmemleak after the suite and rmmod kvperf"
	exit 1
fi
# An object is reported once it was seen unreferenced by two scans and
# is older than 5 s.
sleep 6
echo scan >"$kl"
sleep 6
echo scan >"$kl"
leaks=$(cat "$kl")
if [ -z "$leaks" ]; then
	echo "ok 1 debug: kmemleak after the suite and rmmod kvperf"
	exit "$rc"
fi
printf '%s\n' "$leaks" >"${KVPERF_RUNDIR:-/tmp}/kmemleak"
printf '%s\n' "$leaks" | sed 's/^/# /'
echo "not ok 1 debug: kmemleak after the suite and rmmod kvperf" \
	"($(grep -c '^unreferenced object' <<<"$leaks") unreferenced objects)"
exit 1
