# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# SW mode's devices: two Soft-RoCE devices, rxe0 and rxe1, on the dummy
# netdevs kvd0 and kvd1, each with an IPv4 and an IPv6 address. Sourced
# by lib.sh (a test run with no devices configured creates them) and by
# the vmtest guest (selftests/vm/guest.sh, once per boot). Needs root,
# the dummy and rdma_rxe modules (or a Soft-RoCE already loaded).

kv_sw_devs=(rxe0 rxe1)
kv_sw_netdevs=(kvd0 kvd1)
kv_sw_addrs=(198.18.0.1 198.18.1.1)
# IPv6, from the benchmarking range 2001:2::/48; nodad: usable at once,
# no duplicate address detection to wait for.
kv_sw_addrs6=(2001:2::1 2001:2:0:1::1)

# kv_sw_netdevs_add: the two dummy netdevs, up, with their addresses;
# one ip for all of it (every exec costs under TCG).
kv_sw_netdevs_add() {
	ip -batch - <<-EOF
		link add ${kv_sw_netdevs[0]} type dummy
		addr add ${kv_sw_addrs[0]}/24 dev ${kv_sw_netdevs[0]}
		addr add ${kv_sw_addrs6[0]}/64 dev ${kv_sw_netdevs[0]} nodad
		link set ${kv_sw_netdevs[0]} up
		link add ${kv_sw_netdevs[1]} type dummy
		addr add ${kv_sw_addrs[1]}/24 dev ${kv_sw_netdevs[1]}
		addr add ${kv_sw_addrs6[1]}/64 dev ${kv_sw_netdevs[1]} nodad
		link set ${kv_sw_netdevs[1]} up
	EOF
}

# kv_sw_rxe_add: a Soft-RoCE device on each netdev; says which failed.
kv_sw_rxe_add() {
	local i

	for i in 0 1; do
		rdma link add "${kv_sw_devs[i]}" type rxe \
			netdev "${kv_sw_netdevs[i]}" ||
			{ echo "rdma link add ${kv_sw_devs[i]} failed"; return 1; }
	done
}

# kv_sw_v4_gid ADDR: the RoCE GID of an IPv4 address, as sysfs shows it.
kv_sw_v4_gid() {
	local IFS=.

	# shellcheck disable=SC2086 # split the address on dots
	set -- $1
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$@"
}

# kv_sw_v6_gid ADDR: the RoCE GID of an IPv6 address with one "::": the
# address itself, every group of four hex digits written out.
kv_sw_v6_gid() {
	local head=${1%%::*} tail=${1#*::} i
	local -a h t groups=()

	IFS=: read -r -a h <<<"$head"
	IFS=: read -r -a t <<<"$tail"
	for i in "${h[@]}"; do groups+=("$(printf '%04x' "0x$i")"); done
	for ((i = ${#h[@]} + ${#t[@]}; i < 8; i++)); do groups+=(0000); done
	for i in "${t[@]}"; do groups+=("$(printf '%04x' "0x$i")"); done
	(IFS=:; echo "${groups[*]}")
}

# kv_sw_port_ready I: device I's port is ACTIVE and both its addresses
# have a GID (ib_core adds them from netdev events, the IPv6 one a little
# later).
kv_sw_port_ready() {
	local p=/sys/class/infiniband/${kv_sw_devs[$1]}/ports/1 state g gid
	local v4 v6 want4 want6

	want4=$(kv_sw_v4_gid "${kv_sw_addrs[$1]}")
	want6=$(kv_sw_v6_gid "${kv_sw_addrs6[$1]}")
	read -r state <"$p/state" 2>/dev/null || return 1
	[ "$state" = "4: ACTIVE" ] || return 1
	for g in "$p"/gids/*; do
		read -r gid <"$g" 2>/dev/null
		[ "$gid" = "$want4" ] && v4=1
		[ "$gid" = "$want6" ] && v6=1
	done
	[ -n "${v4:-}" ] && [ -n "${v6:-}" ]
}

# kv_sw_ready SECONDS: both ports ready within SECONDS, or say what each
# shows.
kv_sw_ready() {
	local i

	for _ in $(seq $((10 * $1))); do
		kv_sw_port_ready 0 && kv_sw_port_ready 1 && return 0
		sleep 0.1
	done
	for i in 0 1; do
		kv_sw_port_ready "$i" && continue
		echo "${kv_sw_devs[i]} is not ACTIVE with the GIDs of" \
			"${kv_sw_addrs[i]} and ${kv_sw_addrs6[i]} after $1 s:" \
			"$(cat "/sys/class/infiniband/${kv_sw_devs[i]}/ports/1/state" 2>&1)" \
			"$(cat "/sys/class/infiniband/${kv_sw_devs[i]}"/ports/1/gids/* 2>&1 |
			   grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$')"
	done
	return 1
}

# kv_sw_export: the tests' variables for these devices.
kv_sw_export() {
	export KVPERF_DEV0=${kv_sw_devs[0]} KVPERF_DEV1=${kv_sw_devs[1]}
	export KVPERF_NETDEV0=${kv_sw_netdevs[0]} KVPERF_NETDEV1=${kv_sw_netdevs[1]}
	export KVPERF_ADDR0=${kv_sw_addrs[0]} KVPERF_ADDR1=${kv_sw_addrs[1]}
	export KVPERF_ADDR6_0=${kv_sw_addrs6[0]} KVPERF_ADDR6_1=${kv_sw_addrs6[1]}
}

# kv_sw_del: the devices and the netdevs gone (what exists of them).
kv_sw_del() {
	local i

	for i in 0 1; do
		rdma link delete "${kv_sw_devs[i]}" 2>/dev/null
		ip link del "${kv_sw_netdevs[i]}" 2>/dev/null
	done
	return 0
}
