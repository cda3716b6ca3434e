// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the resources of one RDMA connection, built the way kernel
 * storage code builds them: a CQ from ib_alloc_cq() with the run's poll
 * context and ib_cqe completions, local buffers through the PD's local
 * DMA key, the buffer the peer accesses registered with FRWR, and
 * ib_drain_qp() before anything is freed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/kvperf.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/cputime.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "conn.h"
#include "faults.h"
#include "kvperf.h"
#include "proto.h"

static atomic_t kvperf_conns_live = ATOMIC_INIT(0);

/**
 * kvperf_conns_live_count() - connections whose resources exist
 *
 * Return: how many, client and server side together.
 */
int kvperf_conns_live_count(void)
{
	return atomic_read(&kvperf_conns_live);
}

/* Spin at most this long in one wait before polling with short sleeps. */
#define KVPERF_SPIN_JIFFIES	max(1UL, msecs_to_jiffies(10))
/*
 * A server's memory poll (@c->spin_bounded): it spins this long, far
 * more than a round trip on an HCA (microseconds) or Soft-RoCE, then
 * polls between sleeps that double from KVPERF_NAP_MIN_US to
 * KVPERF_NAP_MAX_US, so that an idle client costs its thread a thousand
 * short wakeups a second at most.
 */
#define KVPERF_SERVER_SPIN_NS	(1 * NSEC_PER_MSEC)
#define KVPERF_NAP_MIN_US	20
#define KVPERF_NAP_MAX_US	2000

/**
 * kvperf_conn_pinned() - memory a connection pins for a run
 * @size_max: largest message of the run
 *
 * Return: bytes of both buffers, rounded up to whole chunks.
 */
size_t kvperf_conn_pinned(u32 size_max)
{
	size_t chunk = 1UL << kvperf_chunk_shift(size_max);

	return 2 * round_up((size_t)max(size_max, KVPERF_BUF_MIN), chunk);
}

static void kvperf_buf_free(struct kvperf_conn *c, struct kvperf_buf *b)
{
	if (b->nents)
		ib_dma_unmap_sg(c->ibdev, b->sgt.sgl, b->sgt.orig_nents,
				DMA_BIDIRECTIONAL);
	b->nents = 0;
	if (b->sgt.sgl)
		sg_free_table(&b->sgt);
	memset(&b->sgt, 0, sizeof(b->sgt));
	kvperf_chunks_free(b->chunks, b->nchunks, b->chunk_shift);
	b->chunks = NULL;
}

/*
 * A buffer in chunks no larger than the device maps in one piece, and
 * smaller ones where high-order pages are short.
 */
static int kvperf_buf_alloc(struct kvperf_conn *c, struct kvperf_buf *b,
			    size_t len, int node)
{
	struct scatterlist *sg;
	unsigned int i;

	len = max_t(size_t, len, KVPERF_BUF_MIN);
	b->len = len;
	b->chunk_shift = min(kvperf_chunk_shift(len), c->dma_shift);
	if (unlikely(kvperf_fault_single_pages()))
		b->chunk_shift = PAGE_SHIFT;
	b->chunks = kvperf_chunks_alloc(len, &b->chunk_shift, PAGE_SHIFT, node,
					&b->nchunks);
	if (!b->chunks)
		return -ENOMEM;
	if (sg_alloc_table(&b->sgt, b->nchunks, GFP_KERNEL))
		goto err;
	for_each_sg(b->sgt.sgl, sg, b->nchunks, i)
		sg_set_page(sg, b->chunks[i], 1U << b->chunk_shift, 0);

	b->nents = ib_dma_map_sg(c->ibdev, b->sgt.sgl, b->nchunks,
				 DMA_BIDIRECTIONAL);
	if (!b->nents)
		goto err;
	return 0;

err:
	kvperf_buf_free(c, b);
	return -ENOMEM;
}

/**
 * kvperf_buf_ptr() - CPU address of a byte of a buffer
 * @b: the buffer
 * @off: offset of the byte
 *
 * Return: the address.
 */
u8 *kvperf_buf_ptr(struct kvperf_buf *b, size_t off)
{
	size_t mask = (1UL << b->chunk_shift) - 1;

	return (u8 *)page_address(b->chunks[off >> b->chunk_shift]) +
	       (off & mask);
}

/**
 * kvperf_buf_dma() - DMA address of a byte of a buffer
 * @b: the buffer
 * @off: offset of the byte
 *
 * Return: the address.
 */
dma_addr_t kvperf_buf_dma(struct kvperf_buf *b, size_t off)
{
	struct scatterlist *sg;
	unsigned int i;

	/*
	 * The mapped entries are not the chunks: an IOMMU merges
	 * neighbours into one segment, so walk them by their DMA length.
	 */
	for_each_sg(b->sgt.sgl, sg, b->nents, i) {
		if (off < sg_dma_len(sg))
			return sg_dma_address(sg) + off;
		off -= sg_dma_len(sg);
	}
	WARN_ON_ONCE(1);
	return sg_dma_address(b->sgt.sgl);
}

/**
 * kvperf_buf_mapped() - bytes of a buffer the DMA mapping covers
 * @b: the buffer, mapped
 *
 * Return: the sum of the mapped entries' lengths (whole chunks, at least
 * @b->len).
 */
size_t kvperf_buf_mapped(struct kvperf_buf *b)
{
	struct scatterlist *sg;
	size_t len = 0;
	unsigned int i;

	for_each_sg(b->sgt.sgl, sg, b->nents, i)
		len += sg_dma_len(sg);
	return len;
}

static void kvperf_buf_sync(struct kvperf_conn *c, struct kvperf_buf *b,
			    size_t len, bool for_cpu)
{
	struct scatterlist *sg;
	size_t left = len;
	unsigned int i;

	for_each_sg(b->sgt.sgl, sg, b->nents, i) {
		size_t n = min_t(size_t, left, sg_dma_len(sg));

		if (!n)
			break;
		if (for_cpu)
			ib_dma_sync_single_for_cpu(c->ibdev, sg_dma_address(sg),
						   n, DMA_BIDIRECTIONAL);
		else
			ib_dma_sync_single_for_device(c->ibdev,
						      sg_dma_address(sg), n,
						      DMA_BIDIRECTIONAL);
		left -= n;
	}
}

/**
 * kvperf_buf_for_cpu() - make the device's writes to a buffer visible
 * @c: the connection
 * @b: the buffer
 * @len: how much of it
 */
void kvperf_buf_for_cpu(struct kvperf_conn *c, struct kvperf_buf *b,
			size_t len)
{
	kvperf_buf_sync(c, b, len, true);
}

/**
 * kvperf_buf_for_device() - hand a buffer the CPU wrote to the device
 * @c: the connection
 * @b: the buffer
 * @len: how much of it
 */
void kvperf_buf_for_device(struct kvperf_conn *c, struct kvperf_buf *b,
			   size_t len)
{
	kvperf_buf_sync(c, b, len, false);
}

/**
 * kvperf_marker() - the arrival marker of a write-latency iteration
 * @seq: iteration number in the block, from 1
 *
 * Return: a byte that is never 0 (a cleared buffer) and changes every
 * iteration.
 */
u8 kvperf_marker(u32 seq)
{
	return (seq % 255) + 1;
}

static u8 kvperf_pattern(u32 seed, size_t i)
{
	return (u8)(seed * 31 + i * 7 + (i >> 8));
}

/**
 * kvperf_buf_fill() - fill a buffer with the pattern of an iteration
 * @b: the buffer
 * @len: how much of it
 * @seed: the iteration
 */
void kvperf_buf_fill(struct kvperf_buf *b, size_t len, u32 seed)
{
	size_t off = 0, chunk = 1UL << b->chunk_shift;

	while (off < len) {
		size_t i, n = min(len - off, chunk);
		u8 *p = kvperf_buf_ptr(b, off);

		for (i = 0; i < n; i++)
			p[i] = kvperf_pattern(seed, off + i);
		off += n;
	}
}

/**
 * kvperf_buf_check() - check a received payload against its pattern
 * @b: the buffer
 * @len: payload length
 * @seed: the iteration
 *
 * Return: true if every byte matches.
 */
bool kvperf_buf_check(struct kvperf_buf *b, size_t len, u32 seed)
{
	size_t off = 0, chunk = 1UL << b->chunk_shift;

	while (off < len) {
		size_t i, n = min(len - off, chunk);
		const u8 *p = kvperf_buf_ptr(b, off);

		for (i = 0; i < n; i++)
			if (p[i] != kvperf_pattern(seed, off + i))
				return false;
		off += n;
	}
	return true;
}

/**
 * kvperf_buf_clear() - zero the start of a buffer
 * @b: the buffer
 * @len: how much of it
 */
void kvperf_buf_clear(struct kvperf_buf *b, size_t len)
{
	size_t off = 0, chunk = 1UL << b->chunk_shift;

	while (off < len) {
		size_t n = min(len - off, chunk);

		memset(kvperf_buf_ptr(b, off), 0, n);
		off += n;
	}
}

/**
 * kvperf_conn_fail() - record the first error of a connection and wake it
 * @c: the connection
 * @err: negative errno
 * @reason: static text for the user
 */
void kvperf_conn_fail(struct kvperf_conn *c, int err, const char *reason)
{
	if (!cmpxchg(&c->error, 0, err))
		WRITE_ONCE(c->reason, reason);
	wake_up(c->notify);
}

/**
 * kvperf_conn_wc_error() - fail a connection for a completion in error
 * @c: the connection
 * @wc: the completion, flushed or failed by the device
 * @flushed: the reason when it was flushed
 * @failed: the reason otherwise
 *
 * A flush while the client connects is the CM's business: its reject or
 * error event gives the reason.
 */
void kvperf_conn_wc_error(struct kvperf_conn *c, struct ib_wc *wc,
			  const char *flushed, const char *failed)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR) {
		pr_debug("%s: %s\n", failed, ib_wc_status_msg(wc->status));
		kvperf_conn_fail(c, -EIO, failed);
		return;
	}
	/* the CM's reject or error event gives the reason */
	if (READ_ONCE(c->connecting))
		return;
	kvperf_conn_fail(c, -EIO, flushed);
}

/**
 * kvperf_conn_cb_outside() - does @task's runtime miss a callback's time?
 * @c: the connection whose completion callback runs
 * @task: the thread that drives the connection
 *
 * A completion callback that runs in another task (a work queue, softirq
 * on another CPU) is not in @task's runtime, nor is softirq time that
 * interrupts @task when the kernel accounts IRQ time apart
 * (CONFIG_IRQ_TIME_ACCOUNTING); without that option such softirq time is
 * charged to the interrupted task already. Direct polling runs the
 * callbacks in @task.
 *
 * Return: true when the caller should add the callback's time itself.
 */
bool kvperf_conn_cb_outside(const struct kvperf_conn *c,
			    const struct task_struct *task)
{
	if (c->poll_ctx == IB_POLL_DIRECT)
		return false;
	if (current != task)
		return true;
	return IS_ENABLED(CONFIG_IRQ_TIME_ACCOUNTING) && !in_task();
}

/**
 * kvperf_conn_cb_start() - start timing a completion callback, if needed
 * @c: the connection whose completion callback runs
 * @task: the thread that drives the connection
 *
 * Return: the clock when kvperf_conn_cb_outside() says the callback's
 * time is missing from @task's runtime, else 0: the argument for
 * kvperf_conn_cb_end().
 */
u64 kvperf_conn_cb_start(const struct kvperf_conn *c,
			 const struct task_struct *task)
{
	return kvperf_conn_cb_outside(c, task) ? ktime_get_ns() : 0;
}

/**
 * kvperf_conn_cb_end() - add a timed callback's time to a sum
 * @start: what kvperf_conn_cb_start() returned; 0 adds nothing
 * @sum: the callbacks' time outside the thread, in ns
 */
void kvperf_conn_cb_end(u64 start, atomic64_t *sum)
{
	if (start)
		atomic64_add(ktime_get_ns() - start, sum);
}

/**
 * kvperf_thread_runtime_ns() - the calling thread's CPU time, as the
 *				scheduler last accounted it
 *
 * An I/O target puts it in every response, so it is read directly: the
 * exported task_cputime_adjusted() gives the same sum (its user and
 * system times add up to sum_exec_runtime) but takes a lock and scales
 * on every call, too much for a per-I/O path. The thread reads its own
 * scheduler field, one load on the 64-bit kernels kvperf builds for.
 * Process context.
 *
 * Return: the thread's runtime in ns.
 */
u64 kvperf_thread_runtime_ns(void)
{
	return current->se.sum_exec_runtime;
}

/**
 * kvperf_thread_cpu_ns() - the calling thread's CPU time, up to date
 *
 * The runtime is accounted a tick late at worst, which is all of a short
 * phase; passing through schedule() while runnable brings it up to now.
 * Process context.
 *
 * Return: the thread's runtime in ns.
 */
u64 kvperf_thread_cpu_ns(void)
{
	u64 utime, stime;

	schedule();
	/* once per phase: the exported interface (see above) */
	task_cputime_adjusted(current, &utime, &stime);
	return utime + stime;
}

static void kvperf_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_conn *c = cq->cq_context;

	if (unlikely(wc->status != IB_WC_SUCCESS))
		kvperf_conn_wc_error(c, wc, "send queue flushed",
				     "send completion error");
	atomic_inc(&c->sends_done);
	wake_up(c->notify);
}

static void kvperf_probe_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_conn *c = cq->cq_context;

	if (wc->status == IB_WC_SUCCESS) {
		clear_bit_unlock(0, &c->probe_busy);
		return;
	}
	/* a flush is our own teardown; anything else, the peer is gone */
	if (wc->status != IB_WC_WR_FLUSH_ERR) {
		WRITE_ONCE(c->peer_gone, true);
		kvperf_conn_fail(c, -ETIMEDOUT,
				 "the peer stopped acknowledging (keep-alive)");
	}
}

/**
 * kvperf_conn_probe() - check that the peer is still there
 * @c: the connection, established, with a send queue slot kept for this
 *
 * Posts a zero-length RDMA WRITE unless one is in flight. The peer's HCA
 * acknowledges it without touching memory (a zero-length request carries
 * no rkey to check, IBTA C9-88), so a live peer never notices; when the
 * peer's host is gone the transport's retries run out and the connection
 * fails with @c->peer_gone set. Safe to call while the owner posts.
 *
 * Return: 0, or the error of posting.
 */
int kvperf_conn_probe(struct kvperf_conn *c)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &c->probe_cqe,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	int err;

	if (READ_ONCE(c->error) || test_and_set_bit_lock(0, &c->probe_busy))
		return 0;
	err = ib_post_send(c->cm_id->qp, &wr.wr, NULL);
	if (err)
		clear_bit_unlock(0, &c->probe_busy);
	return err;
}

/*
 * Post a receive for a whole message; with @bh, bottom halves are
 * disabled around the post alone, as kvperf_conn_post_wrs() does.
 */
static int kvperf_conn_recv_wr(struct kvperf_conn *c, bool bh)
{
	struct ib_sge sge[KVPERF_MAX_SGE];
	struct ib_recv_wr wr = {
		.wr_cqe = &c->recv_cqe,
		.sg_list = sge,
	};
	int err;

	wr.num_sge = kvperf_conn_sges(c, &c->rx, c->rx.len, sge);
	if (!bh)
		return ib_post_recv(c->cm_id->qp, &wr, NULL);
	local_bh_disable();
	err = ib_post_recv(c->cm_id->qp, &wr, NULL);
	local_bh_enable();
	return err;
}

/* A data message of a bandwidth run: count it and receive the next. */
static void kvperf_recv_data(struct kvperf_conn *c, struct ib_wc *wc)
{
	int err;

	atomic64_inc(&c->data_recvs);
	if (wc->byte_len != READ_ONCE(c->expect_len))
		atomic64_inc(&c->bad_recvs);
	/* a failed connection is being drained: nothing more to receive */
	if (READ_ONCE(c->error))
		return;
	/* a completion handler posts in its own context, whatever the run's */
	err = kvperf_conn_recv_wr(c, false);
	if (err)
		kvperf_conn_fail(c, err, "cannot post a receive");
}

static void kvperf_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kvperf_conn *c = cq->cq_context;
	struct kvperf_recv *r;
	int n;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		kvperf_conn_wc_error(c, wc, "receive queue flushed",
				     "receive completion error");
		return;
	}
	if (c->count_data && !(wc->wc_flags & IB_WC_WITH_IMM)) {
		kvperf_recv_data(c, wc);
		return;
	}
	n = atomic_read(&c->recvs_done);
	/*
	 * A peer keeps to the protocol with one message unanswered at a
	 * time; one that sends more than the ring holds before the owner
	 * took them would overwrite entries not read yet.
	 */
	if ((u32)n - READ_ONCE(c->recvs_seen) >= KVPERF_RECV_DEPTH) {
		kvperf_conn_fail(c, -EPROTO,
				 "the peer sent more messages than were answered");
		return;
	}
	r = &c->recv_ring[n % KVPERF_RECV_DEPTH];
	r->byte_len = wc->byte_len;
	r->has_imm = wc->wc_flags & IB_WC_WITH_IMM;
	r->imm = r->has_imm ? be32_to_cpu(wc->ex.imm_data) : 0;
	/* the entry is complete before the count says so */
	atomic_set_release(&c->recvs_done, n + 1);
	wake_up(c->notify);
}

/**
 * kvperf_conn_init() - prepare a connection before its CM id exists
 * @c: the connection
 * @timeout: longest wait for a completion or event, in jiffies
 * @stop: called while waiting; returning true ends the wait with -EINTR
 * @stop_arg: argument of @stop
 */
void kvperf_conn_init(struct kvperf_conn *c, unsigned long timeout,
		      bool (*stop)(void *arg), void *stop_arg)
{
	memset(c, 0, sizeof(*c));
	init_waitqueue_head(&c->wq);
	c->notify = &c->wq;
	atomic64_set(&c->data_recvs, 0);
	atomic64_set(&c->bad_recvs, 0);
	c->cm_event = -1;	/* RDMA_CM_EVENT_ADDR_RESOLVED is 0 */
	c->timeout = timeout;
	c->stop = stop;
	c->stop_arg = stop_arg;
	c->send_cqe.done = kvperf_send_done;
	c->recv_cqe.done = kvperf_recv_done;
	c->probe_cqe.done = kvperf_probe_done;
}

static enum ib_poll_context kvperf_poll_ctx(u8 poll)
{
	switch (poll) {
	case KVPERF_POLL_SOFTIRQ:
		return IB_POLL_SOFTIRQ;
	case KVPERF_POLL_WORKQUEUE:
		return IB_POLL_WORKQUEUE;
	default:
		return IB_POLL_DIRECT;
	}
}

/* The send and receive queues hold one more request, for ib_drain_qp(). */
static u32 kvperf_cq_depth(const struct kvperf_conn_attr *attr)
{
	return attr->send_depth + attr->recv_depth + 2;
}

/**
 * kvperf_conn_footprint() - what a connection of this shape holds
 * @attr: its shape
 * @f: receives the bytes of its buffers and an estimate of its queues'
 *
 * Queue entries count KVPERF_SEND_WQE_BYTES per send work request,
 * KVPERF_RECV_WQE_BYTES per receive and KVPERF_CQE_BYTES per completion
 * queue entry (the drain slots included): what an HCA's queues hold in
 * host memory for them, roughly, whatever the device.
 */
void kvperf_conn_footprint(const struct kvperf_conn_attr *attr,
			   struct kvperf_footprint *f)
{
	u64 slack = attr->recv_slack;

	f->buf_bytes = kvperf_conn_pinned(attr->size_max);
	f->queue_bytes = (u64)(attr->send_depth + 1) * KVPERF_SEND_WQE_BYTES +
			 (attr->recv_depth + 1 + slack) * KVPERF_RECV_WQE_BYTES +
			 (kvperf_cq_depth(attr) + slack) * KVPERF_CQE_BYTES;
}

/*
 * The CQ's asynchronous events (any context): after an error (an
 * overrun, a protection error) it reports nothing more, so the
 * connection fails now instead of waiting out its timeout.
 */
static void kvperf_conn_cq_event(struct ib_event *ev, void *ctx)
{
	struct kvperf_conn *c = ctx;

	if (ev->event != IB_EVENT_CQ_ERR)
		return;
	pr_warn_ratelimited("%s: %s\n", dev_name(&ev->device->dev),
			    ib_event_msg(ev->event));
	kvperf_conn_fail(c, -EIO, "the device reported a completion queue error");
}

static struct ib_cq *kvperf_conn_alloc_cq(struct kvperf_conn *c,
					  const struct kvperf_conn_attr *attr)
{
	if (attr->any_vector)
		return ib_alloc_cq_any(c->ibdev, c, kvperf_cq_depth(attr),
				       c->poll_ctx);
	return ib_alloc_cq(c->ibdev, c, kvperf_cq_depth(attr), 0, c->poll_ctx);
}

/*
 * The DMA addresses where the receive buffer's mapped entries meet, OR-ed
 * together: an FRWR page may not straddle one (ib_map_mr_sg()), so a
 * page size must divide them all. An IOMMU maps at its own granule and
 * swiotlb at a page, whatever the chunks' size.
 */
static u64 kvperf_conn_rx_seams(struct kvperf_conn *c)
{
	struct scatterlist *sg;
	unsigned int i;
	u64 seams = 0;

	for_each_sg(c->rx.sgt.sgl, sg, c->rx.nents, i) {
		if (i)
			seams |= sg_dma_address(sg);
		if (i + 1 < c->rx.nents)
			seams |= sg_dma_address(sg) + sg_dma_len(sg);
	}
	return seams;
}

/*
 * The page size of the receive buffer's FRWR MR: the smallest the device
 * registers (page_size_cap; every device takes PAGE_SIZE) and the
 * mapping's seams allow for which the buffer fits the device's page
 * list, up to a chunk. ib_map_mr_sg() maps every mapped entry whole, so
 * the MR is sized from what the mapping covers (whole chunks), not from
 * the length asked for. 0 if none fits.
 */
static unsigned int kvperf_conn_mr_page_shift(struct kvperf_conn *c,
					      size_t mapped)
{
	const struct ib_device_attr *a = &c->ibdev->attrs;
	u64 cap = a->page_size_cap | PAGE_SIZE;
	u64 seams = kvperf_conn_rx_seams(c);
	unsigned int shift;

	for (shift = PAGE_SHIFT; shift <= c->rx.chunk_shift; shift++) {
		if (!(cap & BIT_ULL(shift)) || (seams & (BIT_ULL(shift) - 1)))
			continue;
		if (DIV_ROUND_UP(mapped, 1UL << shift) <=
		    a->max_fast_reg_page_list_len)
			return shift;
	}
	return 0;
}

static int kvperf_conn_alloc_mr(struct kvperf_conn *c)
{
	size_t mapped = kvperf_buf_mapped(&c->rx);
	unsigned int shift = kvperf_conn_mr_page_shift(c, mapped);
	int n;

	if (!shift) {
		c->reason = "no page size fits the receive buffer in the FRWR page list";
		return -EINVAL;
	}
	n = DIV_ROUND_UP(mapped, 1UL << shift);
	c->mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, n);
	if (IS_ERR(c->mr)) {
		n = PTR_ERR(c->mr);
		c->mr = NULL;
		c->reason = "cannot allocate a fast-registration MR";
		return n;
	}
	n = ib_map_mr_sg(c->mr, c->rx.sgt.sgl, c->rx.nents, NULL, 1U << shift);
	if (n != c->rx.nents) {
		c->reason = "cannot map the receive buffer for FRWR";
		return n < 0 ? n : -EINVAL;
	}
	ib_update_fast_reg_key(c->mr, ib_inc_rkey(c->mr->rkey));
	return 0;
}

static const char *const kvperf_qp_fatal[] = {
	[IB_EVENT_QP_FATAL] = "the device reported a fatal queue pair error",
	[IB_EVENT_QP_REQ_ERR] = "the device reported an invalid request on the queue pair",
	[IB_EVENT_QP_ACCESS_ERR] = "the device reported a remote access error on the queue pair",
	[IB_EVENT_PATH_MIG_ERR] = "the device reported a path migration error",
	[IB_EVENT_DEVICE_FATAL] = "the device reported a fatal error",
};

/*
 * Asynchronous events of the QP (any context): the fatal ones fail the
 * connection, since the QP moved to the error state and nothing more
 * will complete normally. A message that arrives before the CM's RTU
 * (the passive side's QP sees it first) establishes the connection:
 * the CM is told, as nvmet-rdma and svcrdma tell it, so that a lost RTU
 * does not time the connection out.
 */
static void kvperf_conn_qp_event(struct ib_event *ev, void *ctx)
{
	struct kvperf_conn *c = ctx;
	const char *why = NULL;

	if (ev->event == IB_EVENT_COMM_EST) {
		rdma_notify(c->cm_id, IB_EVENT_COMM_EST);
		return;
	}
	if (ev->event < ARRAY_SIZE(kvperf_qp_fatal))
		why = kvperf_qp_fatal[ev->event];
	if (!why)
		return;
	pr_warn_ratelimited("%s: %s (%s)\n", dev_name(&ev->device->dev),
			    ib_event_msg(ev->event), why);
	kvperf_conn_fail(c, -EIO, why);
}

static_assert(KVPERF_MAX_SGE == 32, "kvperf_conn_check_sges() names 32");

static int kvperf_conn_check_sges(struct kvperf_conn *c,
				  const struct kvperf_conn_attr *attr)
{
	const struct ib_device_attr *dattr = &c->ibdev->attrs;

	if (max(c->tx.nents, c->rx.nents) > KVPERF_MAX_SGE) {
		c->reason = "a message spans more DMA segments than one request takes (32)";
		return -EINVAL;
	}
	if (c->tx.nents > dattr->max_send_sge ||
	    (attr->op == KVPERF_OP_READ && c->rx.nents > dattr->max_send_sge)) {
		c->reason = "a message spans more DMA segments than the device's max_send_sge";
		return -EINVAL;
	}
	if (c->rx.nents > dattr->max_recv_sge) {
		c->reason = "a message spans more DMA segments than the device's max_recv_sge";
		return -EINVAL;
	}
	if (attr->send_sges > dattr->max_send_sge) {
		c->reason = "in-capsule data need more SGEs per SEND than max_send_sge";
		return -EINVAL;
	}
	if (attr->recv_sges > dattr->max_recv_sge) {
		c->reason = "in-capsule data need more SGEs per receive than max_recv_sge";
		return -EINVAL;
	}
	if (attr->op == KVPERF_OP_READ && c->rx.nents > dattr->max_sge_rd) {
		c->reason = "a READ spans more DMA segments than the device's max_sge_rd";
		return -EINVAL;
	}
	return 0;
}

static int kvperf_conn_create_qp(struct kvperf_conn *c,
				 const struct kvperf_conn_attr *attr)
{
	const struct ib_device_attr *dattr = &c->ibdev->attrs;
	struct ib_qp_init_attr qp_attr = {};
	int err;

	if (attr->send_depth + 1 > dattr->max_qp_wr ||
	    (!attr->srq && attr->recv_depth + 1 > dattr->max_qp_wr)) {
		c->reason = "the queue depth exceeds the device's max_qp_wr";
		return -EINVAL;
	}
	err = kvperf_conn_check_sges(c, attr);
	if (err)
		return err;
	qp_attr.event_handler = kvperf_conn_qp_event;
	qp_attr.qp_context = c;
	qp_attr.send_cq = c->cq;
	qp_attr.recv_cq = c->cq;
	qp_attr.cap.max_send_wr = attr->send_depth + 1;
	/* a shared receive queue's QP posts no receives of its own */
	qp_attr.srq = attr->srq;
	if (!attr->srq)
		qp_attr.cap.max_recv_wr = attr->recv_depth + 1;
	/* a READ's SGEs are the receive buffer's, posted on the send queue */
	qp_attr.cap.max_send_sge = max3(c->tx.nents, c->rx.nents,
					(int)attr->send_sges);
	if (!attr->srq)
		qp_attr.cap.max_recv_sge = max_t(int, c->rx.nents,
						 attr->recv_sges);
	qp_attr.cap.max_inline_data = attr->inline_size;
	qp_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_attr.qp_type = IB_QPT_RC;
	/* rdma_rw sizes the send queue and its MRs for the contexts */
	qp_attr.cap.max_rdma_ctxs = attr->rdma_ctxs;
	qp_attr.port_num = c->cm_id->port_num;
	if (rdma_create_qp(c->cm_id, c->pd, &qp_attr)) {
		c->reason = "cannot create the queue pair (inline size too large?)";
		return -EINVAL;
	}
	return 0;
}

/*
 * What the peer may do to our receive buffer: WRITE runs write it (both
 * ways in a latency or bidirectional run), READ runs read it, SEND runs
 * need no remote access at all.
 */
static int kvperf_conn_mr_access(u8 op)
{
	switch (op) {
	case KVPERF_OP_WRITE:
		return IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	case KVPERF_OP_READ:
		return IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	default:
		return IB_ACCESS_LOCAL_WRITE;
	}
}

/*
 * The part of @attr's receive slack that fits the device's queue pair
 * and completion queue: a depth beyond them is no error, just less slack.
 */
static u32 kvperf_conn_recv_room(const struct ib_device_attr *dattr,
				 const struct kvperf_conn_attr *attr)
{
	u64 qp_room = 0, cq_room = 0;

	if (attr->recv_depth + 1 < dattr->max_qp_wr)
		qp_room = dattr->max_qp_wr - (attr->recv_depth + 1);
	if (kvperf_cq_depth(attr) < dattr->max_cqe)
		cq_room = dattr->max_cqe - kvperf_cq_depth(attr);
	return min3((u64)attr->recv_slack, qp_room, cq_room);
}

/**
 * kvperf_conn_create() - allocate a connection's PD, CQ, QP and buffers
 * @c: the connection, from kvperf_conn_init()
 * @cm_id: its CM id, address (and route, on the client) resolved
 * @attr: what to allocate
 *
 * On failure everything allocated so far is freed again.
 *
 * Return: 0 or a negative errno, with @c->reason set.
 */
int kvperf_conn_create(struct kvperf_conn *c, struct rdma_cm_id *cm_id,
		       const struct kvperf_conn_attr *attr)
{
	struct kvperf_conn_attr shape = *attr;
	int err;

	c->cm_id = cm_id;
	c->ibdev = cm_id->device;
	/* from here on the slack is part of the depth, or gone */
	shape.recv_depth += kvperf_conn_recv_room(&c->ibdev->attrs, attr);
	shape.recv_slack = 0;
	attr = &shape;
	c->poll_ctx = kvperf_poll_ctx(attr->poll);
	c->size_max = attr->size_max;
	c->inline_size = attr->inline_size;
	c->recv_depth = attr->recv_depth;
	c->own_recvs = attr->own_recvs;

	/*
	 * iWARP has no SEND with immediate (our control messages) and wants
	 * a READ's sink registered for remote write: not supported yet.
	 */
	if (rdma_protocol_iwarp(c->ibdev, cm_id->port_num)) {
		c->reason = "iWARP devices are not supported";
		return -EOPNOTSUPP;
	}
	/* every run registers memory with FRWR (ib_alloc_mr, IB_WR_REG_MR) */
	if (!(c->ibdev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS)) {
		c->reason = "the device has no fast registration (IB_DEVICE_MEM_MGT_EXTENSIONS)";
		return -EOPNOTSUPP;
	}
	c->dma_shift = kvperf_chunk_shift_dma(c->ibdev);
	if (attr->dma_block > 1UL << c->dma_shift) {
		c->reason = KVPERF_DMA_BLOCK_TOO_BIG;
		return -EMSGSIZE;
	}
	c->mr_access = attr->local_only ? IB_ACCESS_LOCAL_WRITE :
					  kvperf_conn_mr_access(attr->op);

	c->pd_shared = !!attr->pd;
	c->pd = attr->pd ?: ib_alloc_pd(c->ibdev, 0);
	if (IS_ERR(c->pd)) {
		err = PTR_ERR(c->pd);
		c->pd = NULL;
		c->reason = "cannot allocate a protection domain";
		return err;
	}

	c->cq = kvperf_conn_alloc_cq(c, attr);
	if (IS_ERR(c->cq)) {
		err = PTR_ERR(c->cq);
		c->cq = NULL;
		c->reason = "cannot allocate a completion queue";
		goto err;
	}
	/* ib_alloc_cq() takes no event handler; nothing is posted yet */
	c->cq->event_handler = kvperf_conn_cq_event;

	err = kvperf_buf_alloc(c, &c->tx, attr->size_max, attr->node);
	if (!err)
		err = kvperf_buf_alloc(c, &c->rx, attr->size_max, attr->node);
	if (err) {
		c->reason = "cannot allocate the message buffers";
		goto err;
	}

	err = kvperf_conn_alloc_mr(c);
	if (!err)
		err = kvperf_conn_create_qp(c, attr);
	if (err)
		goto err;
	c->live = true;
	atomic_inc(&kvperf_conns_live);
	return 0;

err:
	kvperf_conn_destroy(c);
	return err;
}

/**
 * kvperf_conn_destroy() - free what kvperf_conn_create() allocated
 * @c: the connection
 *
 * Drains the QP first, so no completion can arrive afterwards. The CM id
 * itself stays; its owner destroys it.
 */
void kvperf_conn_destroy(struct kvperf_conn *c)
{
	if (c->live)
		atomic_dec(&kvperf_conns_live);
	c->live = false;
	if (c->cm_id && c->cm_id->qp) {
		ib_drain_qp(c->cm_id->qp);
		if (c->drained)
			c->drained(c, c->drained_arg);
		rdma_destroy_qp(c->cm_id);
	} else if (c->drained) {
		c->drained(c, c->drained_arg);
	}
	c->drained = NULL;
	if (c->mr)
		ib_dereg_mr(c->mr);
	c->mr = NULL;
	if (c->ibdev) {
		kvperf_buf_free(c, &c->rx);
		kvperf_buf_free(c, &c->tx);
	}
	if (c->cq)
		ib_free_cq(c->cq);
	c->cq = NULL;
	if (c->pd && !c->pd_shared)
		ib_dealloc_pd(c->pd);
	c->pd = NULL;
}

/**
 * kvperf_conn_sges() - the start of a buffer as SGEs with the local DMA key
 * @c: the connection
 * @b: one of its buffers
 * @len: how many bytes
 * @sge: receives up to KVPERF_MAX_SGE entries
 *
 * Return: the number of entries.
 */
u32 kvperf_conn_sges(struct kvperf_conn *c, struct kvperf_buf *b, u32 len,
		     struct ib_sge *sge)
{
	struct scatterlist *sg;
	size_t left = len;
	unsigned int i;
	u32 n = 0;

	for_each_sg(b->sgt.sgl, sg, b->nents, i) {
		/* kvperf_conn_create() refused a buffer in more entries */
		if (!left || n == KVPERF_MAX_SGE)
			break;
		sge[n].addr = sg_dma_address(sg);
		sge[n].length = min_t(size_t, left, sg_dma_len(sg));
		sge[n].lkey = c->pd->local_dma_lkey;
		left -= sge[n].length;
		n++;
	}
	return n;
}

/**
 * kvperf_conn_inline_sges() - the start of a buffer as inline SGEs
 * @b: one of the connection's buffers
 * @len: how many bytes
 * @sge: receives up to KVPERF_MAX_SGE entries
 *
 * The device copies an inline send's payload with the CPU when the work
 * request is posted, so these SGEs carry CPU addresses, one per chunk,
 * never DMA addresses, and no key.
 *
 * Return: the number of entries.
 */
u32 kvperf_conn_inline_sges(struct kvperf_buf *b, u32 len, struct ib_sge *sge)
{
	bool fault = kvperf_fault_inline_dma();
	size_t chunk = 1UL << b->chunk_shift, off = 0;
	u32 n = 0;

	while (off < len && n < KVPERF_MAX_SGE) {
		sge[n].addr = unlikely(fault) ? kvperf_buf_dma(b, off) :
			      (uintptr_t)kvperf_buf_ptr(b, off);
		sge[n].length = min_t(size_t, len - off, chunk);
		sge[n].lkey = 0;
		off += sge[n].length;
		n++;
	}
	return n;
}

/**
 * kvperf_conn_post_recv() - post a receive for a whole message
 * @c: the connection
 *
 * Called by the connection's owner thread: with @c->post_bh the post is
 * made with bottom halves disabled.
 *
 * Return: 0 or a negative errno.
 */
int kvperf_conn_post_recv(struct kvperf_conn *c)
{
	return kvperf_conn_recv_wr(c, c->post_bh);
}

/**
 * kvperf_conn_post_recvs() - post every receive of a new connection
 * @c: the connection, created
 *
 * Return: 0 or a negative errno, with @c->reason set.
 */
int kvperf_conn_post_recvs(struct kvperf_conn *c)
{
	u32 i;
	int err = 0;

	if (c->own_recvs)
		return 0;
	for (i = 0; i < c->recv_depth && !err; i++)
		err = kvperf_conn_post_recv(c);
	if (err)
		c->reason = "cannot post receives";
	return err;
}

/**
 * kvperf_conn_post_send() - post one signaled send-queue work request
 * @c: the connection
 * @opcode: IB_WR_SEND, IB_WR_SEND_WITH_IMM, IB_WR_RDMA_WRITE or
 *	    IB_WR_RDMA_READ
 * @len: payload length (0 for a control message)
 * @imm: immediate data for IB_WR_SEND_WITH_IMM, host order
 *
 * SENDs and WRITEs go out of @c->tx (inline when short enough), READs
 * land in @c->rx; WRITEs and READs address the peer's receive buffer.
 * Posted as kvperf_conn_post_wrs() does.
 *
 * Return: 0 or a negative errno.
 */
int kvperf_conn_post_send(struct kvperf_conn *c, enum ib_wr_opcode opcode,
			  u32 len, u32 imm)
{
	struct ib_sge sge[KVPERF_MAX_SGE];
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &c->send_cqe,
			.sg_list = sge,
			.opcode = opcode,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	int err;

	if (len && len <= c->inline_size && opcode != IB_WR_RDMA_READ) {
		wr.wr.send_flags |= IB_SEND_INLINE;
		wr.wr.num_sge = kvperf_conn_inline_sges(&c->tx, len, sge);
	} else if (len) {
		wr.wr.num_sge = kvperf_conn_sges(c, opcode == IB_WR_RDMA_READ ?
					    &c->rx : &c->tx, len, sge);
	}
	if (opcode == IB_WR_SEND_WITH_IMM)
		wr.wr.ex.imm_data = cpu_to_be32(imm);
	if (opcode == IB_WR_RDMA_WRITE || opcode == IB_WR_RDMA_READ) {
		wr.remote_addr = c->remote_addr;
		wr.rkey = c->remote_rkey;
	}

	err = kvperf_conn_post_wrs(c, &wr.wr);
	if (!err)
		c->sends_posted++;
	return err;
}

/**
 * kvperf_conn_post_wrs() - post a chain of send-queue work requests in the
 *			    connection's posting context
 * @c: the connection
 * @wr: the first request of the chain
 *
 * For the owner thread's data path: with @c->post_bh, bottom halves are
 * disabled around ib_post_send() alone, so that softirq work the post
 * raises runs at local_bh_enable(), in this thread. That is legal in
 * process context and nests in softirq context; ib_post_send() does not
 * sleep.
 *
 * Return: 0 or a negative errno.
 */
int kvperf_conn_post_wrs(struct kvperf_conn *c, const struct ib_send_wr *wr)
{
	int err;

	if (!c->post_bh)
		return ib_post_send(c->cm_id->qp, wr, NULL);
	local_bh_disable();
	err = ib_post_send(c->cm_id->qp, wr, NULL);
	local_bh_enable();
	return err;
}

/**
 * kvperf_conn_register() - make the receive buffer accessible to the peer
 * @c: the connection, connected
 *
 * Posts the FRWR registration and waits for it.
 *
 * Return: 0 or a negative errno.
 */
int kvperf_conn_register(struct kvperf_conn *c)
{
	struct ib_reg_wr wr = {
		.wr = {
			.wr_cqe = &c->send_cqe,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = c->mr,
		.key = c->mr->rkey,
		.access = c->mr_access,
	};
	int err;

	err = ib_post_send(c->cm_id->qp, &wr.wr, NULL);
	if (err) {
		kvperf_conn_fail(c, err, "cannot post the FRWR registration");
		return err;
	}
	c->sends_posted++;
	return kvperf_conn_wait_sends(c);
}

/* Completed sends and received data messages: what moves on a live link. */
static s64 kvperf_conn_progress(struct kvperf_conn *c)
{
	return atomic64_read(&c->data_recvs) + atomic_read(&c->sends_done);
}

/**
 * kvperf_conn_wait() - wait until a condition holds
 * @c: the connection
 * @cond: the condition, evaluated repeatedly
 * @arg: its argument
 *
 * With busy polling (and while @c->spin is set) this spins, reaping the
 * CQ itself where it is IB_POLL_DIRECT and yielding with cond_resched()
 * between rounds; otherwise it sleeps until a completion or CM event
 * wakes it. A spin lasts 10 ms at most, then polls between sleeps of
 * 20-40 us; a server's spin on memory (@c->spin_bounded, not busy
 * polling) lasts KVPERF_SERVER_SPIN_NS, then its sleeps double up to
 * KVPERF_NAP_MAX_US: a client cannot keep a server's thread spinning.
 *
 * Return: 0 when @cond held, -EINTR when the owner stops the loop,
 * -ETIMEDOUT after @c->timeout without it and without any completed send
 * or received data message, or the connection's error.
 */
int kvperf_conn_wait(struct kvperf_conn *c,
		     bool (*cond)(struct kvperf_conn *c, void *arg), void *arg)
{
	unsigned long deadline = jiffies + c->timeout;
	unsigned long spin_until = jiffies + KVPERF_SPIN_JIFFIES;
	bool bounded = c->spin && c->spin_bounded &&
		       c->poll_ctx != IB_POLL_DIRECT;
	u64 spin_end = bounded ? ktime_get_ns() + KVPERF_SERVER_SPIN_NS : 0;
	unsigned int nap_us = KVPERF_NAP_MIN_US;
	s64 seen = kvperf_conn_progress(c), now;

	for (;;) {
		if (cond(c, arg))
			return 0;
		if (READ_ONCE(c->error))
			return READ_ONCE(c->error);
		if (c->stop(c->stop_arg))
			return -EINTR;
		/*
		 * Data still flowing (a bidir server's traffic while the
		 * client waits for its report) is not silence either.
		 */
		now = kvperf_conn_progress(c);
		if (now != seen) {
			seen = now;
			deadline = jiffies + c->timeout;
		}
		if (time_after(jiffies, deadline)) {
			kvperf_conn_fail(c, -ETIMEDOUT,
					 "no completion or event within the timeout");
			return -ETIMEDOUT;
		}
		if (c->poll_ctx == IB_POLL_DIRECT || c->spin) {
			/* completions are progress: the silence starts anew */
			if (c->poll_ctx == IB_POLL_DIRECT &&
			    ib_process_cq_direct(c->cq, 16) > 0) {
				deadline = jiffies + c->timeout;
				spin_until = jiffies + KVPERF_SPIN_JIFFIES;
			}
			/*
			 * A wait this long is an outlier or an idle peer:
			 * keep polling, but let the CPU go between rounds.
			 * (Giving way whenever another task was runnable
			 * made busy polling 4-8 times slower on rxe.)
			 */
			if (bounded ? ktime_get_ns() < spin_end :
				      !time_after(jiffies, spin_until)) {
				cond_resched();
				continue;
			}
			usleep_range(nap_us, 2 * nap_us);
			if (bounded)
				nap_us = min(2 * nap_us, KVPERF_NAP_MAX_US);
			continue;
		}
		wait_event_timeout(*c->notify, cond(c, arg) || READ_ONCE(c->error) ||
				   c->stop(c->stop_arg), HZ / 10);
	}
}

static bool kvperf_sends_idle(struct kvperf_conn *c, void *arg)
{
	return atomic_read(&c->sends_done) == c->sends_posted;
}

/**
 * kvperf_conn_wait_sends() - wait for every posted send-queue request
 * @c: the connection
 *
 * Return: as kvperf_conn_wait().
 */
int kvperf_conn_wait_sends(struct kvperf_conn *c)
{
	return kvperf_conn_wait(c, kvperf_sends_idle, NULL);
}

/**
 * kvperf_conn_recv_pending() - has a message arrived that is not consumed?
 * @c: the connection
 *
 * Return: true if kvperf_conn_wait_recv() would return at once.
 */
bool kvperf_conn_recv_pending(struct kvperf_conn *c)
{
	return atomic_read_acquire(&c->recvs_done) != c->recvs_seen;
}

static bool kvperf_recv_ready(struct kvperf_conn *c, void *arg)
{
	return kvperf_conn_recv_pending(c);
}

/**
 * kvperf_conn_wait_recv() - wait for the next received message
 * @c: the connection
 * @r: receives what its completion said
 *
 * The receive is posted again before this returns.
 *
 * Return: as kvperf_conn_wait(), or the error of posting the receive.
 */
int kvperf_conn_wait_recv(struct kvperf_conn *c, struct kvperf_recv *r)
{
	int err;

	err = kvperf_conn_wait(c, kvperf_recv_ready, NULL);
	if (err)
		return err;
	*r = c->recv_ring[c->recvs_seen % KVPERF_RECV_DEPTH];
	/* the completion handler reads it to refuse an overrun */
	WRITE_ONCE(c->recvs_seen, c->recvs_seen + 1);
	return kvperf_conn_post_recv(c);
}

struct kvperf_marker_wait {
	u8 *byte;
	dma_addr_t dma;
	u8 marker;
	bool or_recv;
};

static bool kvperf_marker_arrived(struct kvperf_conn *c, void *arg)
{
	struct kvperf_marker_wait *w = arg;

	if (w->or_recv && kvperf_conn_recv_pending(c))
		return true;
	/* only the marker byte: this runs on every round of the spin */
	ib_dma_sync_single_for_cpu(c->ibdev, w->dma, 1, DMA_BIDIRECTIONAL);
	return READ_ONCE(*w->byte) == w->marker;
}

/**
 * kvperf_conn_wait_marker() - spin until a byte of the receive buffer
 *			       changes to a marker, as perftest's write
 *			       latency does
 * @c: the connection
 * @off: offset of the byte
 * @marker: the value to wait for
 * @or_recv: also return when a message arrives (check with
 *	     kvperf_conn_recv_pending())
 *
 * Return: as kvperf_conn_wait().
 */
int kvperf_conn_wait_marker(struct kvperf_conn *c, u32 off, u8 marker,
			    bool or_recv)
{
	struct kvperf_marker_wait w = {
		.byte = kvperf_buf_ptr(&c->rx, off),
		.dma = kvperf_buf_dma(&c->rx, off),
		.marker = marker,
		.or_recv = or_recv,
	};
	int err;

	c->spin = true;
	err = kvperf_conn_wait(c, kvperf_marker_arrived, &w);
	c->spin = false;
	return err;
}
