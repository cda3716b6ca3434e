# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# HW mode: the tests on a real RDMA device against a second host, which
# runs the servers. kvperf.config beside the tests (or $KVPERF_CONFIG),
# a file of shell assignments as drivers/net's net.config is, names:
#
#   KVPERF_DEV0          this host's RDMA device
#   KVPERF_NETDEV0       its netdev
#   KVPERF_ADDR0         this host's IPv4 address on that netdev
#   KVPERF_REMOTE_ADDR   the remote host's IPv4 address on the fabric
#   KVPERF_REMOTE_TYPE   how to reach the remote host: ssh (the only one)
#   KVPERF_REMOTE_ARGS   ssh's options and destination, split on blanks,
#                        e.g. "-i /root/.ssh/kvperf_test root@host2"
#
# The remote host has kvperf.ko loaded and the kvperf tool on the PATH
# its ssh sessions get; ssh must log in without asking (a key). Without
# KVPERF_REMOTE_ADDR the tests are in SW mode: servers and runs on this
# host. Sourced by lib.sh, whose kv_require_devices calls kv_hw_setup.
# A test that runs in HW mode too takes its servers' address from
# KV_SERVER_ADDR and starts and stops them with kv_peer (lib.sh's
# kv_server_start, kv_server_stop); one that needs what only SW mode has
# (two local devices, device removal, Soft-RoCE, a server's insides)
# calls kv_require_sw, or kv_require_rxe, with the reason.
#
#   kv_hw              true in HW mode
#   kv_require_sw WHY  skip the test in HW mode, saying WHY
#   kv_require_peer    the remote host answers (HW mode; bails if not)
#   kv_peer CMD...     CMD where the servers run: here in SW mode, on
#                      the remote host in HW mode (its status and output)
#   KV_SERVER_ADDR     where the servers listen: KVPERF_ADDR0 in SW mode,
#                      KVPERF_REMOTE_ADDR in HW mode

kv_hw() {
	[ -n "${KVPERF_REMOTE_ADDR:-}" ]
}

kv_require_sw() {
	kv_hw && kv_skip_all "HW mode: $1"
	return 0
}

# ssh's control socket: one connection per test, opened by kv_require_peer
kv_ssh_sock=$KV_TMP/ssh

kv_peer() {
	local -a args

	if ! kv_hw; then
		"$@"
		return
	fi
	# shellcheck disable=SC2206 # options and destination, split on blanks
	args=($KVPERF_REMOTE_ARGS)
	# one word for the remote shell, each argument quoted for it
	ssh -n -o BatchMode=yes -S "$kv_ssh_sock" "${args[@]}" -- "${*@Q}"
}

# kv_hw_setup: HW mode's configuration checked (kv_require_devices
# calls it); a missing or wrong key bails. Sets KV_SERVER_ADDR in either
# mode.
kv_hw_setup() {
	local k

	if ! kv_hw; then
		KV_SERVER_ADDR=$KVPERF_ADDR0
		return 0
	fi
	for k in KVPERF_DEV0 KVPERF_NETDEV0 KVPERF_ADDR0 KVPERF_REMOTE_TYPE \
		 KVPERF_REMOTE_ARGS; do
		[ -n "${!k:-}" ] || kv_bail "HW mode (KVPERF_REMOTE_ADDR is set): $k is not"
	done
	[ "$KVPERF_REMOTE_TYPE" = ssh ] ||
		kv_bail "KVPERF_REMOTE_TYPE=$KVPERF_REMOTE_TYPE: the remote host is reached by ssh only"
	[ -d "/sys/class/infiniband/$KVPERF_DEV0" ] ||
		kv_bail "KVPERF_DEV0=$KVPERF_DEV0: no such RDMA device"
	[ -d "/sys/class/net/$KVPERF_NETDEV0" ] ||
		kv_bail "KVPERF_NETDEV0=$KVPERF_NETDEV0: no such netdev"
	KV_SERVER_ADDR=$KVPERF_REMOTE_ADDR
}

# kv_require_peer: where the servers run is ready: in HW mode the
# connection to the remote host opened (closed when the test exits), its
# module loaded and its tool on the PATH, or the test bails saying what
# is wrong. Called by a test that uses kv_peer, once it is past its
# skips (a skipped test opens no connection).
kv_require_peer() {
	local out
	local -a args

	kv_hw || return 0
	command -v ssh >/dev/null || kv_bail "HW mode needs ssh (openssh-client)"
	# shellcheck disable=SC2206 # options and destination, split on blanks
	args=($KVPERF_REMOTE_ARGS)
	# (-f: in the background once logged in, with the log file open;
	# a pipe would keep a $(...) waiting for it)
	timeout "$(kv_scaled 30)" ssh -o BatchMode=yes -M -S "$kv_ssh_sock" \
		-f -N "${args[@]}" >"$KV_TMP/ssh.log" 2>&1 ||
		kv_bail "HW mode: ssh $KVPERF_REMOTE_ARGS failed: $(tr '\n' ' ' <"$KV_TMP/ssh.log")"
	kv_on_exit "ssh -S '$kv_ssh_sock' -O exit ${args[*]@Q}"
	# shellcheck disable=SC2016 # run by the remote shell
	out=$(kv_peer sh -c 'test -d /sys/module/kvperf || echo "kvperf.ko is not loaded"; command -v kvperf >/dev/null || echo "no kvperf on the PATH"' 2>&1) ||
		kv_bail "HW mode: the remote host did not run a command: $out"
	[ -z "$out" ] || kv_bail "HW mode: on the remote host, $out"
}
