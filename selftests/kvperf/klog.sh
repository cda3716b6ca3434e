# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Which kernel log lines fail a test run; sourced by vmtest.sh (for the
# guest's whole log) and by the selftests' lib.sh (for each test's part).

# Crashes, warnings, sanitizer and leak reports, RCU stalls, lockups and
# hung tasks.
klog_bad_re='BUG:|WARNING:|Oops|general protection|kernel BUG at|Kernel panic'
klog_bad_re+='|kmemleak: [0-9]+ new suspected|unreferenced object|KASAN:|UBSAN:'
klog_bad_re+='|rcu_[a-z]+ detected (expedited )?stalls|rcu: INFO:'
klog_bad_re+='|soft lockup|hard LOCKUP|blocked for more than'
klog_bad_re+='|list_(add|del) corruption|Unable to handle kernel'
klog_bad_re+='|stack-protector|double fault'
# The debug kernel's (make check-debug): lockdep and DMA-API debug
# reports whose first line is not a WARNING.
klog_bad_re+='|possible (circular|recursive) locking|inconsistent lock state'
klog_bad_re+='|INFO: trying to register non-static key|DMA-API:'

# Known harmless: rdma_cm without iwpmd, kmod 30 on 6.12's .ko.xz, and
# the taint notes for unsigned and out-of-tree modules.
klog_noise_re='iwpm_register_pid|Invalid ELF header magic'
klog_noise_re+='|module verification failed|taints kernel'
# and DMA-API debug's boot messages.
klog_noise_re+='|DMA-API: (preallocated [0-9]+ debug entries|debugging enabled)'

# A perftest program faulting in user space ("traps: ib_write_lat[276]
# general protection fault ... in librdmacm"), now and then under TCG:
# not the kernel's problem, and kvperf compare reports the measurement
# as failed. klog_user_crashes lists these lines for a note.
klog_perftest_re='traps: ib_(send|write|read|atomic)_(lat|bw)\[[0-9]+\] '
klog_noise_re+="|$klog_perftest_re"

# Print the lines of kernel log FILE (or stdin) where perftest crashed.
klog_user_crashes() {
	grep -aE "$klog_perftest_re" "$@"
}

# Print the lines of kernel log FILE (or stdin) that fail a run.
klog_scan() {
	grep -aE "$klog_bad_re" "$@" | grep -avE "$klog_noise_re"
}
