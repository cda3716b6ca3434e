#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the test harness itself, as KTAP: that what make check counts
# can fail. The KTAP tally (nested skips, plans not kept, skips without a
# reason or not on the expected list, expected failures, missing test
# programs), the VM suite's plan (a planned script that is missing, one
# that stops early), the kernel requirement of lint and check, vmtest.sh
# failing on a kernel-log WARNING and booting again once after a crash
# at boot (counted as a retry), vmpair.sh -K's argument and the helpers
# of the VM tests. Runs on the host; two short guest boots. (bench.sh
# and the instruction profiler: selftests/bench_test.sh, make
# bench-check.)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d /tmp/kvperf-harness.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"

tally() {	# tally [--streams N] LOG: prints "P F S"
	python3 selftests/ktap_tally.py "$@" | sed -n 's/^tally: //p'
}

# expect_tally DESC WANT [--streams N] LOG
expect_tally() {
	local desc=$1 want=$2 got
	shift 2
	got=$(tally "$@")
	python3 selftests/ktap_tally.py "$@" >"$tmp/why" 2>&1
	echo "want (passed failed skipped) $want, got $got" >>"$tmp/why"
	[ "$got" = "$want" ]
	result $? "tally: $desc" "$tmp/why"
}

echo "TAP version 13"
echo "1..34"

# --- the tally ------------------------------------------------------------
cat >"$tmp/nested.log" <<'EOF'
TAP version 13
1..2
# selftests: kvperf: a.sh
# TAP version 13
# 1..3
# ok 1 one
# ok 2 two # SKIP no such device
# # a diagnostic
# ok 3 three
ok 1 selftests: kvperf: a.sh
# selftests: kvperf: b.sh
# TAP version 13
# 1..0 # SKIP perftest is not installed
ok 2 selftests: kvperf: b.sh # SKIP perftest is not installed
EOF
expect_tally "a nested skip and a skipped script count as skips" "2 0 2" \
	"$tmp/nested.log"

cat >"$tmp/noreason.log" <<'EOF'
TAP version 13
1..2
# TAP version 13
# 1..2
# ok 1 one
# ok 2 two # SKIP
ok 1 selftests: kvperf: a.sh
ok 2 plain # SKIP
EOF
expect_tally "a skip without a reason is a failure" "1 2 0" "$tmp/noreason.log"

cat >"$tmp/short.log" <<'EOF'
TAP version 13
1..1
# TAP version 13
# 1..5
# ok 1 one
# ok 2 two
ok 1 selftests: kvperf: a.sh
EOF
expect_tally "a script that stops early: each result it never printed fails" \
	"2 3 0" "$tmp/short.log"

cat >"$tmp/over.log" <<'EOF'
TAP version 13
1..2
ok 1 one
ok 2 two
ok 3 three
EOF
expect_tally "more results than planned is a failure" "3 1 0" "$tmp/over.log"

cat >"$tmp/died.log" <<'EOF'
TAP version 13
1..3
# TAP version 13
# 1..1
# ok 1 one
not ok 1 selftests: kvperf: a.sh # TIMEOUT 540 seconds
EOF
expect_tally "a suite that stops: a not-ok script with passing subtests, and two scripts never run" \
	"1 3 0" "$tmp/died.log"

cat >"$tmp/onestream.log" <<'EOF'
TAP version 13
1..2
ok 1 one
ok 2 two
EOF
expect_tally "a test program that never started (one stream of two)" "2 1 0" \
	--streams 2 "$tmp/onestream.log"

cat >"$tmp/bail.log" <<'EOF'
TAP version 13
1..1
# TAP version 13
# 1..2
# ok 1 one
# Bail out! cannot go on
ok 1 selftests: kvperf: a.sh
EOF
expect_tally "a Bail out! is a failure" "1 2 0" "$tmp/bail.log"

cat >"$tmp/todo.log" <<'EOF'
TAP version 13
1..2
ok 1 one
not ok 2 two # TODO a known bug
EOF
expect_tally "an expected failure (# TODO) is a failure" "1 1 0" "$tmp/todo.log"

# the expected skips: a.sh's nested skip is listed for this phase only,
# b.sh's skip of the whole script is not listed at all
printf '%s\n' '# comment' '^vm-x: a\.sh: two: no such device$' >"$tmp/expected"
expect_tally "a skip on the expected list counts as a skip, any other as a failure" \
	"2 1 1" --phase vm-x --expected "$tmp/expected" "$tmp/nested.log"

# the checked-in list: a check that rxe's REG_MR fault spoiled (lib.sh's
# kv_check skips it with this reason) is expected on 6.1's lane only
why=$(sed -n 's/^kv_rxe_fault_why="\(.*\)"$/\1/p' selftests/kvperf/lib.sh)
cat >"$tmp/rxefault.log" <<EOF
TAP version 13
1..1
# selftests: kvperf: io_srq.sh
# TAP version 13
# 1..1
# ok 1 a run stopped: freed, with its reason # SKIP ${why:?}
ok 1 selftests: kvperf: io_srq.sh
EOF
expect_tally "rxe's REG_MR fault: an expected skip on the 6.1 lane" "0 0 1" \
	--phase vm-6.1.0-57-amd64 --expected selftests/expected-skips \
	"$tmp/rxefault.log"
expect_tally "rxe's REG_MR fault: a failure on the 6.12 DMA lane" "0 1 0" \
	--phase vm-dma-6.12.118+deb12-amd64 --expected selftests/expected-skips \
	"$tmp/rxefault.log"

# --- the two-guest suite's runner keeps its plan ---------------------------
suite=$tmp/suite
mkdir -p "$suite"
printf 'timeout=20\n' >"$suite/settings"
cat >"$suite/Makefile" <<'EOF'
TEST_PROGS := good.sh early.sh gone.sh
print-tests:
	@printf '%s\n' $(TEST_PROGS)
EOF
cat >"$suite/good.sh" <<'EOF'
echo "TAP version 13"; echo "1..1"; echo "ok 1 fine"
EOF
# stops after its first result with status 0: only its plan tells
cat >"$suite/early.sh" <<'EOF'
echo "TAP version 13"; echo "1..3"; echo "ok 1 first"; exit 0
EOF
# a script in the folder but not in the plan must not run
cat >"$suite/stray.sh" <<'EOF'
echo "TAP version 13"; echo "1..1"; echo "ok 1 stray ran"
EOF
KV_SUITE_DIR=$suite KV_SUITE=kvperf bash selftests/suite_run.sh \
	>"$tmp/suite.log" 2>&1
grep -q '^not ok 3 selftests: kvperf: gone.sh # missing' "$tmp/suite.log"
result $? "suite_run.sh: a planned script that is missing is a failed result" "$tmp/suite.log"
! grep -q 'stray' "$tmp/suite.log"
result $? "suite_run.sh: runs the Makefile's plan, not whatever is in the folder" "$tmp/suite.log"
expect_tally "the runner's stream: early.sh's two missing results and gone.sh fail" \
	"2 3 0" --streams 1 "$tmp/suite.log"

# --- the VM suite through the kernel's runner ------------------------------
# A stand-in for an install's run_kselftest.sh prints what the kernel's
# prints: a whole-script skip with "# SKIP" alone, a timeout, a pass.
ksi=$tmp/kselftest
mkdir -p "$ksi/drivers/kvperf"
printf 'timeout=20\n' >"$ksi/drivers/kvperf/settings"
cat >"$ksi/run_kselftest.sh" <<'EOF'
#!/bin/bash
echo "args: $*" >&2
echo "TAP version 13"
echo "1..3"
echo "# selftests: drivers/kvperf: a.sh"
echo "# TAP version 13"
echo "# 1..0 # SKIP no rdma_rxe"
echo "ok 1 selftests: drivers/kvperf: a.sh # SKIP"
echo "# selftests: drivers/kvperf: b.sh"
sleep 1
echo "not ok 2 selftests: drivers/kvperf: b.sh # TIMEOUT 20 seconds"
echo "# selftests: drivers/kvperf: c.sh"
echo "# TAP version 13"
echo "# 1..1"
echo "# ok 1 fine"
echo "ok 3 selftests: drivers/kvperf: c.sh"
EOF
chmod +x "$ksi/run_kselftest.sh"
KVPERF_KSELFTEST=$ksi KVPERF_TIME_SCALE=3 bash selftests/kvperf/run.sh \
	a.sh b.sh c.sh >"$tmp/ksft.log" 2>&1
rc=$?
[ "$rc" = 1 ] &&
	grep -qx 'args: -o 60 -t drivers/kvperf:a.sh -t drivers/kvperf:b.sh -t drivers/kvperf:c.sh' "$tmp/ksft.log" &&
	grep -qx 'ok 1 selftests: drivers/kvperf: a.sh # SKIP no rdma_rxe' "$tmp/ksft.log" &&
	grep -qxE '# b\.sh: [12] s' "$tmp/ksft.log" &&
	grep -B1 -x 'ok 3 selftests: drivers/kvperf: c.sh' "$tmp/ksft.log" |
	grep -qx '# c.sh: 0 s'
result $? "kvperf/run.sh: the kernel's runner with the scaled timeout and the tests named; each test's seconds before its result, a whole skip's reason on its result line, exit 1 on a failure (exit $rc)" "$tmp/ksft.log"
expect_tally "through the kernel's runner: the skip is expected, the timeout fails" \
	"1 1 1" --streams 1 "$tmp/ksft.log"

# --- both Debian kernels are required --------------------------------------
mapfile -t kvers < <(selftests/kernels.sh)
fake=$tmp/onekernel
mkdir -p "$fake/boot" "$fake/src"
k=${kvers[-1]:-none}
ln -s "/boot/vmlinuz-$k" "$fake/boot/"
ln -s "/usr/src/linux-headers-$k" "$fake/src/"
export_fake() {
	KVPERF_BOOT_DIR=$fake/boot KVPERF_HEADERS_DIR=$fake/src "$@"
}
export_fake selftests/kernels.sh --require >"$tmp/k.out" 2>"$tmp/k.err"
rc=$?
[ "$rc" = 1 ] && grep -q 'no Debian 6.1 kernel' "$tmp/k.err" &&
	[ "$(cat "$tmp/k.out")" = "$k" ]
result $? "kernels.sh --require with only $k: exit 1, names 6.1" "$tmp/k.err"

export_fake selftests/lint.sh kernels >"$tmp/lint.log" 2>&1
rc=$?
[ "$rc" != 0 ] && grep -q '^not ok 1 both Debian kernels' "$tmp/lint.log"
result $? "lint.sh: the kernel check fails with one kernel installed" "$tmp/lint.log"

export_fake timeout 120 selftests/check.sh >"$tmp/check.log" 2>&1
rc=$?
[ "$rc" != 0 ] && grep -q 'no Debian 6.1 kernel' "$tmp/check.log" &&
	[ "$(tail -n 1 "$tmp/check.log")" = "0 passed, 1 failed, 0 skipped" ]
result $? "check.sh: fails at once, naming the missing kernel" "$tmp/check.log"

# --- the guest's kernel log fails a run ------------------------------------
KVPERF_NO_MODULE=1 selftests/vmtest.sh -k "$k" -- \
	bash -c 'echo "WARNING: injected by harness_test.sh" >/dev/kmsg' \
	>"$tmp/vm.log" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q 'kernel log problems' "$tmp/vm.log" &&
	grep -q 'WARNING: injected by harness_test.sh' "$tmp/vm.log"
result $? "vmtest.sh: a WARNING in the guest's kernel log fails the run" "$tmp/vm.log"

# A kernel that dies while it boots (here: no init to run) is booted once
# more, saying so and keeping the first log; dying again fails the run.
KVPERF_NO_MODULE=1 selftests/vmtest.sh -k "$k" -a rdinit=/kvperf-no-such-init \
	-- true >"$tmp/bootcrash.log" 2>&1
rc=$?
bootdir=$(sed -n 's/.*results in \(build\/vm\/[^ ]*\)$/\1/p' "$tmp/bootcrash.log" |
	head -n 1)
[ "$rc" = 1 ] &&
	[ "$(grep -c 'crashed while booting.*booting again, once' "$tmp/bootcrash.log")" = 1 ] &&
	[ "$(grep -c '^# retry: vmtest.sh: .* crashed while booting' "$tmp/bootcrash.log")" = 1 ] &&
	grep -q 'stopped without reporting an exit status (guest phase: boot' \
		"$tmp/bootcrash.log" &&
	grep -q 'Kernel panic' "$top/$bootdir/console-boot-crash.log" &&
	grep -q 'Kernel panic' "$top/$bootdir/console.log"
result $? "vmtest.sh: a guest kernel that crashes while booting is booted once more (a retry line), then fails" \
	"$tmp/bootcrash.log"

# --- vmpair.sh -K takes only a debug-kernel build ---------------------------
selftests/vmpair.sh -K "$tmp" -- true >"$tmp/pairK.log" 2>&1
[ $? = 2 ] &&
	grep -qF -- "-K $tmp: not a directory of debug-kernel/build.sh" "$tmp/pairK.log"
result $? "vmpair.sh -K: a directory that is no debug-kernel build is named" \
	"$tmp/pairK.log"

# --- the VM tests' skip helper gives its reason ------------------------------
cat >"$tmp/skip.sh" <<EOF
. "$top/selftests/kvperf/lib.sh"
ktap_print_header
ktap_set_plan 1
kv_skip "max_qp_wr limit" "rxe has no such limit"
ktap_finished
EOF
bash "$tmp/skip.sh" >"$tmp/skip.log" 2>&1
grep -qx 'ok 1 max_qp_wr limit # SKIP rxe has no such limit' "$tmp/skip.log"
result $? "lib.sh: kv_skip puts the reason on the result line" "$tmp/skip.log"

# --- the suite's time scale --------------------------------------------------
cat >"$tmp/scale.sh" <<EOF
. "$top/selftests/kvperf/lib.sh"
echo "scale=\$(kv_scaled 10)"
EOF
got=$(KVPERF_TIME_SCALE=4 bash "$tmp/scale.sh" 2>&1)
echo "KVPERF_TIME_SCALE=4: $got" >"$tmp/scale.log"
[ "$got" = "scale=40" ]
result $? "lib.sh: KVPERF_TIME_SCALE multiplies the waits" "$tmp/scale.log"

KVPERF_TIME_SCALE=0 bash "$tmp/scale.sh" >"$tmp/scale0.log" 2>&1
[ $? != 0 ] && grep -q 'not a positive integer' "$tmp/scale0.log"
result $? "lib.sh: a time scale of 0 is refused" "$tmp/scale0.log"

# --- exit hooks run once each, last first, even with loops of their own ----
cat >"$tmp/hooks.sh" <<EOF
. "$top/selftests/kvperf/lib.sh"
kv_on_exit 'echo hook0 >>"$tmp/hooks.out"'
kv_on_exit 'for i in 5 6 7 8 9; do :; done; echo hook1 >>"$tmp/hooks.out"'
kv_on_exit 'echo hook2 >>"$tmp/hooks.out"'
EOF
: >"$tmp/hooks.out"
timeout 20 bash "$tmp/hooks.sh" >"$tmp/hooks.log" 2>&1
echo "exit $?" >>"$tmp/hooks.log"
cat "$tmp/hooks.out" >>"$tmp/hooks.log"
[ "$(tr '\n' ' ' <"$tmp/hooks.out")" = "hook2 hook1 hook0 " ]
result $? "lib.sh: exit hooks run once each, last registered first" "$tmp/hooks.log"

# --- kv_check's status is its result's -----------------------------------
cat >"$tmp/check.sh" <<EOF
. "$top/selftests/kvperf/lib.sh"
ktap_print_header
ktap_set_plan 3
rc=7 out=kept
globals() { [ "\$rc" = 7 ] && [ "\$out" = kept ]; }
kv_check "a check's function sees the caller's rc and out" globals && echo "globals seen"
kv_check "passes" true && echo "status 0 after a pass"
kv_check "fails" sh -c 'echo "the reason"; false' ||
	echo "status 1 after a failure"
EOF
bash "$tmp/check.sh" >"$tmp/check.log" 2>&1
grep -qx "status 0 after a pass" "$tmp/check.log" &&
	grep -qx "status 1 after a failure" "$tmp/check.log"
result $? "lib.sh: kv_check returns 0 after a pass, 1 after a failure" "$tmp/check.log"
grep -qx "globals seen" "$tmp/check.log"
result $? "lib.sh: a kv_check's command sees the script's globals (rc, out), not kv_check's own" "$tmp/check.log"
# a log's excerpt that starts at the failure shows why
grep -A1 -x "not ok 3 fails" "$tmp/check.log" | tail -n 1 | grep -qx "# the reason"
result $? "lib.sh: a failed kv_check's output follows its not ok line" "$tmp/check.log"
# each result is followed by its duration (after a failure's output)
[ "$(grep -c '^# took [0-9]*\.[0-9] s$' "$tmp/check.log")" = 3 ] &&
	grep -A2 -x "not ok 3 fails" "$tmp/check.log" | tail -n 1 |
	grep -qx '# took [0-9]*\.[0-9] s'
result $? "lib.sh: each kv_check prints its seconds after its result" "$tmp/check.log"

# --- kv_check and rxe's REG_MR fault -----------------------------------------
# A failure while the kernel log gained rxe's "not free" line is a skip
# with kv_rxe_fault_why; without that line, still a failure.
cat >"$tmp/fault.sh" <<EOF
. "$top/selftests/kvperf/lib.sh"
kv_klog() { cat "$tmp/klog"; }
# a check starts just after the log's last line (its stamp + 0.05 s)
kv_uptime() { kv_up=\$(awk -F'[][ ]+' 'END { print \$2 + 0.05 }' "$tmp/klog"); }
ktap_print_header
ktap_set_plan 2
kv_check "spoiled" sh -c 'echo "[ 9.1] rdma_rxe: rxe_reg_fast_mr: mr->lkey = 0x2889 not free" >>"$tmp/klog"; echo "REG_MR failed"; false'
kv_check "broken" sh -c 'echo "[ 9.2] rdma_rxe: some other line" >>"$tmp/klog"; false'
EOF
echo "[ 1.0] boot" >"$tmp/klog"
bash "$tmp/fault.sh" >"$tmp/fault.log" 2>&1
grep -qxF "ok 1 spoiled # SKIP $why" "$tmp/fault.log" &&
	grep -qx "# rdma_rxe: rxe_reg_fast_mr: mr->lkey = 0x2889 not free" "$tmp/fault.log"
result $? "lib.sh: a kv_check failure with rxe's REG_MR fault in the kernel log is a skip naming it" "$tmp/fault.log"
grep -qx "not ok 2 broken" "$tmp/fault.log"
result $? "lib.sh: a kv_check failure with no such line is still a failure" "$tmp/fault.log"

# --- HW mode: a kvperf.config with a problem is refused by name --------------
# hw_conf NAME LINES...: run kv_require_devices with a config of LINES
# (nothing of the environment's), its output in $tmp/hw-NAME.log
hw_conf() {
	local name=$1

	shift
	printf '%s\n' "$@" >"$tmp/hw-$name.conf"
	cat >"$tmp/hw.sh" <<EOF
. "$top/selftests/kvperf/lib.sh"
ktap_print_header
kv_require_devices
echo "no bail"
EOF
	env -i PATH="$PATH" KVPERF_CONFIG="$tmp/hw-$name.conf" \
		bash "$tmp/hw.sh" >"$tmp/hw-$name.log" 2>&1
	echo "exit $?" >>"$tmp/hw-$name.log"
}
hw_ok=(KVPERF_DEV0=kvperf_no_dev KVPERF_NETDEV0=lo KVPERF_ADDR0=192.0.2.1
       KVPERF_REMOTE_ADDR=192.0.2.2 KVPERF_REMOTE_TYPE=ssh
       KVPERF_REMOTE_ARGS=root@192.0.2.2)
hw_conf nokey "${hw_ok[@]:0:5}"
hw_conf type "${hw_ok[@]/=ssh/=rsh}"
hw_conf dev "${hw_ok[@]}"
grep -q '^Bail out!.*HW mode (KVPERF_REMOTE_ADDR is set): KVPERF_REMOTE_ARGS is not$' "$tmp/hw-nokey.log" &&
	grep -q "^Bail out!.*KVPERF_REMOTE_TYPE=rsh: the remote host is reached by ssh only$" "$tmp/hw-type.log" &&
	grep -q '^Bail out!.*KVPERF_DEV0=kvperf_no_dev: no such RDMA device$' "$tmp/hw-dev.log" &&
	! grep -q "no bail" "$tmp"/hw-*.log
result $? "remote.sh: a HW-mode config without KVPERF_REMOTE_ARGS, with another remote type, or naming a missing device stops the test saying which" \
	<(tail -n 3 "$tmp"/hw-*.log)

# kv_peer: in HW mode, one word for the remote shell, each argument
# quoted (a fake ssh runs its last argument as the remote shell would);
# kv_require_rxe skips there with the test's reason.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/ssh" <<'EOF'
#!/bin/bash
echo "ssh args: ${*:1:$#-1}"
bash -c "${!#}"
EOF
chmod +x "$tmp/bin/ssh"
cat >"$tmp/peer.sh" <<'EOF'
. "$KVPERF_HARNESS_TOP/selftests/kvperf/lib.sh"
kv_peer printf '<%s>' 'a b' '$HOME' "it's"
echo
KVPERF_REMOTE_ADDR= kv_peer printf '<%s>\n' local
ktap_print_header
kv_require_rxe "needs two local devices"
EOF
env -i PATH="$tmp/bin:$PATH" KVPERF_HARNESS_TOP="$top" \
	KVPERF_REMOTE_ADDR=192.0.2.2 KVPERF_REMOTE_ARGS="-p 2222 root@host2" \
	bash "$tmp/peer.sh" >"$tmp/peer.log" 2>&1
echo "exit $?" >>"$tmp/peer.log"
grep -qx 'ssh args: -n -o BatchMode=yes -S /tmp/kvperf-test\.[A-Za-z0-9]*/ssh -p 2222 root@host2 --' "$tmp/peer.log" &&
	grep -qxF "<a b><\$HOME><it's>" "$tmp/peer.log" &&
	grep -qx '<local>' "$tmp/peer.log" &&
	grep -qx '1\.\.0 # SKIP HW mode: needs two local devices' "$tmp/peer.log" &&
	grep -qx 'exit 4' "$tmp/peer.log"
result $? "remote.sh: kv_peer quotes each argument for the remote shell, runs here in SW mode; kv_require_rxe skips in HW mode with its reason" \
	"$tmp/peer.log"

[ "$fail" -eq 0 ]
