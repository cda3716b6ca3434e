# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by the kvperf selftests: KTAP output (the kernel's own
# ktap_helpers.sh, extracted into build/ksrc by `make ksrc`), checks that
# print why they failed, preconditions that skip with a reason, polling,
# and a per-test look at the kernel log.
#
# The tests run from this folder in the kvperf project, from a kernel
# tree's tools/testing/selftests/drivers/kvperf, or installed by the
# kselftest Makefile (make install); KV_DIR is this folder wherever it is.
# KVPERF_TOP is the kvperf checkout, where a test needs one (the README,
# the UAPI header): $KVPERF_SRC, else the project around this folder.
# In the vmtest guest (selftests/vmtest.sh), the harness exports
# KVPERF_TOP, KVPERF_KO, KVPERF_DEV0/1, KVPERF_NETDEV0/1, KVPERF_ADDR0/1.

set -u

KV_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export KV_DIR
if [ -z "${KVPERF_TOP:-}" ]; then
	KVPERF_TOP=${KVPERF_SRC:-}
	[ -z "$KVPERF_TOP" ] && [ -r "$KV_DIR/../../include/uapi/linux/kvperf.h" ] &&
		KVPERF_TOP=$(cd "$KV_DIR/../.." && pwd)
fi
export KVPERF_TOP
PY=/usr/bin/python3

# Python without site-packages: the stdlib is all the tests use, and site
# setup triples the start-up time under TCG.
kv_py() {
	"$PY" -S "$@"
}

# The kernel's KTAP helpers: the kselftest tree's (a kernel tree, an
# install), else what `make ksrc` extracted into the project's build/.
kv_ktap=$KV_DIR/../../kselftest/ktap_helpers.sh
[ -r "$kv_ktap" ] ||
	kv_ktap=$KVPERF_TOP/build/ksrc/tools/testing/selftests/kselftest/ktap_helpers.sh
if [ ! -r "$kv_ktap" ]; then
	echo "TAP version 13"
	echo "1..0 # SKIP $kv_ktap is missing (run make ksrc)"
	exit 4
fi
# shellcheck source=/dev/null
. "$kv_ktap"
# shellcheck source=selftests/kvperf/klog.sh
. "$KV_DIR/klog.sh"

KV_TMP=$(mktemp -d /tmp/kvperf-test.XXXXXX) || exit 1
kv_cleanup_hooks=()

# Register a command to run when the test exits (last registered first).
kv_on_exit() {
	kv_cleanup_hooks+=("$*")
}

# The hooks run however the test ends: on its own, or killed by the
# runner's timeout (SIGTERM) halfway through a line. A hook runs in this
# function's scope, so the loop's counter has a name no hook uses (hooks
# loop over "i": sharing it re-ran hooks from wherever theirs ended).
kv_exit_trap() {
	local _kv_hook_n

	trap - EXIT
	set +u
	for ((_kv_hook_n = ${#kv_cleanup_hooks[@]} - 1; _kv_hook_n >= 0;
	      _kv_hook_n--)); do
		eval "${kv_cleanup_hooks[$_kv_hook_n]}" >/dev/null 2>&1
	done
	rm -rf "$KV_TMP"
}
trap kv_exit_trap EXIT

# shellcheck source=selftests/kvperf/remote.sh
. "$KV_DIR/remote.sh"

# Print each line of stdin as a KTAP diagnostic.
kv_diag() {
	sed 's/^/# /'
}

# Skip the whole test with a reason, before a plan was printed.
kv_skip_all() {
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

# Bail out (the test cannot go on), counting as a failure.
kv_bail() {
	ktap_exit_fail_msg "$*"
}

# kv_skip DESC WHY...: one skipped result; the reason is part of the
# result line ("ok N DESC # SKIP WHY"), where the suite's tally needs it.
kv_skip() {
	local desc=$1

	shift
	[ $# -gt 0 ] || kv_bail "kv_skip '$desc' without a reason"
	echo "ok $KTAP_TESTNO $desc # SKIP $*"
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
}

# kv_check DESC CMD [ARGS...]: one test result from CMD's exit status; on
# failure CMD's output becomes diagnostics, after the "not ok" line (where
# a log's excerpt that starts at the failure still shows why).
kv_check() {
	# kv_-prefixed: CMD runs in this function's scope and may read
	# globals of the same plain names (rc, out)
	local kv_desc=$1 kv_out kv_rc kv_fault kv_t0 kv_up

	shift
	# no program started here: a fork and exec costs 40 to 90 ms in
	# the guest, 3 minutes over a lane's checks
	kv_uptime
	kv_t0=${EPOCHREALTIME/./}
	kv_out=$("$@" 2>&1)
	kv_rc=$?
	if [ "$kv_rc" != 0 ] &&
	   kv_fault=$(kv_klog_since "$kv_up" | kv_rxe_fault); then
		kv_skip "$kv_desc" "$kv_rxe_fault_why"
		printf '%s\n' "$kv_out" "${kv_fault#*] }" | kv_diag
		kv_took "$kv_t0"
		return 0
	fi
	kv_result "$kv_desc" "$kv_rc" "$kv_out"
	kv_rc=$?
	kv_took "$kv_t0"
	return "$kv_rc"
}

# kv_took T0: "# took S.S s", the seconds since T0 (microseconds, as
# ${EPOCHREALTIME/./}), after a check's result: where a lane's minutes
# go, from its log alone
kv_took() {
	local ms=$(((${EPOCHREALTIME/./} - $1) / 1000))

	printf '# took %d.%d s\n' "$((ms / 1000))" "$((ms % 1000 / 100))"
}

# kv_uptime: the seconds since boot (/proc/uptime, to 10 ms) in kv_up,
# read by the shell itself
kv_uptime() {
	read -r kv_up _ </proc/uptime
}

# kv_klog_since T: the kernel log lines stamped T seconds after boot or
# later. The log's stamps run 10 to 30 ms ahead of /proc/uptime: a line
# printed after T was read is never left out.
kv_klog_since() {
	kv_klog | awk -v t="$1" '{
		s = $0
		if (sub(/^\[ */, "", s) == 0) next
		sub(/\].*/, "", s)
		if (s + 0 >= t + 0) print
	}'
}

# Soft-RoCE 6.1 (rxe) retransmits by walking its send queue again from
# the oldest unacknowledged request, and runs a REG_MR it already ran
# once more: the MR is valid, not free, so the request fails
# (IB_WC_LOC_QP_OP_ERR) and the I/O with it; rxe says so in the kernel
# log. A loopback device retransmits only when its peer stopped
# answering (a queue pair torn down, a device being removed), so a run
# that is being stopped may fail this way instead. An HCA never runs a
# completed work request again, and kvperf's own double registration
# would show on every run of the 6.12 lane (whose rxe keeps the line
# out of the log). A check that failed while it did is skipped with
# this reason; selftests/expected-skips allows it on 6.1 only.
kv_rxe_fault_why="rdma_rxe re-ran a completed REG_MR when it retransmitted (its 'not free' line in the kernel log): the device failed the I/O, so the check could not judge kvperf"

# kv_refused MSG STRERROR [ATTR] -- ARGS...: kvperf ARGS exits 1 with
# "kvperf: kernel refused the request: MSG (STRERROR)", MSG an extended
# regex, naming the offending attribute ATTR when given: a string
# attribute with the value sent (ATTR 'cpus "0-1"') on that same line,
# "MSG: ATTR (STRERROR)" (where MSG names the value itself the tool adds
# nothing: give no ATTR); any other on a line of its own, "kvperf:
# offending attribute: ATTR".
kv_refused() {
	local msg=$1 strerr=$2 attr='' rc re shown want=

	shift 2
	if [ "$1" != -- ]; then
		attr=$1
		shift
	fi
	shift
	kv_run "$KV_TMP/out" "$KV_TMP/err" timeout "$(kv_scaled 20)" kvperf "$@"
	rc=$?
	re="($msg)" shown=$msg
	case "$attr" in
	'') ;;
	*\"*) re="($msg): ${attr//./\\.}" shown="$msg: $attr" ;;
	*) want="kvperf: offending attribute: $attr" ;;
	esac
	if [ "$rc" != 1 ] ||
	   ! grep -qE -- "^kvperf: kernel refused the request: $re \($strerr\)$" \
		"$KV_TMP/err" ||
	   { [ -n "$want" ] && ! grep -qxF -- "$want" "$KV_TMP/err"; }; then
		echo "kvperf $*: exit $rc, want 1 and"
		echo "  'kvperf: kernel refused the request: $shown ($strerr)'"
		[ -n "$want" ] && echo "  '$want'"
		sed 's/^/stdout: /' "$KV_TMP/out"
		sed 's/^/stderr: /' "$KV_TMP/err"
		return 1
	fi
}

# kv_run_fails NAME REASON ARGS...: kvperf -j run ARGS (a run that must
# fail, within 120 s scaled) exits 1 saying "kvperf: run N failed:
# REASON", REASON a fixed string; its output in $KV_TMP/NAME.json and
# NAME.err, its id tracked for kv_track_runs.
kv_run_fails() {
	local name=$1 reason=$2 rc

	shift 2
	kv_run "$KV_TMP/$name.json" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 120)" kvperf -j run "$@"
	rc=$?
	kv_json_id "$KV_TMP/$name.json" >>"$KV_IDS"
	[ "$rc" = 1 ] &&
		grep -qE "^kvperf: run [0-9]+ failed: " "$KV_TMP/$name.err" &&
		grep -qF -- "failed: $reason" "$KV_TMP/$name.err" && return 0
	echo "kvperf -j run $*: exit $rc, want 1 and 'failed: $reason':"
	cat "$KV_TMP/$name.err"
	return 1
}

# kv_klog: the kernel log, as dmesg prints it.
kv_klog() {
	dmesg 2>/dev/null
}

# kv_rxe_fault: the first such line of the kernel log lines on stdin.
kv_rxe_fault() {
	grep -m1 -E 'rdma_rxe: rxe_reg_fast_mr: mr->lkey = 0x[0-9a-f]+ not free'
}

# kv_result DESC OK [WHY]: report a result computed by the caller (OK 0
# for a pass); WHY follows a failure's "not ok" line as diagnostics.
kv_result() {
	if [ "$2" = 0 ]; then
		ktap_test_pass "$1"
		return 0
	fi
	ktap_test_fail "$1"
	[ -n "${3:-}" ] && printf '%s\n' "$3" | kv_diag
	return 1
}

# The test's own stdout, kept as fd 9 for kv_retry_note: a check's
# output is captured (kv_check), a retry must still reach the stream.
exec 9>&1

# kv_retry_note WHAT: say in the KTAP stream, wherever it is called
# from, that WHAT is being tried again; make check counts these lines
# ("# retry: ...") per phase in its closing table.
kv_retry_note() {
	echo "# retry: $*" >&9
}

# kv_fuzz_setup PREFIX SMOKE_COUNT WHAT SCRIPT: the bounds and seed of a
# fuzz test. The smoke (default) stops after SMOKE_COUNT WHAT or 60 s
# times the time scale; the soak (KVPERF_FUZZ_SOAK=1, make check-fuzz)
# runs 45 s times the scale (at most 300 s) with no count. PREFIX_COUNT,
# PREFIX_SECONDS and PREFIX_SEED override; the seed is fresh from
# /dev/urandom otherwise. Sets fuzz_count, fuzz_secs and fuzz_seed, and
# prints the seed with the command that replays it on this lane.
kv_fuzz_setup() {
	local prefix=$1 smoke=$2 what=$3 script=$4 count secs seed mode soak_env=
	local lane_opt=

	count=${prefix}_COUNT secs=${prefix}_SECONDS seed=${prefix}_SEED
	if [ "${KVPERF_FUZZ_SOAK:-0}" = 1 ]; then
		fuzz_count=${!count:-10000000}
		fuzz_secs=${!secs:-$((45 * kv_time_scale > 300 ? 300 : 45 * kv_time_scale))}
		mode="soak, $fuzz_secs s" soak_env="KVPERF_FUZZ_SOAK=1 "
	else
		fuzz_count=${!count:-$smoke}
		fuzz_secs=${!secs:-$((60 * kv_time_scale > 300 ? 300 : 60 * kv_time_scale))}
		mode="smoke, $fuzz_count $what at most"
	fi
	fuzz_seed=${!seed:-0x$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')}
	[ "${KVPERF_DMA_LANE:-0}" = 1 ] && lane_opt=" -d"
	echo "# seed $fuzz_seed ($mode); replay: $soak_env$seed=$fuzz_seed selftests/vmtest.sh$lane_opt -k ${KVPERF_KVER:-KVER} -- selftests/kvperf/run.sh $script"
}

# kv_full_lane: the full combination matrices run here (the default);
# false on a lane that runs each feature once (KVPERF_LANE=feature, make
# check's 6.1 lane: the matrices run once, on 6.12's DMA lane).
kv_full_lane() {
	[ "${KVPERF_LANE:-full}" != feature ]
}

# Every wait and time limit of the suite is written for an idle 2-core
# host and multiplied by one factor, KVPERF_TIME_SCALE (a positive
# integer; 1 where nothing sets it, a real host; vmtest.sh passes its
# default, selftests/vm/defaults.sh's, into the guest). Waits that end
# on an event cost nothing
# extra when things go well; only limits that must expire grow.
kv_time_scale=${KVPERF_TIME_SCALE:-}
case "${kv_time_scale:-1}" in
'' | *[!0-9]* | 0) echo "# KVPERF_TIME_SCALE=$kv_time_scale is not a positive integer" >&2
	exit 1 ;;
esac
kv_time_scale=${kv_time_scale:-1}
export KVPERF_TIME_SCALE=$kv_time_scale
# the scale the host usually needs (the vmtest guest's default; 1 on a
# real host): a test whose rule holds only up to it skips above it
kv_usual_time_scale=${KVPERF_USUAL_TIME_SCALE:-1}

# kv_scaled N: N (seconds or milliseconds) times the suite's time scale.
kv_scaled() {
	echo $(($1 * kv_time_scale))
}

# On a slowed guest (time scale above 1) `kvperf` is a wrapper, first
# on PATH, that scales the limits the tool itself keeps, and then execs
# it (same process, so `kvperf ... &; kill $!` still reaches it):
# - a kernel server started without an idle-timeout gets the default
#   (10 s) times the scale, at most 600 s: a timed bandwidth run of 4
#   queue pairs on the debug kernel had no completion for 16 s, and the
#   module closed the silent peer 10 s after the announced phase;
# - a compare without a timeout gives its runs the default (5 s) times
#   the scale, at most 600 s: on the debug kernel a busy-polling write
#   bandwidth compare, both sides spinning on the two vCPUs, had no
#   completion for 5 s.
# These are limits the tests' runs must never reach. KV_KVPERF is the
# tool itself (server_guard.sh checks the defaults with it).
KV_KVPERF=$(command -v kvperf)
if [ "$kv_time_scale" -gt 1 ] && [ -n "$KV_KVPERF" ]; then
	# a directory of its own, open to all: tests run it as nobody too
	KV_BIN=$(mktemp -d /tmp/kvperf-bin.XXXXXX) || exit 1
	kv_on_exit rm -rf "$KV_BIN"
	chmod 755 "$KV_BIN" || exit 1
	cat >"$KV_BIN/kvperf" <<EOF
#!/bin/bash
words=() given=' '
for a in "\$@"; do
	case \$a in
	-*) ;;
	*) words+=("\$a") ;;
	esac
	case \$a in
	idle-timeout | path | timeout) given+="\$a " ;;
	esac
done
case "\${words[0]:-} \${words[1]:-}" in
"server start")
	[[ \$given = *' idle-timeout '* || \$given = *' path '* ]] ||
		exec "$KV_KVPERF" "\$@" idle-timeout $((10 * kv_time_scale > 600 ? 600 : 10 * kv_time_scale)) ;;
"compare lat" | "compare bw")
	[[ \$given = *' timeout '* ]] ||
		exec "$KV_KVPERF" "\$@" timeout $((5 * kv_time_scale > 600 ? 600 : 5 * kv_time_scale))s ;;
esac
exec "$KV_KVPERF" "\$@"
EOF
	chmod 755 "$KV_BIN/kvperf" || exit 1
	PATH=$KV_BIN:$PATH
fi
export KV_KVPERF=${KV_KVPERF:-kvperf}

# kv_bytes N: a size as the tool reads it (4096, 64K, 1M), in bytes.
kv_bytes() {
	case $1 in
	*K) echo $((${1%K} << 10)) ;;
	*M) echo $((${1%M} << 20)) ;;
	*) echo "$1" ;;
	esac
}

# kv_wait SECONDS CMD [ARGS...]: poll CMD every 0.1 s until it succeeds,
# for at most SECONDS times the time scale.
kv_wait() {
	local end=$((SECONDS + $1 * kv_time_scale))

	shift
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.1
	done
}

# kv_start_ready OUT CMD...: start CMD (a program, not a shell function:
# the signal must reach it, not a subshell) in the background, its stdout in
# OUT and its stderr in OUT.err, and wait (30 s, scaled) for its first
# line, "ready": what it watches can start then. Its pid goes to
# $KV_READY_PID and it is killed when the test exits; kv_stop_ready ends
# it earlier. Fails, saying why, when it ends or never says so.
kv_start_ready() {
	local out=$1

	shift
	"$@" >"$out" 2>"$out.err" &
	KV_READY_PID=$!
	kv_on_exit "kill $KV_READY_PID"
	kv_wait 30 kv_ready_or_gone "$out" "$KV_READY_PID"
	[ "$(head -n 1 "$out")" = ready ] && return 0
	kill "$KV_READY_PID" 2>/dev/null
	wait "$KV_READY_PID"
	echo "$*: not ready (exit $?):"
	cat "$out" "$out.err"
	return 1
}

kv_ready_or_gone() {
	[ "$(head -n 1 "$1")" = ready ] || ! kill -0 "$2" 2>/dev/null
}

# kv_stop_ready: SIGTERM to the command kv_start_ready started, and its
# exit status once it ended.
kv_stop_ready() {
	kill -TERM "$KV_READY_PID"
	wait "$KV_READY_PID"
}

# kv_ms: the time in milliseconds (the epoch's), for measured durations.
kv_ms() {
	echo $((${EPOCHREALTIME/./} / 1000))
}

# kv_run OUT ERR CMD...: run CMD with stdout/stderr in files, return its
# exit status.
kv_run() {
	local out=$1 err=$2

	shift 2
	"$@" >"$out" 2>"$err"
}

# kv_require_devices: the two RDMA devices the tests use, with their
# netdevs and addresses (KVPERF_DEV0/1, KVPERF_NETDEV0/1, KVPERF_ADDR0/1,
# KVPERF_ADDR6_0/1): as the environment names them (the vmtest guest),
# else as kvperf.config beside the tests (or $KVPERF_CONFIG) does, else
# SW mode's own (swdev.sh): created now, removed when the test exits.
# A config that names a remote host is HW mode (remote.sh): one local
# device, KVPERF_DEV0, and the servers over there.
kv_require_devices() {
	local conf=${KVPERF_CONFIG:-$KV_DIR/kvperf.config} d why

	if [ -z "${KVPERF_DEV0:-}" ] && [ -r "$conf" ]; then
		# shellcheck source=/dev/null
		. "$conf" || kv_bail "reading $conf failed"
	fi
	if [ -n "${KVPERF_DEV0:-}" ]; then
		kv_hw_setup
		return 0
	fi
	[ "$(id -u)" = 0 ] ||
		kv_skip_all "SW mode creates Soft-RoCE devices, which needs root (or name the devices in $conf)"
	modprobe -q dummy && modprobe -q rdma_rxe ||
		kv_skip_all "SW mode needs the dummy and rdma_rxe modules"
	# shellcheck source=selftests/kvperf/swdev.sh
	. "$KV_DIR/swdev.sh"
	for d in "${kv_sw_devs[@]}" "${kv_sw_netdevs[@]}"; do
		[ -e "/sys/class/infiniband/$d" ] || [ -e "/sys/class/net/$d" ] &&
			kv_skip_all "SW mode's $d exists already but KVPERF_DEV0 is not set (export the variables, or remove it)"
	done
	kv_on_exit kv_sw_del
	kv_sw_netdevs_add >/dev/null || kv_bail "SW mode: creating ${kv_sw_netdevs[*]} failed"
	why=$(kv_sw_rxe_add) || kv_bail "SW mode: $why"
	why=$(kv_sw_ready "$((10 * kv_time_scale))") || kv_bail "SW mode: $why"
	kv_sw_export
	kv_hw_setup
}

kv_require_root() {
	[ "$(id -u)" = 0 ] || kv_skip_all "needs root"
}

kv_require_cli() {
	command -v kvperf >/dev/null ||
		kv_skip_all "the kvperf tool is not built (make tools)"
}

kv_module_loaded() {
	[ -d /sys/module/kvperf ]
}

# kv_insmod: load $KVPERF_KO with the parameters of $KVPERF_MODULE_PARAMS
# (the debug lane's, e.g. "ack_timeout=20"), split on blanks.
kv_insmod() {
	# shellcheck disable=SC2086
	insmod "$KVPERF_KO" ${KVPERF_MODULE_PARAMS:-}
}

# Load kvperf.ko if it is not loaded; skip the test when there is none.
kv_require_module() {
	kv_module_loaded && return 0
	[ -n "${KVPERF_KO:-}" ] ||
		kv_skip_all "the kvperf module is not loaded (load it, or set KVPERF_KO to its .ko)"
	kv_insmod || kv_bail "insmod $KVPERF_KO failed"
}

# kv_require_ko: a module file to load again (tests that rmmod it):
# $KVPERF_KO, which the harness sets; on a host, set it to the .ko.
kv_require_ko() {
	[ -n "${KVPERF_KO:-}" ] ||
		kv_skip_all "no module to reload: KVPERF_KO is empty (set it to kvperf.ko; KVPERF_NO_MODULE=1 in the harness)"
}

# kv_require_rxe WHY: the two local Soft-RoCE devices of SW mode; in HW
# mode the test skips, saying WHY it needs them.
kv_require_rxe() {
	local d

	kv_require_sw "$1"
	for d in "$KVPERF_DEV0" "$KVPERF_DEV1"; do
		[ -d "/sys/class/infiniband/$d" ] ||
			kv_skip_all "no RDMA device $d (not in the vmtest guest?)"
	done
}

# The kernel log is read once per test: note where it ends now...
kv_dmesg_mark() {
	kv_dmesg_lines=$(kv_klog | wc -l)
}

# ...and report whatever bad lines came after, as one more result.
kv_dmesg_check() {
	local bad

	bad=$(kv_klog | tail -n +"$((kv_dmesg_lines + 1))" | klog_scan -)
	kv_result "kernel log has no warnings, oopses or stalls" \
		"$([ -z "$bad" ]; echo $?)" "$bad"
}

# The module's counters of what exists (Documentation/ABI/testing/
# sysfs-kernel-kvperf): runs, listeners, connections and pinned bytes.
kv_counters="run_count server_count connection_count pinned_bytes"

# kv_counters_zero: every one of them is 0.
kv_counters_zero() {
	local c

	for c in $kv_counters; do
		grep -qx 0 "/sys/kernel/kvperf/$c" || return 1
	done
}

# kv_counters_back_to_zero SECONDS: wait (times the time scale) until
# they are; if they do not get there, print them and fail.
kv_counters_back_to_zero() {
	local c

	kv_wait "$1" kv_counters_zero && return 0
	for c in $kv_counters; do
		echo "$c: $(cat "/sys/kernel/kvperf/$c")"
	done
	return 1
}

# kv_ynl_find: the kernel's ynl CLI and kvperf's spec, in KV_YNL and
# KV_YNL_SPEC: the CLI of the kernel tree the tests sit in
# (tools/net/ynl), else the one make ksrc extracts in $KVPERF_TOP; the
# spec of the kvperf checkout. Status 1 with the reason in KV_YNL_WHY
# when either is missing (a skip's reason).
kv_ynl_find() {
	local f

	KV_YNL='' KV_YNL_SPEC=$KVPERF_TOP/Documentation/netlink/specs/kvperf.yaml
	for f in "$KV_DIR/../../../../net/ynl/cli.py" \
		"$KVPERF_TOP/build/ksrc/tools/net/ynl/cli.py"; do
		[ -r "$f" ] && { KV_YNL=$f; break; }
	done
	KV_YNL_WHY="no ynl CLI: not in a kernel tree's tools/testing/selftests, and no make ksrc in ${KVPERF_TOP:-the kvperf checkout}"
	[ -n "$KV_YNL" ] || return 1
	KV_YNL_WHY="no kvperf spec: set KVPERF_SRC to a kvperf checkout"
	[ -r "$KV_YNL_SPEC" ]
}

# kv_ynl ARGS...: the ynl CLI kv_ynl_find found, on kvperf's spec
kv_ynl() {
	"$PY" "$KV_YNL" --spec "$KV_YNL_SPEC" --no-schema "$@"
}

# kv_server_start ADDR: start a kernel server on ADDR, port 18515, where
# the servers run (kv_peer: the remote host in HW mode); it says "server
# N listening on ADDR:18515", and N goes to $KV_TMP/server.
kv_server_start() {
	local addr=$1 out

	out=$(kv_peer kvperf server start addr "$addr" 2>&1) ||
		{ echo "$out"; return 1; }
	[[ $out =~ ^server\ ([0-9]+)\ listening\ on\ $addr:18515$ ]] ||
		{ echo "unexpected output: '$out'"; return 1; }
	echo "${BASH_REMATCH[1]}" >"$KV_TMP/server"
}

# kv_server_stop: stop the server kv_server_start started.
kv_server_stop() {
	kv_peer kvperf server stop "$(cat "$KV_TMP/server")"
}

# kv_usage_error REGEX ARGS...: kvperf ARGS exits 2 with a message
# matching REGEX (extended) on stderr, in $KV_TMP/err, and nothing on
# stdout, creating no run.
kv_usage_error() {
	local re=$1 rc n

	shift
	n=$(cat /sys/kernel/kvperf/run_count)
	kv_run "$KV_TMP/out" "$KV_TMP/err" timeout "$(kv_scaled 20)" kvperf "$@"
	rc=$?
	if [ "$rc" != 2 ] || ! grep -qE -- "^kvperf: .*($re)" "$KV_TMP/err" ||
	   [ -s "$KV_TMP/out" ]; then
		echo "kvperf $*: exit $rc, want 2 and /$re/ on stderr only"
		sed 's/^/stdout: /' "$KV_TMP/out"
		sed 's/^/stderr: /' "$KV_TMP/err"
		return 1
	fi
	[ "$(cat /sys/kernel/kvperf/run_count)" = "$n" ] ||
		{ echo "kvperf $*: run_count $n -> $(cat /sys/kernel/kvperf/run_count)"; return 1; }
}

# kv_same_usage_error REGEX ARGS...: kv_usage_error of kvperf ARGS and of
# kvperf ARGS path user, with the same line: the run model judges before
# either path starts.
kv_same_usage_error() {
	local re=$1

	shift
	kv_usage_error "$re" "$@" || return 1
	cp "$KV_TMP/err" "$KV_TMP/err.kernel"
	kv_usage_error "$re" "$@" path user || return 1
	cmp -s "$KV_TMP/err.kernel" "$KV_TMP/err" || {
		echo "kernel path and user path differ:"
		sed 's/^/kernel: /' "$KV_TMP/err.kernel"
		sed 's/^/user: /' "$KV_TMP/err"
		return 1
	}
}

# kv_json_id FILE: the id in `kvperf -j run ...` or `server start` output.
kv_json_id() {
	sed -n '1s/^\[\?{"id":\([0-9]\+\),.*/\1/p' "$1" | grep .
}

# kv_server_conns FILE WANT: the connections a user-path server printed
# to FILE, the "TYPE OP" of each line in order ("lat send", "io read"),
# are the lines of WANT; else says what it wanted and what it got.
kv_server_conns() {
	local got

	got=$(sed -n 's/^connection [0-9]\+ from [0-9.]\+:[0-9]\+: \([a-z]\+\) \([a-z]\+\),.*/\1 \2/p' \
		"$1")
	[ "$got" = "$2" ] && return 0
	printf 'want:\n%s\ngot:\n' "$2"
	cat "$1"
	return 1
}

# kv_track_runs: the runs kv_run_json starts are deleted when the test
# exits, passed or failed; their ids collect in $KV_IDS, which a test may
# add ids to itself.
kv_track_runs() {
	KV_IDS=$KV_TMP/ids
	: >"$KV_IDS"
	# shellcheck disable=SC2016 # expanded when the hook runs
	kv_on_exit 'for i in $(cat "$KV_IDS"); do kvperf run delete "$i"; done'
}

# kv_run_json NAME SECONDS CMD...: CMD, a `kvperf -j` command that starts
# a run, under timeout SECONDS, with its stdout in $KV_TMP/NAME.json and
# its stderr in NAME.err. The id it printed goes to NAME.id and, after
# kv_track_runs, to $KV_IDS. Fails unless CMD exits 0, printing the exit
# status, the stderr and the stdout (lines cut at 2000 characters);
# otherwise prints the stderr, if any.
kv_run_json() {
	local name=$1 limit=$2 rc id

	shift 2
	kv_run "$KV_TMP/$name.json" "$KV_TMP/$name.err" timeout "$limit" "$@"
	rc=$?
	if id=$(kv_json_id "$KV_TMP/$name.json"); then
		echo "$id" >"$KV_TMP/$name.id"
		[ -n "${KV_IDS:-}" ] && echo "$id" >>"$KV_IDS"
	fi
	if [ "$rc" != 0 ]; then
		echo "$*: exit $rc"
		sed 's/^/stderr: /' "$KV_TMP/$name.err"
		sed 's/^/stdout: /' "$KV_TMP/$name.json" | cut -c1-2000
		return 1
	fi
	[ -s "$KV_TMP/$name.err" ] && sed 's/^/stderr: /' "$KV_TMP/$name.err"
	return 0
}

# Names of the devices `kvperf -j dev show` lists, one per line.
kv_dev_names() {
	kvperf -j dev show | kv_py -c '
import json, sys
for d in json.load(sys.stdin):
    print(d["ifname"])
'
}

kv_dev_listed() {
	kv_dev_names 2>/dev/null | grep -qx "$1"
}

# kv_raw_results ARRAY: one result per case of ARRAY, "DESC|WANT|REQUEST":
# REQUEST is sent raw (latlib.py nl, bypassing the tool's own checks) and
# its answer, "ERRNO: extack message" or "OK: ", must match the extended
# regex WANT whole. All from one python process (its start-up is slow
# under TCG).
kv_raw_results() {
	local -n kv_cases=$1
	local i c desc want got answers ok why

	for c in "${kv_cases[@]}"; do
		echo "${c##*|}"
	done | kv_py "$KV_DIR/latlib.py" nl - >"$KV_TMP/raw.out" 2>&1
	mapfile -t answers <"$KV_TMP/raw.out"
	for i in "${!kv_cases[@]}"; do
		c=${kv_cases[i]}
		desc=${c%%|*}
		want=${c#*|}
		want=${want%|*}
		got=${answers[i]:-}
		ok=1
		why=
		[[ $got =~ ^($want)$ ]] && ok=0
		[ "$ok" = 0 ] || why="${c##*|}: ${got:-no answer}"
		[ "$ok" = 0 ] || [ "$i" != 0 ] || why+=$'\n'"$(head -5 "$KV_TMP/raw.out")"
		kv_result "raw $desc: ${want//\\/}" "$ok" "${why:0:400}"
	done
}

# kv_run_state ID: the run's state, from sysfs.
kv_run_state() {
	cat "/sys/kernel/kvperf/runs/$1/state" 2>/dev/null
}

# kv_run_ended ID: the run is done, failed or stopped.
kv_run_ended() {
	case "$(kv_run_state "$1")" in
	done | failed | stopped) return 0 ;;
	esac
	return 1
}

# kv_run_measuring ID: the run is running and has completed some work.
kv_run_measuring() {
	local p

	[ "$(kv_run_state "$1")" = running ] || return 1
	p=$(kvperf -j run show "$1" | sed -n 's/.*"progress":\([0-9]*\).*/\1/p')
	[ "${p:-0}" -gt 0 ]
}

# kv_io_start ADDR ARGS...: an I/O run against ADDR that lasts (days
# under TCG), started with no-wait; prints its id once it measures.
kv_io_start() {
	local addr=$1 out id

	shift
	out=$(kvperf -j run io addr "$addr" iters 100000000 "$@" \
		timeout "$(kv_scaled 10000)ms" no-wait 2>&1) ||
		{ echo "run io $* no-wait: $out" >&2; return 1; }
	id=$(sed -n 's/^{"id":\([0-9]\+\)}$/\1/p' <<<"$out")
	[ -n "$id" ] || { echo "no-wait printed '$out'" >&2; return 1; }
	kv_wait 20 kv_run_measuring "$id" ||
		{ echo "run $id not measuring:" >&2; kvperf run show "$id" >&2; return 1; }
	echo "$id"
}

# kv_interval_lines OUT RW INTERVAL_MS: the text of a timed I/O run in
# OUT has interval lines of RW ("  [   1.1 s] RW: IOPS=...") with
# stamps that never go back, as many as the run's measured time (the
# longest of its blocks' "in X ms") holds intervals, give or take one:
# the count follows the run's real length, whatever the guest's speed.
kv_interval_lines() {
	awk -v rw="$2" -v iv="$3" '
		$1 == "[" && $3 == "s]" && $4 == rw ":" {
			if (n && $2 + 0 < last)
				bad = "stamp " $2 " s after " last " s"
			last = $2 + 0
			n++
		}
		/^ (read|write): IOPS=.* bytes in [0-9.]+ ms\)$/ {
			if ($(NF - 1) + 0 > ms)
				ms = $(NF - 1) + 0
		}
		END {
			if (!ms)
				bad = "no block with the measured time"
			else if (n < int(ms / iv + 0.5) - 1 || n > int(ms / iv + 0.5) + 1)
				bad = sprintf("%d %s interval lines in %.3f ms, want %d +-1 (interval %d ms)",
					      n, rw, ms, int(ms / iv + 0.5), iv)
			if (!bad)
				exit 0
			print bad
			exit 1
		}' "$1"
}

# kv_io_pinned_refused ADDR ARGS...: run io on ADDR with ARGS is refused
# by the pinned-memory limit (max_pinned_mb), naming it, and starts no
# run.
kv_io_pinned_refused() {
	local addr=$1 n

	shift
	n=$(cat /sys/kernel/kvperf/run_count)
	kv_run "$KV_TMP/pin.out" "$KV_TMP/pin.err" timeout "$(kv_scaled 20)" \
		kvperf run io addr "$addr" "$@"
	[ $? = 1 ] && grep -q 'pinned-memory limit reached (module parameter max_pinned_mb)' \
		"$KV_TMP/pin.err" &&
		[ "$(cat /sys/kernel/kvperf/run_count)" = "$n" ] && return 0
	cat "$KV_TMP/pin.out" "$KV_TMP/pin.err"
	return 1
}

# kv_delete_runs: every run the module lists deleted; fails if one could
# not be, after trying the rest. An exit hook for tests whose runs are
# not all tracked (kv_track_runs).
kv_delete_runs() {
	local i rc=0

	for i in $(kvperf -j run show | grep -o '"id":[0-9]*' | cut -d: -f2); do
		kvperf run delete "$i" || rc=1
	done
	return $rc
}

# kv_stop_servers: every kernel server the module lists stopped; fails
# if one could not be, after trying the rest.
kv_stop_servers() {
	local i rc=0

	for i in $(kvperf -j server show | grep -o '{"id":[0-9]*' | cut -d: -f2); do
		kvperf server stop "$i" || rc=1
	done
	return $rc
}

# kv_clean_all: every run deleted and every kernel server stopped; the
# module's counters are back to 0 within 10 s.
kv_clean_all() {
	kv_delete_runs && kv_stop_servers || return 1
	kv_counters_back_to_zero 10
}

# kv_freed: no connection and no pinned memory left.
kv_freed() {
	grep -qx 0 /sys/kernel/kvperf/connection_count &&
		grep -qx 0 /sys/kernel/kvperf/pinned_bytes
}

# kv_all_freed: kv_freed within 10 s, or say what is left.
kv_all_freed() {
	kv_wait 10 kv_freed && return 0
	echo "connection_count $(cat /sys/kernel/kvperf/connection_count), pinned_bytes $(cat /sys/kernel/kvperf/pinned_bytes)"
	return 1
}

# kv_io_stop_mid_run ADDR CONNS ARGS...: an I/O run with ARGS holds CONNS
# connections (both sides) while it runs; run stop ends it within 5 s,
# stopped, and frees everything.
kv_io_stop_mid_run() {
	local addr=$1 conns=$2 id

	shift 2
	id=$(kv_io_start "$addr" "$@") || return 1
	grep -qx "$conns" /sys/kernel/kvperf/connection_count ||
		{ echo "connection_count $(cat /sys/kernel/kvperf/connection_count), want $conns; run $id:"; kvperf run show "$id"; return 1; }
	kvperf run stop "$id" || return 1
	kv_wait 5 kv_run_ended "$id" || { echo "run $id is $(kv_run_state "$id") after 5 s"; return 1; }
	[ "$(kv_run_state "$id")" = stopped ] || { echo "state $(kv_run_state "$id")"; return 1; }
	kv_all_freed
}

# kv_io_server_stop_mid_run ADDR ARGS...: the server kv_server_start
# started stops under an I/O run with ARGS: the run fails saying so, and
# everything is freed.
kv_io_server_stop_mid_run() {
	local addr=$1 id err

	shift
	id=$(kv_io_start "$addr" "$@") || return 1
	kvperf server stop "$(cat "$KV_TMP/server")" || return 1
	kv_wait 10 kv_run_ended "$id" || { echo "run $id is $(kv_run_state "$id")"; return 1; }
	err=$(cat "/sys/kernel/kvperf/runs/$id/error")
	if [ "$(kv_run_state "$id")" != failed ] ||
	   ! grep -q 'the server closed the connection' <<<"$err"; then
		echo "state $(kv_run_state "$id"), error '$err'"
		return 1
	fi
	kv_all_freed
}

# kv_io_rmmod_mid_run ADDR ARGS...: with a server on ADDR and an I/O run
# with ARGS on it, rmmod returns within 10 s; insmod finds nothing left.
kv_io_rmmod_mid_run() {
	local addr=$1 start

	shift
	kv_server_start "$addr" || return 1
	kv_io_start "$addr" "$@" >/dev/null || return 1
	start=$SECONDS
	timeout "$(kv_scaled 30)" rmmod kvperf || { echo "rmmod failed"; return 1; }
	[ $((SECONDS - start)) -lt "$(kv_scaled 10)" ] ||
		{ echo "rmmod took $((SECONDS - start)) s"; return 1; }
	[ -e /sys/module/kvperf ] && { echo "still loaded"; return 1; }
	kv_insmod || { echo "insmod failed"; return 1; }
	kv_counters_zero || { grep -H . /sys/kernel/kvperf/*_count /sys/kernel/kvperf/pinned_bytes; return 1; }
}
