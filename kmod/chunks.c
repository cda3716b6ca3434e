// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: memory for RDMA buffers in physically contiguous chunks.
 *
 * A chunk is one scatterlist entry, so it must map in one piece: no
 * larger than dma_max_mapping_size() (256 KiB where swiotlb bounces
 * every mapping: confidential guests, swiotlb=force) nor than the
 * device's largest DMA segment. High-order pages may be short on a
 * fragmented host: an allocation then falls back to smaller chunks,
 * down to what its caller can take, and the caller's checks of the
 * device's limits (SGEs per request, FRWR page list) refuse by name a
 * buffer that ends up in too many pieces.
 */
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "chunks.h"

/**
 * kvperf_chunk_shift() - the chunk size a buffer of @len bytes asks for
 * @len: bytes
 *
 * Return: log2 of the smallest power of two of at least @len bytes, from
 * a page to 2 MiB.
 */
unsigned int kvperf_chunk_shift(size_t len)
{
	if (len <= PAGE_SIZE)
		return PAGE_SHIFT;
	return min_t(unsigned int, order_base_2(len), KVPERF_CHUNK_SHIFT_MAX);
}

/**
 * kvperf_chunk_shift_dma() - the largest chunk @ibdev maps in one piece
 * @ibdev: the device
 *
 * A device whose verbs take kernel virtual addresses (Soft-RoCE, siw)
 * maps nothing, and has no limit of its own.
 *
 * Return: log2 of a power of two of bytes, from a page to 2 MiB.
 */
unsigned int kvperf_chunk_shift_dma(struct ib_device *ibdev)
{
	size_t cap = 1UL << KVPERF_CHUNK_SHIFT_MAX;

	if (!ib_uses_virt_dma(ibdev)) {
		cap = min(cap, dma_max_mapping_size(ibdev->dma_device));
		cap = min_t(size_t, cap, ib_dma_max_seg_size(ibdev));
	}
	if (cap <= PAGE_SIZE)
		return PAGE_SHIFT;
	return ilog2(cap);
}

/**
 * kvperf_chunks_free() - free what kvperf_chunks_alloc() allocated
 * @chunks: the chunks' first pages, or NULL
 * @n: how many
 * @shift: log2 of a chunk's size
 */
void kvperf_chunks_free(struct page **chunks, unsigned int n,
			unsigned int shift)
{
	unsigned int i;

	for (i = 0; chunks && i < n; i++)
		if (chunks[i])
			__free_pages(chunks[i], shift - PAGE_SHIFT);
	kvfree(chunks);
}

static struct page **kvperf_chunks_try(size_t len, unsigned int shift,
				       int node, unsigned int *n)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN;
	unsigned int i, order = shift - PAGE_SHIFT;
	struct page **chunks;

	*n = DIV_ROUND_UP(len, 1UL << shift);
	chunks = kvcalloc(*n, sizeof(*chunks), GFP_KERNEL);
	if (!chunks)
		return NULL;
	for (i = 0; i < *n; i++) {
		chunks[i] = alloc_pages_node(node, gfp, order);
		if (!chunks[i]) {
			kvperf_chunks_free(chunks, i, shift);
			return NULL;
		}
	}
	return chunks;
}

/**
 * kvperf_chunks_alloc() - allocate @len bytes, zeroed, in equal chunks
 * @len: bytes
 * @shift: log2 of the chunk size wanted; receives the one allocated
 * @min_shift: log2 of the smallest chunk the caller takes, at most @shift
 * @node: NUMA node, or NUMA_NO_NODE
 * @n: receives the number of chunks
 *
 * Tries chunks of 1 << @shift bytes, then each smaller power of two down
 * to 1 << @min_shift (at least a page).
 *
 * Context: may sleep.
 * Return: the chunks' first pages (free with kvperf_chunks_free()), or
 * NULL with nothing left allocated.
 */
struct page **kvperf_chunks_alloc(size_t len, unsigned int *shift,
				  unsigned int min_shift, int node,
				  unsigned int *n)
{
	unsigned int s = *shift;
	struct page **chunks;

	min_shift = clamp(min_shift, (unsigned int)PAGE_SHIFT, s);
	for (;; s--) {
		chunks = kvperf_chunks_try(len, s, node, n);
		if (chunks || s == min_shift)
			break;
	}
	if (chunks)
		*shift = s;
	return chunks;
}
