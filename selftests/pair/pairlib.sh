# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the two-guest tests (selftests/vmpair.sh). Each test script
# runs in both guests: in guest A (KVPERF_PEER_ROLE=a) it prints KTAP and
# judges; in guest B (=b) selftests/pair/run.sh runs its peer part, whose
# output lands in B's run directory (KVPERF_PAIR_DIR/b/TEST.log) and
# whose files A checks. The guests talk through marker files in the
# pair directory, shared over 9p with each other and the host:
#
#   kvpair_put NAME [TEXT]     write marker NAME (of this test) whole
#   kvpair_wait NAME SECONDS   wait for the peer's marker NAME; fails at
#                              once when the peer is gone or done with
#                              this test
#   kvpair_wait_peer SECONDS   the peer is set up and answers on the link
#   kvpair_kill_peer SECONDS   (A) have the host SIGKILL guest B's QEMU
#
# Besides lib.sh's, the tests see KVPERF_SELF_ADDR, KVPERF_PEER_ADDR,
# their IPv6 twins, KVPERF_DEVX (rxe_x) and KVPERF_PAIR_DIR.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../kvperf/lib.sh"

kvpair_test=$(basename "$0" .sh)
kvpair_role=${KVPERF_PEER_ROLE:-}
kvpair_dir=${KVPERF_PAIR_DIR:-}
kvpair_sync=$kvpair_dir/sync
case "$kvpair_role" in
a) kvpair_peer=b ;;
b) kvpair_peer=a ;;
*) kvpair_peer= ;;
esac

# What every pair test needs: a vmpair guest, root, the tool and the
# module; skips (in B: ends) without them.
kvpair_require() {
	if [ -z "$kvpair_peer" ] || [ ! -d "$kvpair_dir" ]; then
		kv_skip_all "not in a two-guest run (run selftests/vmpair.sh)"
	fi
	mkdir -p "$kvpair_sync" || kv_bail "mkdir $kvpair_sync"
	# The peer part of this test runs once A's has started.
	if [ "$kvpair_role" = a ]; then
		kvpair_put a-start
		kv_on_exit kvpair_put a-end
	fi
	kv_require_devices
	kv_require_root
	kv_require_cli
	kv_require_module
}

# The marker file NAME of this test.
kvpair_file() {
	echo "$kvpair_sync/$kvpair_test.$1"
}

kvpair_put() {
	local f

	f=$(kvpair_file "$1")
	echo "${2:-}" >"$f.tmp.$kvpair_role" && mv -f "$f.tmp.$kvpair_role" "$f"
}

# Why the peer will write nothing more for this test, or nothing.
kvpair_peer_gone() {
	if [ "$kvpair_role" = a ]; then
		[ -e "$kvpair_dir/peer-killed" ] && echo "guest B was killed" && return
		[ -e "$kvpair_dir/b-exited" ] && echo "guest B has ended" && return
		[ -e "$(kvpair_file b-end)" ] &&
			echo "B's part of $kvpair_test ended (exit $(cat "$(kvpair_file b-end)"))"
	else
		[ -e "$kvpair_dir/a-finished" ] && echo "guest A has ended" && return
		[ -e "$(kvpair_file a-end)" ] &&
			echo "A's part of $kvpair_test ended"
	fi
}

# kvpair_wait NAME SECONDS: 0 once marker NAME exists; 1 (saying why)
# when the peer is gone first or SECONDS times the time scale pass.
kvpair_wait() {
	local f end=$((SECONDS + $2 * kv_time_scale)) gone

	f=$(kvpair_file "$1")
	while :; do
		[ -e "$f" ] && return 0
		gone=$(kvpair_peer_gone)
		if [ -n "$gone" ]; then
			# (it may have written NAME just before it went)
			[ -e "$f" ] && return 0
			echo "no '$1' from guest $kvpair_peer: $gone"
			return 1
		fi
		if [ "$SECONDS" -ge "$end" ]; then
			echo "no '$1' from guest $kvpair_peer within $(($2 * kv_time_scale)) s"
			return 1
		fi
		sleep 0.2
	done
}

# kvpair_wait_peer SECONDS: the peer guest is set up (its ready marker)
# and answers a ping on the link (which also resolves its MAC).
kvpair_wait_peer() {
	kv_wait "$1" test -e "$kvpair_dir/ready-$kvpair_peer" ||
		{ echo "guest $kvpair_peer was not ready within $(kv_scaled "$1") s"; return 1; }
	kv_wait "$1" busybox ping -c 1 -W 1 "$KVPERF_PEER_ADDR" ||
		{ echo "guest $kvpair_peer ($KVPERF_PEER_ADDR) does not answer pings"; return 1; }
}

# kvpair_kill_peer SECONDS: (A) ask the host to SIGKILL guest B's QEMU
# and wait until it says it did.
kvpair_kill_peer() {
	: >"$kvpair_dir/kill-peer"
	kv_wait "$1" test -e "$kvpair_dir/peer-killed" && return 0
	echo "the host did not kill guest B within $(kv_scaled "$1") s"
	return 1
}

# kvpair_peer_log: B's output of this test, as diagnostics.
kvpair_peer_log() {
	local log=$kvpair_dir/b/$kvpair_test.log

	[ -s "$log" ] || return 0
	echo "guest B's $kvpair_test.log:"
	tail -n 30 "$log"
}

# kvpair_server_start ADDR: start a kernel server on ADDR; prints its id.
kvpair_server_start() {
	local out

	out=$(kvperf -j server start addr "$1" 2>&1) || { echo "$out" >&2; return 1; }
	sed -n 's/^{"id":\([0-9]\+\),.*/\1/p' <<<"$out" | grep . ||
		{ echo "unexpected output '$out'" >&2; return 1; }
}

# kvpair_delete_runs: delete every run the module keeps.
kvpair_delete_runs() {
	local i

	for i in $(kvperf -j run show | kv_py -c '
import json, sys
for r in json.load(sys.stdin):
    print(r["id"])
'); do
		kvperf run delete "$i" || return 1
	done
}

# kvpair_counters: the module's counters, "name value" a line.
kvpair_counters() {
	local c

	for c in run_count server_count connection_count pinned_bytes; do
		echo "$c $(cat "/sys/kernel/kvperf/$c" 2>&1)"
	done
}

# kvpair_counters_zero [FILE]: every counter (of FILE, as kvpair_counters
# wrote it, or the module's now) is 0.
kvpair_counters_zero() {
	local c v

	while read -r c v; do
		[ "$v" = 0 ] || return 1
	done < <(if [ -n "${1:-}" ]; then cat "$1"; else kvpair_counters; fi)
}
