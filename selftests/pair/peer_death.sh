#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A client host that dies does not hold a kernel server's resources for
# ever. A kernel server in A; B starts a long bandwidth run (write, 64
# KiB, 600 s) and a long latency run (send, 600 s) against it; once A's
# server lists both connections, the host SIGKILLs guest B's QEMU: no
# disconnect, no RDMA CM message, the link stays up. Within the deadline
# (KVPERF_PEER_DEATH_DEADLINE seconds, default 7 times the time scale:
# Documentation/security.rst's bound, a keep-alive probe every idle
# timeout / 4 (2.5 s) failing after 4 tries of about 1 s) the server's
# connection list is empty, the module's connection_count and
# pinned_bytes are back to 0, and the server counted the dead peer
# (closed_dead); then the server stops and every counter is 0. Kills B:
# the last test of the plan.

# shellcheck source=selftests/pair/pairlib.sh
. "$(dirname "$0")/pairlib.sh"

kvpair_require

if [ "$kvpair_role" = b ]; then
	kvpair_wait server-up 300 || exit 1
	long=(addr "$KVPERF_PEER_ADDR" time 600 no-wait)
	bw=$(kvperf -j run bw op write size 65536 "${long[@]}" 2>&1)
	echo "bw: $bw"
	lat=$(kvperf -j run lat op send size 64 "${long[@]}" 2>&1)
	echo "lat: $lat"
	kvpair_put runs-started "$bw $lat"
	# Until the host kills this guest (or A is done without it).
	kvpair_wait never 3600
	exit 0
fi

deadline=${KVPERF_PEER_DEATH_DEADLINE:-$(kv_scaled 7)}
sysfs=/sys/kernel/kvperf

ktap_print_header
# the peer; the server; B's runs connected; the kill; the connection
# list and the counters within the deadline; closed_dead; the server
# stops; all 0; the kernel log
ktap_set_plan 10
kv_dmesg_mark

kv_check "guest B is up and answers on the link ($KVPERF_PEER_ADDR)" \
	kvpair_wait_peer 120 || kv_bail "no peer"

sid=$(kvpair_server_start "$KVPERF_SELF_ADDR" 2>"$KV_TMP/sid.err")
kv_result "kernel server on $KVPERF_SELF_ADDR" $? "$(cat "$KV_TMP/sid.err")" ||
	kv_bail "no server"
kv_on_exit "timeout $(kv_scaled 30) kvperf server stop $sid"
kvpair_put server-up "$sid"

# conns N: the server lists N connections (-ge with "+").
conns() {
	kvperf -j server show "$sid" | kv_py -c '
import json, sys
s = json.load(sys.stdin)
s = s[0] if isinstance(s, list) else s
n, want = len(s.get("conns") or []), sys.argv[1]
ok = n >= int(want[:-1]) if want.endswith("+") else n == int(want)
sys.exit(0 if ok and s.get("conn_count") == n else 1)
' "$1"
}

connected() {
	kvpair_wait runs-started 300 || { kvpair_peer_log; return 1; }
	grep -q '"id":[0-9]' "$(kvpair_file runs-started)" ||
		{ cat "$(kvpair_file runs-started)"; return 1; }
	kv_wait 60 conns 2+ && return 0
	kvperf -j server show "$sid"
	return 1
}
kv_check "B's bw and lat runs are connected to the server" connected ||
	kv_bail "no connections to lose"
kvperf -j server show "$sid" | kv_diag
kvpair_counters | kv_diag

kv_check "the host kills guest B (SIGKILL of its QEMU)" kvpair_kill_peer 60 ||
	kv_bail "B is still there"

# Until the deadline: the list empty, and the module holds no connection
# and no pinned memory.
t0=$SECONDS
end=$((SECONDS + deadline))
list_empty=1 counters=1
while :; do
	conns 0
	list_empty=$?
	[ "$(cat "$sysfs/connection_count")" = 0 ] &&
		[ "$(cat "$sysfs/pinned_bytes")" = 0 ]
	counters=$?
	[ "$list_empty" = 0 ] && [ "$counters" = 0 ] && break
	[ "$SECONDS" -ge "$end" ] && break
	sleep 0.5
done
took=$((SECONDS - t0))
kv_result "the server's connection list is empty within $deadline s of B's death (after $took s)" \
	"$list_empty" "$(kvperf -j server show "$sid" 2>&1)"
kv_result "connection_count and pinned_bytes back to 0 within $deadline s (after $took s)" \
	"$counters" "$(kvpair_counters)"

counted_dead() {
	kvperf -j server show "$sid" >"$KV_TMP/dead.json" || return 1
	kv_py "$KVPERF_TOP/selftests/kvperf/serverlib.py" fields \
		"$KV_TMP/dead.json" "$sid" "closed_dead>=1" closed_idle=0
}
kv_check "the server counted the vanished peer (closed_dead >= 1, closed_idle 0)" \
	counted_dead

kv_check "the server stops" timeout "$(kv_scaled 30)" kvperf server stop "$sid"
zero() {
	kv_wait 10 kvpair_counters_zero && return 0
	kvpair_counters
	return 1
}
kv_check "module counters all 0" zero
kv_dmesg_check

ktap_finished
