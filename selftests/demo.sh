#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: install what is missing, build, boot a VM with two Soft-RoCE
# devices, show them as kvperf sees them, then compare the kernel path,
# the user path and perftest: send latency at 64 B and write bandwidth
# from 4 KiB to 64 KiB, each table printed and plotted (build/demo/), and
# a timed kernel-path bandwidth run with a line per second.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

selftests/deps.sh --check >/dev/null || selftests/deps.sh
echo "demo: building"
make -s all
mkdir -p build/demo
rm -f build/demo/lat.svg build/demo/bw.svg
# shellcheck disable=SC2016 # expanded in the guest
selftests/vmtest.sh -a idle=poll -- bash -c '
set -e
echo "== kvperf dev show (the kernel module'\''s view of the devices)"
kvperf dev show
echo
echo "== kvperf compare lat op send addr $KVPERF_ADDR0 size 64 rounds 3 plot build/demo/lat.svg"
kvperf compare lat op send addr "$KVPERF_ADDR0" size 64 rounds 3 \
	plot "$KVPERF_TOP/build/demo/lat.svg"
echo
echo "== kvperf compare bw op write addr $KVPERF_ADDR0 sizes 4K-64K rounds 2 iters 1000 plot build/demo/bw.svg"
kvperf compare bw op write addr "$KVPERF_ADDR0" sizes 4K-64K rounds 2 \
	iters 1000 plot "$KVPERF_TOP/build/demo/bw.svg"
echo
echo "== kernel path: kvperf run bw op send addr $KVPERF_ADDR0 size 65536 time 3 qps 2 interval 1"
kvperf server start addr "$KVPERF_ADDR0" >/dev/null
kvperf run bw op send addr "$KVPERF_ADDR0" size 65536 time 3 qps 2 interval 1
echo
echo "(Soft-RoCE under QEMU software emulation: numbers are low and noisy;"
echo " compare paths within one run, never across runs.)"
'
echo
echo "demo: plots in $top/build/demo/lat.svg (latency CDFs) and $top/build/demo/bw.svg (bandwidth against size)"
