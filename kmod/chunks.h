/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: memory for RDMA buffers in physically contiguous chunks, sized
 * from what the device's DMA layer maps in one piece.
 */
#ifndef _KVPERF_CHUNKS_H
#define _KVPERF_CHUNKS_H

#include <linux/mm_types.h>
#include <rdma/ib_verbs.h>

/* Chunks are at most 2 MiB, so buffers never need higher-order pages. */
#define KVPERF_CHUNK_SHIFT_MAX	21
/* Why an I/O block that the device cannot map in one piece is refused. */
#define KVPERF_DMA_BLOCK_TOO_BIG \
	"the block size is larger than the device maps in one DMA segment (dma_max_mapping_size, max segment size)"

unsigned int kvperf_chunk_shift(size_t len);
unsigned int kvperf_chunk_shift_dma(struct ib_device *ibdev);
struct page **kvperf_chunks_alloc(size_t len, unsigned int *shift,
				  unsigned int min_shift, int node,
				  unsigned int *n);
void kvperf_chunks_free(struct page **chunks, unsigned int n,
			unsigned int shift);

#endif /* _KVPERF_CHUNKS_H */
