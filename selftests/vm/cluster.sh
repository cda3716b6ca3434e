# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The guest's side of a four-guest run (selftests/vmcluster.sh), sourced
# by guest.sh when its config has CLUSTER_NAME: the cluster NIC (kvcl0,
# the virtio-net device with the MAC vmcluster.sh gave) with rxe_c on it,
# the hostname and /etc/hosts, and the services (sshd, munged, slurmd;
# slurmctld on kvc0), all from the files in the shared cluster directory;
# the variables that describe the cluster; the "ready-NAME" marker, and
# on kvc0 the wait for the whole cluster ("cluster-ready"); the other
# guests' idle command (cluster_idle).
#
# guest.sh calls cluster_start early (the NIC, and the services started
# in the background, while the RDMA modules load), cluster_setup where
# vmpair's guests set up their link (rxe_c; the services' start
# awaited), then cluster_export and cluster_ready before the command.
#
# Config (written by vmcluster.sh): CLUSTER_NAME, CLUSTER_DIR (shared
# with the host and the other guests over 9p), CLUSTER_MAC, CLUSTER_ADDR,
# CLUSTER_HOSTS and CLUSTER_ADDRS (all four, same order),
# CLUSTER_DOWN_HOST and CLUSTER_DOWN_ADDR (a name no guest has),
# CLUSTER_NETDEV, CLUSTER_DEV, CLUSTER_CPUS.
#
# Nothing of the host's / (read-only here) is changed: /etc/hosts is a
# bind mount of a file on /run; the daemons' keys and configuration are
# on /run, their state on /var/lib (tmpfs), their logs in this guest's
# run directory; root's ssh client configuration in /root (tmpfs).

# the private copies: keys only root may read
cl_priv=/run/kvcluster
cl_run=${CLUSTER_DIR:-}/${CLUSTER_NAME:-}
cl_slurm_conf=${CLUSTER_DIR:-}/slurm/slurm.conf
# kvc0, where slurmctld runs and the command
cl_head=${CLUSTER_HOSTS:-${KVPERF_CLUSTER_HOSTS:-}}
cl_head=${cl_head%% *}
cl_connect_timeout=$((3 * ${time_scale:-1}))

# cluster_step NAME: note the seconds since boot at step NAME.
cluster_step() {
	local up

	read -r up _ </proc/uptime
	echo "$1 $up" >>"$cl_run/steps"
}

# cluster_start: the NIC, the names, the keys; then the services, in the
# background (cluster_setup waits for them). Calls fail_setup on errors.
cluster_start() {
	local n mac name=''

	cluster_step start
	# virtio_rng: the host's entropy, or munged and sshd wait for the
	# guest's random pool (8-25 s after boot under TCG)
	modprobe -a virtio_net virtio_rng || fail_setup "modprobe virtio_net virtio_rng"
	# No udev here: the NIC is the netdev with the MAC vmcluster.sh gave.
	for n in /sys/class/net/*; do
		read -r mac <"$n/address" 2>/dev/null || continue
		[ "$mac" = "$CLUSTER_MAC" ] && name=${n##*/} && break
	done
	[ -n "$name" ] || fail_setup "no netdev with MAC $CLUSTER_MAC (the cluster NIC)"
	ip -batch - <<-EOF || fail_setup "setting up $CLUSTER_NETDEV ($name)"
		link set $name name $CLUSTER_NETDEV
		addr add $CLUSTER_ADDR/24 dev $CLUSTER_NETDEV
		link set $CLUSTER_NETDEV up
	EOF
	hostname "$CLUSTER_NAME"
	(umask 077 && mkdir -p "$cl_priv" /root/.ssh) || fail_setup "mkdir $cl_priv"
	{ cp "$CLUSTER_DIR/hosts" "$cl_priv/hosts" &&
		mount --bind "$cl_priv/hosts" /etc/hosts; } ||
		fail_setup "bind-mounting the cluster's hosts file on /etc/hosts"
	(umask 077 &&
		cp "$CLUSTER_DIR/munge.key" "$cl_priv/munge.key" &&
		cp "$CLUSTER_DIR/ssh/${CLUSTER_NAME}_host_ed25519" "$cl_priv/ssh_host_ed25519_key" &&
		cp "$CLUSTER_DIR/ssh/id_ed25519" "$cl_priv/id_ed25519" &&
		cp "$CLUSTER_DIR/ssh/id_ed25519.pub" "$cl_priv/authorized_keys") ||
		fail_setup "copying the cluster's keys to $cl_priv"
	# root's ssh client: every guest of the cluster (and kvc4) with the
	# run's key and host keys, no prompt, a bounded connect
	cat >/root/.ssh/config <<-EOF
		Host kvc? 10.98.0.*
		    User root
		    IdentityFile $cl_priv/id_ed25519
		    IdentitiesOnly yes
		    UserKnownHostsFile $CLUSTER_DIR/ssh/known_hosts
		    GlobalKnownHostsFile /dev/null
		    StrictHostKeyChecking yes
		    BatchMode yes
		    ConnectTimeout $cl_connect_timeout
	EOF
	cluster_step net
	cluster_services >"$cl_priv/services.err" 2>&1 &
	cl_services_pid=$!
}

# cluster_pdsh_args: what pdsh's ssh gets on top of its own, for
# PDSH_SSH_ARGS_APPEND (the same as root's ssh config says).
cluster_pdsh_args() {
	echo "-i $cl_priv/id_ed25519 -o IdentitiesOnly=yes" \
		"-o UserKnownHostsFile=$CLUSTER_DIR/ssh/known_hosts" \
		"-o StrictHostKeyChecking=yes -o BatchMode=yes" \
		"-o ConnectTimeout=$cl_connect_timeout"
}

# cluster_services: sshd, and munged then Slurm's daemons; prints what
# failed. Each daemon forks once it is set up.
cluster_services() {
	local sshd ctld='' rc=0 user_path

	# Commands run over ssh get sshd's PATH: the project's tool first,
	# then root's usual PATH (guest.sh's); and the cluster's variables.
	# shellcheck disable=SC2154 # guest.sh's
	user_path=$top/user:$PATH
	mkdir -p /run/sshd
	cat >"$cl_priv/sshd_config" <<-EOF
		ListenAddress $CLUSTER_ADDR
		HostKey $cl_priv/ssh_host_ed25519_key
		PidFile $cl_priv/sshd.pid
		AuthorizedKeysFile $cl_priv/authorized_keys
		PermitRootLogin prohibit-password
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		UsePAM no
		PrintMotd no
		PrintLastLog no
		UseDNS no
		MaxStartups 64:30:128
		# not 9.x's first choice, sntrup761x25519: under TCG (qemu64)
		# its key exchange alone took 1.5 of an ssh's 2.5 s
		KexAlgorithms curve25519-sha256,curve25519-sha256@libssh.org
		SetEnv PATH=$user_path SLURM_CONF=$cl_slurm_conf KVPERF_TOP=$top PDSH_RCMD_TYPE=ssh PDSH_CONNECT_TIMEOUT=$cl_connect_timeout "PDSH_SSH_ARGS_APPEND=$(cluster_pdsh_args)"
	EOF
	/usr/sbin/sshd -f "$cl_priv/sshd_config" -E "$cl_run/sshd.log" &
	sshd=$!

	mkdir -p /run/munge /var/lib/munge /run/slurm \
		/var/lib/slurm/slurmctld /var/lib/slurm/slurmd
	# no supplementary group map: Slurm does not use it, and reading
	# the groups takes munged a second here
	if munged --key-file="$cl_priv/munge.key" --log-file="$cl_run/munged.log" \
		  --seed-file=/var/lib/munge/munged.seed --group-update-time=-1; then
		cluster_step munged
		export SLURM_CONF=$cl_slurm_conf
		# both at once on kvc0: a slurmd that starts before slurmctld
		# registers when slurmctld asks
		if [ "$CLUSTER_NAME" = "$cl_head" ]; then
			slurmctld &
			ctld=$!
		fi
		slurmd -N "$CLUSTER_NAME" ||
			{ echo "slurmd failed (log: $cl_run/slurmd.log)"; rc=1; }
		cluster_step slurmd
		if [ -n "$ctld" ]; then
			wait "$ctld" ||
				{ echo "slurmctld failed (log: $cl_run/slurmctld.log)"; rc=1; }
			cluster_step slurmctld
		fi
	else
		echo "munged failed (log: $cl_run/munged.log)"
		rc=1
	fi
	wait "$sshd" || { echo "sshd failed (log: $cl_run/sshd.log)"; rc=1; }
	cluster_step sshd
	return "$rc"
}

# cluster_setup: rxe_c on the NIC, ACTIVE with its IPv4 GID; the
# services started. Calls fail_setup on any error.
cluster_setup() {
	local p gid v4 state g

	cluster_step rdma
	rdma link add "$CLUSTER_DEV" type rxe netdev "$CLUSTER_NETDEV" ||
		fail_setup "rdma link add $CLUSTER_DEV"
	v4=$(kv_sw_v4_gid "$CLUSTER_ADDR")
	p=/sys/class/infiniband/$CLUSTER_DEV/ports/1
	gid=
	# shellcheck disable=SC2154 # guest.sh's
	for _ in $(seq $((100 * time_scale))); do
		read -r state <"$p/state" 2>/dev/null
		if [ "${state:-}" = "4: ACTIVE" ]; then
			for g in "$p"/gids/*; do
				read -r g <"$g" 2>/dev/null
				[ "$g" = "$v4" ] && gid=1 && break
			done
		fi
		[ -n "$gid" ] && break
		sleep 0.1
	done
	[ -n "$gid" ] || fail_setup "$CLUSTER_DEV is not ACTIVE with its GID $v4" \
		"after $((10 * time_scale)) s: ${state:-no state}"
	cluster_step rxe_c
	wait "$cl_services_pid" ||
		fail_setup "the cluster's services: $(cat "$cl_priv/services.err")"
	cluster_step services
}

# cluster_export: the cluster's variables, for the command and the tests.
cluster_export() {
	export KVPERF_CLUSTER_NAME=$CLUSTER_NAME
	export KVPERF_CLUSTER_HOSTS=$CLUSTER_HOSTS
	export KVPERF_CLUSTER_ADDRS=$CLUSTER_ADDRS
	export KVPERF_CLUSTER_DOWN_HOST=$CLUSTER_DOWN_HOST
	export KVPERF_CLUSTER_DOWN_ADDR=$CLUSTER_DOWN_ADDR
	export KVPERF_CLUSTER_DEV=$CLUSTER_DEV
	export KVPERF_CLUSTER_NETDEV=$CLUSTER_NETDEV
	export KVPERF_CLUSTER_DIR=$CLUSTER_DIR
	export SLURM_CONF=$cl_slurm_conf
	export PDSH_RCMD_TYPE=ssh
	export PDSH_CONNECT_TIMEOUT=$cl_connect_timeout
	PDSH_SSH_ARGS_APPEND=$(cluster_pdsh_args)
	export PDSH_SSH_ARGS_APPEND
	echo "# vmcluster: $CLUSTER_NAME, $CLUSTER_DEV on $CLUSTER_NETDEV" \
		"$CLUSTER_ADDR/24; cluster $CLUSTER_HOSTS"
}

# cluster_put NAME: a marker file in the cluster directory, written whole.
cluster_put() {
	uname -r >"$CLUSTER_DIR/$1.tmp.$CLUSTER_NAME" &&
		mv -f "$CLUSTER_DIR/$1.tmp.$CLUSTER_NAME" "$CLUSTER_DIR/$1"
}

# cluster_wait_ready: (kvc0) every guest's setup is done, every node is
# idle in sinfo and pdsh reaches every guest; prints what is missing.
cluster_missing() {
	local n nodes states

	for n in $CLUSTER_HOSTS; do
		[ -e "$CLUSTER_DIR/$n-exited" ] && echo "$n has ended" && return 2
		[ -e "$CLUSTER_DIR/ready-$n" ] || { echo "$n is not set up"; return 1; }
	done
	nodes=$(echo "$CLUSTER_HOSTS" | tr ' ' ,)
	states=$(sinfo -h -N -n "$nodes" -o '%N %T' 2>&1 | sort -u)
	[ "$(grep -c ' idle$' <<<"$states")" = 4 ] ||
		{ echo "sinfo: $(tr '\n' ' ' <<<"$states")"; return 1; }
	pdsh -S -w "$nodes" true 2>&1 || return 1
}

# cluster_ready: this guest is set up; kvc0 then waits for the cluster
# (fail_setup if it is not ready within 120 s, scaled).
cluster_ready() {
	local why rc end=$((SECONDS + 120 * time_scale))

	cluster_put "ready-$CLUSTER_NAME"
	[ "$CLUSTER_NAME" = "$cl_head" ] || return 0
	while :; do
		why=$(cluster_missing)
		rc=$?
		# each look, in the run directory: what the cluster waited for
		echo "$(cut -d' ' -f1 /proc/uptime) $rc ${why//$'\n'/ }" >>"$cl_run/ready.log"
		case $rc in
		0) break ;;
		2) fail_setup "the cluster is not ready: $why" ;;
		esac
		[ "$SECONDS" -ge "$end" ] &&
			fail_setup "the cluster is not ready after $((120 * time_scale)) s: $why"
		sleep 0.5
	done
	cluster_step ready
	cluster_put cluster-ready
}

# cluster_idle: the command of the guests but kvc0: wait until kvc0's
# QEMU has ended (the host writes kvc0-finished).
cluster_idle() {
	until [ -e "$KVPERF_CLUSTER_DIR/$cl_head-finished" ]; do
		sleep 1
	done
	echo "# vmcluster: $cl_head finished; powering off"
}
