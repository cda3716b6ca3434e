#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The four-guest cluster works as a cluster's tools need it to: pdsh
# over ssh runs a command on kvc0 to kvc3, each answering once with its
# own name; Slurm runs a task on each of the four nodes (srun -N 4); a
# kernel send latency run of kvc0 (100 iterations, the kernel path, on
# rxe_c) completes against a kernel server started over ssh on kvc1, on
# its cluster address, and stopped after (fabric_*.sh measure every
# pair); pdsh to the
# host that is down from the start (kvc4) fails, naming it, within the
# connect timeout (a guest killed through the request file: see
# fabric_kill.sh). kvc0's kernel log is clean (vmcluster.sh scans all
# four).

# shellcheck source=selftests/fabric/fablib.sh
. "$(dirname "$0")/fablib.sh"

kvfab_require

ktap_print_header
# pdsh; srun; a latency run to kvc1; kvc4; the kernel log
ktap_set_plan 5
kv_dmesg_mark
kv_on_exit kv_delete_runs

# names_once WANT GOT: GOT's lines, sorted, are WANT's, each once; says
# what differs.
names_once() {
	local want got

	want=$(sort <<<"$1")
	got=$(sort <<<"$2")
	[ "$want" = "$got" ] && return 0
	echo "want, one each:"
	echo "$want" | kv_diag
	echo "got:"
	echo "$2" | kv_diag
	return 1
}

# the harness names the guests kvc0, kvc1, ... in order: pdsh's range
all=kvc[0-$((${#kvfab_hosts[@]} - 1))]
pdsh_hostname() {
	local out rc want

	out=$(timeout "$(kv_scaled 60)" pdsh -S -R ssh -w "$all" hostname 2>"$KV_TMP/pdsh.err")
	rc=$?
	# "HOST: NAME" from each host, NAME its own
	want=$(for h in "${kvfab_hosts[@]}"; do echo "$h: $h"; done)
	names_once "$want" "$out" || { cat "$KV_TMP/pdsh.err"; return 1; }
	[ "$rc" = 0 ] || { echo "pdsh exit $rc:"; cat "$KV_TMP/pdsh.err"; return 1; }
}
kv_check "pdsh -R ssh -w $all hostname: each of ${kvfab_hosts[*]} answers once, with its own name" \
	pdsh_hostname

srun_hostname() {
	local out rc n=${#kvfab_hosts[@]}

	# --immediate: fail, not queue, when the nodes are not all there
	out=$(timeout "$(kv_scaled 60)" srun -N "$n" --immediate="$(kv_scaled 10)" \
		hostname 2>"$KV_TMP/srun.err")
	rc=$?
	[ "$rc" = 0 ] || { echo "srun exit $rc:"; cat "$KV_TMP/srun.err"; return 1; }
	names_once "$(printf '%s\n' "${kvfab_hosts[@]}")" "$out" ||
		{ cat "$KV_TMP/srun.err"; return 1; }
}
kv_check "srun -N ${#kvfab_hosts[@]} hostname: one task on each node" srun_hostname

# lat_to HOST: a kernel server on HOST over ssh, kvc0's kernel send
# latency run against it on rxe_c, the server stopped.
lat_to() {
	local host=$1 addr sid rc=0 json=$KV_TMP/lat-$1.json

	addr=$(kvfab_addr "$host") || return 1
	sid=$(kvfab_server_start "$host") || return 1
	kv_run "$json" "$KV_TMP/lat-$host.err" timeout "$(kv_scaled 120)" \
		kvperf -j run lat op send addr "$addr" iters 100 path kernel \
		timeout "$(kv_scaled 5000)ms" ||
		{ echo "kvperf run lat to $host ($addr) failed:"; cat "$KV_TMP/lat-$host.err"; rc=1; }
	[ "$rc" = 0 ] && { kv_py "$KV_DIR/latlib.py" run "$json" --state 'done' --op send \
		--iters 100 --field "dev=$KVPERF_CLUSTER_DEV" || rc=1; }
	kvfab_server_stop "$host" "$sid" || rc=1
	return "$rc"
}
h=${kvfab_hosts[1]}
kv_check "kernel send latency from ${kvfab_hosts[0]} to $h ($(kvfab_addr "$h")) on $KVPERF_CLUSTER_DEV, its server started and stopped over ssh" \
	lat_to "$h"
kv_py - "$KV_TMP/lat-$h.json" "$h" <<-'EOF' 2>/dev/null | kv_diag
	import json, sys
	r = json.load(open(sys.argv[1]))["results"][-1]
	print(f"to {sys.argv[2]}: p50 {r['p50_ns'] / 1000:.1f} us, p99 {r['p99_ns'] / 1000:.1f} us")
EOF

down=${KVPERF_CLUSTER_DOWN_HOST:-kvc4}
kv_check "pdsh -w $down (down from the start) fails within the connect timeout, naming it" \
	kvfab_pdsh_fails "$down"
[ -r "$KV_TMP/pdsh-$down.ms" ] &&
	echo "pdsh to $down ended after $(cat "$KV_TMP/pdsh-$down.ms") ms" | kv_diag

kv_dmesg_check
ktap_finished
