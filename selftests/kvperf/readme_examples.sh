#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's examples run as written. Every line of its examples block,
# between the "<!-- readme-examples begin -->" and "<!-- readme-examples
# end -->" comments, read from README.md itself so that the two cannot
# drift, runs here in order, printed as run; a variable assignment (the
# address) is kept, or replaced by this guest's address and printed so;
# on a guest slowed beyond the suite's time scale, runs get a longer
# timeout, printed so.
# Each command must exit 0 and its output must show what it asked for:
# its op, sizes, iteration counts, duration, queue pairs and their CPUs,
# interval lines, post list, polling, path, I/O mix, block size, depth and
# queues, compare's rounds and columns. A command this script has no
# check for fails, so that a new example comes with its check.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_cli
kv_require_rxe "the README's examples name this host's address"
kv_require_module

readme=$KVPERF_TOP/README.md
mapfile -t lines < <(sed -n '/^<!-- readme-examples begin -->$/,/^<!-- readme-examples end -->$/p' \
	"$readme" | sed -e '/^<!--/d' -e '/^```/d' -e 's/[[:space:]]\+#.*$//' \
	-e '/^[[:space:]]*$/d')
cmds=0
for l in "${lines[@]}"; do
	[[ $l =~ ^[A-Z_][A-Z0-9_]*= ]] || cmds=$((cmds + 1))
done
[ "$cmds" -gt 0 ] || kv_skip_all "no examples block in $readme"
kv_dmesg_mark
kv_on_exit kv_clean_all
ktap_set_plan $((cmds + 1))

[ "$kv_time_scale" -gt 1 ] &&
	ktap_print_msg "kvperf is the suite's wrapper (time scale $kv_time_scale): server start gets idle-timeout $((10 * kv_time_scale))s, compare timeout $((5 * kv_time_scale))s, when they name none"

# kernel-path run ids the examples started, for run show
started=()

# want TEXT: the output (in $text, its lines in $olines) has the fixed
# text TEXT, or say so. The checks fork nothing: under TCG a fork costs.
want() {
	[[ $text == *"$1"* ]] && return 0
	echo "no '$1' in the output"
	bad=1
}

# want_re REGEX: a line of the output matches REGEX (extended); its
# first group, if any, goes to $got.
want_re() {
	local line

	for line in "${olines[@]}"; do
		[[ $line =~ $1 ]] && { got=${BASH_REMATCH[1]:-}; return 0; }
	done
	echo "no line matching /$1/ in the output"
	bad=1
}

# sizes_of: the message sizes the command's words ask for, in bytes, in
# $sizes ("size N", "sizes MIN-MAX" doubled to MAX; bs for run io).
sizes_of() {
	local lo hi

	sizes=()
	if [ -n "${kw[size]:-}" ]; then
		sizes=("$(kv_bytes "${kw[size]}")")
	elif [ -n "${kw[bs]:-}" ]; then
		sizes=("$(kv_bytes "${kw[bs]}")")
	elif [[ ${kw[sizes]:-} =~ ^([0-9]+[KM]?)-([0-9]+[KM]?)$ ]]; then
		lo=$(kv_bytes "${BASH_REMATCH[1]}")
		hi=$(kv_bytes "${BASH_REMATCH[2]}")
		while [ "$lo" -le "$hi" ]; do
			sizes+=("$lo")
			lo=$((lo * 2))
		done
	fi
}

# to_ms TIME: a time as the tool reads it (10, 0.5, 2s, 500ms), in ms.
to_ms() {
	local t=${1%s}

	case $1 in
	*ms) echo "${1%ms}" ;;
	*.*) awk -v t="$t" 'BEGIN { printf "%d\n", t * 1000 }' ;;
	*) echo $((t * 1000)) ;;
	esac
}

# check_run: the text of a lat or bw run in $out shows what it asked for.
check_run() {
	local type=$1 path=${kw[path]:-kernel} s i cpus

	got=
	want_re "^# run( [0-9]+)?:? ?$type ${kw[op]} to ${kw[addr]}:18515 dev $KVPERF_DEV0, state done$"
	want "# path $path, poll ${kw[poll]:-busy},"
	[ "$path" = kernel ] && [ -n "$got" ] && started+=("${got# }")
	# a row per size, with the iterations asked for
	sizes_of
	for s in "${sizes[@]}"; do
		if [ -n "${kw[iters]:-}" ]; then
			want_re "^ $s +${kw[iters]} "
		else
			want_re "^ $s +[0-9]+ "
		fi
	done
	[ "$type" = bw ] || return 0
	want ", qps ${kw[qps]:-1}, "
	[ -n "${kw[time]:-}" ] && want ", duration $(to_ms "${kw[time]}") ms,"
	[ -n "${kw[post-list]:-}" ] && want ", post-list ${kw[post-list]}, "
	[ -n "${kw[signal-every]:-}" ] && want ", signal-every ${kw[signal-every]}, "
	if [ -n "${kw[interval]:-}" ]; then
		want ", interval $(to_ms "${kw[interval]}") ms,"
		want_re '^  \[ *[0-9.]+ s\] size [0-9]+ .* MiB/s'
	fi
	if [ -n "${kw[cpus]:-}" ]; then
		want ", cpus ${kw[cpus]}, "
		# the queue pairs dealt to the CPUs in turn
		mapfile -t cpus < <(echo "${kw[cpus]}" | tr ',' '\n' |
			awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }')
		for ((i = 0; i < ${kw[qps]:-1}; i++)); do
			want_re "^  qp $i \(cpu ${cpus[i % ${#cpus[@]}]}\): [0-9]+ messages"
		done
	fi
}

# check_io: the text of an I/O run in $out shows what it asked for.
check_io() {
	local q rw dirs bytes

	got=
	want_re "^# run ([0-9]+): io [a-z]+ to ${kw[addr]}:18515 dev $KVPERF_DEV0, state done$"
	[ -n "$got" ] && started+=("$got")
	want ", queues ${kw[queues]:-1}, qd ${kw[qd]:-1}, "
	[ -n "${kw[time]:-}" ] && want ", duration $(to_ms "${kw[time]}") ms,"
	sizes_of
	bytes=${sizes[0]:-4096}
	rw=${kw[rw]:-read}
	dirs=$rw
	if [ "$rw" = randmix ]; then
		want ", read-pct ${kw[randmix]}, "
		dirs="read write"
	fi
	for rw in $dirs; do
		want_re "^ $rw: IOPS=[0-9.]+, BW=[0-9.]+MiB/s \([0-9]+ I/Os of $bytes bytes in [0-9.]+ ms\)$"
	done
	for ((q = 0; q < ${kw[queues]:-1}; q++)); do
		want_re "^  queue $q \(cpu [-0-9]+\): IOPS=[0-9.]+, [0-9]+ I/Os"
	done
}

# check_compare: compare's table in $out has its op, size, rounds and
# iterations in the title and a row of every column for the size.
check_compare() {
	local s cols='kernel\[usec\] +user\[usec\]'

	sizes_of
	s=${sizes[0]:-2}
	command -v ib_send_lat >/dev/null && cols+=' +perftest\[usec\]'
	want_re "^# compare ${kw[compare]} ${kw[op]}, $s B, ${kw[rounds]:-5} rounds, poll ${kw[poll]:-busy}, iters ${kw[iters]:-1000}(,|$)"
	want_re "^ #bytes +$cols"
	want_re "^ $s +[0-9.]+ \([0-9.]+-[0-9.]+\) +[0-9.]+ \("
}

# check OUT ERR RC WORDS...: what the example's output must show.
check() {
	local w prev=

	bad=0
	text=$(<"$1")
	mapfile -t olines <"$1"
	[ "$3" = 0 ] || { echo "exit status $3, want 0"; bad=1; }
	unset kw
	declare -gA kw=()
	shift 3
	for w in "$@"; do
		[ -n "$prev" ] && kw[$prev]=$w
		prev=$w
	done
	case "$1 ${2:-} ${3:-}" in
	"dev  ")
		want_re "^[0-9]+: $KVPERF_DEV0: "
		want_re "^[0-9]+: $KVPERF_DEV1: " ;;
	"server start "*)
		want_re "^server [0-9]+ listening on ${kw[addr]}:18515$" ;;
	"run lat "* | "run bw "*)
		check_run "$2" ;;
	"run io "*)
		check_io ;;
	"compare lat "*)
		kw[compare]=lat
		check_compare ;;
	"run show ")
		for w in "${started[@]}"; do
			want_re "^# run $w: [a-z]+ [a-z]+ to .* state done$"
		done ;;
	*)
		echo "readme_examples.sh has no check for this example: add one"
		bad=1 ;;
	esac
	return "$bad"
}

out=$KV_TMP/out
limit=$(kv_scaled 60)
for l in "${lines[@]}"; do
	if [[ $l =~ ^([A-Z_][A-Z0-9_]*)=([^[:space:]]*)$ ]]; then
		v=${BASH_REMATCH[2]}
		if [ "${BASH_REMATCH[1]}" = ADDR ] && [ "$v" != "$KVPERF_ADDR0" ]; then
			ktap_print_msg "as run: ADDR=$KVPERF_ADDR0 (the README has $v)"
			v=$KVPERF_ADDR0
		fi
		export "${BASH_REMATCH[1]}=$v"
		continue
	fi
	# On a guest slowed beyond the suite's default time scale (the debug
	# kernel's lane: 5-10 times slower), a run that names no timeout
	# gets the default (5 s) times the scale, and says so.
	if [ "$kv_time_scale" -gt 3 ] && [[ $l =~ ^kvperf\ run\ (lat|bw|io)\  ]] &&
	   [[ ! $l =~ (^|\ )timeout(\ |$) ]]; then
		l+=" timeout $((5 * kv_time_scale))s"
		ktap_print_msg "scaled for time scale $kv_time_scale:"
	fi
	ktap_print_msg "as run: $l"
	t0=${EPOCHREALTIME/./}
	timeout "$limit" bash -c "$l" >"$out" 2>"$out.err"
	rc=$?
	ktap_print_msg "exit $rc after $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
	# the command's words, its variables expanded, without "kvperf"
	words=()
	eval "words=(${l#kvperf })"
	# not in a subshell: check records the runs started
	if check "$out" "$out.err" "$rc" "${words[@]}" >"$KV_TMP/why"; then
		ktap_test_pass "README example: $l"
	else
		ktap_test_fail "README example: $l"
		{ cat "$KV_TMP/why"; sed 's/^/stdout: /' "$out" | tail -n 40
		  sed 's/^/stderr: /' "$out.err"; } | kv_diag
	fi
done

ktap_print_msg "the examples took $SECONDS s with the checks"
kv_dmesg_check
ktap_finished
