#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `kvperf dev show` reports the RDMA devices as the kernel's other
# interfaces do: every field of `kvperf -j dev show` is compared with
# `rdma -j dev show`, `rdma -j link show`, `ibv_devinfo -v` and sysfs by
# devcmp.py, and kvperf's debugfs table lists the same devices.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_cli
kv_require_rxe
command -v rdma >/dev/null || kv_skip_all "no rdma tool (iproute2)"
command -v ibv_devinfo >/dev/null || kv_skip_all "no ibv_devinfo (ibverbs-utils)"
[ -x "$PY" ] || kv_skip_all "no $PY"
kv_require_module
kv_dmesg_mark

snap=$KV_TMP/snap
mkdir -p "$snap"

# One snapshot of every source. ibv_devinfo runs before and after the rest:
# when the two differ (a GID came or went meanwhile), take another.
take_snapshot() {
	local dev

	rm -f "$snap"/*
	ibv_devinfo -v >"$snap/ibv-before.txt" 2>&1
	kv_run "$snap/kvperf.json" "$snap/kvperf.err" kvperf -j dev show
	echo $? >"$snap/kvperf.rc"
	rdma -j dev show >"$snap/rdma-dev.json" 2>&1
	rdma -j link show >"$snap/rdma-link.json" 2>&1
	for dev in $(rdma dev show | sed -n 's/^[0-9]*: \([^:]*\):.*/\1/p'); do
		kvperf -j dev show "$dev" >"$snap/do-$dev.json" 2>&1
	done
	cat /sys/kernel/debug/kvperf/devices >"$snap/debugfs.txt" 2>&1
	ibv_devinfo -v >"$snap/ibv.txt" 2>&1
	cmp -s "$snap/ibv-before.txt" "$snap/ibv.txt"
}

# Snapshots a second apart for 5 s (scaled) at most: the GIDs settle.
stable=0
end=$((SECONDS + $(kv_scaled 5)))
while :; do
	take_snapshot && { stable=1; break; }
	[ "$SECONDS" -lt "$end" ] || break
	sleep 1
done
[ "$stable" = 1 ] ||
	ktap_print_msg "ibv_devinfo output kept changing; comparing the last snapshot"

# Keep what was compared next to the run's other results.
if [ -n "${KVPERF_RUNDIR:-}" ]; then
	rm -rf "$KVPERF_RUNDIR/dev_show"
	cp -r "$snap" "$KVPERF_RUNDIR/dev_show"
fi

kv_py "$KV_DIR/devcmp.py" "$snap" >"$KV_TMP/results" 2>&1 ||
	{ kv_diag <"$KV_TMP/results"; kv_bail "devcmp.py failed"; }

ktap_set_plan $(($(grep -cE '^(PASS|FAIL) ' "$KV_TMP/results") + 3))

kv_result "kvperf -j dev show exits 0" "$(cat "$snap/kvperf.rc")" \
	"$(cat "$snap/kvperf.err")"

# Each PASS/FAIL line is one result; the indented lines after a FAIL are
# its diagnostics.
emit() {
	[ -n "$desc" ] || return 0
	kv_result "$desc" "$ok" "$diag"
}
desc=
ok=0
diag=
while IFS= read -r line; do
	case "$line" in
	"PASS "* | "FAIL "*)
		emit
		desc=${line#* }
		ok=$([ "${line%% *}" = PASS ]; echo $?)
		diag=
		;;
	*)
		diag+="${diag:+$'\n'}${line#  }"
		;;
	esac
done <"$KV_TMP/results"
emit

text_lists_devices() {
	local out dev rc=0

	out=$(kvperf dev show) || return 1
	for dev in "$KVPERF_DEV0" "$KVPERF_DEV1"; do
		grep -qw -- "$dev" <<<"$out" ||
			{ echo "no '$dev' line in: $out"; rc=1; }
	done
	return "$rc"
}
kv_check "text output names each device" text_lists_devices
kv_dmesg_check

ktap_finished
