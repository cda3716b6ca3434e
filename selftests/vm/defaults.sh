# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # read by the scripts that source it
#
# The guests' defaults, one place for vmtest.sh, vmpair.sh (through
# vmtest.sh) and check.sh.

# The time scale (KVPERF_TIME_SCALE overrides): under TCG the suite's
# waits, written for a real host, need three times as long. A property of
# this harness, not of the tests: on a real host they run at 1.
vm_default_time_scale=3

# QEMU's CPU model (KVPERF_QEMU_CPU overrides): qemu64. Under -cpu max
# lat_basic.sh took 15 to 20 % longer, in wall and in CPU time (51-55 s
# against 43 s, alternating); a whole lane's gain is not shown.
# Likeliest, not traced: glibc's AVX2 string functions, slower under TCG
# than SSE2. The benchmarks (vmtest.sh -i) keep max, the CPU their
# baseline was measured on.
vm_default_cpu=qemu64
