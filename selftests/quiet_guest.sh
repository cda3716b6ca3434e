# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced in the guest by the measurements on the instruction-count clock
# (vmtest.sh -i): selftests/bench_guest.sh (make bench) and
# selftests/demo.sh (make demo). What keeps instruction time repeating:
# quiet_pin_programs keeps every program a measurement runs off the
# host's 9p share, quiet_hold_slabs keeps the slab caches' empty slabs.

# On the instruction-count clock nothing a measurement does may wait for
# the host. The host's root and the project directory are shared over
# 9p: a process pages its binary and libraries in from the host (the
# provider's post and poll code first runs inside the measurement), an
# open(2) there asks the host, and a result written there is written to
# the host. While the guest waits for the host its clock runs at the
# host's pace (sleep=on), so every such wait is noise in instruction
# time, inside a measurement or in where the scheduler's tick falls in
# the next one. (With sleep=off the clock jumped to the next timer
# instead, 15 to 149 s while one kvperf loaded, which used up the
# guest-time limits around a measurement.) So /etc, the programs
# measured and every library they map are copied to a tmpfs and
# bind-mounted over their originals (same paths, no host in between).

# quiet_pin MEM FILE...: /etc, FILE... and the libraries they map
# (libibverbs' providers included) copied into MEM and bind-mounted over
# their originals.
quiet_pin() {
	local mem=$1 files f real

	shift
	cp -a /etc "$mem/etc" && mount --bind "$mem/etc" /etc || return 1
	files=("$@" /usr/lib/x86_64-linux-gnu/libibverbs/*.so)
	for f in "$@"; do
		mapfile -t -O "${#files[@]}" files < <(ldd "$f" |
			grep -o '/[^ ]*')
	done
	for f in "${files[@]}"; do
		real=$(realpath -e "$f") || continue
		mountpoint -q "$real" && continue
		cp "$real" "$mem/${real//\//_}" &&
			mount --bind "$mem/${real//\//_}" "$real" || return 1
	done
}

# quiet_pin_programs: a tmpfs in $quiet_mem (set here) holding kvperf,
# perftest's clients and the few tools a measurement runs, pinned as
# quiet_pin does, and a PATH where every lookup hits at once (a name not
# there is asked of the host again each time). kvperf comes from the
# project directory, which has no cache at all.
quiet_pin_programs() {
	local progs=() p

	quiet_mem=$(mktemp -d) &&
		mount -t tmpfs -o size=256m kvperf-quiet "$quiet_mem" || return 1
	for p in ib_{send,write,read}_{lat,bw} timeout head rm stdbuf; do
		p=$(command -v "$p") && progs+=("$p")
	done
	# what stdbuf preloads into the perftest clients compare runs
	p=/usr/libexec/coreutils/libstdbuf.so
	[ -e "$p" ] && progs+=("$p")
	mkdir "$quiet_mem/bin" &&
		cp "$(command -v kvperf)" "$quiet_mem/bin/" &&
		quiet_pin "$quiet_mem" "$quiet_mem/bin/kvperf" "${progs[@]}" ||
		return 1
	PATH=$quiet_mem/bin:/usr/bin:/bin:/usr/sbin:/sbin
}

# Empty slabs stay with their caches. Soft-RoCE allocates and frees an
# skb per packet, and whether a run's churn empties a slab and hands it
# back to the page allocator (then takes a new one) depends on how full
# the slabs were when the run started: on 6.12, kernel send bandwidth at
# 64 KiB was 118.4 MiB/s in runs that allocated about 4640 pages and
# 120.5 in runs that allocated about 2620, each level repeating to
# 0.05 %, and a median of three rounds landed on either. With every
# cache keeping up to 1000 empty slabs (min_partial; a slab is given back
# only beyond that), runs allocate about 550 pages and ten of them agree
# within 0.7 % (the user path's too). It costs the guest at most the
# memory its peak already took.
quiet_slab_hold=1000

# quiet_hold_slabs: every cache keeps quiet_slab_hold empty slabs; how
# many caches took it goes to quiet_slab_caches.
quiet_hold_slabs() {
	local f

	quiet_slab_caches=0
	for f in /sys/kernel/slab/*/min_partial; do
		echo "$quiet_slab_hold" >"$f" 2>/dev/null &&
			quiet_slab_caches=$((quiet_slab_caches + 1))
	done
}
