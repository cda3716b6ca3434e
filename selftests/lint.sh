#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks, as KTAP: checkpatch.pl (from linux-source) on every C
# file, and a W=1, sparse (C=2) build of the module on each Debian kernel
# with no warning at all.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ksrc=${KSRC:-$top/build/ksrc}
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mapfile -t kvers < <(selftests/kernels.sh)
n=0 fail=0
result() {	# result OK NAME [diagnostic file]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		fail=$((fail + 1))
		echo "not ok $n $2"
		[ -n "${3:-}" ] && sed 's/^/# /' "$3" | head -n 60
	fi
}

echo "TAP version 13"
echo "1..$((5 + ${#kvers[@]}))"

# Kernel code gets every check (--strict); user-space code the default
# ones but those that only make sense inside the kernel (its macros and
# types).
checkpatch() {	# checkpatch NAME STRICT IGNORES PATHSPEC...
	local name=$1 strict=$2 ignore=$3 files
	shift 3
	mapfile -t files < <(git ls-files -co --exclude-standard -- "$@")
	perl "$ksrc/scripts/checkpatch.pl" --no-tree --quiet --terse \
		--show-types $strict --ignore "FILE_PATH_CHANGES$ignore" \
		-f "${files[@]}" 2>&1 |
		grep -Ev '^total: 0 errors, 0 warnings, (0 checks, )?[0-9]+ lines checked' >"$tmp/cp"
	[ ${#files[@]} -gt 0 ] && [ ! -s "$tmp/cp" ]
	result $? "checkpatch.pl${strict:+ $strict} on ${#files[@]} $name files" "$tmp/cp"
}
checkpatch kernel --strict "" 'kmod/*.[ch]' 'include/*.h'
checkpatch user-space "" ",PREFER_DEFINED_ATTRIBUTE_MACRO,PREFER_KERNEL_TYPES,NEW_TYPEDEFS" \
	'user/*.[ch]' 'selftests/kvperf/*.[ch]'
# expected output in tests is clearer split line by line
checkpatch unit-test "" ",SPLIT_STRING,PREFER_DEFINED_ATTRIBUTE_MACRO" 'selftests/unit/*.[ch]'

mapfile -t kfiles < <(git ls-files -co --exclude-standard -- 'kmod/*.[ch]')
perl "$ksrc/scripts/kernel-doc" -none -Wall "${kfiles[@]}" >"$tmp/kd" 2>&1
[ ! -s "$tmp/kd" ]
result $? "kernel-doc -Wall clean on ${#kfiles[@]} module files" "$tmp/kd"

[ ${#kvers[@]} -eq 2 ]
echo "kernels found: ${kvers[*]:-none}" >"$tmp/kv"
result $? "both Debian kernels (6.1, 6.12) installed" "$tmp/kv"

for kver in "${kvers[@]}"; do
	dir=build/lint-$kver
	rm -rf "$dir" && mkdir -p "$dir" &&
		cp -p --parents Kbuild kmod/Kbuild kmod/*.[ch] \
			include/uapi/linux/*.h "$dir/"
	make -s -C "/lib/modules/$kver/build" M="$top/$dir" W=1 C=2 modules \
		>"$tmp/build" 2>&1
	rc=$?
	grep -v 'Skipping BTF generation' "$tmp/build" >"$tmp/warn"
	[ "$rc" -eq 0 ] && [ ! -s "$tmp/warn" ]
	result $? "module builds with W=1 and sparse, no warnings, on $kver" "$tmp/warn"
done

[ "$fail" -eq 0 ]
