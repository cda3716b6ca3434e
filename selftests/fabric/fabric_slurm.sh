#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kvperf fabric under Slurm, from kvc0: outside an allocation it is an
# error naming it, and nothing starts on any node; inside one (salloc -N
# 4) the job's nodes are the hosts, measured by srun steps, with kvc2's
# link slowed by netem's delay: the full schedule and quick mode
# (latency: fabric_pdsh.sh measures bandwidth), each with the results
# folder what the schedule says and kvc2 the only bad host; nothing left
# running on any guest.

# shellcheck source=selftests/fabric/fablib.sh
. "$(dirname "$0")/fablib.sh"

kvfab_require

ktap_print_header
ktap_set_plan 7
kv_dmesg_mark

n=${#kvfab_hosts[@]}
slow=${kvfab_hosts[2]}
kv_on_exit kvfab_slow "$slow" off

outside() {
	local rc

	rc=$(env -u SLURM_JOB_ID -u SLURM_JOB_NODELIST kvperf fabric run \
		launcher slurm out "$KV_TMP/outside" 2>"$KV_TMP/outside.err"; echo $?)
	[ "$rc" = 2 ] || { echo "exit $rc, want 2"; cat "$KV_TMP/outside.err"; return 1; }
	grep -q "^kvperf: launcher slurm: not inside a Slurm allocation (SLURM_JOB_ID is not set)" \
		"$KV_TMP/outside.err" || { cat "$KV_TMP/outside.err"; return 1; }
	[ ! -e "$KV_TMP/outside" ] || { echo "a results folder was made"; return 1; }
	kvfab_nothing_left "${kvfab_hosts[@]}"
}
kv_check "launcher slurm outside an allocation: exit 2 naming it, no folder, nothing started" outside

kv_check "netem delays $slow's link by $kvfab_delay_ms ms" kvfab_slow "$slow"

kvfab_run full salloc launcher slurm tests lat "${kvfab_tol[@]}"
kv_check "full schedule under Slurm (salloc -N $n): exit 1, the job's $n nodes, the folder what the schedule says, $slow the only bad host" \
	kvfab_results full 1 "$(kvfab_list "${kvfab_hosts[@]}")" --tests lat \
	--bad "$slow"
echo "full schedule: $(cat "$KV_TMP/full.s") s" | kv_diag

kvfab_run quick salloc launcher slurm quick tests lat "${kvfab_tol[@]}"
kv_check "quick under Slurm: one round, re-tests, $slow the only bad host" \
	kvfab_results quick 1 "$(kvfab_list "${kvfab_hosts[@]}")" --schedule quick \
	--tests lat --bad "$slow"
echo "quick: $(cat "$KV_TMP/quick.s") s" | kv_diag

kv_check "nothing left running on any guest" kvfab_nothing_left "${kvfab_hosts[@]}"
kv_check "netem's delay on $slow taken off" kvfab_slow "$slow" off

kv_dmesg_check
ktap_finished
