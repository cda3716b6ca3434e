#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tool-only usage errors, on the host, as KTAP: one result per case
# of selftests/usage_cases.txt. user/kvperf ARGS exits 2, a line of its
# stderr matches "^kvperf: .*(REGEX)" and its stdout is empty; for a
# "both" case kvperf ARGS path user does too, with the same stderr. The
# host has no kvperf module, where a request would fail with exit 3: an
# exit 2 here is a refusal before netlink. One process per case (two for
# "both"), the checks in the shell.
#
# usage: usage_test.sh [CASES]   (default: selftests/usage_cases.txt)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# fabric run launcher slurm is judged outside an allocation
unset SLURM_JOB_ID SLURM_JOB_NODELIST
kvperf=$top/user/kvperf
cases=${1:-$top/selftests/usage_cases.txt}
tmp=$(mktemp -d /tmp/kvperf-usage.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"

bail() {
	echo "TAP version 13"
	echo "Bail out! $*"
	exit 1
}

[ -x "$kvperf" ] || bail "$kvperf is missing (make tools)"
[ -r "$cases" ] || bail "cannot read $cases"

# The table: PATHS|DESCRIPTION|REGEX|ARGS, comments and blank lines aside.
paths=() descs=() res=() argss=()
lineno=0
while IFS= read -r line; do
	lineno=$((lineno + 1))
	case $line in '' | '#'*) continue ;; esac
	IFS='|' read -r p d r a <<<"$line"
	case $p in one | both) ;; *) bail "$cases:$lineno: PATHS '$p' is not one or both" ;; esac
	if [ -z "$d" ] || [ -z "$r" ] || [ -z "$a" ]; then
		bail "$cases:$lineno: not PATHS|DESCRIPTION|REGEX|ARGS"
	fi
	[[ $a != *'|'* ]] || bail "$cases:$lineno: more than four fields"
	paths+=("$p") descs+=("$d") res+=("$r") argss+=("$a")
done <"$cases"

# usage_error REGEX ARGS...: kvperf ARGS exits 2 with a line matching
# REGEX on stderr (kept in $err) and nothing on stdout; else says why in
# $tmp/why.
usage_error() {
	local re=$1 pat="^kvperf: .*($1)" rc line matched=1

	shift
	err=
	"$kvperf" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	while IFS= read -r line; do
		err+=$line$'\n'
		[[ $line =~ $pat ]] && matched=0
	done <"$tmp/err"
	[ "$rc" = 2 ] && [ "$matched" = 0 ] && [ ! -s "$tmp/out" ] && return 0
	{
		echo "kvperf $*: exit $rc, want 2 and /$re/ on stderr only"
		sed 's/^/stdout: /' "$tmp/out"
		sed 's/^/stderr: /' "$tmp/err"
	} >"$tmp/why"
	return 1
}

# same_usage_error REGEX ARGS...: usage_error of kvperf ARGS and of kvperf
# ARGS path user, with the same stderr.
same_usage_error() {
	local re=$1 kernel

	shift
	usage_error "$re" "$@" || return 1
	kernel=$err
	usage_error "$re" "$@" path user || return 1
	[ "$err" = "$kernel" ] && return 0
	{
		echo "kvperf $*: the kernel path and the user path differ:"
		printf 'kernel: %s\n' "${kernel%$'\n'}"
		printf 'user: %s\n' "${err%$'\n'}"
	} >"$tmp/why"
	return 1
}

echo "TAP version 13"
echo "1..${#descs[@]}"
for i in "${!descs[@]}"; do
	read -ra args <<<"${argss[$i]}"
	for j in "${!args[@]}"; do
		[ "${args[$j]}" = "''" ] && args[j]=
	done
	if [ "${paths[$i]}" = both ]; then
		same_usage_error "${res[$i]}" "${args[@]}"
	else
		usage_error "${res[$i]}" "${args[@]}"
	fi
	result $? "${descs[$i]}" "$tmp/why"
done

[ "$fail" -eq 0 ]
