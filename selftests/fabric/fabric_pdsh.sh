#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kvperf fabric under pdsh, from kvc0, over the four guests and kvc4,
# which is down from the start: the full schedule (3 rounds of 2 pairs,
# latency and bandwidth both ways), then, with kvc2's link slowed by
# netem's delay (KVPERF_FABRIC_DELAY_MS), quick mode (one round, then
# re-tests; latency). Each run: kvc4 left out, saying it is unreachable;
# the results folder what the schedule says (every pair once, no host
# twice in a round, every measurement in the CSV and the heat maps'
# data); no bad host in the first, kvc2 named the only bad host in the
# second, no bad link; a live line per round; nothing left running on
# any guest. Then a run
# stopped by SIGINT in its first round: it ends, keeps what it measured
# (interrupted in fabric.json), and leaves nothing running.

# shellcheck source=selftests/fabric/fablib.sh
. "$(dirname "$0")/fablib.sh"

kvfab_require

ktap_print_header
ktap_set_plan 9
kv_dmesg_mark

n=${#kvfab_hosts[@]}
list="kvc[0-$((n - 1))],$kvfab_down"
hosts=$(kvfab_list "${kvfab_hosts[@]}" "$kvfab_down")
slow=${kvfab_hosts[2]}
kv_on_exit kvfab_slow "$slow" off

kvfab_run full launcher pdsh hosts "$list" "${kvfab_tol[@]}"
kv_check "full schedule under pdsh: exit 1, $kvfab_down left out (unreachable), the folder what the schedule says (latency, bandwidth both ways), no bad host or link" \
	kvfab_results full 1 "$hosts" --left-out "$kvfab_down:unreachable: $kvfab_down"
echo "full schedule: $(cat "$KV_TMP/full.s") s" | kv_diag
# shellcheck disable=SC2016 # expanded by eval
kv_check "a live line per round ($((n - 1))), one left-out line naming $kvfab_down" \
	eval 'kvfab_lines full "^fabric: round [0-9]+ \(full\): [0-9]+ pairs in" $((n - 1)) &&
	      kvfab_lines full "^fabric: $kvfab_down left out: unreachable: " 1'

kv_check "netem delays $slow's link by $kvfab_delay_ms ms" kvfab_slow "$slow"
kvfab_run quick launcher pdsh hosts "$list" quick tests lat "${kvfab_tol[@]}"
kv_check "quick under pdsh, $slow slowed: one round of $((n / 2)) pairs, re-tests, $slow the only bad host" \
	kvfab_results quick 1 "$hosts" --schedule quick --tests lat \
	--left-out "$kvfab_down:unreachable: $kvfab_down" --bad "$slow"
echo "quick: $(cat "$KV_TMP/quick.s") s" | kv_diag
# shellcheck disable=SC2016 # expanded by eval
kv_check "quick: its round, then a round of re-tests of the suspects with new partners" \
	eval 'kvfab_lines quick "^fabric: round 1 \(quick\): [0-9]+ pairs in" 1 &&
	      kvfab_lines quick "^fabric: re-testing [0-9]+ suspect pairs" 1'
kv_check "netem's delay on $slow taken off" kvfab_slow "$slow" off

kv_check "nothing left running on any guest (servers, runs, steps)" \
	kvfab_nothing_left "${kvfab_hosts[@]}"

# SIGINT once the first round's steps run on the hosts
interrupted() {
	local pid

	kvfab_run int launcher pdsh hosts "kvc[0-$((n - 1))]" &
	pid=$!
	# kvc0 is a host of the run too: its step shows the round running
	if ! kv_wait 60 pgrep -f "fabric [s]tep" >/dev/null; then
		echo "no step started within $(kv_scaled 60) s"
		kill "$pid"
		wait "$pid"
		return 1
	fi
	pkill -INT -f '^[^ ]*kvperf fabric run '
	wait "$pid"
	kvfab_results int 1 "$(kvfab_list "${kvfab_hosts[@]}")" --interrupted ||
		return 1
	grep -q "fabric: interrupted; what was measured is kept" "$KV_TMP/int.err" ||
		{ kvfab_show int; return 1; }
	kvfab_nothing_left "${kvfab_hosts[@]}"
}
kv_check "SIGINT in round 1: the run ends, fabric.json says interrupted, nothing left running" \
	interrupted

kv_dmesg_check
ktap_finished
