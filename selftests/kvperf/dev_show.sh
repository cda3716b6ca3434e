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
kv_require_rxe "compares two local Soft-RoCE devices with their sysfs"
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

ktap_set_plan $(($(grep -cE '^(PASS|FAIL) ' "$KV_TMP/results") + 4))

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

# The kernel's own ynl CLI reads the spec's display hints: dev-get
# prints the node GUID in hex and each GID as an address, the values
# sysfs has.
ynl_display_hints() {
	kv_ynl --do dev-get \
		--json "{\"name\": \"$KVPERF_DEV0\"}" --output-json \
		>"$KV_TMP/ynl.json" 2>"$KV_TMP/ynl.err" ||
		{ cat "$KV_TMP/ynl.err" "$KV_TMP/ynl.json"; return 1; }
	kv_py - "$KV_TMP/ynl.json" "/sys/class/infiniband/$KVPERF_DEV0" <<'EOF'
import glob, ipaddress, json, sys

dev = json.load(open(sys.argv[1]))
sysfs = sys.argv[2]
bad = []
guid = open(f"{sysfs}/node_guid").read().strip().replace(":", "")
if dev.get("node-guid") != hex(int(guid, 16)):
    bad.append(f"node-guid {dev.get('node-guid')!r}, sysfs {guid}")
want = set()
for f in glob.glob(f"{sysfs}/ports/1/gids/*"):
    try:
        g = open(f).read().strip()
    except OSError:
        continue
    if g.strip("0:"):
        want.add(ipaddress.ip_address(bytes.fromhex(g.replace(":", ""))))
got = set()
for port in dev.get("port", []):
    for e in port.get("gid", []):
        v = e.get("value")
        if not isinstance(v, str) or ":" not in v:
            bad.append(f"GID {v!r} is not printed as an address")
        else:
            got.add(ipaddress.ip_address(v))
if got != want:
    bad.append(f"GIDs {sorted(map(str, got))}, sysfs {sorted(map(str, want))}")
print("\n".join(bad) or f"node-guid {dev['node-guid']}, {len(got)} GIDs")
sys.exit(1 if bad else 0)
EOF
}
desc="the kernel's ynl CLI prints the node GUID in hex and the GIDs as addresses (the spec's display hints), as sysfs has them"
if kv_ynl_find; then
	kv_check "$desc" ynl_display_hints
else
	kv_skip "$desc" "$KV_YNL_WHY"
fi
kv_dmesg_check

ktap_finished
