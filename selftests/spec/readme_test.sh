#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user documentation's units and limits are the tool's and the spec's:
# every "[keyword VALUE]" of the synopses in README.md and
# Documentation/usage.rst is in `kvperf help`'s usage (a time is TIME
# there, never MS or SEC), and every range and default of the README's
# limits table is the netlink spec's constant and the range `kvperf help`
# states. KTAP output. Needs user/kvperf (make tools).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-/usr/bin/python3}
spec=${KVPERF_SPEC:-$top/Documentation/netlink/specs/kvperf.yaml}
readme=${KVPERF_README:-$top/README.md}
usage=${KVPERF_USAGE_DOC:-$top/Documentation/usage.rst}
kvperf=${KVPERF_TOOL:-$top/user/kvperf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"

echo "TAP version 13"
echo "1..4"

# every help text: the top level's, then each object's
for obj in "" run server compare dev monitor; do
	# shellcheck disable=SC2086
	"$kvperf" $obj help 2>&1
	echo
done >"$tmp/help"
grep -q '^Usage: kvperf' "$tmp/help" ||
	{ echo "Bail out! no help from $kvperf (make tools)"; exit 1; }

check() {
	"$python" "$top/selftests/spec/readme_limits.py" "$@" >"$tmp/out" 2>&1
}

check synopsis "$tmp/help" "$readme"
result $? "README.md's synopsis: each keyword's value (unit) is kvperf help's" "$tmp/out"
check synopsis "$tmp/help" "$usage"
result $? "Documentation/usage.rst's synopsis: each keyword's value (unit) is kvperf help's" "$tmp/out"
check spec "$spec" "$readme"
result $? "README.md's ranges and defaults are the spec's constants" "$tmp/out"
check help "$tmp/help" "$readme"
result $? "README.md's ranges are the ones kvperf help states" "$tmp/out"

[ "$fail" = 0 ]
