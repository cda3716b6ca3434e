# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The guest's side of a two-guest run (selftests/vmpair.sh), sourced by
# guest.sh when its config has PAIR_ROLE (a or b): the link to the other
# guest (an extra virtio-net device, kvx0, with rxe_x on it), the
# variables that describe it, the "ready-ROLE" marker in the shared pair
# directory, and the peer command's runner (pair_run_peer).
#
# Config (written by vmpair.sh): PAIR_ROLE, PAIR_DIR (shared by both
# guests and the host over 9p), PAIR_MAC (this guest's link MAC),
# PAIR_ADDR/PAIR_PEER_ADDR, PAIR_ADDR6/PAIR_PEER_ADDR6, and maybe
# PAIR_ENV (VAR=VALUE words to export).

pair_netdev=kvx0
pair_dev=rxe_x

# pair_setup: virtio_net, the link named kvx0 with its addresses, and
# rxe_x on it, ACTIVE with both GIDs. Calls fail_setup on any error.
pair_setup() {
	local n mac name='' gid v4 v6 state g

	modprobe virtio_net || fail_setup "modprobe virtio_net"
	# No udev here: the link is the netdev with the MAC vmpair.sh gave.
	for n in /sys/class/net/*; do
		read -r mac <"$n/address" 2>/dev/null || continue
		[ "$mac" = "$PAIR_MAC" ] && name=${n##*/} && break
	done
	[ -n "$name" ] || fail_setup "no netdev with MAC $PAIR_MAC (the link to the peer)"
	ip -batch - <<-EOF || fail_setup "setting up $pair_netdev ($name)"
		link set $name name $pair_netdev
		addr add $PAIR_ADDR/24 dev $pair_netdev
		addr add $PAIR_ADDR6/64 dev $pair_netdev nodad
		link set $pair_netdev up
	EOF
	rdma link add "$pair_dev" type rxe netdev "$pair_netdev" ||
		fail_setup "rdma link add $pair_dev"
	v4=$(kv_sw_v4_gid "$PAIR_ADDR")
	v6=$(kv_sw_v6_gid "$PAIR_ADDR6")
	n=/sys/class/infiniband/$pair_dev/ports/1
	# shellcheck disable=SC2154 # guest.sh's
	for _ in $(seq $((100 * time_scale))); do
		read -r state <"$n/state" 2>/dev/null
		gid=0
		if [ "${state:-}" = "4: ACTIVE" ]; then
			for g in "$n"/gids/*; do
				read -r g <"$g" 2>/dev/null
				[ "$g" = "$v4" ] && gid=$((gid | 1))
				[ "$g" = "$v6" ] && gid=$((gid | 2))
			done
		fi
		[ "$gid" = 3 ] && return 0
		sleep 0.1
	done
	fail_setup "$pair_dev is not ACTIVE with its GIDs ($v4, $v6)" \
		"after $((10 * time_scale)) s: ${state:-no state}"
}

# pair_export: the pair's variables, for the command and the tests.
pair_export() {
	local kv

	hostname "kvperf-$PAIR_ROLE"
	export KVPERF_PEER_ROLE=$PAIR_ROLE
	export KVPERF_PAIR_DIR=$PAIR_DIR
	export KVPERF_SELF_ADDR=$PAIR_ADDR KVPERF_PEER_ADDR=$PAIR_PEER_ADDR
	export KVPERF_SELF_ADDR6=$PAIR_ADDR6 KVPERF_PEER_ADDR6=$PAIR_PEER_ADDR6
	export KVPERF_DEVX=$pair_dev KVPERF_NETDEVX=$pair_netdev
	for kv in ${PAIR_ENV:-}; do
		# shellcheck disable=SC2163 # exports the VAR=VALUE word
		export "$kv"
	done
	echo "# vmpair: guest $PAIR_ROLE, $pair_dev on $pair_netdev" \
		"$PAIR_ADDR/24 $PAIR_ADDR6/64, peer $PAIR_PEER_ADDR $PAIR_PEER_ADDR6"
}

# pair_ready: tell the peer and the host that this guest is set up.
pair_ready() {
	uname -r >"$PAIR_DIR/ready-$PAIR_ROLE.tmp" &&
		mv -f "$PAIR_DIR/ready-$PAIR_ROLE.tmp" "$PAIR_DIR/ready-$PAIR_ROLE"
}

# pair_run_peer SCRIPT: guest B's command (in its own bash, which has
# only the exported variables). Runs SCRIPT until it ends or
# guest A has finished (the host writes "a-finished"), whichever comes
# first; then stops what is left of it. Returns its status, or 0 when it
# was stopped because A finished (a peer's normal end).
pair_run_peer() {
	local pid

	setsid bash "$1" </dev/null &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ -e "$KVPERF_PAIR_DIR/a-finished" ]; then
			echo "# vmpair: guest A finished; stopping the peer command"
			kill -TERM -- "-$pid" 2>/dev/null
			for _ in $(seq 20); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			kill -KILL -- "-$pid" 2>/dev/null
			wait "$pid"
			return 0
		fi
		sleep 0.5
	done
	wait "$pid"
}
