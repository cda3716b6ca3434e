#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A host killed in the middle of a kvperf fabric run (under pdsh, the
# full schedule over the four guests): once the first round has ended,
# the harness SIGKILLs kvc3's QEMU (no shutdown, no RDMA CM disconnect).
# The run ends within its bounds, exit 1; kvc3 is reported lost with the
# round and a reason; its later pairs are not tried and every pair of the
# others is measured; nothing is left running on the other guests; pdsh
# to kvc3 then fails within the connect timeout, naming it. Runs last:
# kvc3 stays dead.

# shellcheck source=selftests/fabric/fablib.sh
. "$(dirname "$0")/fablib.sh"

kvfab_require

ktap_print_header
ktap_set_plan 5
kv_dmesg_mark

n=${#kvfab_hosts[@]}
victim=${kvfab_hosts[-1]}
alive=("${kvfab_hosts[@]:0:n-1}")

killed_mid_run() {
	local pid

	kvfab_run kill launcher pdsh hosts "kvc[0-$((n - 1))]" "${kvfab_tol[@]}" &
	pid=$!
	if ! kv_wait 300 grep -q "^fabric: round 1 (full)" "$KV_TMP/kill.err"; then
		echo "round 1 did not end within $(kv_scaled 300) s"
		kill "$pid"
		wait "$pid"
		return 1
	fi
	kvfab_kill "$victim" 10 || { wait "$pid"; return 1; }
	wait "$pid"
	kvfab_results kill 1 "$(kvfab_list "${kvfab_hosts[@]}")" --lost "$victim"
}
kv_check "$victim killed after round 1 of a full run: the run ends, exit 1, $victim lost, the other pairs measured" \
	killed_mid_run
echo "the run took $(cat "$KV_TMP/kill.s") s" | kv_diag

lost_line() {
	grep -E "^  $victim: lost: lost in round [0-9]+: " "$KV_TMP/kill.out" &&
		return 0
	kvfab_show kill
	return 1
}
kv_check "the summary says $victim was lost, in which round and why" lost_line

kv_check "nothing left running on ${alive[*]}" kvfab_nothing_left "${alive[@]}"

kv_check "pdsh to $victim then fails within the connect timeout, naming it" \
	kvfab_pdsh_fails "$victim"

kv_dmesg_check
ktap_finished
