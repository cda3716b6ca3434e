#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# HW mode (selftests/kvperf/remote.sh) as on two real hosts: guest B runs
# the whole VM suite, by the kernel's runner (selftests/kvperf/run.sh),
# with guest A as the remote host that runs the servers, and nothing but
# a kvperf.config to tell it where things are: its device rxe_x on kvx0,
# its address, A's address on the link and the ssh arguments that reach
# A (a key made for this run; A's host key, made for this run, the one
# known host). A runs sshd on its link address for the length of B's
# part; kvperf.ko is loaded in both; B's suite runs with none of the
# harness's device variables. (B, the older kernel under make check, is
# the client: the 6.1 lane leaves these scripts to this test.)
#
# A judges: the scripts that run in HW mode passed (bad_input.sh,
# bw_basic.sh, lat_basic.sh, nl_malformed.sh); every other script
# skipped with a reason that starts "HW mode:"; none failed; afterwards A
# has no server and its counters are 0, and its kernel log is clean
# (vmpair.sh scans B's).

# shellcheck source=selftests/pair/pairlib.sh
. "$(dirname "$0")/pairlib.sh"

# the scripts HW mode runs; the rest of the plan skips
hw_tests=(bad_input.sh bw_basic.sh lat_basic.sh nl_malformed.sh)
ssh_dir=/root/.ssh	# a tmpfs in the guests (selftests/vm/init.sh)
suite=$kvpair_dir/b/hw_mode.suite	# B's suite output, read by A

kvpair_require
for p in ssh ssh-keygen /usr/sbin/sshd; do
	command -v "$p" >/dev/null ||
		kv_skip_all "no $p (make deps installs openssh-client and openssh-server)"
done

# B: a key, the config file, then the suite; its output to $suite and
# its status in the marker suite-done.
if [ "$kvpair_role" = b ]; then
	conf=$KV_TMP/kvperf.config
	ssh-keygen -q -t ed25519 -N '' -C kvperf-hw-mode -f "$KV_TMP/id" ||
		exit 1
	kvpair_put client-key "$(cat "$KV_TMP/id.pub")"
	kvpair_wait host-key 120 || exit 1
	echo "$KVPERF_PEER_ADDR $(cat "$(kvpair_file host-key)")" \
		>"$KV_TMP/known_hosts"
	# shellcheck disable=SC2153 # KVPERF_DEVX, KVPERF_NETDEVX: pair.sh's
	cat >"$conf" <<-EOF
		KVPERF_DEV0=$KVPERF_DEVX
		KVPERF_NETDEV0=$KVPERF_NETDEVX
		KVPERF_ADDR0=$KVPERF_SELF_ADDR
		KVPERF_REMOTE_ADDR=$KVPERF_PEER_ADDR
		KVPERF_REMOTE_TYPE=ssh
		KVPERF_REMOTE_ARGS="-i $KV_TMP/id -o UserKnownHostsFile=$KV_TMP/known_hosts -o StrictHostKeyChecking=yes root@$KVPERF_PEER_ADDR"
	EOF
	cat "$conf"
	# the runner, in an environment without the harness's devices: the
	# config file alone
	env -i PATH="$PATH" HOME=/root TERM=dumb KVPERF_CONFIG="$conf" \
		KVPERF_TIME_SCALE="$kv_time_scale" KVPERF_LANE=feature \
		bash "$KVPERF_TOP/selftests/kvperf/run.sh" >"$suite.tmp" 2>&1
	rc=$?
	mv -f "$suite.tmp" "$suite"
	kvpair_put suite-done "$rc"
	exit 0
fi

sshd_listens() {
	ss -ltnH "src $KVPERF_SELF_ADDR:22" | grep -q .
}

# A: sshd on the link, B's key the one it accepts, this run's host key
sshd_up() {
	kvpair_wait client-key 120 || { kvpair_peer_log; return 1; }
	mkdir -p "$ssh_dir" /run/sshd && chmod 700 "$ssh_dir" /run/sshd &&
		cp "$(kvpair_file client-key)" "$ssh_dir/authorized_keys" &&
		ssh-keygen -q -t ed25519 -N '' -f "$KV_TMP/host_key" ||
		return 1
	# no system config (-f /dev/null): this run's keys, this address
	/usr/sbin/sshd -D -e -f /dev/null -o "ListenAddress=$KVPERF_SELF_ADDR" \
		-o "HostKey=$KV_TMP/host_key" -o PermitRootLogin=prohibit-password \
		-o PasswordAuthentication=no -o KbdInteractiveAuthentication=no \
		-o UsePAM=no -o "SetEnv=PATH=$PATH" -o PidFile=none \
		>/dev/null 2>"$KV_TMP/sshd.log" &
	echo "$!" >"$KV_TMP/sshd.pid"
	kv_wait 30 sshd_listens ||
		{ echo "sshd does not listen:"; cat "$KV_TMP/sshd.log"; return 1; }
	kvpair_put host-key "$(cut -d' ' -f1,2 "$KV_TMP/host_key.pub")"
}

# B's suite ended, with a result line per script
suite_ran() {
	kvpair_wait suite-done 1500 || { kvpair_peer_log; return 1; }
	grep -q '^ok [0-9]* selftests: ' "$suite" && return 0
	echo "no result (run.sh exit $(cat "$(kvpair_file suite-done)")):"
	tail -n 30 "$suite"
	kvpair_peer_log
}

# result SCRIPT: SCRIPT's result line in the suite's output
result() {
	grep -E "^(not )?ok [0-9]+ selftests: drivers/kvperf: $1( |$)" "$suite"
}

hw_passed() {
	local t r rc=0

	for t in "${hw_tests[@]}"; do
		r=$(result "$t")
		if [[ ! $r =~ ^ok\ [0-9]+\ [^#]*$ ]]; then
			echo "$t: '${r:-no result}', want it to pass"
			sed -n "/^# selftests: drivers\/kvperf: $t\$/,/^\(not \)\?ok [0-9]* selftests:/p" \
				"$suite" | grep -E '^# (not ok|# |Bail)' | head -n 20
			rc=1
		fi
	done
	return "$rc"
}

rest_skipped() {
	local t r rc=0 n=0

	while read -r t; do
		[[ " ${hw_tests[*]} " == *" $t "* ]] && continue
		n=$((n + 1))
		r=$(result "$t")
		[[ $r =~ ^ok\ [0-9]+\ .*\ #\ SKIP\ HW\ mode:\ [^\ ] ]] && continue
		echo "$t: '${r:-no result}', want a skip whose reason starts 'HW mode:'"
		rc=1
	done < <(make -s --no-print-directory -C "$KV_DIR" print-tests)
	[ "$n" -gt 20 ] || { echo "only $n scripts besides the HW-mode ones"; rc=1; }
	grep -E '^not ok [0-9]+ selftests: ' "$suite" && rc=1
	return "$rc"
}

# A, the remote host, after B's suite: no server left, counters 0
a_clean() {
	[ "$(kvperf -j server show)" = "[]" ] && kvpair_counters_zero &&
		return 0
	echo "servers: $(kvperf -j server show)"
	kvpair_counters
	return 1
}

ktap_set_plan 7
kv_dmesg_mark
kv_check "guest B ready on the link" kvpair_wait_peer 60 ||
	kv_bail "no peer"
kv_check "sshd on $KVPERF_SELF_ADDR:22 with a host key made for this run, B's key the one it accepts" \
	sshd_up || kv_bail "no sshd"
# shellcheck disable=SC2016 # expanded when the hook runs
kv_on_exit 'kill "$(cat "$KV_TMP/sshd.pid")"'
kv_check "B ran the suite by the kernel's runner, configured by kvperf.config alone (A the remote host)" \
	suite_ran || kv_bail "no suite"
grep -E '^(not )?ok [0-9]+ selftests: |^# [a-z_0-9]+\.sh: [0-9]+ s$' "$suite" |
	kv_diag
kv_check "${hw_tests[*]} ran in HW mode and passed" hw_passed
kv_check "every other script of the plan skipped saying why ('HW mode: ...'), none failed" \
	rest_skipped
kv_check "afterwards no server here and the counters are 0" a_clean
kv_dmesg_check
ktap_finished
