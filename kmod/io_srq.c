// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: a shared receive queue for the I/O connections of a listener,
 * as nvmet-rdma's use_srq keeps one per device. Its receives hold command
 * capsules only; every I/O connection of the listener takes its commands
 * from it, and the listener grants each connection credits from its
 * depth, so that hosts that keep to their credits always find a receive.
 *
 * The queue, its protection domain and its capsules live until the last
 * reference goes: the listener's, dropped when it stops or its device goes
 * away, and each connection's, dropped once its queue pair is destroyed
 * and before its CM id is (so that a device's removal, which waits for
 * the ids, never finds the queue still there).
 *
 * A queue pair that takes its receives from the queue gives back, when
 * it ends, those whose commands it received and its target had not read
 * yet. On 6.12 (not on 6.1) ib_drain_qp() also waits for the last
 * receive a queue pair took from the queue to complete
 * (IB_EVENT_QP_LAST_WQE_REACHED); on 6.1 one the queue pair was in the
 * middle of receiving when it failed may never complete, and the queue
 * then has one receive fewer
 * until the listener stops: hosts that keep to their credits may meet
 * receiver-not-ready (and retry) where they would not otherwise.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kvperf_wire.h>
#include <linux/slab.h>

#include "io.h"
#include "kvperf.h"

/**
 * kvperf_io_srq_footprint() - what a shared receive queue pins
 * @depth: its receives
 * @f: receives the bytes of its capsules and of its queue entries
 */
void kvperf_io_srq_footprint(u32 depth, struct kvperf_footprint *f)
{
	f->buf_bytes = kvperf_io_slots_bytes(depth, KVPERF_WIRE_IO_CAPSULE);
	f->queue_bytes = (u64)depth * KVPERF_RECV_WQE_BYTES;
}

/**
 * kvperf_io_srq_post() - give a receive (back) to the queue
 * @q: the queue
 * @r: one of its receives, not posted
 *
 * Return: 0 or the error of ib_post_srq_recv().
 */
int kvperf_io_srq_post(struct kvperf_io_srq *q, struct kvperf_io_trx *r)
{
	u32 nents;
	struct scatterlist *sg = kvperf_io_slot_sg(&q->slots, r->index,
						   &nents);
	struct ib_sge sge = {
		.addr = sg_dma_address(sg),
		.length = KVPERF_WIRE_IO_CAPSULE,
		.lkey = q->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &r->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	r->t = NULL;
	return ib_post_srq_recv(q->srq, &wr, NULL);
}

/*
 * The queue's asynchronous events (any context): after an error it
 * completes nothing more, so it grants no more credits; the connections
 * that use it fail on their flushed receives.
 */
static void kvperf_io_srq_event(struct ib_event *ev, void *ctx)
{
	struct kvperf_io_srq *q = ctx;
	unsigned long flags;

	if (ev->event != IB_EVENT_SRQ_ERR)
		return;
	pr_warn_ratelimited("%s: shared receive queue error: it grants no more credits\n",
			    dev_name(&ev->device->dev));
	spin_lock_irqsave(&q->lock, flags);
	q->failed = true;
	spin_unlock_irqrestore(&q->lock, flags);
}

/**
 * kvperf_io_srq_create() - a shared receive queue with all receives posted
 * @ibdev: the device
 * @depth: receives, within the device's max_srq_wr
 * @done: the completion handler of its receives
 * @why: receives the reason of a failure
 *
 * Return: the queue with one reference, or an ERR_PTR().
 */
struct kvperf_io_srq *kvperf_io_srq_create(struct ib_device *ibdev, u32 depth,
					   void (*done)(struct ib_cq *cq,
							struct ib_wc *wc),
					   const char **why)
{
	struct ib_srq_init_attr init = {
		.event_handler = kvperf_io_srq_event,
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = depth, .max_sge = 1 },
	};
	struct kvperf_io_srq *q;
	int err = -ENOMEM;
	u32 i;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		goto nomem;
	init.srq_context = q;
	kref_init(&q->ref);
	spin_lock_init(&q->lock);
	q->depth = depth;
	q->rx = kvcalloc(depth, sizeof(*q->rx), GFP_KERNEL);
	if (!q->rx ||
	    kvperf_io_slots_alloc(&q->slots, ibdev, depth,
				  KVPERF_WIRE_IO_CAPSULE, NUMA_NO_NODE) ||
	    kvperf_io_slots_map(&q->slots, ibdev))
		goto nomem;
	q->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(q->pd)) {
		err = PTR_ERR(q->pd);
		q->pd = NULL;
		*why = "cannot allocate the shared receive queue's protection domain";
		goto err;
	}
	q->srq = ib_create_srq(q->pd, &init);
	if (IS_ERR(q->srq)) {
		err = PTR_ERR(q->srq);
		q->srq = NULL;
		*why = "cannot create the shared receive queue";
		goto err;
	}
	for (i = 0; i < depth; i++) {
		q->rx[i].srq = q;
		q->rx[i].index = i;
		q->rx[i].cqe.done = done;
		err = kvperf_io_srq_post(q, &q->rx[i]);
		if (err) {
			*why = "cannot post the shared receive queue's receives";
			goto err;
		}
	}
	return q;

nomem:
	*why = "cannot allocate the shared receive queue's capsules";
err:
	kvperf_io_srq_put(q);
	return ERR_PTR(err);
}

static void kvperf_io_srq_release(struct kref *ref)
{
	struct kvperf_io_srq *q = container_of(ref, struct kvperf_io_srq, ref);

	/* no queue pair uses it any more: its receives go with it */
	if (q->srq)
		ib_destroy_srq(q->srq);
	kvperf_io_slots_free(&q->slots);
	if (q->pd)
		ib_dealloc_pd(q->pd);
	kvfree(q->rx);
	kfree(q);
}

/**
 * kvperf_io_srq_get() - one more reference
 * @q: the queue
 *
 * Return: @q.
 */
struct kvperf_io_srq *kvperf_io_srq_get(struct kvperf_io_srq *q)
{
	kref_get(&q->ref);
	return q;
}

/**
 * kvperf_io_srq_put() - drop a reference; the last frees the queue
 * @q: the queue, or NULL
 *
 * The last reference must go only once no queue pair uses the queue.
 */
void kvperf_io_srq_put(struct kvperf_io_srq *q)
{
	if (q)
		kref_put(&q->ref, kvperf_io_srq_release);
}

/**
 * kvperf_io_srq_grant() - credits for a new connection
 * @q: the queue
 * @want: what the host asked for
 *
 * Return: @want, or the receives not granted yet if fewer; 0 when none
 * are left or the queue failed (IB_EVENT_SRQ_ERR).
 */
u32 kvperf_io_srq_grant(struct kvperf_io_srq *q, u32 want)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&q->lock, flags);
	n = q->failed ? 0 : min(want, q->depth - q->granted);
	q->granted += n;
	spin_unlock_irqrestore(&q->lock, flags);
	return n;
}

/**
 * kvperf_io_srq_ungrant() - a connection's credits, given back
 * @q: the queue
 * @n: what kvperf_io_srq_grant() granted it
 */
void kvperf_io_srq_ungrant(struct kvperf_io_srq *q, u32 n)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	q->granted -= n;
	spin_unlock_irqrestore(&q->lock, flags);
}

/**
 * kvperf_io_srq_granted() - the credits granted now
 * @q: the queue
 *
 * Return: their sum over the live connections.
 */
u32 kvperf_io_srq_granted(struct kvperf_io_srq *q)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&q->lock, flags);
	n = q->granted;
	spin_unlock_irqrestore(&q->lock, flags);
	return n;
}
