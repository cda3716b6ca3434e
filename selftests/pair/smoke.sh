#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two guests, two kernels (A 6.12 and B 6.1 under make check), over the
# link between them (rxe_x on kvx0): kernel servers in A (on its IPv4
# and IPv6 addresses) serve a latency run (send, IPv4), a latency run
# over IPv6 (read, 4 KiB) and a bandwidth run (write, 64 KiB, two queue
# pairs) from B's kernel clients; then the reverse, servers in B serving
# the same runs from A. Every
# run completes on rxe_x with the iterations asked and sane numbers (a
# median latency of 1 us to 1 s, a bandwidth above 0.1 MiB/s); both
# servers stop, both modules' counters are back to 0, A's kernel log is
# clean (vmpair.sh scans B's).

# shellcheck source=selftests/pair/pairlib.sh
. "$(dirname "$0")/pairlib.sh"

iters=200
patient=(timeout "$(kv_scaled 5000)ms")

# client NAME ADDR: the three runs against a server at ADDR, each run's
# JSON in $jdir/NAME-{lat,lat6,bw}.json; prints what failed.
client() {
	local name=$1 addr=$2 addr6=$3 rc=0

	kv_run "$jdir/$name-lat.json" "$jdir/$name-lat.err" \
		timeout "$(kv_scaled 120)" kvperf -j run lat op send addr "$addr" \
		size 64 iters "$iters" "${patient[@]}" || rc=1
	kv_run "$jdir/$name-lat6.json" "$jdir/$name-lat6.err" \
		timeout "$(kv_scaled 120)" kvperf -j run lat op read addr "$addr6" \
		size 4096 iters "$iters" "${patient[@]}" || rc=1
	kv_run "$jdir/$name-bw.json" "$jdir/$name-bw.err" \
		timeout "$(kv_scaled 120)" kvperf -j run bw op write addr "$addr" \
		size 65536 iters "$iters" qps 2 "${patient[@]}" || rc=1
	cat "$jdir/$name"-*.err
	return "$rc"
}

# sane DIR NAME: NAME's three runs (in DIR) hold together, ran on rxe_x
# and have sane numbers.
sane() {
	local d=$1 name=$2 rc=0

	kv_py "$KV_DIR/latlib.py" run "$d/$name-lat.json" --state 'done' \
		--op send --iters "$iters" --sizes 64 --field dev=rxe_x || rc=1
	kv_py "$KV_DIR/latlib.py" run "$d/$name-lat6.json" --state 'done' \
		--op read --iters "$iters" --sizes 4096 --field dev=rxe_x || rc=1
	kv_py "$KV_DIR/bwlib.py" run "$d/$name-bw.json" --state 'done' \
		--op write --qps 2 --iters "$iters" --sizes 65536 \
		--field dev=rxe_x || rc=1
	kv_py - "$d/$name-lat.json" "$d/$name-lat6.json" "$d/$name-bw.json" <<-'EOF' || rc=1
		import json, sys
		bad = []
		for path in sys.argv[1:]:
		    run = json.load(open(path))
		    for r in run["results"]:
		        if run["type"] == "lat":
		            v = r["p50_ns"]
		            if not 1000 <= v <= 10**9:
		                bad.append(f"{path}: p50 {v} ns, want 1 us to 1 s")
		        else:
		            v = float(r["bw_avg_mibps"])
		            if not v > 0.1:
		                bad.append(f"{path}: {v} MiB/s, want > 0.1")
		            print(f"{path}: {v} MiB/s")
		print("\n".join(bad))
		sys.exit(1 if bad else 0)
	EOF
	return "$rc"
}

# servers: kernel servers on this guest's IPv4 and IPv6 addresses on
# the link; prints their ids.
servers() {
	kvpair_server_start "$KVPERF_SELF_ADDR" &&
		kvpair_server_start "$KVPERF_SELF_ADDR6"
}

# summary DIR NAME: one line of NAME's numbers.
summary() {
	kv_py - "$1/$2-lat.json" "$1/$2-lat6.json" "$1/$2-bw.json" <<-'EOF' 2>&1
		import json, sys
		words = []
		for path in sys.argv[1:]:
		    try:
		        run = json.load(open(path))
		        r = run["results"][-1]
		    except (OSError, ValueError, KeyError, IndexError):
		        continue
		    what = f"{run['type']} {run['op']} {r['size']} B to {run['addr']}"
		    if run["type"] == "lat":
		        words.append(f"{what}: p50 {r['p50_ns'] / 1000:.1f} us")
		    else:
		        words.append(f"{what}: {float(r['bw_avg_mibps']):.2f} MiB/s")
		print("; ".join(words))
	EOF
}

kvpair_require

if [ "$kvpair_role" = b ]; then
	jdir=$KVPERF_RUNDIR
	# A's servers first, then B's own for A's clients.
	kvpair_wait server-a 300 || exit 1
	client b2a "$KVPERF_PEER_ADDR" "$KVPERF_PEER_ADDR6"
	kvpair_put b-clients-done "$?"
	sids=$(servers) || exit 1
	kvpair_put server-b "$sids"
	kvpair_wait a-clients-done 300
	for sid in $sids; do
		timeout "$(kv_scaled 60)" kvperf server stop "$sid"
	done
	kvpair_delete_runs
	kv_wait 30 kvpair_counters_zero
	kvpair_counters >"$jdir/$kvpair_test-counters"
	exit 0
fi

ktap_print_header
# the peer; A's server, B's runs on it; B's server, A's runs on it; the
# servers stopped and the counters of both; the kernel log
ktap_set_plan 9
kv_dmesg_mark
jdir=$KV_TMP
bdir=$kvpair_dir/b

kv_check "guest B is up and answers on the link ($KVPERF_PEER_ADDR)" \
	kvpair_wait_peer 120 || kv_bail "no peer"

sids=$(servers 2>"$jdir/sid.err")
kv_result "A ($KVPERF_KVER): kernel servers on $KVPERF_SELF_ADDR, $KVPERF_SELF_ADDR6" $? \
	"$(cat "$jdir/sid.err")" || kv_bail "no server"
# shellcheck disable=SC2016 # expanded when the hook runs
kv_on_exit 'for i in $sids; do kvperf server stop $i; done'
kvpair_put server-a "$sids"

b_runs() {
	kvpair_wait b-clients-done 600 || { kvpair_peer_log; return 1; }
	[ "$(cat "$(kvpair_file b-clients-done)")" = 0 ] ||
		{ echo "B's clients failed:"; kvpair_peer_log; }
	sane "$bdir" b2a || { kvpair_peer_log; return 1; }
}
kv_check "B's kernel clients against A's server: lat send, lat read over IPv6, bw write x 2 QPs" \
	b_runs
summary "$bdir" b2a | kv_diag

a_runs() {
	kvpair_wait server-b 120 || { kvpair_peer_log; return 1; }
	client a2b "$KVPERF_PEER_ADDR" "$KVPERF_PEER_ADDR6" || return 1
	sane "$jdir" a2b
}
kv_check "B's kernel servers, A's clients against them: the same runs" a_runs
summary "$jdir" a2b | kv_diag
kvpair_put a-clients-done

stop() {
	local i

	for i in $sids; do
		timeout "$(kv_scaled 60)" kvperf server stop "$i" || return 1
	done
}
kv_check "A's servers stop" stop
kv_check "A's runs deleted" kvpair_delete_runs
zero() {
	kv_wait 30 kvpair_counters_zero && return 0
	kvpair_counters
	return 1
}
kv_check "A's module counters back to 0" zero

b_zero() {
	local f=$bdir/$kvpair_test-counters

	kvpair_wait b-end 120 || { kvpair_peer_log; return 1; }
	[ "$(cat "$(kvpair_file b-end)")" = 0 ] ||
		{ echo "B's part exited $(cat "$(kvpair_file b-end)")"; kvpair_peer_log; return 1; }
	kvpair_counters_zero "$f" && return 0
	echo "B's counters:"
	cat "$f"
	kvpair_peer_log
	return 1
}
kv_check "B's servers stop, B's module counters back to 0" b_zero
echo "# kernels: A $KVPERF_KVER, B $(cat "$kvpair_dir/ready-b")"
kv_dmesg_check

ktap_finished
