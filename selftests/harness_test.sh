#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the test harness itself, as KTAP: that what make check counts
# can fail. The KTAP tally (nested skips, plans not kept, skips without a
# reason, missing test programs), the VM suite's plan (a planned script
# that is missing, one that stops early), the kernel requirement of lint
# and check, bench.sh failing with its VM run, vmtest.sh failing on a
# kernel-log WARNING and booting again once after a crash at boot, the instruction profiler (vmtest.sh -p), vmpair.sh
# -K's argument and the skip helper of the VM tests. Runs on the host;
# two short guest boots.
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
echo "1..31"

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

# --- the VM suite's runner keeps its plan ----------------------------------
suite=$tmp/suite
mkdir -p "$suite"
cp selftests/kvperf/run.sh "$suite/"
printf 'timeout=20\ntime_scale=1\n' >"$suite/settings"
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
bash "$suite/run.sh" >"$tmp/suite.log" 2>&1
grep -q '^not ok 3 selftests: kvperf: gone.sh # missing' "$tmp/suite.log"
result $? "run.sh: a planned script that is missing is a failed result" "$tmp/suite.log"
! grep -q 'stray' "$tmp/suite.log"
result $? "run.sh: runs the Makefile's plan, not whatever is in the folder" "$tmp/suite.log"
expect_tally "the runner's stream: early.sh's two missing results and gone.sh fail" \
	"2 3 0" --streams 1 "$tmp/suite.log"

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

# --- bench.sh fails with its VM run ----------------------------------------
# A fake VM run that measured everything (the guest's files from a real
# short run, kept in selftests/harness/) and then failed, as vmtest.sh
# does on a WARNING in the kernel log.
cat >"$tmp/fake-vmtest" <<EOF
#!/bin/bash
raw=\${@: -2:1}
cp -r "$top/selftests/harness/bench-raw/." "\$raw/"
echo "vmtest.sh: kernel log problems: WARNING: (fake)" >&2
exit 1
EOF
chmod +x "$tmp/fake-vmtest"
KVPERF_VMTEST=$tmp/fake-vmtest selftests/bench.sh --short -k "$k" \
	-o "$tmp/bench" >"$tmp/bench.log" 2>&1
rc=$?
[ "$rc" != 0 ] && ls "$tmp/bench/"*.json >/dev/null 2>&1
result $? "bench.sh: a failed VM run fails it, and the report is still written" "$tmp/bench.log"

cat >"$tmp/fake-vmtest-ok" <<EOF
#!/bin/bash
raw=\${@: -2:1}
cp -r "$top/selftests/harness/bench-raw/." "\$raw/"
EOF
chmod +x "$tmp/fake-vmtest-ok"
KVPERF_VMTEST=$tmp/fake-vmtest-ok selftests/bench.sh --short -k "$k" \
	-o "$tmp/bench-ok" >"$tmp/bench-ok.log" 2>&1
result $? "bench.sh: the same files from a clean VM run pass" "$tmp/bench-ok.log"

# --- the repeatability section compares with the newest earlier report ----
# Two earlier reports of the kernel with the same modification time (as
# in a fresh clone): the one of the later date is the previous one.
full=$(sed -n 's/^kernel=//p' "$top/selftests/harness/bench-raw/env.txt")
mkdir -p "$tmp/rep"
report=$(ls "$tmp/bench-ok/"*"-$full.json")
for d in 2001-01-01 2001-01-02; do
	sed "s/\"git\": \"[^\"]*\"/\"git\": \"old-$d\"/" "$report" \
		>"$tmp/rep/$d-$full.json"
done
touch -d '2001-01-03 00:00' "$tmp/rep/"*.json
KVPERF_VMTEST=$tmp/fake-vmtest-ok selftests/bench.sh --short -k "$full" \
	-o "$tmp/rep" >"$tmp/rep.log" 2>&1
# the new report: today's date, after the two of 2001 (not date +%F
# again here: the run may have crossed midnight)
# shellcheck disable=SC2012 # the names are ours: date-kernel.json
got=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1])).get("repeat") or {}
print(r.get("previous"), r.get("previous_git"))' \
	"$(ls "$tmp/rep/"*"-$full.json" | tail -n 1)" 2>>"$tmp/rep.log")
echo "previous: $got" >>"$tmp/rep.log"
[ "$got" = "2001-01-02-$full.json old-2001-01-02" ]
result $? "bench.sh: the repeatability section is against the newest earlier report by date" \
	"$tmp/rep.log"

# --- make bench-check: the gate against a baseline ----------------------------
# The fixture's own cells as the baseline pass; a baseline whose kernel
# path read latency was 5 % shorter fails, naming the cell and both
# numbers; a kernel without a baseline is skipped, saying so. ($full and
# $report: the fixture's kernel and the clean run's report, above.)
mkdir -p "$tmp/gate-same" "$tmp/gate-faster" "$tmp/gate-none"
python3 selftests/bench_report.py baseline "${report%.json}" \
	"$tmp/gate-same/$full.json" >"$tmp/gate-base.log" 2>&1
python3 - "$tmp/gate-same/$full.json" "$tmp/gate-faster/$full.json" \
	<<'PY' >>"$tmp/gate-base.log" 2>&1
import json, sys
doc = json.load(open(sys.argv[1]))
for c in doc["cells"]:
    if (c["kind"], c["op"], c["size"]) == ("lat", "read", 64):
        c["median"]["kernel"] = round(c["median"]["kernel"] / 1.05, 3)
json.dump(doc, open(sys.argv[2], "w"))
PY
KVPERF_VMTEST=$tmp/fake-vmtest-ok selftests/bench.sh --short -k "$full" \
	--gate "$tmp/gate-same" -o "$tmp/gate1" >"$tmp/gate1.log" 2>&1 &&
	grep -q '^ok 1 .* same kernel on the icount clock' "$tmp/gate1.log" &&
	! grep -q '^not ok' "$tmp/gate1.log"
result $? "bench.sh --gate: the same numbers pass" "$tmp/gate1.log"

KVPERF_VMTEST=$tmp/fake-vmtest-ok selftests/bench.sh --short -k "$full" \
	--gate "$tmp/gate-faster" -o "$tmp/gate2" >"$tmp/gate2.log" 2>&1
rc=$?
want=$(python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["cells"]:
    if (c["kind"], c["op"], c["size"]) == ("lat", "read", 64):
        print("%.3f" % c["median"]["kernel"])' "$tmp/gate-faster/$full.json")
[ "$rc" = 1 ] && [ "$(grep -c '^not ok' "$tmp/gate2.log")" = 1 ] &&
	grep -q "^not ok .* lat read 64 softirq kernel: .* against $want in the baseline (+5.00 % worse, limit 3 %)" \
		"$tmp/gate2.log"
result $? "bench.sh --gate: a cell 5 % worse fails, naming it and both numbers" \
	"$tmp/gate2.log"

KVPERF_VMTEST=$tmp/fake-vmtest-ok selftests/bench.sh --short -k "$full" \
	--gate "$tmp/gate-none" -o "$tmp/gate3" >"$tmp/gate3.log" 2>&1 &&
	grep -q "^# bench-check: $full skipped: no baseline" "$tmp/gate3.log" &&
	! ls "$tmp/gate3/"*.json >/dev/null 2>&1
result $? "bench.sh --gate: a kernel without a baseline is skipped, saying so" \
	"$tmp/gate3.log"

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
	grep -q 'stopped without reporting an exit status (guest phase: boot' \
		"$tmp/bootcrash.log" &&
	grep -q 'Kernel panic' "$top/$bootdir/console-boot-crash.log" &&
	grep -q 'Kernel panic' "$top/$bootdir/console.log"
result $? "vmtest.sh: a guest kernel that crashes while booting is booted once more, then fails" \
	"$tmp/bootcrash.log"

# --- vmtest.sh -p: instruction counts between two marks ---------------------
# /proc/version is read between the guest's two runs of the marker only, so
# its show function must be in the second dump and not in the first.
# shellcheck disable=SC2016 # the guest's variables, expanded there
KVPERF_NO_MODULE=1 selftests/vmtest.sh -p -k "$k" -- \
	bash -c '"$KVPERF_MARK" && cat /proc/version >/dev/null &&
		"$KVPERF_MARK" && echo "rundir=$KVPERF_RUNDIR"' \
	>"$tmp/prof.log" 2>&1
rundir=$(sed -n 's/^rundir=//p' "$tmp/prof.log")
{
	selftests/tbprof/tbprof.py "$rundir" 0 --top 1000000 >"$tmp/prof0.txt" &&
		selftests/tbprof/tbprof.py "$rundir" 1 --top 1000000 >"$tmp/prof1.txt"
} >>"$tmp/prof.log" 2>&1
grep -E ' version_proc_show$' "$tmp/prof1.txt" >>"$tmp/prof.log" &&
	! grep -q ' version_proc_show$' "$tmp/prof0.txt" &&
	[ ! -e "$rundir/tbprof/dump.0002" ]
result $? "vmtest.sh -p: a dump per mark holds the code run since the last (version_proc_show)" \
	"$tmp/prof.log"

selftests/tbprof/tbprof.py "$rundir" 0 2 >"$tmp/prof2.log" 2>&1
[ $? != 0 ] && grep -q "^tbprof: no dump 2 " "$tmp/prof2.log"
result $? "tbprof.py: a dump that does not exist is named" "$tmp/prof2.log"

# the plugin (built by the run above) refuses what it does not know, by name
qemu-system-x86_64 -M none -display none \
	-plugin "$top/build/tbprof/tbprof.so,out=$tmp,bogus=1" >"$tmp/prof3.log" 2>&1
[ $? != 0 ] && grep -q "^tbprof: unknown argument 'bogus=1'" "$tmp/prof3.log"
result $? "tbprof.so: an unknown argument stops QEMU, named" "$tmp/prof3.log"

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
ktap_set_plan 2
kv_check "passes" true && echo "status 0 after a pass"
kv_check "fails" sh -c 'echo "the reason"; false' ||
	echo "status 1 after a failure"
EOF
bash "$tmp/check.sh" >"$tmp/check.log" 2>&1
grep -qx "status 0 after a pass" "$tmp/check.log" &&
	grep -qx "status 1 after a failure" "$tmp/check.log"
result $? "lib.sh: kv_check returns 0 after a pass, 1 after a failure" "$tmp/check.log"
# a log's excerpt that starts at the failure shows why
grep -A1 -x "not ok 2 fails" "$tmp/check.log" | tail -n 1 | grep -qx "# the reason"
result $? "lib.sh: a failed kv_check's output follows its not ok line" "$tmp/check.log"

[ "$fail" -eq 0 ]
