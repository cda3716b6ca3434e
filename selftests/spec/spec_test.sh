#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netlink spec is the single source of truth: check that it is valid
# against the kernel's genetlink schema and that the committed UAPI header
# is exactly what ynl generates from it. KTAP output.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
ksrc=${KSRC:-$top/build/ksrc}
python=${PYTHON:-/usr/bin/python3}
spec=$top/Documentation/netlink/specs/kvperf.yaml
uapi=$top/include/uapi/linux/kvperf.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"

echo "TAP version 13"
echo "1..3"

"$python" - "$spec" "$ksrc/Documentation/netlink/genetlink.yaml" \
	>"$tmp/schema.log" 2>&1 <<'PY'
import sys, yaml, jsonschema
spec = yaml.safe_load(open(sys.argv[1]))
schema = yaml.safe_load(open(sys.argv[2]))
jsonschema.validate(spec, schema)
PY
result $? "spec validates against the kernel's genetlink schema" "$tmp/schema.log"

PYTHON=$python "$top/selftests/spec/gen_uapi.sh" "$ksrc" "$spec" \
	"$tmp/kvperf.h" >"$tmp/gen.log" 2>&1 &&
	diff -u "$uapi" "$tmp/kvperf.h" >"$tmp/gen.log" 2>&1
result $? "include/uapi/linux/kvperf.h matches the spec (make uapi)" "$tmp/gen.log"

# Every command and attribute the module's code uses exists in the header
# (a removed or renamed spec item must not leave the code behind).
cat "$top"/kmod/*.c "$top"/user/*.c 2>/dev/null |
	grep -o 'KVPERF_\(A\|CMD\)_[A-Z0-9_]*[A-Z0-9]' | sort -u >"$tmp/used"
grep -o 'KVPERF_\(A\|CMD\)_[A-Z0-9_]*[A-Z0-9]' "$uapi" | sort -u >"$tmp/defined"
comm -23 "$tmp/used" "$tmp/defined" >"$tmp/undefined"
[ ! -s "$tmp/undefined" ]
result $? "code uses only ids the spec defines" "$tmp/undefined"

[ "$fail" -eq 0 ]
