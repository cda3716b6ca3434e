#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a device with real DMA mapping needs (see selftests/rxe-dma/ and
# vmtest.sh -d). It runs on every lane; where the results differ by lane
# (KVPERF_DMA_LANE), each lane checks its own.
#
# - The lane is what it says: on the DMA lane both devices map DMA
#   through a PCI function behind the IOMMU; on the plain lane rxe's
#   virtual addresses are in use.
# - Message sizes that are not powers of two and not whole chunks (3 MiB
#   in two 2 MiB chunks, 9000 B, 12 KiB + 1), every op, latency and
#   bandwidth, kernel and user path, payloads verified where the op
#   allows it: the FRWR MR covers the whole mapping, SGEs follow the
#   mapped segments.
# - Inline sends carry CPU addresses. The debugfs switch
#   inline_dma_addresses puts DMA addresses there instead (the old bug):
#   the DMA lane's device refuses the post, and the run fails saying so.
#   Plain rxe, where a DMA address is a kernel pointer, cannot tell the
#   bug from a correct post, so the plain lane skips those two checks
#   (no check may pass because a bug is there). Switched off, inline
#   runs are done and intact on both lanes.
# - With the debugfs switch page_chunks, connections' buffers come in
#   single pages, as when high-order pages are short: a message of 25
#   pages is done and intact on every lane; one of 256 pages is too
#   behind the IOMMU, which merges them into one segment, and is refused
#   by name elsewhere (more segments than one request takes).
# - On the bounce-buffer lane (vmtest.sh -b, KVPERF_BOUNCE_LANE=1) the
#   IOMMU passes through and swiotlb bounces every mapping, 256 KiB at
#   most each: the kernel path's runs above (the user path's memory is
#   registered, not mapped, so they run there alone) went through
#   swiotlb's slots (its high
#   water mark says so); an I/O run's block of 256 KiB is done and
#   intact, one of 512 KiB is refused by name (a block is one DMA
#   segment at most).

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_root
kv_require_cli
kv_require_rxe "Soft-RoCE's DMA lanes (IOMMU, swiotlb) only"
kv_require_module

addr=$KVPERF_ADDR0
uport=18640		# the user-path server's port
switch=/sys/kernel/debug/kvperf/inline_dma_addresses
pages=/sys/kernel/debug/kvperf/page_chunks
lane=${KVPERF_DMA_LANE:-0}
bounce=${KVPERF_BOUNCE_LANE:-0}
hiwater=/sys/kernel/debug/swiotlb/io_tlb_used_hiwater
kv_track_runs
kv_on_exit "echo N >$switch"
kv_on_exit "echo N >$pages"
[ -w "$switch" ] || kv_skip_all "no $switch (debugfs not mounted?)"

lat() {
	kv_py "$KV_DIR/latlib.py" "$@"
}

bw() {
	kv_py "$KV_DIR/bwlib.py" "$@"
}

patient=(timeout "$(kv_scaled 5000)ms")


# run_json NAME ARGS...: kvperf -j run ARGS into $KV_TMP/NAME.json; fails
# unless it exits 0.
run_json() {
	local name=$1

	shift
	kv_run_json "$name" "$(kv_scaled 300)" kvperf -j run "$@" "${patient[@]}"
}

# the odd sizes for every op; on the feature lane (lib.sh's
# kv_full_lane, stock rxe, no DMA mapping to get wrong) for write alone
ops="send write read"
kv_full_lane || ops=write
# the lane; the server; the ops x (kernel, user; kernel alone on the
# bounce lane) x (lat, bw); inline: 2
# kinds x (CPU addresses, DMA addresses); the kernel log
ktap_set_plan $((1 + 1 + $(wc -w <<<"$ops") * 2 * (2 - bounce) + 2 * 2 + 2 + 3 * bounce + 1))
kv_dmesg_mark
if [ "$bounce" = 1 ]; then
	echo 0 >"$hiwater" || kv_bail "cannot reset $hiwater"
fi

# The lane.
lane_is() {
	local i

	if [ "$bounce" = 1 ] && ! grep -qE '(^| )swiotlb=[0-9]+,force( |$)' /proc/cmdline; then
		echo "KVPERF_BOUNCE_LANE is 1, but the kernel's command line has no swiotlb=N,force: $(cat /proc/cmdline)"
		return 1
	fi
	for i in 0 1; do
		# the IOMMU passes through (identity domain, type 0x4) on the
		# bounce lane, and translates on the DMA lane
		if [ "$bounce" = 1 ] &&
		   ! dmesg | grep -q "rdma_rxe (DMA lane): kvd$i maps DMA through .*, IOMMU domain type 0x4$"; then
			echo "KVPERF_BOUNCE_LANE is 1, but kvd$i's IOMMU domain is not the passthrough one:"
			dmesg | grep "rdma_rxe (DMA lane): kvd$i"
			return 1
		fi
		if dmesg | grep -q "rdma_rxe (DMA lane): kvd$i maps DMA through "; then
			[ "$lane" = 1 ] && continue
			echo "kvd$i maps DMA through an IOMMU, but KVPERF_DMA_LANE is $lane"
			return 1
		fi
		[ "$lane" = 0 ] && continue
		echo "KVPERF_DMA_LANE is 1, but kvd$i has no DMA-lane message:"
		dmesg | grep -i 'rxe\|iommu' | tail -n 5
		return 1
	done
}
if [ "$bounce" = 1 ]; then
	kv_check "bounce lane: rxe0 and rxe1 map DMA through PCI functions, the IOMMU passing through, swiotlb forced" lane_is
elif [ "$lane" = 1 ]; then
	kv_check "DMA lane: rxe0 and rxe1 map DMA through PCI functions behind the IOMMU" lane_is
else
	kv_check "plain lane: rxe0 and rxe1 use rxe's virtual DMA addresses" lane_is
fi

# The kernel server, and a user server in the background.
out=$(kvperf server start addr "$addr" 2>&1) ||
	kv_bail "server start addr $addr: $out"
kid=$(sed -n 's/^server \([0-9]\+\) listening.*/\1/p' <<<"$out")
kv_on_exit "kvperf server stop $kid"
kvperf server start addr "$addr" port "$uport" path user \
	>"$KV_TMP/userver.out" 2>&1 </dev/null &
upid=$!
kv_on_exit "kill $upid"
user_listening() {
	grep -q "^server listening on $addr:$uport (user path)" \
		"$KV_TMP/userver.out" && return 0
	kill -0 "$upid" 2>/dev/null || return 0
	return 1
}
kv_wait 30 user_listening
kv_check "kernel server $kid on $addr and user server on port $uport listen" \
	grep -q "^server listening on $addr:$uport (user path)" \
	"$KV_TMP/userver.out" || kv_bail "no user server: $(cat "$KV_TMP/userver.out")"

# lat_sized NAME OP BYTES ARGS...: a latency run of 10 OPs of BYTES
# (verified unless OP is read) with ARGS, done as asked.
lat_sized() {
	local name=$1 op=$2 size=$3 v=() check=()

	shift 3
	[ "$op" != read ] && v=(verify) && check=(--verify)
	run_json "$name" lat op "$op" addr "$addr" size "$size" iters 10 \
		"${v[@]}" "$@" || return 1
	lat run "$KV_TMP/$name.json" --state 'done' --op "$op" \
		--iters 10 --sizes "$size" "${check[@]}"
}

# Latency, 3 MiB (two 2 MiB chunks; the MR covers 4 MiB).
lat_3m() {
	lat_sized "lat-$1-$2" "$2" 3145728 port "$3" path "$1"
}

# Bandwidth, 9000 B then 12 KiB + 1 (sizes double from 9000, so each is
# its own run), 2 queue pairs, 60 messages each.
bw_odd() {
	local path=$1 op=$2 port=$3 size=$4 v=() check=()

	[ "$op" != read ] && v=(verify) && check=(--verify)
	run_json "bw-$path-$op-$size" bw op "$op" addr "$addr" port "$port" \
		size "$size" iters 60 qps 2 "${v[@]}" path "$path" || return 1
	bw run "$KV_TMP/bw-$path-$op-$size.json" --state 'done' --op "$op" \
		--qps 2 --iters 60 --sizes "$size" "${check[@]}"
}

bw_odd_pair() {
	bw_odd "$1" "$2" "$3" 9000 && bw_odd "$1" "$2" "$3" 12289
}

for op in $ops; do
	kv_check "kernel path lat $op size 3M: done" \
		lat_3m kernel "$op" 18515
	kv_check "kernel path bw $op size 9000, then 12289, 2 QPs: done" \
		bw_odd_pair kernel "$op" 18515
	# the user path's memory is registered, not mapped by the module:
	# the bounce lane's device reads and writes its pages directly
	[ "$bounce" = 1 ] && continue
	kv_check "user path lat $op size 3M against the user server: done" \
		lat_3m user "$op" "$uport"
	kv_check "user path bw $op size 12289 against the user server: done" \
		bw_odd user "$op" "$uport" 12289
done

# Inline sends of 64 bytes, with the switch in a given position.
inline_run() {
	local name=$1 op=$2

	shift 2
	kv_run "$KV_TMP/$name.json" "$KV_TMP/$name.err" \
		timeout "$(kv_scaled 120)" kvperf -j run "$@" op "$op" \
		addr "$addr" size 64 inline 64 "${patient[@]}"
}

inline_ok() {
	local kind=$1 op=$2 rc

	inline_run "in-$kind-$op" "$op" "$kind" iters 50 verify
	rc=$?
	kv_json_id "$KV_TMP/in-$kind-$op.json" >>"$KV_IDS"
	[ "$rc" = 0 ] || { echo "exit $rc"; cat "$KV_TMP/in-$kind-$op.err"; return 1; }
	if [ "$kind" = lat ]; then
		lat run "$KV_TMP/in-$kind-$op.json" --state 'done' --op "$op" \
			--iters 50 --sizes 64 --verify --field inline=64
	else
		bw run "$KV_TMP/in-$kind-$op.json" --state 'done' --op "$op" \
			--iters 50 --sizes 64 --verify --field inline=64
	fi
}

# The DMA lane refuses the post: the run fails with the module's reason
# (or, when the server's post failed first, the server closed), and the
# device logged the address it refused.
inline_refused() {
	local kind=$1 op=$2 rc before after

	before=$(dmesg | grep -c "is not a CPU address")
	inline_run "bad-$kind-$op" "$op" "$kind" iters 50
	rc=$?
	kv_json_id "$KV_TMP/bad-$kind-$op.json" >>"$KV_IDS"
	after=$(dmesg | grep -c "is not a CPU address")
	if [ "$rc" != 1 ] ||
	   ! grep -qE "^kvperf: run [0-9]+ failed: (cannot post a work request|the server closed the connection)" \
		"$KV_TMP/bad-$kind-$op.err"; then
		echo "exit $rc, want 1 and 'cannot post a work request':"
		cat "$KV_TMP/bad-$kind-$op.err"
		return 1
	fi
	[ "$after" -gt "$before" ] ||
		{ echo "no new 'is not a CPU address' in the kernel log"; return 1; }
}

for kind in lat bw; do
	kv_check "inline $kind write 64 B (CPU addresses): done, payloads intact" \
		inline_ok "$kind" write
done
[ "$lane" = 1 ] && { echo Y >"$switch" || kv_bail "cannot write $switch"; }
for kind in lat bw; do
	desc="inline $kind write with DMA addresses: the device refuses the post, the run fails"
	if [ "$lane" = 1 ]; then
		kv_check "$desc" inline_refused "$kind" write
	else
		kv_skip "$desc" "plain rxe takes a DMA address for a CPU address (only the DMA lane, vmtest.sh -d, can tell)"
	fi
done
echo N >"$switch"

# Buffers in single pages (the page_chunks switch): SIZE verified.
lat_pages() {
	lat_sized "pages-$1" write "$1"
}

echo Y >"$pages" || kv_bail "cannot write $pages"
kv_check "page_chunks: lat write size 100000 (25 pages) verify: done, intact" \
	lat_pages 100000
if [ "$lane" = 1 ] && [ "$bounce" = 0 ]; then
	kv_check "page_chunks: lat write size 1M verify: done, intact (the IOMMU merges the pages)" \
		lat_pages 1048576
else
	kv_check "page_chunks: lat write size 1M: refused, 256 segments" \
		kv_run_fails pages-1M \
		"a message spans more DMA segments than one request takes (32)" \
		lat op write addr "$addr" size 1M iters 10 verify "${patient[@]}"
fi
echo N >"$pages"

# The bounce lane: the runs' buffers went through swiotlb's 2 KiB slots,
# a 3 MiB receive buffer's 1536 at least at once.
bounced() {
	local n

	n=$(cat "$hiwater") || return 1
	[ "$n" -ge 1536 ] && return 0
	echo "swiotlb's high water mark is $n slots, want 1536 or more"
	return 1
}

# An I/O run of blocks of one swiotlb mapping each (256 KiB), verified.
io_bounce() {
	run_json io-256K io addr "$addr" rw write bs 256K qd 2 iters 8 \
		verify || return 1
	kv_py "$KV_DIR/iolib.py" run "$KV_TMP/io-256K.json" --state 'done' \
		--rw write --bs 262144 --qd 2 --ios 8 --verify
}

if [ "$bounce" = 1 ]; then
	kv_check "bounce lane: the runs' buffers went through swiotlb" bounced
	kv_check "bounce lane: io write bs 256K (one mapping a block) verify: done, intact" \
		io_bounce
	kv_check "bounce lane: io write bs 512K: refused, a block is one DMA segment at most" \
		kv_run_fails io-512K \
		"the block size is larger than the device maps in one DMA segment (dma_max_mapping_size, max segment size)" \
		io addr "$addr" rw write bs 512K qd 2 iters 8 "${patient[@]}"
fi

kill -TERM "$upid"
wait "$upid"
kv_dmesg_check
ktap_finished
