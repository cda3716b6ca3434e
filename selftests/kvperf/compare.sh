#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kvperf compare: the same test on the kernel path, the user path and with
# perftest. The table of `compare lat op send ... size 64 rounds 3` has a
# column per path and the ratios, each cell the median and spread of its
# rounds and each ratio the medians' quotient; -j holds every round's
# value and distribution, with medians, spreads and ratios that follow
# from them, and the environment; a bandwidth compare over a range of
# sizes does the same per size; no-perftest leaves perftest out; plots
# are written as SVG (with a curve per path) and PNG; bad arguments are
# refused before anything runs; timeout reaches its kvperf runs; the
# only programs compare runs are
# perftest's (its kvperf measurements and servers run in its own
# process); a perftest client that hangs after its report is stopped
# and its result kept; SIGTERM mid-run stops it, with what it started stopped;
# a size that fails (a kernel server silenced mid-sweep) fails alone: the
# sizes before and after it keep their numbers, the failed one is named
# with its reason (JSON, stderr, plot), the exit status 1;
# compare stops the servers it started; and the kernel log stays clean.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "starts both paths' servers on this host"
[ -x "$PY" ] || kv_skip_all "no $PY"
command -v ib_send_lat >/dev/null ||
	kv_skip_all "perftest is not installed (make deps)"
command -v gnuplot >/dev/null ||
	kv_skip_all "gnuplot is not installed (make deps)"
kv_require_module

addr=$KVPERF_ADDR0
sysfs=/sys/kernel/kvperf
stall=/sys/kernel/debug/kvperf/stall_servers
[ -w "$stall" ] && kv_on_exit "echo N > $stall"

cmp() {
	kv_py "$KV_DIR/comparelib.py" "$@"
}

# perftest_only ERR: every failure compare reported in ERR is a perftest
# program's: a row of zeros, or a crash or hang (a client that races its
# server under a loaded TCG host can wedge it, and compare kills it).
perftest_only() {
	grep -q "perftest reports nothing measured" "$1" && return 0
	grep -qE "^kvperf: round [0-9]+, ib_[a-z]+_(lat|bw)\b" "$1" || return 1
	! grep -E "^kvperf: round [0-9]+, " "$1" |
		grep -qvE "^kvperf: round [0-9]+, ib_[a-z]+_(lat|bw)\b"
}

# compare NAME ARGS...: kvperf ARGS into $KV_TMP/NAME.out; fails unless
# it exits 0. Under TCG perftest now and then prints a row of zeros,
# crashes or hangs, which compare rightly reports as a failed
# measurement: that case is perftest's, and gets up to two more tries.
# Everything compare says about the kernel and the user path still has
# to hold. With $watch set, the module's runs that finish during the
# (last) try go to $KV_TMP/NAME.runs (genl_watch.py runs).
compare() {
	local name=$1 rc try

	shift
	for try in 1 2 3; do
		if [ -n "${watch:-}" ]; then
			kv_start_ready "$KV_TMP/$name.runs" \
				"$PY" -S "$KV_DIR/genl_watch.py" runs || return 1
		fi
		kv_run "$KV_TMP/$name.out" "$KV_TMP/$name.err" \
			timeout "$(kv_scaled 600)" kvperf "$@"
		rc=$?
		[ -n "${watch:-}" ] && kv_stop_ready
		[ "$rc" = 0 ] && return 0
		perftest_only "$KV_TMP/$name.err" || break
		[ "$try" = 3 ] && break
		echo "try $try: only perftest failed; trying again:"
		grep -E "^kvperf: round " "$KV_TMP/$name.err"
		kv_retry_note "compare.sh: $name: only perftest failed (try $try of 3)"
	done
	echo "kvperf $*: exit $rc"
	sed 's/^/stderr: /' "$KV_TMP/$name.err"
	sed 's/^/stdout: /' "$KV_TMP/$name.out" | cut -c1-2000
	return 1
}

# check NAME COMPARELIB-ARGS...: the output of NAME holds together.
check() {
	local name=$1 what=$2

	shift 2
	cmp "$what" "$KV_TMP/$name.out" "$@" && return 0
	sed 's/^/output: /' "$KV_TMP/$name.out" | cut -c1-2000
	return 1
}

# 3 rounds, 2 on the feature lane (lib.sh's kv_full_lane)
lat_send() {
	local rounds=3

	kv_full_lane || rounds=2
	compare lat-send compare lat op send addr "$addr" size 64 \
		rounds "$rounds" &&
		check lat-send table lat send "$rounds" kernel,user,perftest 64
}

# The kernel column is the module's: its runs, one per round, of the
# size and iterations asked, measured its values; the user column is
# not (the module ran nothing more).
lat_write_json() {
	local watch=1

	compare lat-write -j compare lat op write addr "$addr" size 64 \
		rounds 2 iters 300 plot "$KV_TMP/lat.svg" &&
		check lat-write json lat write 2 kernel,user,perftest 64 &&
		check lat-write kernel-runs "$KV_TMP/lat-write.runs" lat write \
			2 64 300
}

# softirq: with busy polling (compare's default), the client and the
# server it starts both spin, one on each vCPU of the guest, and rxe's
# work waits for the scheduler's tick; on the debug kernel no completion
# came for 5 s. perftest's ib_write_bw still busy-polls (it refuses -e).
bw_write_json() {
	local watch=1 sizes=4096,8192,16384 range=4096-16384

	# a range of three sizes on the full lane, two on the feature
	# lane (lib.sh's kv_full_lane)
	kv_full_lane || sizes=4096,8192 range=4096-8192
	compare bw-write -j compare bw op write addr "$addr" \
		sizes "$range" rounds 2 iters 300 poll softirq \
		plot "$KV_TMP/bw.png" &&
		check bw-write json bw write 2 kernel,user,perftest "$sizes" &&
		check bw-write kernel-runs "$KV_TMP/bw-write.runs" bw write \
			2 "$sizes" 300
}

lat_read_no_perftest() {
	compare lat-read compare lat op read addr "$addr" size 2 rounds 1 \
		iters 200 poll softirq no-perftest &&
		check lat-read table lat read 1 kernel,user 2
}

# execs_of TRACE: the programs execve()d in an strace -f log, one a line,
# in order (the attempts of a PATH search too).
execs_of() {
	sed -n 's/^[0-9]* *execve("\([^"]*\)".*/\1/p' "$1"
}

# only_perftest_forked: under strace, compare executes nothing but
# perftest programs (ib_*_lat, ib_*_bw; clients through stdbuf) after
# itself, and one at least:
# the kvperf measurements and servers run in its own process.
only_perftest_forked() {
	local trace=$KV_TMP/compare.strace rc try progs others

	for try in 1 2 3; do
		kv_run "$KV_TMP/strace.out" "$KV_TMP/strace.err" \
			timeout "$(kv_scaled 600)" strace -f --seccomp-bpf \
			-e trace=execve -o "$trace" "$KV_KVPERF" compare lat op send \
			addr "$addr" size 64 rounds 1 iters 200
		rc=$?
		[ "$rc" = 0 ] && break
		if ! perftest_only "$KV_TMP/strace.err" || [ "$try" = 3 ]; then
			echo "strace kvperf compare: exit $rc"
			sed 's/^/stderr: /' "$KV_TMP/strace.err"
			return 1
		fi
		kv_retry_note "compare.sh: strace: only perftest failed (try $try of 3)"
	done
	progs=$(execs_of "$trace" | sed 's|.*/||')
	if [ "$(printf '%s\n' "$progs" | head -n 1)" != kvperf ]; then
		echo "the first program is not kvperf:"
		printf '%s\n' "$progs" | head -n 3
		return 1
	fi
	# a client behind coreutils' stdbuf, which executes it
	others=$(printf '%s\n' "$progs" | tail -n +2 |
		 grep -vE '^(ib_(send|write|read)_(lat|bw)|stdbuf)$')
	if [ -n "$others" ]; then
		echo "compare executed other programs than perftest's:"
		printf '%s\n' "$others" | sort | uniq -c
		return 1
	fi
	if [ "$(printf '%s\n' "$progs" | tail -n +2 | grep -c .)" = 0 ]; then
		echo "compare executed no perftest program"
		return 1
	fi
	check strace table lat send 1 kernel,user,perftest 64
}

# hung_perftest: a perftest client that has printed its whole report but
# does not end is stopped 5 s later and its result kept, and its server
# with it. A client has a last exchange with its server after its report,
# and a hung server holds it there: a stand-in on PATH does just that,
# reporting 25.00 MB/s for the size and iterations it was given.
hung_perftest() {
	local fake=$KV_TMP/fake-perftest rc left

	mkdir -p "$fake" || return 1
	cat >"$fake/ib_send_bw" <<'EOF'
#!/bin/bash
size=0 iters=0 client=
while [ $# -gt 0 ]; do
	case $1 in
	--version) echo "Version: 6.06"; exit 1 ;;
	-[sn]) [ "$1" = -s ] && size=$2 || iters=$2; shift ;;
	-[dpItqQ]) shift ;;
	-*) ;;
	*) client=$1 ;;
	esac
	shift
done
if [ -n "$client" ]; then
	rule=---------------------------------------------------------------------------------------
	echo "$rule"
	echo " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
	echo " $size      $iters              30.00              25.00  		   0.000000"
	echo "$rule"
fi
exec sleep 7777
EOF
	chmod +x "$fake/ib_send_bw" || return 1
	kv_run "$KV_TMP/hung.out" "$KV_TMP/hung.err" env PATH="$fake:$PATH" \
		timeout "$(kv_scaled 600)" kvperf -j compare bw op send \
		addr "$addr" size 4096 rounds 1 iters 100 poll softirq
	rc=$?
	left=$(pgrep -a -f 'sleep 7777')
	pkill -f 'sleep 7777'
	if [ "$rc" != 0 ]; then
		echo "compare with a hanging perftest: exit $rc"
		sed 's/^/stderr: /' "$KV_TMP/hung.err"
		return 1
	fi
	if ! grep -q "^kvperf: round 1, ib_send_bw printed its result but had not ended 5 s later (its closing exchange with its server): stopped, the result kept" \
		"$KV_TMP/hung.err"; then
		echo "compare did not say it stopped perftest after its result:"
		sed 's/^/stderr: /' "$KV_TMP/hung.err"
		return 1
	fi
	if [ -n "$left" ]; then
		echo "left running: $left"
		return 1
	fi
	kv_py - "$KV_TMP/hung.out" <<'EOF'
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
med = {p: (row.get(p) or {}).get("median") for p in ("kernel", "user", "perftest")}
ok = row["size"] == 4096 and med["perftest"] == 25.0 and \
     all(isinstance(med[p], float) and med[p] > 0 for p in ("kernel", "user"))
if not ok:
    print("row:", json.dumps(row)[:1500])
sys.exit(0 if ok else 1)
EOF
}

run_started() {
	[ "$(cat "$sysfs/run_count")" != 0 ]
}

# stopped_mid_run: SIGTERM while the kernel path measures ends compare
# (exit 1, "interrupted") in time, the run stopped and deleted and the
# servers it started stopped (SIGINT is what ^C sends, to the same
# effect; a background job of a script ignores it).
stopped_mid_run() {
	local pid rc

	kvperf compare lat op send addr "$addr" size 64 rounds 100 \
		iters 100000 no-perftest >"$KV_TMP/stop.out" \
		2>"$KV_TMP/stop.err" &
	pid=$!
	if ! kv_wait 120 run_started; then
		kill -KILL "$pid"
		wait "$pid"
		echo "no kernel-path run started"
		cat "$KV_TMP/stop.err"
		return 1
	fi
	kill -TERM "$pid"
	kv_wait 60 sh -c "! kill -0 $pid 2>/dev/null" || {
		kill -KILL "$pid"
		wait "$pid"
		echo "compare still runs 60 s after SIGTERM"
		return 1
	}
	wait "$pid"
	rc=$?
	if [ "$rc" != 1 ] || ! grep -qx "kvperf: interrupted" "$KV_TMP/stop.err"; then
		echo "exit $rc, want 1 and 'kvperf: interrupted'"
		cat "$KV_TMP/stop.err"
		return 1
	fi
	nothing_left
}

# seen_while PID PATTERN CMD...: the first match of PATTERN (grep -o)
# in CMD's output, asked every 0.2 s while PID runs, for at most 120 s
# (scaled); empty if none.
seen_while() {
	local pid=$1 pat=$2 got='' end=$((SECONDS + $(kv_scaled 120)))

	shift 2
	while [ -z "$got" ] && [ $SECONDS -lt $end ] &&
	      kill -0 "$pid" 2>/dev/null; do
		got=$("$@" 2>/dev/null | grep -o "$pat" | head -n 1)
		[ -n "$got" ] || sleep 0.2
	done
	echo "$got"
}

# timeout TIME reaches the compare's kvperf runs: the kernel-path run it
# starts has that timeout, as run show says.
timeout_reaches_runs() {
	local pid got

	kvperf compare lat op send addr "$addr" size 64 rounds 100 \
		iters 100000 no-perftest timeout 7s >"$KV_TMP/to.out" \
		2>"$KV_TMP/to.err" &
	pid=$!
	got=$(seen_while "$pid" '"timeout_ms":[0-9]*' kvperf -j run show)
	kill -TERM "$pid"
	wait "$pid"
	if [ "$got" != '"timeout_ms":7000' ]; then
		echo "the compare's kernel-path run: ${got:-none seen}, want timeout_ms 7000"
		cat "$KV_TMP/to.err"
		return 1
	fi
	nothing_left
}

# The kernel server compare starts reaps completions with the compare's
# poll (workqueue here, the module's default being softirq), as the
# user-path server and perftest's do.
server_takes_poll() {
	local pid rc poll

	kvperf -j compare lat op send addr "$addr" poll workqueue no-perftest \
		rounds 3 iters 3000 >"$KV_TMP/spoll.out" 2>"$KV_TMP/spoll.err" &
	pid=$!
	poll=$(seen_while "$pid" '"poll":"[a-z]*"' kvperf -j server show)
	wait "$pid"
	rc=$?
	if [ "$rc" != 0 ] || [ "$poll" != '"poll":"workqueue"' ]; then
		echo "compare exit $rc; the server it started: ${poll:-none seen}"
		cat "$KV_TMP/spoll.err"
		return 1
	fi
	nothing_left
}

# stall_after SIZE: once a kernel-path run has completed SIZE (its sysfs
# size: the last size done; before any, its first size, so SIZE must not
# be a run's first), silence the kernel servers (stall_servers),
# so that the run fails at its next size by its timeout; once that run
# has failed (or is gone), let them answer again. Polls without sleeping
# until the trigger: the next size of the run takes 100 ms or more. Fails
# after 60 s
# (scaled) without either.
stall_after() {
	local want=$1 end=$((SECONDS + $(kv_scaled 60))) f s run=''

	while [ -z "$run" ]; do
		[ $SECONDS -lt $end ] || { echo "no run completed $want B"; return 1; }
		for f in "$sysfs"/runs/*/size; do
			s=''
			{ read -r s <"$f"; } 2>/dev/null
			[ "$s" = "$want" ] && run=${f%/size} && break
		done
	done
	echo Y >"$stall"
	while [ -d "$run" ] && [ "$(cat "$run/state" 2>/dev/null)" != failed ]; do
		[ $SECONDS -lt $end ] || break
		sleep 0.05
	done
	echo N >"$stall"
	[ $SECONDS -lt $end ] || { echo "run $run never failed"; return 1; }
}

# failed_size: compare lat over 16K-128K, its kernel path's run silenced
# after 32K (stall_after), fails at 64K by its timeout; compare starts a
# new run at 128K. The kernel column keeps 16K, 32K and 128K, its 64K cell
# has no value and the run's error as its failure; the user column is
# whole; stderr names the size; the plot's note names the path; exit 1.
# Sizes this large and 50 iterations: each size takes 100 ms or more
# (the window stall_after needs), the whole compare a few seconds.
failed_size() {
	local ms rc watcher

	ms=$(kv_scaled 1000)
	stall_after 32768 &
	watcher=$!
	kv_run "$KV_TMP/fail.out" "$KV_TMP/fail.err" \
		timeout "$(kv_scaled 120)" kvperf -j compare lat op send \
		addr "$addr" sizes 16K-128K rounds 1 iters 50 poll softirq \
		no-perftest timeout "${ms}ms" plot "$KV_TMP/fail.svg"
	rc=$?
	wait "$watcher" || { echo N >"$stall"; return 1; }
	if [ "$rc" != 1 ]; then
		echo "compare with a size failing: exit $rc, want 1"
		sed 's/^/stderr: /' "$KV_TMP/fail.err"
		return 1
	fi
	if ! grep -q "^kvperf: round 1, kernel path, 65536 B failed:" "$KV_TMP/fail.err" ||
	   ! grep -q "^kvperf: 1 of 8 measurements failed" "$KV_TMP/fail.err"; then
		echo "stderr does not name the failed size (round 1, kernel path, 65536 B) and the count:"
		sed 's/^/stderr: /' "$KV_TMP/fail.err"
		return 1
	fi
	check fail failed 1 kernel,user 16384,32768,65536,131072 kernel 65536 \
		"^no completion or event within the timeout \\($ms ms\\)" &&
		cmp svg "$KV_TMP/fail.svg" "failed: kernel"
}

# refused WANT ARGS...: kvperf ARGS exits 2 with WANT on stderr, and
# starts nothing.
refused() {
	local want=$1 rc

	shift
	kv_run "$KV_TMP/ref.out" "$KV_TMP/ref.err" timeout "$(kv_scaled 60)" kvperf "$@"
	rc=$?
	if [ "$rc" != 2 ] || ! grep -qF -- "$want" "$KV_TMP/ref.err"; then
		echo "kvperf $*: exit $rc, want 2 and '$want'"
		cat "$KV_TMP/ref.err"
		return 1
	fi
	if [ "$(cat "$sysfs/server_count")" != 0 ]; then
		echo "a server was started"
		return 1
	fi
}

# Nothing compare started is left: no kernel server or run (compare
# deletes each kernel-path run once read), no user-path server or
# perftest process.
nothing_left() {
	local left

	[ "$(cat "$sysfs/server_count")" = 0 ] || {
		echo "server_count $(cat "$sysfs/server_count")"
		kvperf server show
		return 1
	}
	[ "$(cat "$sysfs/run_count")" = 0 ] || {
		echo "run_count $(cat "$sysfs/run_count")"
		kvperf run show
		return 1
	}
	left=$(pgrep -a -f 'ib_(send|write|read)_(lat|bw)|kvperf server' |
	       grep -v pgrep)
	[ -z "$left" ] && return 0
	echo "left running: $left"
	return 1
}

ktap_set_plan 15
kv_dmesg_mark

kv_check "compare lat op send size 64 rounds 3 (2 on the feature lane): kernel, user and perftest columns, ratios of the medians" \
	lat_send
kv_check "compare -j lat op write size 64 rounds 2 iters 300: every round, medians, ratios, environment; the kernel column the module's 2 runs" \
	lat_write_json
kv_check "plot lat.svg: an SVG with a curve per path through its median round's points" \
	cmp svg "$KV_TMP/lat.svg" kernel,user,perftest "$KV_TMP/lat-write.out"
kv_check "compare -j bw op write sizes 4K-16K (4K-8K on the feature lane) rounds 2 iters 300 poll softirq: a row per size, each consistent; the kernel column the module's 2 runs" \
	bw_write_json
kv_check "plot bw.png: a PNG" cmp png "$KV_TMP/bw.png"
kv_check "compare lat op read no-perftest poll softirq: kernel and user columns only" \
	lat_read_no_perftest
kv_check "the kernel server compare starts polls as the compare does (poll workqueue)" \
	server_takes_poll
# (its other usage errors: selftests/usage_test.sh, on the host)
kv_check "timeout 0: refused, 'out of range (10ms to 600s)'" \
	refused "timeout '0' is out of range (10ms to 600s)" \
	compare lat op send addr "$addr" timeout 0
kv_check "timeout 7s: the compare's kernel-path run has timeout_ms 7000" \
	timeout_reaches_runs
if command -v strace >/dev/null; then
	kv_check "compare runs no program but perftest's: kvperf measures and serves in its own process" \
		only_perftest_forked
else
	kv_skip "compare runs no program but perftest's" \
		"strace is not installed (make deps)"
fi
kv_check "a perftest client that hangs after its report: stopped 5 s later, its result kept, its server stopped" \
	hung_perftest
kv_check "SIGTERM mid-run: compare ends, interrupted, nothing left running" \
	stopped_mid_run
if [ -w "$stall" ]; then
	kv_check "a size that fails (kernel server silenced after 32K): 16K, 32K and 128K keep their numbers, 64K failed with its reason, the plot says so, exit 1" \
		failed_size
else
	kv_skip "a size that fails keeps the others" "no $stall (debugfs not mounted?)"
fi
kv_check "no kernel server or run, no perftest process left behind" nothing_left
kv_dmesg_check

ktap_finished
