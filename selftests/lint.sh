#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks, as KTAP: checkpatch.pl (from linux-source) on every C
# file, kernel-doc, both Debian kernels installed, the VM suite's plan,
# a W=1, sparse (C=2) build of the module on each Debian kernel with
# no warning at all, and the module's layering (selftests/layers.py: no
# include or call circle, the engine calls no front end) on the objects
# of the newest kernel's build.
#
# usage: lint.sh [GROUP...]   groups: checkpatch kernel-doc kernels plan
#                             build layers (default: all of them)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ksrc=${KSRC:-$top/build/ksrc}
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

all_groups="checkpatch kernel-doc kernels plan build layers"
groups=${*:-$all_groups}
for g in $groups; do
	case " $all_groups " in
	*" $g "*) ;;
	*) echo "usage: $0 [GROUP...] (groups: $all_groups)" >&2; exit 2 ;;
	esac
done
want() {
	case " $groups " in *" $1 "*) return 0 ;; esac
	return 1
}

mapfile -t kvers < <(selftests/kernels.sh)
# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"

plan=0
want checkpatch && plan=$((plan + 3))
want kernel-doc && plan=$((plan + 1))
want kernels && plan=$((plan + 1))
want plan && plan=$((plan + 3))
want build && plan=$((plan + ${#kvers[@]}))
want layers && plan=$((plan + 3))
echo "TAP version 13"
echo "1..$plan"

# Kernel code gets every check (--strict); user-space code the default
# ones but those that only make sense inside the kernel (its macros and
# types).
# The files are split among the CPUs, a checkpatch.pl each (one perl
# reads a file at a time), their reports joined in the files' order.
checkpatch() {	# checkpatch NAME STRICT IGNORES PATHSPEC...
	local name=$1 strict=$2 ignore=$3 files cpus part per
	shift 3
	mapfile -t files < <(git ls-files -co --exclude-standard -- "$@")
	cpus=$(nproc)
	per=$(( (${#files[@]} + cpus - 1) / cpus ))
	for ((part = 0; part < cpus; part++)); do
		[ $((part * per)) -lt ${#files[@]} ] || break
		perl "$ksrc/scripts/checkpatch.pl" --no-tree --quiet --terse \
			--show-types $strict --ignore "FILE_PATH_CHANGES$ignore" \
			-f "${files[@]:part * per:per}" >"$tmp/cp.$part" 2>&1 &
	done
	wait
	cat "$tmp"/cp.[0-9]* |
		grep -Ev '^total: 0 errors, 0 warnings, (0 checks, )?[0-9]+ lines checked' >"$tmp/cp"
	rm -f "$tmp"/cp.[0-9]*
	[ ${#files[@]} -gt 0 ] && [ ! -s "$tmp/cp" ]
	result $? "checkpatch.pl${strict:+ $strict} on ${#files[@]} $name files" "$tmp/cp"
}
if want checkpatch; then
	checkpatch kernel --strict "" 'kmod/*.[ch]' 'include/*.h'
	checkpatch user-space "" ",PREFER_DEFINED_ATTRIBUTE_MACRO,PREFER_KERNEL_TYPES,NEW_TYPEDEFS" \
		'user/*.[ch]' 'user/*/*.[ch]' 'selftests/kvperf/*.[ch]' \
		'selftests/tbprof/*.[ch]'
	# expected output in tests is clearer split line by line
	checkpatch unit-test "" ",SPLIT_STRING,PREFER_DEFINED_ATTRIBUTE_MACRO" 'selftests/unit/*.[ch]'
fi

if want kernel-doc; then
	mapfile -t kfiles < <(git ls-files -co --exclude-standard -- 'kmod/*.[ch]')
	perl "$ksrc/scripts/kernel-doc" -none -Wall "${kfiles[@]}" >"$tmp/kd" 2>&1
	[ ! -s "$tmp/kd" ]
	result $? "kernel-doc -Wall clean on ${#kfiles[@]} module files" "$tmp/kd"
fi

if want kernels; then
	selftests/kernels.sh --require >/dev/null 2>"$tmp/kv"
	result $? "both Debian kernels (6.1, 6.12) installed" "$tmp/kv"
fi

# A suite's plan is its Makefile's list: every test script in its
# folder must be on it, and everything on it must exist. The VM suite
# (selftests/kvperf) and the two-guest suite (selftests/pair).
plan_check() {	# plan_check DIR LIBS-RE
	(
	cd "$1" || exit 1
	planned=$(make -s --no-print-directory print-tests | sort)
	present=$( { ls ./*.sh | sed 's,^\./,,' | grep -vxE "$2"
		     make -s --no-print-directory print-gen-progs; } | sort)
	diff <(echo "$planned") <(echo "$present") |
		sed -n 's/^< /planned but missing: /p; s/^> /not in TEST_PROGS: /p'
	# the kernel's runner warns of, then runs through bash, a script
	# git does not have executable
	# shellcheck disable=SC2086 # one name per word
	git ls-files -s -- $planned | sed -n 's/^100644 [0-9a-f]* 0\t/not executable in git: /p'
	) >"$tmp/plan" 2>&1
	[ ! -s "$tmp/plan" ]
	result $? "every $3 test script is in $1/Makefile's plan, executable" "$tmp/plan"
}
if want plan; then
	plan_check selftests/kvperf 'lib\.sh|klog\.sh|swdev\.sh|remote\.sh|run\.sh' VM
	plan_check selftests/pair 'pairlib\.sh|run\.sh' two-guest
	plan_check selftests/fabric 'fablib\.sh|run\.sh' four-guest
fi

# lint_build KVER [MAKE-ARG...]: a fresh build of the module for KVER,
# in parallel, from a fresh copy of the sources, in the folder and with
# the flags of make vm-module (build/mod-KVER, W=1), so that the VM
# tests that follow load this build rather than make another; the
# output goes to $tmp/build.
lint_build() {
	local kver=$1 dir=build/mod-$1
	shift
	rm -rf "$dir" && mkdir -p "$dir" &&
		cp -p --parents Kbuild kmod/Kbuild kmod/*.[ch] \
			include/uapi/linux/*.h "$dir/" &&
		make -s -j"$(nproc)" -C "/lib/modules/$kver/build" M="$top/$dir" \
			W=1 KVPERF_FAULTS=y "$@" modules >"$tmp/build" 2>&1
}

if want build; then
	for kver in "${kvers[@]}"; do
		lint_build "$kver" C=2
		rc=$?
		grep -v 'Skipping BTF generation' "$tmp/build" >"$tmp/warn"
		[ "$rc" -eq 0 ] && [ ! -s "$tmp/warn" ]
		result $? "module builds with W=1 and sparse, no warnings, on $kver" "$tmp/warn"
	done
fi

# nm needs the objects: the build group's of the newest kernel, or a
# plain build of its own. Without them layers.py fails.
if want layers; then
	kver=none
	[ ${#kvers[@]} -gt 0 ] && kver=${kvers[-1]}
	want build || [ "$kver" = none ] || lint_build "$kver"
	python3 selftests/layers.py --dir kmod --objdir "build/mod-$kver/kmod" \
		>"$tmp/layers" 2>&1
	result $? "no include or call circle, no engine->front-end call in kmod/" "$tmp/layers"
	# the tool and its unit tests, built as make builds them
	{ make -s -C user kvperf unit &&
		python3 selftests/layers.py --dir user; } >"$tmp/layers" 2>&1
	result $? "no include or call circle, no call up a layer in user/ (lib, engine, cli, compare)" \
		"$tmp/layers"
	# a unit test links only what it tests: the JSON writer's, neither
	# libnl nor libibverbs; the model's, no libibverbs
	{
		! ldd selftests/unit/test_json | grep -E 'libnl|libibverbs|librdmacm' &&
		! ldd selftests/unit/test_attrs | grep -E 'libibverbs|librdmacm'
	} >"$tmp/linked" 2>&1
	result $? "unit tests link only what they test (test_json: no libnl or libibverbs)" \
		"$tmp/linked"
fi

[ "$fail" -eq 0 ]
