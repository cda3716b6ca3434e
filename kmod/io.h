/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: storage-shaped I/O runs, the host (client) and target (server)
 * sides of the data path nvme-rdma, iSER and NFS over RDMA drive.
 */
#ifndef _KVPERF_IO_H
#define _KVPERF_IO_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/kref.h>
#include <linux/kvperf_wire.h>
#include <linux/llist.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>

#include "conn.h"
#include "kvperf.h"
#include "stats.h"

/*
 * Contexts (a data block and a response capsule each) a target keeps
 * beyond the host's credits, at most: a host that had its response may
 * send its next command before the target reaped the response's send
 * completion, which frees its context.
 */
#define KVPERF_IO_SPARE_MAX	8
/*
 * Receives a target keeps posted beyond the host's credits: commands that
 * arrive while every context is busy wait in them, and a host that keeps
 * to its credits meets receiver-not-ready only when this side lags by
 * more than this many responses.
 */
#define KVPERF_IO_RECV_SPARE	64
/*
 * Pieces of one block at most: blocks in chunks no smaller than a block
 * straddle at most one chunk boundary (kvperf_io_slots_alloc()).
 */
#define KVPERF_IO_SLOT_PIECES_MAX	2

/**
 * struct kvperf_io_slots - one block-sized data buffer per I/O slot
 * @chunks: the memory, in physically contiguous chunks
 * @nchunks: how many
 * @chunk_shift: log2 of a chunk's size
 * @bs: the block size, a slot's bytes
 * @n: slots
 * @sgl: every slot's scatterlist, @per entries each
 * @per: entries reserved per slot
 * @nents: entries of each slot, as built
 * @mapped: entries of each slot as DMA-mapped, 0 when not mapped
 * @ibdev: the device they are mapped for
 */
struct kvperf_io_slots {
	struct page **chunks;
	unsigned int nchunks;
	unsigned int chunk_shift;
	u32 bs;
	u32 n;
	struct scatterlist *sgl;
	u32 per;
	u32 *nents;
	u32 *mapped;
	struct ib_device *ibdev;
};

int kvperf_io_slots_alloc(struct kvperf_io_slots *s, struct ib_device *ibdev,
			  u32 n, u32 bs, int node);
int kvperf_io_slots_map(struct kvperf_io_slots *s, struct ib_device *ibdev);
void kvperf_io_slots_free(struct kvperf_io_slots *s);
size_t kvperf_io_slots_bytes(u32 n, u32 bs);
struct scatterlist *kvperf_io_slot_sg(struct kvperf_io_slots *s, u32 i,
				      u32 *nents);
void *kvperf_io_slot_ptr(struct kvperf_io_slots *s, u32 i);
int kvperf_io_slot_sg_range(struct kvperf_io_slots *s, u32 i, u32 off,
			    u32 len, struct sg_table *sgt);
void kvperf_io_slot_fill(struct kvperf_io_slots *s, u32 i, u32 len,
			 u32 seed);
bool kvperf_io_slot_check(struct kvperf_io_slots *s, u32 i, u32 len,
			  u32 seed);
void kvperf_io_slot_for_cpu(struct kvperf_io_slots *s, u32 i);
void kvperf_io_slot_for_device(struct kvperf_io_slots *s, u32 i);

/* A mixed run's results: reads first, then writes. */
#define KVPERF_IO_DIRS	2

/**
 * kvperf_io_dirs() - results per block size of an I/O run
 * @read_pct: the run's share of reads, 0 when not mixed
 *
 * Return: 2 for a mixed run (reads, then writes), else 1.
 */
static inline u32 kvperf_io_dirs(u8 read_pct)
{
	return read_pct ? KVPERF_IO_DIRS : 1;
}

/**
 * kvperf_io_sizes() - block sizes an I/O run measures
 * @bss: the run's sweep, bit n for 2^n bytes; 0 when it has one size
 *
 * Return: how many, at least 1.
 */
static inline u32 kvperf_io_sizes(u32 bss)
{
	return bss ? hweight32(bss) : 1;
}

/**
 * kvperf_io_size() - one block size of an I/O run
 * @bss: the run's sweep, 0 when it has one size
 * @bs: its one size (the smallest of a sweep)
 * @step: which, from 0, smallest first
 *
 * Return: the size in bytes.
 */
static inline u32 kvperf_io_size(u32 bss, u32 bs, u32 step)
{
	while (bss && step--)
		bss &= bss - 1;
	return bss ? 1U << __ffs(bss) : bs;
}

/**
 * kvperf_io_dir() - which of a run's results an I/O goes to
 * @read_pct: the run's share of reads, 0 when not mixed
 * @op: the I/O's direction
 *
 * Return: 0 for every I/O of a run that does not mix, else 0 for reads
 * and 1 for writes.
 */
static inline u32 kvperf_io_dir(u8 read_pct, u8 op)
{
	return read_pct && op == KVPERF_OP_WRITE;
}

/**
 * struct kvperf_io_params - what an I/O run's host does
 * @op: KVPERF_OP_READ or KVPERF_OP_WRITE
 * @read_pct: a mixed run: each I/O reads with this chance in percent and
 *	      writes otherwise; 0: every I/O is @op
 * @bs: bytes per I/O
 * @qd: I/Os kept outstanding
 * @segments: keyed segments per command, each @bs / @segments bytes
 * @iterations: measured I/Os (when @duration_ns is 0)
 * @duration_ns: measure for this long instead
 * @warmup: unmeasured I/Os first
 * @warmup_ns: warm up for this long instead, when not 0
 * @verify: every byte of every I/O is checked
 * @inv_local: the host invalidates its registrations itself
 * @reg_pre: each block is registered once, at start, and never
 *	     invalidated; @inv_local is false
 * @inline_data: writes of at most this many bytes go in the command
 *		 capsule (in-capsule data), 0 for none
 * @hist: where the measured I/Os' latencies go, NULL for none: one for
 *	  all, or in a mixed run the reads' and the writes'
 * @progress: counts every completed I/O
 * @measured: counts the measured ones; both may be shared by several
 *	      hosts and are read by whoever reports progress
 */
struct kvperf_io_params {
	u8 op;
	u8 read_pct;
	u32 bs;
	u32 qd;
	u32 segments;
	u32 iterations;
	u64 duration_ns;
	u32 warmup;
	u64 warmup_ns;
	bool verify;
	bool inv_local;
	bool reg_pre;
	u32 inline_data;
	struct kvperf_hist *hist[KVPERF_IO_DIRS];
	atomic64_t *progress;
	atomic64_t *measured;
};

/**
 * struct kvperf_io_result - what the host measured, per kvperf_io_dir()
 * @ios: measured I/Os completed
 * @start_ns: the first measured submission (ktime_get_ns())
 * @elapsed_ns: from @start_ns to the last measured completion, of all of
 *		them
 * @mismatches: reads whose data were wrong (verify)
 * @reg_ns: with a histogram, the time spent registering the I/Os' blocks
 * @inv_ns: with a histogram, the time the I/Os waited for a LOCAL_INV
 * @cpu_ns: with a histogram, the host's CPU time from the first measured
 *	    submission to the last completion: the thread's runtime and the
 *	    completion handlers' time outside it
 * @peer_cpu_ns: the target's CPU time, as its responses report it, from
 *		 the last response before the first measured submission to
 *		 the last measured one's
 */
struct kvperf_io_result {
	u64 ios[KVPERF_IO_DIRS];
	u64 start_ns;
	u64 elapsed_ns;
	u64 mismatches[KVPERF_IO_DIRS];
	u64 reg_ns[KVPERF_IO_DIRS];
	u64 inv_ns[KVPERF_IO_DIRS];
	u64 cpu_ns;
	u64 peer_cpu_ns;
};

struct kvperf_io_host;

void kvperf_io_host_conn_attr(const struct kvperf_io_params *p, u8 poll,
			      struct kvperf_conn_attr *attr);
size_t kvperf_io_host_pinned(const struct kvperf_io_params *p);
struct kvperf_io_host *kvperf_io_host_create(struct kvperf_conn *c,
					     const struct kvperf_io_params *p);
int kvperf_io_host_start(struct kvperf_io_host *h, u32 credits);
int kvperf_io_host_run(struct kvperf_io_host *h, struct kvperf_io_result *r);
void kvperf_io_host_free(struct kvperf_io_host *h);

struct kvperf_io_target;
struct kvperf_io_srq;

/**
 * struct kvperf_io_trx - one receive of a target, for a command capsule
 * @t: the target it serves: fixed for a connection's own; for a shared
 *     receive queue's, the one whose queue pair took it, NULL while posted
 * @srq: the shared receive queue it belongs to, NULL for a connection's own
 * @index: its capsule: in the connection's receive buffer, or @srq's slot
 * @cqe: its completion
 * @len: bytes the command had
 * @node: entry in the target's list of arrived commands
 * @wait: entry in the thread's queue of commands waiting for a context
 */
struct kvperf_io_trx {
	struct kvperf_io_target *t;
	struct kvperf_io_srq *srq;
	u32 index;
	struct ib_cqe cqe;
	u32 len;
	struct llist_node node;
	struct list_head wait;
};

/**
 * struct kvperf_io_srq - a shared receive queue of a listener's I/O targets
 * @ref: the listener's reference and one per connection that uses it
 * @pd: its protection domain, which those connections share
 * @srq: the queue
 * @slots: a capsule per receive
 * @rx: the receives
 * @depth: how many
 * @lock: protects @granted and @failed
 * @granted: credits granted to the live connections, at most @depth
 * @failed: the device reported an error of the queue: no more credits
 */
struct kvperf_io_srq {
	struct kref ref;
	struct ib_pd *pd;
	struct ib_srq *srq;
	struct kvperf_io_slots slots;
	struct kvperf_io_trx *rx;
	u32 depth;
	spinlock_t lock;	/* protects @granted and @failed */
	u32 granted;
	bool failed;
};

void kvperf_io_srq_footprint(u32 depth, struct kvperf_footprint *f);
struct kvperf_io_srq *kvperf_io_srq_create(struct ib_device *ibdev, u32 depth,
					   void (*done)(struct ib_cq *cq,
							struct ib_wc *wc),
					   const char **why);
int kvperf_io_srq_post(struct kvperf_io_srq *q, struct kvperf_io_trx *r);
struct kvperf_io_srq *kvperf_io_srq_get(struct kvperf_io_srq *q);
void kvperf_io_srq_put(struct kvperf_io_srq *q);
u32 kvperf_io_srq_grant(struct kvperf_io_srq *q, u32 want);
void kvperf_io_srq_ungrant(struct kvperf_io_srq *q, u32 n);
u32 kvperf_io_srq_granted(struct kvperf_io_srq *q);

/**
 * struct kvperf_io_target_params - an I/O run, as the target saw it asked
 * @op: KVPERF_OP_READ or KVPERF_OP_WRITE
 * @mixed: each command may read or write, whatever @op says
 * @bs: largest I/O
 * @credits: I/Os the host may keep outstanding
 * @segs: most segments of one command
 * @verify: write patterns and check data
 * @inv_local: answer with a plain SEND
 * @inline_data: most in-capsule data of a write, 0 for none
 * @srq: the listener's shared receive queue, NULL for receives of the
 *	 connection's own (then @inline_data is 0)
 */
struct kvperf_io_target_params {
	u8 op;
	bool mixed;
	u32 bs;
	u32 credits;
	u32 segs;
	bool verify;
	bool inv_local;
	u32 inline_data;
	struct kvperf_io_srq *srq;
};

/* SGEs of a SEND or receive with in-capsule data: the capsule, the data */
#define KVPERF_IO_INLINE_SGES	(1 + KVPERF_IO_SLOT_PIECES_MAX)

u32 kvperf_io_target_ctxs(u32 credits);
size_t kvperf_io_target_pinned(const struct kvperf_io_target_params *p);
void kvperf_io_target_conn_attr(const struct kvperf_io_target_params *p,
				struct kvperf_conn_attr *attr);
struct kvperf_io_target *
kvperf_io_target_create(struct kvperf_conn *c,
			const struct kvperf_io_target_params *p);
int kvperf_io_target_start(struct kvperf_io_target *t);
void kvperf_io_target_srq_done(struct ib_cq *cq, struct ib_wc *wc);
int kvperf_io_target_serve(struct kvperf_io_target *t, atomic64_t *served);
void kvperf_io_target_free(struct kvperf_io_target *t);

#endif /* _KVPERF_IO_H */
