#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: install what is missing, build, boot a VM with two Soft-RoCE
# devices, show them as kvperf sees them, then compare the kernel path,
# the user path and perftest: send latency at 64 B (without perftest:
# ib_send_lat -e hangs, compare says) and send bandwidth from 4 KiB to
# 64 KiB, each table printed and plotted (build/demo/), and a timed
# kernel-path bandwidth run with a line per second.
#
# The comparison is on the instruction clock, as make bench's default
# (vmtest.sh -i: one vCPU, one guest instruction is one nanosecond,
# softirq polling), with the bench's quieting (selftests/quiet_guest.sh):
# two demos on one kernel print the same tables (within 0.03 % on 6.1),
# where the wall clock under TCG spreads 20-50 % and can reverse the
# story. Busy polling is measured on the wall clock by make bench
# CLOCK=wall.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

selftests/deps.sh --check >/dev/null || selftests/deps.sh
echo "demo: building"
make -s all
mkdir -p build/demo
rm -f build/demo/lat.svg build/demo/bw.svg
# shellcheck disable=SC2016 # expanded in the guest
selftests/vmtest.sh -i -- bash -c '
set -e
. "$KVPERF_TOP/selftests/quiet_guest.sh"
quiet_pin_programs
quiet_hold_slabs
addr=$KVPERF_ADDR0
echo "== kvperf dev show (the kernel module'\''s view of the devices)"
kvperf dev show
echo
echo "(timings below are QEMU instruction time on one vCPU with softirq polling: they repeat to about 1 % but are not a real link'\''s speed; busy polling: make bench CLOCK=wall)"
# unrecorded: the first measurement after boot runs a bucket slower
kvperf compare lat op send addr "$addr" size 64 rounds 1 iters 200 \
	poll softirq >/dev/null
echo
echo "== kvperf compare lat op send addr $addr size 64 rounds 3 iters 2000 poll softirq plot build/demo/lat.svg"
kvperf compare lat op send addr "$addr" size 64 rounds 3 iters 2000 \
	poll softirq plot "$quiet_mem/lat.svg"
echo
echo "== kvperf compare bw op send addr $addr sizes 4K-64K rounds 3 iters 2000 poll softirq plot build/demo/bw.svg"
kvperf compare bw op send addr "$addr" sizes 4K-64K rounds 3 iters 2000 \
	poll softirq plot "$quiet_mem/bw.svg"
echo
echo "== kernel path: kvperf run bw op send addr $addr size 65536 time 3 qps 2 interval 1 poll softirq"
kvperf server start addr "$addr" poll softirq >/dev/null
kvperf run bw op send addr "$addr" size 65536 time 3 qps 2 interval 1 \
	poll softirq
cp "$quiet_mem/lat.svg" "$quiet_mem/bw.svg" "$KVPERF_TOP/build/demo/"
echo
echo "(Soft-RoCE under QEMU software emulation: instruction time shows"
echo " where the paths spend work, not what a real link delivers.)"
'
echo
echo "demo: plots in $top/build/demo/lat.svg (latency CDFs) and $top/build/demo/bw.svg (bandwidth against size)"
