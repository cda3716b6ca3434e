// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the data buffers of I/O runs, one block per outstanding I/O,
 * each as a scatterlist of its own (the host maps them once and registers
 * one per I/O; the target hands them to rdma_rw, which maps them per I/O).
 */
#include <linux/kvperf_wire.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "conn.h"
#include "io.h"

/**
 * kvperf_io_slots_bytes() - memory the slots of an I/O run pin
 * @n: slots
 * @bs: bytes each
 *
 * Return: the bytes, rounded up to whole chunks.
 */
size_t kvperf_io_slots_bytes(u32 n, u32 bs)
{
	size_t len = (size_t)n * bs;

	return round_up(len, 1UL << kvperf_chunk_shift(len));
}

static u8 *kvperf_io_slots_ptr(struct kvperf_io_slots *s, size_t off)
{
	return page_address(s->chunks[off >> s->chunk_shift]) +
	       (off & ((1UL << s->chunk_shift) - 1));
}

/* Slot @i's bytes from @off on, split where chunks end, into @sg. */
static u32 kvperf_io_slot_pieces(struct kvperf_io_slots *s, u32 i, u32 off,
				 u32 len, struct scatterlist *sg)
{
	size_t chunk = 1UL << s->chunk_shift;
	size_t pos = (size_t)i * s->bs + off, end = pos + len;
	u32 n = 0;

	while (pos < end) {
		size_t in = pos & (chunk - 1);
		size_t piece = min(end - pos, chunk - in);

		if (sg) {
			sg_set_page(sg, s->chunks[pos >> s->chunk_shift] +
				    (in >> PAGE_SHIFT), piece,
				    in & ~PAGE_MASK);
			sg = sg_next(sg);
		}
		pos += piece;
		n++;
	}
	return n;
}

/**
 * kvperf_io_slots_free() - free what kvperf_io_slots_alloc() allocated
 * @s: the slots; unmapped first if kvperf_io_slots_map() mapped them
 */
void kvperf_io_slots_free(struct kvperf_io_slots *s)
{
	unsigned int i;

	for (i = 0; s->mapped && i < s->n; i++)
		if (s->mapped[i])
			ib_dma_unmap_sg(s->ibdev, &s->sgl[i * s->per],
					s->nents[i], DMA_BIDIRECTIONAL);
	kvperf_chunks_free(s->chunks, s->nchunks, s->chunk_shift);
	kvfree(s->sgl);
	kfree(s->nents);
	kfree(s->mapped);
	memset(s, 0, sizeof(*s));
}

/**
 * kvperf_io_slots_alloc() - allocate @n blocks of @bs bytes
 * @s: the slots, zeroed
 * @ibdev: the device they will be mapped for
 * @n: how many
 * @bs: bytes each, a multiple of 512
 * @node: NUMA node, or NUMA_NO_NODE
 *
 * The memory comes in chunks of at most 2 MiB and no larger than @ibdev
 * maps in one piece (kvperf_chunk_shift_dma()), smaller where high-order
 * pages are short, but never smaller than a block: a block straddles at
 * most one chunk boundary, in KVPERF_IO_SLOT_PIECES_MAX scatterlist
 * entries.
 *
 * Return: 0; -EMSGSIZE when a block is larger than @ibdev maps in one
 * piece (kvperf_conn_create() refuses such a connection first, with
 * KVPERF_DMA_BLOCK_TOO_BIG: this warns); or -ENOMEM; with nothing left
 * allocated.
 */
int kvperf_io_slots_alloc(struct kvperf_io_slots *s, struct ib_device *ibdev,
			  u32 n, u32 bs, int node)
{
	unsigned int cap = kvperf_chunk_shift_dma(ibdev);
	size_t len = (size_t)n * bs;
	unsigned int i;

	BUILD_BUG_ON(KVPERF_IO_BS_MAX > 1UL << KVPERF_CHUNK_SHIFT_MAX);
	if (WARN_ON_ONCE(bs > 1UL << cap))
		return -EMSGSIZE;
	s->bs = bs;
	s->n = n;
	s->chunk_shift = min(kvperf_chunk_shift(len), cap);
	s->chunks = kvperf_chunks_alloc(len, &s->chunk_shift,
					kvperf_chunk_shift(bs), node,
					&s->nchunks);
	s->per = KVPERF_IO_SLOT_PIECES_MAX;
	s->sgl = kvcalloc((size_t)n * s->per, sizeof(*s->sgl), GFP_KERNEL);
	s->nents = kcalloc(n, sizeof(*s->nents), GFP_KERNEL);
	s->mapped = kcalloc(n, sizeof(*s->mapped), GFP_KERNEL);
	if (!s->chunks || !s->sgl || !s->nents || !s->mapped)
		goto err;
	for (i = 0; i < n; i++) {
		struct scatterlist *sg = &s->sgl[i * s->per];

		s->nents[i] = kvperf_io_slot_pieces(s, i, 0, bs, NULL);
		sg_init_table(sg, s->nents[i]);
		kvperf_io_slot_pieces(s, i, 0, bs, sg);
	}
	return 0;

err:
	kvperf_io_slots_free(s);
	return -ENOMEM;
}

/**
 * kvperf_io_slots_map() - DMA-map every slot for @ibdev, once
 * @s: the slots
 * @ibdev: the device
 *
 * Return: 0 or -ENOMEM; the slots mapped so far stay mapped until
 * kvperf_io_slots_free().
 */
int kvperf_io_slots_map(struct kvperf_io_slots *s, struct ib_device *ibdev)
{
	u32 i;

	s->ibdev = ibdev;
	for (i = 0; i < s->n; i++) {
		s->mapped[i] = ib_dma_map_sg(ibdev, &s->sgl[i * s->per],
					     s->nents[i], DMA_BIDIRECTIONAL);
		if (!s->mapped[i])
			return -ENOMEM;
	}
	return 0;
}

/**
 * kvperf_io_slot_sg() - a mapped slot's scatterlist
 * @s: the slots, mapped
 * @i: the slot
 * @nents: receives its mapped entries
 *
 * Return: the first entry.
 */
struct scatterlist *kvperf_io_slot_sg(struct kvperf_io_slots *s, u32 i,
				      u32 *nents)
{
	*nents = s->mapped[i];
	return &s->sgl[i * s->per];
}

/**
 * kvperf_io_slot_ptr() - a slot's bytes, for a slot in one piece
 * @s: the slots, whose block size divides their chunk size (no slot
 *     straddles a chunk)
 * @i: the slot
 *
 * Return: its first byte.
 */
void *kvperf_io_slot_ptr(struct kvperf_io_slots *s, u32 i)
{
	return kvperf_io_slots_ptr(s, (size_t)i * s->bs);
}

/**
 * kvperf_io_slot_sg_range() - a new scatterlist of part of a slot
 * @s: the slots
 * @i: the slot
 * @off: first byte of the part
 * @len: its bytes; @off + @len at most the block size
 * @sgt: receives the table, unmapped; free it with sg_free_table()
 *
 * Context: may sleep.
 * Return: 0 or -ENOMEM.
 */
int kvperf_io_slot_sg_range(struct kvperf_io_slots *s, u32 i, u32 off,
			    u32 len, struct sg_table *sgt)
{
	u32 n = kvperf_io_slot_pieces(s, i, off, len, NULL);

	if (sg_alloc_table(sgt, n, GFP_KERNEL))
		return -ENOMEM;
	kvperf_io_slot_pieces(s, i, off, len, sgt->sgl);
	return 0;
}

/**
 * kvperf_io_slot_fill() - write a verification pattern into a slot
 * @s: the slots
 * @i: the slot
 * @len: bytes from its start
 * @seed: the pattern's seed (kvperf_wire_pattern())
 */
void kvperf_io_slot_fill(struct kvperf_io_slots *s, u32 i, u32 len, u32 seed)
{
	size_t base = (size_t)i * s->bs;
	u32 k;

	for (k = 0; k < len; k++)
		*kvperf_io_slots_ptr(s, base + k) = kvperf_wire_pattern(seed, k);
}

/**
 * kvperf_io_slot_check() - does a slot hold a verification pattern?
 * @s: the slots
 * @i: the slot
 * @len: bytes from its start
 * @seed: the pattern's seed
 *
 * Return: true when every byte matches.
 */
bool kvperf_io_slot_check(struct kvperf_io_slots *s, u32 i, u32 len, u32 seed)
{
	size_t base = (size_t)i * s->bs;
	u32 k;

	for (k = 0; k < len; k++)
		if (*kvperf_io_slots_ptr(s, base + k) !=
		    kvperf_wire_pattern(seed, k))
			return false;
	return true;
}

static void kvperf_io_slot_sync(struct kvperf_io_slots *s, u32 i,
				bool for_cpu)
{
	struct scatterlist *sg;
	unsigned int k;

	for_each_sg(&s->sgl[i * s->per], sg, s->mapped[i], k) {
		if (for_cpu)
			ib_dma_sync_single_for_cpu(s->ibdev, sg_dma_address(sg),
						   sg_dma_len(sg),
						   DMA_BIDIRECTIONAL);
		else
			ib_dma_sync_single_for_device(s->ibdev,
						      sg_dma_address(sg),
						      sg_dma_len(sg),
						      DMA_BIDIRECTIONAL);
	}
}

/**
 * kvperf_io_slot_for_cpu() - hand a mapped slot to the CPU
 * @s: the slots, mapped
 * @i: the slot
 */
void kvperf_io_slot_for_cpu(struct kvperf_io_slots *s, u32 i)
{
	kvperf_io_slot_sync(s, i, true);
}

/**
 * kvperf_io_slot_for_device() - hand a mapped slot back to the device
 * @s: the slots, mapped
 * @i: the slot
 */
void kvperf_io_slot_for_device(struct kvperf_io_slots *s, u32 i)
{
	kvperf_io_slot_sync(s, i, false);
}
