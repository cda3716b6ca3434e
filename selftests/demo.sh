#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: install what is missing, build, boot a VM with two Soft-RoCE
# devices, show them as kvperf sees them, run a kernel-path latency run of
# each operation against an in-kernel server, then a kernel-path bandwidth
# sweep and a timed bandwidth run on two queue pairs with a line per second.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

selftests/deps.sh --check >/dev/null || selftests/deps.sh
echo "demo: building"
make -s all
# shellcheck disable=SC2016 # expanded in the guest
exec selftests/vmtest.sh -- bash -c '
set -e
echo "== kvperf dev show (the kernel module'\''s view of the devices)"
kvperf dev show
echo
echo "== kvperf server start addr $KVPERF_ADDR0"
kvperf server start addr "$KVPERF_ADDR0"
for op in send write read; do
	echo
	echo "== kernel path: kvperf run lat op $op addr $KVPERF_ADDR0 size 64 iters 2000"
	kvperf run lat op $op addr "$KVPERF_ADDR0" size 64 iters 2000
done
echo
echo "== kernel path: kvperf run bw op write addr $KVPERF_ADDR0 sizes 4096-65536 iters 2000"
kvperf run bw op write addr "$KVPERF_ADDR0" sizes 4096-65536 iters 2000
echo
echo "== kernel path: kvperf run bw op send addr $KVPERF_ADDR0 size 65536 time 3 qps 2 interval 1000"
kvperf run bw op send addr "$KVPERF_ADDR0" size 65536 time 3 qps 2 interval 1000
id=$(ls -v /sys/kernel/kvperf/runs | tail -n 1)
echo
echo "== the same run in sysfs: /sys/kernel/kvperf/runs/$id/"
cd "/sys/kernel/kvperf/runs/$id"
grep . type size messages bytes bw_avg_mibps bw_peak_mibps msg_rate \
	cpu_percent cpu_ns_per_msg qp*/cpu qp*/bw_avg_mibps
echo
echo "(Soft-RoCE under QEMU software emulation: numbers are low and noisy;"
echo " compare paths within one run, never across runs.)"
'
