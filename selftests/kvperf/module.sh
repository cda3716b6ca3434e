#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kvperf.ko loads and unloads cleanly: its sysfs, debugfs and generic
# netlink family come and go with it, the tool reports "not loaded" (exit
# 3) while it is out, and it finds the existing RDMA devices when it comes
# back, also after load/unload cycles raced by dumps.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "reloads the module with both local devices"
kv_require_ko
[ -r "$KVPERF_KO" ] || kv_skip_all "KVPERF_KO=$KVPERF_KO is not readable"
kv_require_module
# shellcheck disable=SC2016 # expanded when the hook runs
kv_on_exit 'kv_module_loaded || kv_insmod'

sysfs=/sys/kernel/kvperf
debugfs=/sys/kernel/debug/kvperf
genl_family() {
	kv_py "$KV_DIR/genl_family.py" kvperf
}

# One value: a single non-empty line without blanks.
one_value() {
	local f=$1 v

	[ -r "$f" ] || { echo "$f: missing"; return 1; }
	v=$(cat "$f")
	if [ "$(wc -l <"$f")" != 1 ] || [ -z "$v" ] || [[ $v == *[[:space:]]* ]]; then
		echo "$f: not one value: '$v'"
		return 1
	fi
}

sysfs_present() {
	one_value "$sysfs/version" || return 1
	one_value "$sysfs/abi_version" || return 1
	grep -qxE '[1-9][0-9]*' "$sysfs/abi_version" ||
		{ echo "abi_version is not a positive integer: $(cat "$sysfs/abi_version")"; return 1; }
	[ -r "$debugfs/devices" ] || { echo "$debugfs/devices missing"; return 1; }
}

family_present() {
	local out

	out=$(genl_family) || { echo "$out"; return 1; }
	echo "$out"
	[[ $out == *" version=1 "* ]] ||
		{ echo "family version is not 1"; return 1; }
	[[ $out == *groups=*events* ]] ||
		{ echo "no multicast group 'events'"; return 1; }
}

lists_both() {
	local names

	names=$(kv_dev_names) || return 1
	if ! grep -qx "$KVPERF_DEV0" <<<"$names" ||
	   ! grep -qx "$KVPERF_DEV1" <<<"$names"; then
		echo "kvperf dev show lists: $names"
		return 1
	fi
}

all_gone() {
	local p rc=0

	for p in /sys/module/kvperf "$sysfs" "$debugfs"; do
		[ -e "$p" ] && { echo "$p still exists"; rc=1; }
	done
	return "$rc"
}

family_gone() {
	local out

	out=$(genl_family) && { echo "still registered: $out"; return 1; }
	[[ $out == *ENOENT* ]] || { echo "$out"; return 1; }
}

# $1: expected exit status; the rest: the kvperf command line. The message
# must say the module is not loaded.
says_not_loaded() {
	local rc

	kv_run "$KV_TMP/out" "$KV_TMP/err" timeout "$(kv_scaled 10)" kvperf "$@"
	rc=$?
	cat "$KV_TMP/out" "$KV_TMP/err"
	[ "$rc" = 3 ] || { echo "kvperf $*: exit $rc, expected 3"; return 1; }
	grep -qi 'not loaded' "$KV_TMP/err" ||
		{ echo "kvperf $*: no 'not loaded' on stderr"; return 1; }
}

# Unload and reload a few times while another process dumps devices in a
# loop: every step must work and no dump may die of a signal or hang.
cycles() {
	local i dumper rc=0 bad

	# The dumps go on until the cycles are over (the stop file), for
	# 60 s (scaled) at most; a dump still running after 10 s (scaled)
	# counts as hung.
	(
		end=$((SECONDS + $(kv_scaled 60)))
		limit=$(kv_scaled 10)
		while [ "$SECONDS" -lt "$end" ] && [ ! -e "$KV_TMP/stop" ]; do
			timeout "$limit" kvperf -j dev show >/dev/null 2>&1
			echo $? >>"$KV_TMP/dump-rc"
		done
	) &
	dumper=$!
	for i in 1 2 3 4 5; do
		# A dump in progress holds a module reference: rmmod may say
		# "in use", but only for as long as a dump lasts.
		kv_wait 10 rmmod kvperf ||
			{ echo "cycle $i: rmmod failed for $(kv_scaled 10) s:"; rmmod kvperf; rc=1; break; }
		kv_insmod || { echo "cycle $i: insmod failed"; rc=1; break; }
	done
	touch "$KV_TMP/stop"
	wait "$dumper"
	# 0: loaded, 3: not loaded, 1: the family went away mid-request.
	bad=$(grep -cvxE '0|1|3' "$KV_TMP/dump-rc")
	echo "$(wc -l <"$KV_TMP/dump-rc") dumps, exit codes:" \
		"$(sort "$KV_TMP/dump-rc" | uniq -c | tr -s ' \n' ' ')"
	[ "$bad" = 0 ] || { echo "$bad dumps died or hung"; rc=1; }
	kv_module_loaded || { kv_insmod; rc=1; }
	return "$rc"
}

kv_dmesg_mark
# The runs' ACK timeout exponent: 0 (RDMA CM's) to 31, nothing else.
ack_timeout_param() {
	local p=/sys/module/kvperf/parameters/ack_timeout v rc=0

	[ -w "$p" ] || { echo "no $p"; return 1; }
	for v in 31 0; do
		if ! { echo "$v" >"$p" && [ "$(cat "$p")" = "$v" ]; }; then
			echo "ack_timeout $v: not taken"
			rc=1
		fi
	done
	for v in 32 x; do
		echo "$v" >"$p" 2>/dev/null &&
			{ echo "ack_timeout $v: taken"; rc=1; }
		[ "$(cat "$p")" = 0 ] || { echo "ack_timeout changed to $(cat "$p")"; rc=1; }
	done
	return "$rc"
}

ktap_set_plan 18

kv_check "module is live" grep -qx live /sys/module/kvperf/initstate
kv_check "sysfs version and abi_version hold one value each, debugfs is there" \
	sysfs_present
kv_check "generic netlink family kvperf version 1 with group events" \
	family_present
kv_check "kvperf dev show lists $KVPERF_DEV0 and $KVPERF_DEV1" lists_both
kv_check "nothing holds a reference to the module" \
	grep -qx 0 /sys/module/kvperf/refcnt
kv_check "rmmod kvperf" rmmod kvperf
kv_check "sysfs, debugfs and /sys/module entries are gone" all_gone
kv_check "the netlink family is gone" family_gone
kv_check "kvperf dev exits 3 saying the module is not loaded" \
	says_not_loaded dev
kv_check "kvperf -j dev show exits 3 too" says_not_loaded -j dev show
kv_check "kvperf monitor exits 3 too" says_not_loaded monitor
kv_check "insmod again" kv_insmod
kv_check "sysfs and debugfs are back" sysfs_present
kv_check "the netlink family is back" family_present
kv_check "the existing devices are found again" lists_both
kv_check "ack_timeout: 0 and 31 taken, 32 and x refused, unchanged" ack_timeout_param
kv_check "5 unload/load cycles raced by dumps" cycles
kv_dmesg_check

ktap_finished
