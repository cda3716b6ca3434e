# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the four-guest tests (selftests/vmcluster.sh). The tests run
# in kvc0 and reach the other guests as a cluster's tools do: ssh, pdsh
# and Slurm, all set up by the harness (selftests/vm/cluster.sh):
#
#   kvfab_require            in a vmcluster guest, root, the tool, the module
#   kvfab_on HOST CMD...     CMD on HOST over ssh (each word quoted for the
#                            remote shell), bounded; its status and output
#   kvfab_addr HOST          HOST's cluster address
#   kvfab_server_start HOST  a kernel server on HOST's cluster address,
#                            started over ssh; prints its id
#   kvfab_server_stop HOST ID
#   kvfab_kill HOST SECONDS  have the host SIGKILL HOST's QEMU and wait
#                            until it says it did
#   kvfab_pdsh_fails HOST    pdsh -S -w HOST fails, naming HOST, within
#                            the connect timeout
#
# Besides lib.sh's, the tests see KVPERF_CLUSTER_HOSTS (kvc0 first: this
# guest), KVPERF_CLUSTER_ADDRS, KVPERF_CLUSTER_DOWN_HOST (a name that
# resolves, to an address no guest has), KVPERF_CLUSTER_DOWN_ADDR,
# KVPERF_CLUSTER_DEV (rxe_c, on every guest), KVPERF_CLUSTER_NETDEV,
# KVPERF_CLUSTER_DIR (shared with the host), SLURM_CONF, and pdsh's
# PDSH_RCMD_TYPE, PDSH_SSH_ARGS_APPEND and PDSH_CONNECT_TIMEOUT.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../kvperf/lib.sh"

read -r -a kvfab_hosts <<<"${KVPERF_CLUSTER_HOSTS:-}"
read -r -a kvfab_addrs <<<"${KVPERF_CLUSTER_ADDRS:-}"
kvfab_dir=${KVPERF_CLUSTER_DIR:-}
# how long an ssh or pdsh may take to find a host gone (the harness's
# ConnectTimeout), and a command over ssh at most
kvfab_connect=${PDSH_CONNECT_TIMEOUT:-$(kv_scaled 3)}
kvfab_ssh_limit=$(kv_scaled 60)

# What every fabric test needs: a vmcluster guest (kvc0), root, the tool
# and the module; skips without them.
kvfab_require() {
	if [ ${#kvfab_hosts[@]} -lt 2 ] || [ ! -d "$kvfab_dir" ]; then
		kv_skip_all "not in a four-guest run (run selftests/vmcluster.sh)"
	fi
	[ "${KVPERF_CLUSTER_NAME:-}" = "${kvfab_hosts[0]}" ] ||
		kv_skip_all "runs in ${kvfab_hosts[0]}, not in ${KVPERF_CLUSTER_NAME:-?}"
	if ! command -v pdsh >/dev/null || ! command -v srun >/dev/null; then
		kv_skip_all "needs pdsh and Slurm's srun (make deps)"
	fi
	kv_require_root
	kv_require_cli
	kv_require_module
}

kvfab_on() {
	local host=$1

	shift
	timeout "$kvfab_ssh_limit" ssh -n "$host" -- "${*@Q}"
}

kvfab_addr() {
	local i

	for i in "${!kvfab_hosts[@]}"; do
		[ "${kvfab_hosts[i]}" = "$1" ] && echo "${kvfab_addrs[i]}" && return 0
	done
	echo "no host $1 in the cluster (${kvfab_hosts[*]})" >&2
	return 1
}

# kvfab_server_start HOST: a kernel server on HOST's cluster address, with
# the idle timeout lib.sh's wrapper gives local ones (ssh sessions do
# not have the wrapper); prints its id, or the error on stderr.
kvfab_server_start() {
	local addr out idle=$((10 * kv_time_scale > 600 ? 600 : 10 * kv_time_scale))

	addr=$(kvfab_addr "$1") || return 1
	out=$(kvfab_on "$1" kvperf -j server start addr "$addr" idle-timeout "$idle" 2>&1) ||
		{ echo "$1: kvperf server start: $out" >&2; return 1; }
	sed -n 's/^{"id":\([0-9]\+\),.*/\1/p' <<<"$out" | grep . ||
		{ echo "$1: unexpected output '$out'" >&2; return 1; }
}

# kvfab_server_stop HOST ID: stop it; HOST's module counts no server.
# (one ssh: each costs about a second under TCG)
kvfab_server_stop() {
	local n

	# shellcheck disable=SC2016 # expanded on HOST
	n=$(kvfab_on "$1" bash -c 'kvperf server stop "$1" >/dev/null && cat /sys/kernel/kvperf/server_count' \
		- "$2") || { echo "$1: kvperf server stop $2: $n"; return 1; }
	[ "$n" = 0 ] || { echo "$1: server_count $n after the stop"; return 1; }
}

kvfab_kill() {
	: >"$kvfab_dir/kill-$1"
	kv_wait "$2" test -e "$kvfab_dir/killed-$1" && return 0
	echo "the host did not kill $1 within $(kv_scaled "$2") s"
	return 1
}

# kvfab_pdsh_fails HOST: pdsh to HOST fails, naming it, within the
# connect timeout (and a few seconds for pdsh and ssh to start); prints
# what pdsh said and how long it took (the milliseconds also in
# $KV_TMP/pdsh-HOST.ms).
kvfab_pdsh_fails() {
	local host=$1 out rc t0 ms bound=$((kvfab_connect + $(kv_scaled 2)))

	t0=$(kv_ms)
	out=$(timeout "$((bound + 10))" pdsh -S -w "$host" true 2>&1)
	rc=$?
	ms=$(($(kv_ms) - t0))
	echo "$ms" >"$KV_TMP/pdsh-$host.ms"
	echo "pdsh -S -w $host true: exit $rc after $ms ms:"
	echo "$out"
	[ "$rc" != 0 ] || { echo "pdsh succeeded"; return 1; }
	[ "$rc" != 124 ] || { echo "pdsh hung"; return 1; }
	grep -q "^$host: " <<<"$out" || { echo "no error naming $host"; return 1; }
	[ "$ms" -le $((bound * 1000)) ] ||
		{ echo "took more than $bound s (connect timeout $kvfab_connect s)"; return 1; }
}

# --- kvperf fabric runs (the fabric_*.sh tests)

# the fabric runs' settings in the tests: half a second per measurement,
# the slowed host's delay, and tolerances wide enough for TCG's noise and
# narrow enough for the delay. Four guests on two CPUs: a round's two
# pairs at once make one another's latency up to 14 times the quietest
# pair's (0.3 to 4.2 ms seen), and bandwidth 3.6 times lower (4.7 to 17
# MiB/s); the delay adds 100 ms to the slowed host's latency (half the
# round trip), over 15 times the highest reference (4.2 ms). Runs with
# the slowed host measure latency only: its bandwidth runs drain their
# queue at a crawl, and latency names it.
kvfab_time=0.5
kvfab_delay_ms=${KVPERF_FABRIC_DELAY_MS:-200}
# shellcheck disable=SC2034 # the tests' (fabric_*.sh)
kvfab_tol=(lat-tolerance 15 bw-tolerance 10)

# kvfab_run NAME [salloc] ARGS...: kvperf fabric run ARGS out
# $KV_TMP/NAME, bounded (with salloc: inside an allocation of every
# guest); its stdout, stderr and exit status in NAME.out, NAME.err and
# NAME.rc, its seconds in NAME.s.
kvfab_run() {
	local name=$1 dir=$KV_TMP/$1 t0
	local -a pre=(timeout -k 10 "$(kv_scaled 600)")

	shift
	if [ "${1:-}" = salloc ]; then
		shift
		pre+=(salloc -N "${#kvfab_hosts[@]}" --immediate="$(kv_scaled 30)")
	fi
	t0=$(kv_ms)
	"${pre[@]}" kvperf fabric run "$@" dev "$KVPERF_CLUSTER_DEV" \
		time "$kvfab_time" out "$dir" >"$dir.out" 2>"$dir.err"
	echo $? >"$dir.rc"
	echo $((($(kv_ms) - t0) / 1000)) >"$dir.s"
	grep -E "^fabric: (round|re-testing|.* left out)" "$dir.err" | kv_diag
}

# kvfab_show NAME: what the run printed, for a failed check
kvfab_show() {
	echo "exit $(cat "$KV_TMP/$1.rc") after $(cat "$KV_TMP/$1.s") s; stderr:"
	cat "$KV_TMP/$1.err"
	echo "stdout:"
	cat "$KV_TMP/$1.out"
}

# kvfab_results NAME WANT-RC HOSTS FABCHECK-ARGS...: the run exited
# WANT-RC and its folder is what fabcheck.py expects of a run of HOSTS
# (comma-separated, in order)
kvfab_results() {
	local name=$1 want=$2 hosts=$3

	shift 3
	[ "$(cat "$KV_TMP/$name.rc")" = "$want" ] ||
		{ echo "want exit $want"; kvfab_show "$name"; return 1; }
	kv_py "$(dirname "${BASH_SOURCE[0]}")/fabcheck.py" "$KV_TMP/$name" \
		--hosts "$hosts" "$@" || { kvfab_show "$name"; return 1; }
}

# shellcheck disable=SC2034 # the tests'
kvfab_down=${KVPERF_CLUSTER_DOWN_HOST:-kvc4}

# kvfab_list NAME...: comma-separated
kvfab_list() {
	local IFS=,

	echo "$*"
}

# kvfab_slow HOST [off]: netem's delay on HOST's cluster link (egress),
# or none
kvfab_slow() {
	local nd=${KVPERF_CLUSTER_NETDEV:-kvcl0}

	if [ "${2:-}" = off ]; then
		kvfab_on "$1" tc qdisc del dev "$nd" root
	else
		kvfab_on "$1" tc qdisc replace dev "$nd" root netem delay "${kvfab_delay_ms}ms"
	fi
}

# kvfab_nothing_left HOST...: no kvperf server, run or fabric step on
# any of them (one pdsh)
kvfab_nothing_left() {
	local out

	# shellcheck disable=SC2016 # run on the hosts
	out=$(timeout "$(kv_scaled 60)" pdsh -S -w "$(kvfab_list "$@")" \
		'echo servers $(kvperf -j server show | grep -o "\"id\":" | wc -l) runs $(kvperf -j run show | grep -o "\"id\":" | wc -l) steps $(pgrep -fc "fabric [s]tep" || true)' 2>&1)
	echo "$out"
	[ "$(grep -c ': servers 0 runs 0 steps 0$' <<<"$out")" = "$#" ]
}

# kvfab_lines NAME REGEX COUNT: stderr of run NAME has COUNT lines
# matching REGEX (extended)
kvfab_lines() {
	local n

	n=$(grep -cE "$2" "$KV_TMP/$1.err")
	[ "$n" = "$3" ] && return 0
	echo "$n lines of stderr match '$2', want $3"
	kvfab_show "$1"
	return 1
}
