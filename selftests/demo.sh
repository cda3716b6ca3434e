#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: install what is missing, build, boot a VM with two Soft-RoCE
# devices, show them as kvperf sees them, and run a kernel-path latency
# run of each operation against an in-kernel server.
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
echo "(Soft-RoCE under QEMU software emulation: numbers are low and noisy;"
echo " compare paths within one run, never across runs.)"
'
