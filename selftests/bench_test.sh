#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the benchmark's own tools, as KTAP, run by make bench-check
# before its gate (they are not part of make check, as the benchmark is
# not): bench.sh failing with its VM run, its repeatability section, the
# gate against a baseline (with a fake VM run that copies the files of a
# real short run, kept in selftests/harness/bench-raw/), and the
# instruction profiler (vmtest.sh -p, tbprof.py, the QEMU plugin). Runs
# on the host; one short guest boot.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d /tmp/kvperf-bench-test.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"

mapfile -t kvers < <(selftests/kernels.sh)
k=${kvers[-1]:-none}

echo "TAP version 13"
echo "1..9"

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

[ "$fail" -eq 0 ]
