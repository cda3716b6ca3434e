#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input through the kvperf tool: an unknown device is refused by the
# kernel (exit 1) with a message naming it; a name too long for an RDMA
# device (64 characters or more) is refused with a message about its
# length while 63 characters are still looked up; usage errors exit 2;
# and the module keeps working afterwards.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_cli
kv_require_module
kv_dmesg_mark
ktap_set_plan 9

# kvperf_fails RC PATTERN ARGS...: kvperf ARGS exits RC (one of RC when it
# is "1|2") and prints a message matching the extended regex PATTERN
# (case-insensitive) on stderr, and nothing on stdout.
kvperf_fails() {
	local want=$1 pattern=$2 rc

	shift 2
	kv_run "$KV_TMP/out" "$KV_TMP/err" timeout "$(kv_scaled 10)" kvperf "$@"
	rc=$?
	echo "kvperf $*: exit $rc"
	sed 's/^/stdout: /' "$KV_TMP/out"
	sed 's/^/stderr: /' "$KV_TMP/err"
	[[ $rc =~ ^($want)$ ]] || { echo "expected exit $want"; return 1; }
	grep -qiE -- "$pattern" "$KV_TMP/err" ||
		{ echo "no message matching /$pattern/ on stderr"; return 1; }
	[ ! -s "$KV_TMP/out" ] || { echo "output on stdout"; return 1; }
}

long63=$(printf 'n%.0s' $(seq 63))
long64=${long63}x
long200=$(printf 'L%.0s' $(seq 200))

kv_check "dev show nosuchdev: exit 1, the message names the device" \
	kvperf_fails 1 nosuchdev dev show nosuchdev
# The kernel's message may be cut short (extack messages are at most 80
# bytes), so only "not found" is asked for here.
kv_check "dev show with a 63-character name: looked up, not found, exit 1" \
	kvperf_fails 1 "no such device|no rdma device|not found" \
	dev show "$long63"
kv_check "dev show with a 64-character name: refused for its length" \
	kvperf_fails "1|2" "long|length|too many|exceed|at most|max" \
	dev show "$long64"
kv_check "dev show with a 200-character name: refused for its length" \
	kvperf_fails "1|2" "long|length|too many|exceed|at most|max" \
	dev show "$long200"
kv_check "dev show with an empty name: refused" \
	kvperf_fails "1|2" "." dev show ""
kv_check "unknown object: usage error, exit 2" \
	kvperf_fails 2 "nosuchobject" nosuchobject
kv_check "unknown dev command: usage error, exit 2" \
	kvperf_fails 2 "frobnicate" dev frobnicate
kv_check "afterwards dev show still lists $KVPERF_DEV0" \
	kv_dev_listed "$KVPERF_DEV0"
kv_dmesg_check

ktap_finished
