#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kvperf generic-netlink family under a seeded fuzzer (nl_fuzz, built
# from nl_fuzz.c): thousands (in a soak tens of thousands) of random,
# malformed and plausible requests, a share of them from an unprivileged
# user. Every request is answered, a good share reaches the handlers,
# which start runs and servers; nobody's state-changing requests are all
# refused with EPERM; afterwards nothing is left, the family still
# answers, a latency run works and the module's counters are back to 0.
#
# By default a smoke: 4000 requests (9-10 s on the 6.12 DMA lane, 400-450
# a second), at most 60 s times the time scale (at most 300 s; the debug
# kernel sent 33 a second). KVPERF_FUZZ_SOAK=1 soaks instead:
# 45 s times the time scale (at most 300 s), however many requests that
# is. Either way at least 2000 must be sent.
#
# Each run draws a fresh seed, printed in a diagnostic with the command
# that replays it and in the first check's description; NL_FUZZ_SEED=N
# replays one (the fuzzer's own "seed N" line is decimal, either form
# works). NL_FUZZ_COUNT and NL_FUZZ_SECONDS change the bounds.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "fuzzes a server on this host"
[ -x "$PY" ] || kv_skip_all "no $PY"
[ -x "$KV_DIR/nl_fuzz" ] || kv_skip_all "$KV_DIR/nl_fuzz is not built (make selftests)"
kv_require_module

fuzz_out=$KV_TMP/fuzz.out
sysfs=/sys/kernel/kvperf
counters="run_count server_count connection_count pinned_bytes"

# Whatever is left when the test ends (it fails or is killed), removed.
kv_on_exit kv_delete_runs
kv_on_exit kv_stop_servers

# val KEY: the value of the fuzzer's "KEY VALUE" line.
val() {
	sed -n "s/^$1 \([^ ]*\)$/\1/p" "$fuzz_out" | head -n 1
}

num() {
	local v

	v=$(val "$1")
	[[ $v =~ ^-?[0-9]+$ ]] && echo "$v" || echo -1
}

kv_dmesg_mark
ktap_set_plan 9

kv_fuzz_setup NL_FUZZ 4000 requests nl_fuzz.sh
start=$SECONDS
timeout "$(kv_scaled $((fuzz_secs + 120)))" "$KV_DIR/nl_fuzz" -n "$fuzz_count" \
	-t "$fuzz_secs" -s "$fuzz_seed" -w "$(kv_scaled 10)" \
	-a "$KVPERF_ADDR0" -a "$KVPERF_ADDR1" ${KVPERF_ADDR6_0:+-a "$KVPERF_ADDR6_0"} \
	>"$fuzz_out" 2>&1
rc=$?
echo "nl_fuzz: exit $rc after $((SECONDS - start)) s" >>"$fuzz_out"
kv_diag <"$fuzz_out"

sent=$(num sent)
reached=$(num reached)

answered() {
	echo "exit $rc, $(num failures) failures"
	grep '^# FAIL' "$fuzz_out"
	[ "$sent" -ge 2000 ] || { echo "only $sent requests sent"; return 1; }
	! grep -q '^# FAIL: request' "$fuzz_out" || return 1
	[ "$(num failures)" = 0 ]
}
kv_check "seed $fuzz_seed: $sent requests sent, every one answered" answered

reach() {
	echo "$reached of $sent reached the handlers"
	[ "$sent" -gt 0 ] && [ $((reached * 100 / sent)) -ge 20 ]
}
kv_check "$reached of $sent requests reached the handlers (at least 20 %)" reach

work() {
	local r s

	r=$(num runs_started) s=$(num servers_started)
	echo "runs started: $r, servers started: $s"
	[ "$r" -gt 0 ] && [ "$s" -gt 0 ]
}
kv_check "the handlers started $(num runs_started) runs and $(num servers_started) servers" work

unpriv() {
	local admin eperm dump bad gets ok

	admin=$(num unpriv_admin) eperm=$(num unpriv_eperm)
	dump=$(num unpriv_dump_refused) bad=$(num unpriv_violations)
	gets=$(num unpriv_gets) ok=$(num unpriv_gets_answered)
	echo "state-changing: $admin, EPERM: $eperm, dumps refused: $dump, accepted or wrong error: $bad"
	echo "gets: $gets, answered: $ok"
	[ "$eperm" -ge 20 ] && [ "$bad" = 0 ] &&
		[ $((eperm + dump)) = "$admin" ] && [ "$ok" -gt 0 ]
}
kv_check "as nobody, $(num unpriv_eperm) state-changing requests refused with EPERM, none accepted" \
	unpriv

nothing_left() {
	local runs servers

	echo "left after the fuzzer's clean-up: $(num left_runs) runs, $(num left_servers) servers"
	runs=$(kvperf -j run show) servers=$(kvperf -j server show)
	echo "kvperf run show: $runs"
	echo "kvperf server show: $servers"
	[ "$(num left_runs)" = 0 ] && [ "$(num left_servers)" = 0 ] &&
		[ "$runs" = "[]" ] && [ "$servers" = "[]" ]
}
kv_check "no run and no server left" nothing_left

devs_listed() {
	kv_dev_listed "$KVPERF_DEV0" && kv_dev_listed "$KVPERF_DEV1"
}
kv_check "the family still answers: dev-get lists $KVPERF_DEV0 and $KVPERF_DEV1" \
	devs_listed

lat_works() {
	local srv id json rc=0

	srv=$(kvperf server start addr "$KVPERF_ADDR0") || return 1
	echo "$srv"
	[[ $srv =~ ^server\ ([0-9]+)\  ]] || return 1
	srv=${BASH_REMATCH[1]}
	json=$(timeout "$(kv_scaled 60)" kvperf -j run lat op send \
		addr "$KVPERF_ADDR0" size 64 iters 200 \
		timeout "$(kv_scaled 5000)ms") || rc=1
	echo "$json" | head -c 600
	echo
	id=$(echo "$json" | kv_py -c '
import json, sys
d = json.load(sys.stdin)
d = d[0] if isinstance(d, list) else d
print(d["id"])
assert d["state"] == "done", d["state"]
' 2>&1) || rc=1
	echo "run: $id"
	[[ $id =~ ^[0-9]+$ ]] && { kvperf run delete "$id" || rc=1; }
	kvperf server stop "$srv" || rc=1
	return "$rc"
}
kv_check "a latency run works afterwards (send, 64 B, 200 iterations)" lat_works

counters_zero() {
	local c

	for c in $counters; do
		[ "$(cat "$sysfs/$c")" = 0 ] || return 1
	done
}

show_counters() {
	local c

	kv_wait 10 counters_zero && return 0
	for c in $counters; do
		echo "$c: $(cat "$sysfs/$c" 2>&1)"
	done
	return 1
}
kv_check "counters are 0: $counters" show_counters
kv_dmesg_check

ktap_finished
