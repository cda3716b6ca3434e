#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netlink spec is the single source of truth: check that it is valid
# against the kernel's schema of its protocol, that the committed UAPI header
# is exactly what ynl generates from it, and that its limits and defaults
# (type: const definitions) are the only ones: its own checks, the
# module's policies and the tool's limits name them, and a constant changed
# in the spec alone changes the tool's check; what ynl-gen-c --mode user
# generates from it compiles. KTAP output.
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
echo "1..9"

# against the schema its protocol names (genetlink-c: it names the C
# enum of the RDMA operation)
"$python" - "$spec" "$ksrc/Documentation/netlink" \
	>"$tmp/schema.log" 2>&1 <<'PY'
import sys, yaml, jsonschema
spec = yaml.safe_load(open(sys.argv[1]))
print("protocol", spec["protocol"])
schema = yaml.safe_load(open(f"{sys.argv[2]}/{spec['protocol']}.yaml"))
jsonschema.validate(spec, schema)
PY
result $? "spec validates against the kernel's schema of its protocol" "$tmp/schema.log"

PYTHON=$python "$top/selftests/spec/ynl_gen.sh" "$ksrc" "$spec" \
	"$tmp/kvperf.h" >"$tmp/gen.log" 2>&1 &&
	diff -u "$uapi" "$tmp/kvperf.h" >"$tmp/gen.log" 2>&1
result $? "include/uapi/linux/kvperf.h matches the spec (make uapi)" "$tmp/gen.log"

# Every command and attribute the module's code uses exists in the header
# (a removed or renamed spec item must not leave the code behind).
cat "$top"/kmod/*.c "$top"/user/*.c "$top"/user/*/*.c 2>/dev/null |
	grep -o 'KVPERF_\(A\|CMD\)_[A-Z0-9_]*[A-Z0-9]' | sort -u >"$tmp/used"
grep -o 'KVPERF_\(A\|CMD\)_[A-Z0-9_]*[A-Z0-9]' "$uapi" | sort -u >"$tmp/defined"
comm -23 "$tmp/used" "$tmp/defined" >"$tmp/undefined"
[ ! -s "$tmp/undefined" ]
result $? "code uses only ids the spec defines" "$tmp/undefined"

limits() {
	"$python" "$top/selftests/spec/spec_limits.py" "$@"
}

# Every min, max and length of the spec's checks names a constant, but
# for the exceptions spec_limits.py lists (address lengths, min 1).
limits "$spec" names >"$tmp/names" 2>&1
result $? "the spec's checks name its constants" "$tmp/names"

# The module's policies check what the spec says, by the same names.
limits "$spec" policy "$top"/kmod/nl*.c >"$tmp/policy" 2>&1
result $? "the module's policies name the spec's constants" "$tmp/policy"

# The tool's names of the limits and defaults are the spec's constants,
# and the model's table of a run's ranges (run_cfg.c) is the spec's.
limits "$spec" tool "$top"/user/*/*.h "$top"/user/lib/run_cfg.c "$top"/user/cli/server.c \
	>"$tmp/tool" 2>&1
result $? "the tool's limits are the spec's constants" "$tmp/tool"

# A constant changed in the spec alone (qps-max 16 to 12) changes the
# header, the tool's check, and (by the policy check above) the module's.
spec_change() {
	local t=$tmp/tree out

	mkdir -p "$t/kmod" "$t/Documentation/netlink" &&
		cp -a "$top/user" "$top/include" "$t/" &&
		cp -a "$top/kmod/stats.c" "$top/kmod/stats.h" "$top/kmod/timeout.h" \
			"$top"/kmod/nl*.c \
			"$t/kmod/" &&
		cp -a "$top/Documentation/netlink/specs" \
			"$t/Documentation/netlink/" || return 1
	rm -f "$t"/user/*.o "$t"/user/*/*.[oda] "$t/user/kvperf"
	sed -i '/^    name: qps-max$/{n;s/^    value: 16$/    value: 12/}' \
		"$t/Documentation/netlink/specs/kvperf.yaml"
	grep -A1 '^    name: qps-max$' "$t/Documentation/netlink/specs/kvperf.yaml" |
		grep -q 'value: 12$' || { echo "qps-max is not 16 in the spec"; return 1; }
	PYTHON=$python "$top/selftests/spec/ynl_gen.sh" "$ksrc" \
		"$t/Documentation/netlink/specs/kvperf.yaml" \
		"$t/include/uapi/linux/kvperf.h" || return 1
	grep -Eq '^#define KVPERF_QPS_MAX[[:space:]]+12$' \
		"$t/include/uapi/linux/kvperf.h" ||
		{ echo "the header's KVPERF_QPS_MAX is not 12"; return 1; }
	limits "$t/Documentation/netlink/specs/kvperf.yaml" policy \
		"$t"/kmod/nl*.c || return 1
	# -O1: quick, and it still inlines floor() (no -lm)
	make -s -C "$t/user" kvperf CFLAGS=-O1 -j2 >/dev/null || return 1
	# the command line is checked before anything is sent
	out=$("$t/user/kvperf" run bw op send addr 192.0.2.1 qps 13 2>&1)
	echo "qps 13: $out"
	case $out in
	*"qps '13' is out of range (1 to 12)"*) ;;
	*) echo "the tool took qps 13"; return 1 ;;
	esac
	# the unknown keyword after it: nothing is sent, and qps 12 passed
	out=$("$t/user/kvperf" run bw op send addr 192.0.2.1 qps 12 zzz 2>&1)
	echo "qps 12: $out"
	case $out in
	*"unknown keyword 'zzz'"*) ;;
	*) echo "the tool refused qps 12"; return 1 ;;
	esac
}
spec_change >"$tmp/change" 2>&1
result $? "a constant changed in the spec alone changes the tool's and the module's check" \
	"$tmp/change"

# ynl's user-space library generated from the spec compiles (a name the
# generator derives must not collide with one the spec gives: the enum
# "op" and the generated kvperf_op_str() once did). --mode kernel does
# not take the spec; the spec's head says why.
ynl_user() {
	local gen=$top/selftests/spec/ynl_gen.sh

	mkdir -p "$tmp/ynl/linux" &&
		cp "$uapi" "$tmp/ynl/linux/" &&
		PYTHON=$python "$gen" "$ksrc" "$spec" "$tmp/ynl/kvperf-user.h" \
			--mode user --header &&
		PYTHON=$python "$gen" "$ksrc" "$spec" "$tmp/ynl/kvperf-user.c" \
			--mode user --source || return 1
	cc -Wall -Wextra -Werror -Wno-unused-parameter -std=gnu11 -c \
		-I"$tmp/ynl" -I"$ksrc/tools/net/ynl/lib" \
		-o "$tmp/ynl/kvperf-user.o" "$tmp/ynl/kvperf-user.c"
}
ynl_user >"$tmp/ynl.log" 2>&1
result $? "ynl-gen-c --mode user output compiles" "$tmp/ynl.log"

[ "$fail" -eq 0 ]

# The tool's attribute sets (user/lib/attrs.c, by hand) are the spec's,
# attribute by attribute: number, name, type, length, nested set.
attrs_dump() {
	make -s -C "$top/user" lib/libkvperf.a || return 1
	# shellcheck disable=SC2046
	cc -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE \
		-I"$top/include/uapi" -I"$top/user/lib" \
		$(pkg-config --cflags libnl-genl-3.0) -o "$tmp/attrs_dump" \
		"$top/selftests/spec/attrs_dump.c" "$top/user/lib/libkvperf.a" \
		$(pkg-config --libs libnl-genl-3.0) || return 1
	"$tmp/attrs_dump" >"$tmp/attrs.txt" || return 1
	"$python" "$top/selftests/spec/spec_attrs.py" "$spec" "$tmp/attrs.txt"
}
attrs_dump >"$tmp/attrs" 2>&1
result $? "the tool's attribute sets are the spec's, attribute by attribute" \
	"$tmp/attrs"
