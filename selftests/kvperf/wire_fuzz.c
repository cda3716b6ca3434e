// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded fuzzer of kvperf's wire protocol, aimed at a kvperf server:
 * thousands of connect requests with malformed private data (random
 * bytes, truncated, every field out of range) whose verdict is compared
 * with the user path's own check of the same request, and well-formed
 * connections that then hold bad conversations (unknown or out-of-order
 * control messages, data where control is due, messages larger than the
 * server's buffer, RDMA to wrong keys, bursts, disconnects at any point,
 * silence), and I/O connections whose host sends commands with
 * in-capsule data, good and malformed (wrong lengths, a read, data that
 * overflow the target's receive), each answered with the status the wire
 * protocol says or closed. Attempt i depends only on the seed and i, so one attempt can
 * be replayed alone (-r), or again and again (-R) to catch a race; -d
 * waits that long between the accept and a conversation's first
 * message. The connection code is the user path's
 * (user/engine/upath_conn.c, user/engine/upath_wire.c).
 *
 * With -L it is a hostile server instead, aimed at a kvperf client: it
 * accepts two connections as a kvperf server does, and once a client
 * has sent its first message it RDMA WRITEs into (the first) or READs
 * (the second) the buffer the client's connect request named, which a
 * client must expose only to a run that needs it (issue 42).
 *
 * usage: wire_fuzz -a ADDR [-p PORT] [-s SEED] [-n COUNT] [-t SECONDS]
 *		    [-w WAIT_MS] [-q SILENT] [-r ATTEMPT [-R TIMES]] [-d MS]
 *		    [-l LIST_CMD] [-v]
 *	  wire_fuzz -a ADDR -H N	hold N idle connections until killed
 *	  wire_fuzz -a ADDR -B N -S SIZE	N connections of SIZE at once
 *	  wire_fuzz -a ADDR -E		phase lengths at and beyond their bounds
 *	  wire_fuzz -a ADDR -O		more control messages than the server reads
 *	  wire_fuzz -a ADDR -W		a write-latency client gone quiet
 *	  wire_fuzz -a ADDR -L		a hostile server: RDMA at clients' buffers
 *
 * A conversation the server should have closed counts as closed when the
 * DISCONNECTED event comes; without it, -l names a command that lists the
 * server's connections as JSON ("kvperf -j server show"), to tell one
 * the server ended without the client hearing of it from one it keeps.
 * The last lines of a fuzzing run are "result key=value ...".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/kvperf.h>
#include <linux/kvperf_wire.h>

#include "upath_cfg.h"
#include "upath_conn.h"
#include "upath_wire.h"

#define FZ_MAX_HELD		16
#define FZ_TRACE_LEN		1024
#define FZ_ANOMALIES_SHOWN	20
#define FZ_CONV_SIZE_MAX	65536
#define FZ_RAW_BUF		64
#define FZ_BURST_MAX		32
/* a server's disconnect comes within this, or the server is asked */
#define FZ_CLOSE_SOON_MS	300
/* the server's most connections at once (conns-max, at most 16) */
#define FZ_SERVER_CONNS_MAX	16
/* the hostile server's RDMA at a client's buffer */
#define FZ_PROBE_LEN		8

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* What the server answered to a connect request. */
enum fz_verdict {
	FZ_ACCEPTED,
	FZ_REFUSED,		/* rejected with a kvperf reason byte */
	FZ_REJECTED_OTHER,	/* rejected without one */
	FZ_UNANSWERED,		/* no answer within the wait */
	FZ_FAILED,		/* a connection error, or a local one */
};

/* What a conversation step expects from the server. */
enum fz_expect {
	FZ_EXP_NOTHING,		/* the server stays silent and connected */
	FZ_EXP_ANY,		/* no promise (RDMA to wrong keys) */
	FZ_EXP_CLOSE,		/* the server closes the connection */
	FZ_EXP_ACK,		/* ACK(arg) */
	FZ_EXP_REPORT,		/* REPORT with exact counts */
	FZ_EXP_ECHO,		/* a data message of the same length */
	FZ_EXP_ECHOES,		/* arg data messages back */
};

struct fz_stats {
	uint64_t attempts, raw, convs, bursts, early;
	uint64_t accepted, refused[8], rejected_other, unanswered, failed;
	uint64_t predicted_bad, disagree, bad_rep;
	uint64_t steps, answered, wrong, expect_close, closed, not_closed;
	uint64_t ended_unsaid;
	uint64_t rdma_faults, disconnects, silent;
	uint64_t io_convs, io_answered;
};

/* messages posted, for the summary */
static uint64_t fz_messages;

/*
 * Once connected, the CM event channel moves from @c to @cm_ch: the user
 * path's waits would read the events, and a DISCONNECTED that comes after
 * a completion error would go unseen (only the first error is kept).
 */
struct fz_conn {
	struct upath_conn c;
	struct upath_waiter w;
	struct rdma_event_channel *cm_ch;
	bool rejected, failed, disconnected, bad_rep;
	int rej_status;
	int rej_reason;		/* the reason byte, or -1 */
	bool probed;		/* -L: the probe's completion came */
	enum ibv_wc_status probe_status;
};

struct fz {
	struct sockaddr_storage dst;
	uint64_t seed;
	uint64_t rng;
	unsigned long count;
	unsigned int seconds;
	unsigned int wait_ms;
	unsigned int silent_max;
	const char *list_cmd;
	long replay;
	unsigned long repeat;
	unsigned int delay_ms;
	bool verbose;
	struct fz_stats st;
	struct fz_conn *held[FZ_MAX_HELD];
	unsigned int nheld;
	char trace[FZ_TRACE_LEN];
	size_t trace_len;
	unsigned int anomalies;
	uint64_t attempt;
};

static atomic_bool fz_stopping;

static void fz_on_signal(int sig)
{
	(void)sig;
	fz_stopping = 1;
}

static bool fz_should_stop(void *arg)
{
	(void)arg;
	return fz_stopping;
}

/* splitmix64: a seed's stream, and a stream per attempt */
static uint64_t fz_mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t fz_rand(struct fz *f, uint32_t n)
{
	return n ? fz_mix(&f->rng) % n : 0;
}

static bool fz_chance(struct fz *f, uint32_t percent)
{
	return fz_rand(f, 100) < percent;
}

static uint32_t fz_range(struct fz *f, uint32_t lo, uint32_t hi)
{
	return lo + fz_rand(f, hi - lo + 1);
}

static void fz_log(struct fz *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (f->trace_len >= sizeof(f->trace) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(f->trace + f->trace_len, sizeof(f->trace) - f->trace_len,
		      fmt, ap);
	va_end(ap);
	if (n > 0)
		f->trace_len += n;
	if (f->trace_len >= sizeof(f->trace))
		f->trace_len = sizeof(f->trace) - 1;
}

/* Something the server should not have done: say which attempt. */
static void fz_anomaly(struct fz *f, const char *what)
{
	fz_log(f, " !%s", what);
	if (f->anomalies++ < FZ_ANOMALIES_SHOWN && !f->verbose)
		fprintf(stderr, "anomaly: %s at attempt %" PRIu64 " (replay: -s 0x%" PRIx64 " -r %" PRIu64 "): %s\n",
			what, f->attempt, f->seed, f->attempt, f->trace);
}

/* What a CM event says about a connection, answers to requests included. */
static void fz_cm_event(struct fz_conn *fc, const struct rdma_cm_event *ev)
{
	struct upath_conn *c = &fc->c;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		c->cm_event = ev->event;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (upath_wire_rep_get(ev->param.conn.private_data,
				       ev->param.conn.private_data_len,
				       &c->remote_rkey, &c->remote_addr,
				       &c->credits))
			fc->bad_rep = true;
		c->established = true;
		c->cm_event = ev->event;
		break;
	case RDMA_CM_EVENT_REJECTED:
		fc->rejected = true;
		fc->rej_status = ev->status;
		fc->rej_reason = -1;
		if (ev->status == UPATH_REJ_CONSUMER_DEFINED &&
		    ev->param.conn.private_data &&
		    ev->param.conn.private_data_len >= 1)
			fc->rej_reason =
				*(const uint8_t *)ev->param.conn.private_data;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		fc->disconnected = true;
		break;
	default:
		fc->failed = true;
		break;
	}
}

static struct rdma_event_channel *fz_cm_ch(struct fz_conn *fc)
{
	return fc->c.cm_ch ? fc->c.cm_ch : fc->cm_ch;
}

static void fz_cm_poll(struct fz_conn *fc)
{
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(fz_cm_ch(fc), &ev)) {
		fz_cm_event(fc, ev);
		rdma_ack_cm_event(ev);
	}
}

/* Follow the connection's CM events until @want, an answer or @deadline. */
static bool fz_cm_wait(struct fz_conn *fc, int want, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fz_cm_ch(fc)->fd, .events = POLLIN };

	for (;;) {
		fz_cm_poll(fc);
		if (fc->c.cm_event == want)
			return true;
		if (fc->rejected || fc->failed || fz_stopping ||
		    upath_now_ns() > deadline)
			return false;
		poll(&pfd, 1, 20);
	}
}

static void fz_sockaddr_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static int fz_parse_addr(const char *s, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		ss->ss_family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		ss->ss_family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

static void fz_conn_free(struct fz_conn *fc)
{
	struct ibv_cq *cq;
	void *ctx;

	if (!fc)
		return;
	/* every completion event acknowledged, or destroying the CQ waits */
	while (fc->w.ch && !ibv_get_cq_event(fc->w.ch, &cq, &ctx))
		ibv_ack_cq_events(cq, 1);
	if (!fc->c.cm_ch)
		fc->c.cm_ch = fc->cm_ch;
	upath_conn_close(&fc->c);
	upath_waiter_destroy(&fc->w);
	free(fc);
}

/* A CM id on an event channel of its own that never blocks. */
static int fz_cm_id(struct rdma_event_channel **ch, struct rdma_cm_id **id,
		    void *ctx)
{
	*ch = rdma_create_event_channel();
	if (!*ch ||
	    fcntl((*ch)->fd, F_SETFL, fcntl((*ch)->fd, F_GETFL) | O_NONBLOCK) ||
	    rdma_create_id(*ch, id, ctx, RDMA_PS_TCP))
		return -1;
	return 0;
}

/*
 * A connection with the resources @attr asks for, its address and route
 * resolved: NULL (counted as a local failure) when that fails.
 */
static struct fz_conn *fz_conn_new(struct fz *f,
				   const struct upath_conn_attr *attr)
{
	uint64_t deadline = upath_now_ns() + f->wait_ms * UPATH_NS_PER_MS;
	struct fz_conn *fc = calloc(1, sizeof(*fc));
	struct upath_conn *c;

	if (!fc)
		return NULL;
	c = &fc->c;
	upath_conn_init(c, f->wait_ms * UPATH_NS_PER_MS, fz_should_stop, NULL,
			&fc->w);
	if (fz_cm_id(&c->cm_ch, &c->id, fc) ||
	    rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&f->dst,
			      f->wait_ms) ||
	    !fz_cm_wait(fc, RDMA_CM_EVENT_ADDR_RESOLVED, deadline) ||
	    rdma_resolve_route(c->id, f->wait_ms) ||
	    !fz_cm_wait(fc, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline) ||
	    upath_conn_create(c, attr) || upath_conn_post_recvs(c)) {
		fz_log(f, " setup failed (%s)", c->reason ?: strerror(errno));
		fz_conn_free(fc);
		return NULL;
	}
	return fc;
}

/*
 * Send a connect request with @len bytes of @pd and wait for the answer.
 * @early: tear the connection down right after asking.
 */
static enum fz_verdict fz_connect(struct fz *f, struct fz_conn *fc,
				  const void *pd, uint8_t len, uint8_t resp,
				  uint8_t init, bool early)
{
	uint64_t deadline = upath_now_ns() + f->wait_ms * UPATH_NS_PER_MS;
	struct rdma_conn_param param = {
		.private_data = len ? pd : NULL,
		.private_data_len = len,
		.responder_resources = resp,
		.initiator_depth = init,
		.retry_count = 3,
		.rnr_retry_count = 7,
	};

	if (rdma_connect(fc->c.id, &param)) {
		fz_log(f, " connect: %s", strerror(errno));
		return FZ_FAILED;
	}
	if (early)
		return FZ_FAILED;
	if (fz_cm_wait(fc, RDMA_CM_EVENT_ESTABLISHED, deadline)) {
		if (fc->bad_rep) {
			f->st.bad_rep++;
			fz_anomaly(f, "accept without a valid kvperf_wire_rep");
		}
		fc->cm_ch = fc->c.cm_ch;
		fc->c.cm_ch = NULL;
		if (upath_conn_set_rnr_timer(&fc->c))
			return FZ_FAILED;
		return FZ_ACCEPTED;
	}
	if (fc->rejected && fc->rej_reason >= 0)
		return FZ_REFUSED;
	if (fc->rejected)
		return FZ_REJECTED_OTHER;
	if (fc->failed)
		return FZ_FAILED;
	return fz_stopping ? FZ_FAILED : FZ_UNANSWERED;
}

static void fz_count_verdict(struct fz *f, const struct fz_conn *fc,
			     enum fz_verdict v)
{
	switch (v) {
	case FZ_ACCEPTED:
		f->st.accepted++;
		fz_log(f, " -> accepted");
		break;
	case FZ_REFUSED:
		f->st.refused[fc->rej_reason < 8 ? fc->rej_reason : 0]++;
		fz_log(f, " -> refused %d", fc->rej_reason);
		break;
	case FZ_REJECTED_OTHER:
		f->st.rejected_other++;
		fz_log(f, " -> rejected, status %d", fc->rej_status);
		break;
	case FZ_UNANSWERED:
		f->st.unanswered++;
		fz_anomaly(f, "no answer to the connect request");
		break;
	case FZ_FAILED:
		f->st.failed++;
		fz_log(f, " -> failed");
		break;
	}
}

/* Keep a connection open, silent, until the fuzzer exits. */
static bool fz_hold(struct fz *f, struct fz_conn *fc)
{
	if (f->nheld >= f->silent_max || f->nheld >= FZ_MAX_HELD)
		return false;
	f->held[f->nheld++] = fc;
	f->st.silent++;
	fz_log(f, " silent");
	return true;
}

/* ---- connect requests ---- */

/* A valid request of random shape (what a kvperf client could send). */
static void fz_valid_req(struct fz *f, struct upath_req *r, bool small)
{
	static const uint32_t sizes[] = {
		1, 2, 63, 64, 65, 4095, 4096, 4097, 65536, 1 << 20,
		KVPERF_SIZE_MAX,
	};

	memset(r, 0, sizeof(*r));
	r->op = fz_rand(f, 3);
	r->type = fz_rand(f, 2);
	r->flags = fz_rand(f, 4) & (KVPERF_WIRE_VERIFY | KVPERF_WIRE_BIDIR);
	if (small)
		r->size_max = fz_chance(f, 50) ? fz_range(f, 1, 4096) :
						 fz_range(f, 1, FZ_CONV_SIZE_MAX);
	else
		r->size_max = sizes[fz_rand(f, ARRAY_SIZE(sizes))];
	r->inline_size = fz_chance(f, 70) ? 0 : fz_range(f, 0, 256);
	if (r->type != KVPERF_RUN_TYPE_BW)
		return;
	r->tx_depth = fz_range(f, 1, small ? 32 : UPATH_TX_DEPTH_MAX);
	r->post_list = fz_range(f, 1, r->tx_depth < UPATH_POST_LIST_MAX ?
				r->tx_depth : UPATH_POST_LIST_MAX);
	r->signal_every = fz_range(f, 1, r->tx_depth);
	if (small || fz_chance(f, 50)) {
		r->iterations = fz_range(f, 1, small ? 40 : 100000);
	} else {
		r->duration_ms = fz_range(f, 1, 5000);
		r->flags |= KVPERF_WIRE_TIMED;
	}
	if (fz_chance(f, 30)) {
		r->warmup_ms = fz_range(f, 1, small ? 50 : 2000);
		r->flags |= KVPERF_WIRE_WARMUP_TIMED;
	} else {
		r->warmup = fz_range(f, 0, small ? 8 : 1000);
	}
}

static void fz_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void fz_put_be32(uint8_t *p, uint32_t v)
{
	fz_put_be16(p, v >> 16);
	fz_put_be16(p + 2, v);
}

/* An interesting 32-bit value: edges of every limit, and noise. */
static uint32_t fz_edge32(struct fz *f)
{
	static const uint32_t edges[] = {
		0, 1, 2, 63, 64, 65, 4095, 4096, 4097, 65535, 65536,
		KVPERF_SIZE_MAX - 1, KVPERF_SIZE_MAX, KVPERF_SIZE_MAX + 1,
		0x7fffffff, 0x80000000, 0xffffffff,
		/* the phase lengths' bounds (count, warmup) */
		KVPERF_DURATION_MS_MAX, KVPERF_DURATION_MS_MAX + 1,
		KVPERF_ITERATIONS_MAX, KVPERF_ITERATIONS_MAX + 1,
		KVPERF_WARMUP_MAX + 1, KVPERF_WARMUP_MS_MAX + 1,
	};

	return fz_chance(f, 75) ? edges[fz_rand(f, ARRAY_SIZE(edges))] :
				  (uint32_t)fz_mix(&f->rng);
}

static uint16_t fz_edge16(struct fz *f)
{
	static const uint16_t edges[] = {
		0, 1, 2, 63, 64, 65, 4095, 4096, 4097, 0x7fff, 0xffff,
	};

	return fz_chance(f, 75) ? edges[fz_rand(f, ARRAY_SIZE(edges))] :
				  (uint16_t)fz_mix(&f->rng);
}

/* One field of a valid request made odd: mostly out of range. */
static void fz_mutate(struct fz *f, uint8_t *b)
{
	uint32_t i;

	switch (fz_rand(f, 16)) {
	case 0:
		b[0] = fz_chance(f, 50) ? fz_range(f, 0, 4) : fz_mix(&f->rng);
		break;
	case 1:
		b[1] = fz_range(f, 3, 255);
		break;
	case 2:
		b[2] = fz_range(f, 2, 255);
		break;
	case 3:
		b[3] |= 1u << fz_range(f, 4, 7);
		break;
	case 4:
		fz_put_be32(b + 4, fz_edge32(f));		/* size_max */
		break;
	case 5:
		fz_put_be32(b + 8, fz_edge32(f));		/* inline_size */
		break;
	case 6:
		fz_put_be32(b + 12, fz_mix(&f->rng));		/* rkey */
		for (i = 16; i < 24; i++)			/* addr */
			b[i] = fz_mix(&f->rng);
		break;
	case 7:
		fz_put_be16(b + 24, fz_edge16(f));		/* tx_depth */
		break;
	case 8:
		fz_put_be16(b + 26, fz_edge16(f));		/* post_list */
		break;
	case 9:
		fz_put_be16(b + 28, fz_edge16(f));		/* signal_every */
		break;
	case 10:
		fz_put_be16(b + 30, fz_mix(&f->rng));		/* reserved */
		break;
	case 11:
		fz_put_be32(b + 32, fz_edge32(f));		/* count */
		break;
	case 12:
		fz_put_be32(b + 36, fz_edge32(f));		/* warmup */
		break;
	case 13:
		for (i = 40; i < 56; i++)			/* key */
			b[i] = fz_mix(&f->rng);
		break;
	case 14:
		b[3] = fz_mix(&f->rng);				/* any flags */
		break;
	default:
		b[fz_rand(f, 56)] ^= 1u << fz_rand(f, 8);	/* a bit */
		break;
	}
}

/* The user path's verdict on what the server gets (the CM pads to 56). */
static bool fz_predict_ok(const uint8_t *pd)
{
	struct upath_req r;

	return !upath_wire_req_get(pd, sizeof(struct kvperf_wire_req), &r) &&
	       upath_wire_req_ok(&r);
}

/* A connect request with malformed (or odd but valid) private data. */
static void fz_raw_attempt(struct fz *f)
{
	struct upath_conn_attr attr = {
		.poll = KVPERF_POLL_BUSY,
		.size_max = FZ_RAW_BUF,
		.send_depth = 1,
		.recv_depth = 1,
	};
	uint8_t pd[sizeof(struct kvperf_wire_req)] = { 0 };
	struct kvperf_wire_req w;
	struct upath_req r;
	struct fz_conn *fc;
	enum fz_verdict v;
	uint8_t len = sizeof(pd), resp, init;
	bool ok, early;
	uint32_t i, kind = fz_rand(f, 10);

	f->st.raw++;
	fz_valid_req(f, &r, false);
	upath_wire_req_put(&r, &w);
	memcpy(pd, &w, sizeof(pd));
	if (kind < 2) {				/* random bytes */
		len = fz_rand(f, sizeof(pd) + 1);
		for (i = 0; i < len; i++)
			pd[i] = fz_mix(&f->rng);
		if (fz_chance(f, 50) && len)
			pd[0] = KVPERF_PROTO_VERSION;
		memset(pd + len, 0, sizeof(pd) - len);
		fz_log(f, "raw random len %u", len);
	} else if (kind < 4) {			/* truncated */
		len = fz_rand(f, sizeof(pd));
		memset(pd + len, 0, sizeof(pd) - len);
		fz_log(f, "raw truncated to %u", len);
	} else if (kind < 9) {			/* fields out of range */
		for (i = fz_range(f, 1, 3); i; i--)
			fz_mutate(f, pd);
		fz_log(f, "raw mutated");
	} else {				/* valid */
		fz_log(f, "raw valid");
	}
	fz_log(f, " pd=");
	for (i = 0; i < sizeof(pd); i++)
		fz_log(f, "%02x", pd[i]);
	ok = fz_predict_ok(pd);
	f->st.predicted_bad += !ok;
	early = fz_chance(f, 4);
	resp = fz_rand(f, 256);
	init = fz_rand(f, 256);

	fc = fz_conn_new(f, &attr);
	if (!fc) {
		f->st.failed++;
		return;
	}
	/* what the device allows, or librdmacm refuses locally */
	resp = fc->c.max_rd_atom ? resp % (fc->c.max_rd_atom + 1) : 0;
	init = fc->c.max_init_rd_atom ? init % (fc->c.max_init_rd_atom + 1) : 0;
	fz_log(f, " resp %u init %u%s", resp, init, early ? " early" : "");
	v = fz_connect(f, fc, pd, len, resp, init, early);
	if (early) {
		f->st.early++;
		fz_conn_free(fc);
		return;
	}
	fz_count_verdict(f, fc, v);
	if ((v == FZ_ACCEPTED && !ok) ||
	    (v == FZ_REFUSED && ok &&
	     fc->rej_reason == KVPERF_WIRE_REJ_BAD_REQUEST) ||
	    (v == FZ_REFUSED && !ok &&
	     fc->rej_reason != KVPERF_WIRE_REJ_BAD_REQUEST)) {
		f->st.disagree++;
		fz_anomaly(f, ok ? "a valid request was refused as bad" :
				   "the verdict differs from the user path's check");
	}
	if (v == FZ_ACCEPTED && fz_chance(f, 2) && fz_hold(f, fc))
		return;
	fz_conn_free(fc);
}

/* ---- conversations ---- */

struct fz_conv {
	struct upath_req r;
	struct fz_conn *fc;
	uint32_t size;		/* the size of the last SIZE acknowledged */
	uint64_t data;		/* bw: data messages since START */
	uint64_t bad_len;	/* of which not of the size */
	bool closed;
};

/*
 * Does the server still list a connection from our port? Asks the
 * command of -l (kvperf -j server show), whose JSON has "peer_port":N.
 */
static bool fz_server_lists(struct fz *f, struct fz_conn *fc)
{
	char buf[4096], want[32];
	bool found = false;
	FILE *p;

	if (!f->list_cmd)
		return true;
	snprintf(want, sizeof(want), "\"peer_port\":%u,",
		 ntohs(rdma_get_src_port(fc->c.id)));
	p = popen(f->list_cmd, "r");
	if (!p)
		return true;
	while (fgets(buf, sizeof(buf), p))
		found |= strstr(buf, want) != NULL;
	return pclose(p) ? true : found;
}

/* Did the server close the connection (a DISCONNECTED event)? */
static bool fz_wait_closed(struct fz_conn *fc, unsigned int ms)
{
	uint64_t deadline = upath_now_ns() + ms * UPATH_NS_PER_MS;
	struct pollfd pfd = { .fd = fc->cm_ch->fd, .events = POLLIN };

	for (;;) {
		upath_conn_poll(&fc->c, 64);
		fz_cm_poll(fc);
		if (fc->disconnected)
			return true;
		if (fz_stopping || upath_now_ns() > deadline)
			return false;
		poll(&pfd, 1, 20);
	}
}

static int fz_send(struct upath_conn *c, enum ibv_wr_opcode opcode,
		   uint32_t len, uint32_t imm)
{
	int err = upath_conn_post_send(c, opcode, len, imm);

	fz_messages += !err;
	return err ? err : upath_conn_wait_sends(c);
}

static int fz_expect_ctrl(struct fz *f, struct fz_conv *cv, uint8_t kind,
			  uint32_t arg, uint32_t len)
{
	struct upath_recv r;
	int err;

	err = upath_conn_wait_recv(&cv->fc->c, &r);
	if (err)
		return err;
	if (!r.has_imm || KVPERF_CTRL_OP(r.imm) != kind ||
	    KVPERF_CTRL_ARG(r.imm) != arg || r.byte_len != len) {
		fz_log(f, " got imm %d 0x%08x len %u", r.has_imm, r.imm,
		       r.byte_len);
		return -EPROTO;
	}
	return 0;
}

static int fz_expect_report(struct fz *f, struct fz_conv *cv)
{
	struct upath_conn *c = &cv->fc->c;
	struct kvperf_wire_report w;
	struct upath_report rep;
	int err;

	err = fz_expect_ctrl(f, cv, KVPERF_CTRL_REPORT, 0, sizeof(w));
	if (err)
		return err;
	memcpy(&w, c->rx.p, sizeof(w));
	upath_wire_report_get(&w, &rep);
	fz_log(f, " report %" PRIu64 "/%" PRIu64, rep.received,
	       rep.mismatches);
	if (cv->r.op != KVPERF_OP_SEND)
		return rep.received ? -EPROTO : 0;
	if (rep.received != cv->data)
		return -EPROTO;
	/* with verify the last payload's check adds one more */
	if (!(cv->r.flags & KVPERF_WIRE_VERIFY) && rep.mismatches != cv->bad_len)
		return -EPROTO;
	return 0;
}

static int fz_expect_echoes(struct fz *f, struct fz_conv *cv, uint32_t n,
			    uint32_t len)
{
	struct upath_conn *c = &cv->fc->c;
	struct upath_recv r;
	uint32_t i;
	int err;

	for (i = 0; i < n; i++) {
		err = upath_conn_wait_recv(c, &r);
		if (err)
			return err;
		if (r.has_imm || r.byte_len != len) {
			fz_log(f, " echo %u: imm %d len %u", i, r.has_imm,
			       r.byte_len);
			return -EPROTO;
		}
	}
	return 0;
}

/* A data message or @n of them, @len bytes each, no immediate. */
static int fz_data(struct fz_conv *cv, uint32_t n, uint32_t len)
{
	struct upath_conn *c = &cv->fc->c;
	uint32_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		err = upath_conn_post_send(c, IBV_WR_SEND, len, 0);
		fz_messages += !err;
		/* keep the send queue within its depth */
		if (!err && c->sends_posted - c->sends_done >= UPATH_SEND_DEPTH)
			err = upath_conn_wait_sends(c);
	}
	if (!err)
		err = upath_conn_wait_sends(c);
	if (cv->r.type == KVPERF_RUN_TYPE_BW) {
		cv->data += i;
		if (len != cv->size)
			cv->bad_len += i;
	}
	return err;
}

/* RDMA to the server's buffer with a wrong key, address or length. */
static int fz_rdma_fault(struct fz *f, struct fz_conv *cv)
{
	struct upath_conn *c = &cv->fc->c;
	enum ibv_wr_opcode op = fz_chance(f, 50) ? IBV_WR_RDMA_WRITE :
						   IBV_WR_RDMA_READ;
	uint32_t len = fz_range(f, 1, 64), server_len;

	server_len = cv->r.size_max > KVPERF_BUF_MIN ? cv->r.size_max :
						      KVPERF_BUF_MIN;
	switch (fz_rand(f, 4)) {
	case 0:
		c->remote_rkey ^= fz_range(f, 1, 0xffffffff);
		break;
	case 1:
		c->remote_addr += server_len + fz_rand(f, 1 << 20);
		break;
	case 2:
		c->remote_addr -= fz_range(f, 1, 4096);
		break;
	default:
		len = server_len + fz_range(f, 1, 4096);
		break;
	}
	fz_log(f, " %s(rkey 0x%x addr 0x%" PRIx64 " len %u)",
	       op == IBV_WR_RDMA_WRITE ? "WRITE" : "READ", c->remote_rkey,
	       c->remote_addr, len);
	f->st.rdma_faults++;
	return fz_send(c, op, len, 0);
}

/* Pick the next step of a conversation, send it, say what it expects. */
static enum fz_expect fz_step(struct fz *f, struct fz_conv *cv, uint32_t *n,
			      uint32_t *len, int *err)
{
	struct upath_conn *c = &cv->fc->c;
	bool bw = cv->r.type == KVPERF_RUN_TYPE_BW;
	bool send = cv->r.op == KVPERF_OP_SEND;
	uint32_t server_len = cv->r.size_max > KVPERF_BUF_MIN ?
			      cv->r.size_max : KVPERF_BUF_MIN;
	uint32_t pick = fz_rand(f, 100), arg;

	*err = 0;
	if (pick < 25) {			/* a good SIZE */
		arg = fz_range(f, 1, cv->r.size_max);
		fz_log(f, " SIZE(%u)", arg);
		*err = fz_send(c, IBV_WR_SEND_WITH_IMM, 0,
			       KVPERF_CTRL(KVPERF_CTRL_SIZE, arg));
		cv->size = arg;
		*n = arg;
		return FZ_EXP_ACK;
	}
	if (pick < 30) {			/* SIZE 0 or too large */
		arg = fz_chance(f, 30) ? 0 :
		      fz_range(f, cv->r.size_max + 1, 0xffffff);
		fz_log(f, " SIZE(%u)", arg);
		*err = fz_send(c, IBV_WR_SEND_WITH_IMM, 0,
			       KVPERF_CTRL(KVPERF_CTRL_SIZE, arg));
		return FZ_EXP_CLOSE;
	}
	if (pick < 42) {			/* START */
		fz_log(f, " START");
		if (bw && cv->size && (cv->r.flags & KVPERF_WIRE_BIDIR) && send)
			c->count_data = true;	/* take the server's traffic */
		*err = fz_send(c, IBV_WR_SEND_WITH_IMM, 0,
			       KVPERF_CTRL(KVPERF_CTRL_START, 0));
		if (!bw || !cv->size)
			return FZ_EXP_CLOSE;
		cv->data = 0;
		cv->bad_len = 0;
		*n = 0;
		return FZ_EXP_ACK;
	}
	if (pick < 52) {			/* END, with or without START */
		fz_log(f, " END");
		*err = fz_send(c, IBV_WR_SEND_WITH_IMM, 0,
			       KVPERF_CTRL(KVPERF_CTRL_END, 0));
		return bw ? FZ_EXP_REPORT : FZ_EXP_CLOSE;
	}
	if (pick < 57) {			/* what only a server sends, or no kind */
		arg = fz_rand(f, 3);
		arg = arg == 0 ? KVPERF_CTRL_REPORT :
		      arg == 1 ? KVPERF_CTRL_ACK :
		      fz_chance(f, 20) ? 0 : fz_range(f, 6, 255);
		fz_log(f, " CTRL(%u, len %u)", arg,
		       arg == KVPERF_CTRL_REPORT ? 32 : 0);
		*err = fz_send(c, IBV_WR_SEND_WITH_IMM,
			       arg == KVPERF_CTRL_REPORT ? 32 : 0,
			       KVPERF_CTRL(arg, fz_rand(f, 1 << 24)));
		return FZ_EXP_CLOSE;
	}
	if (pick < 70) {			/* a data message */
		*len = fz_range(f, 1, cv->r.size_max);
		fz_log(f, " DATA(%u)", *len);
		*err = fz_data(cv, 1, *len);
		if (bw)
			return send ? FZ_EXP_NOTHING : FZ_EXP_CLOSE;
		/* a latency server of any op answers a ping (zeros: no marker) */
		return FZ_EXP_ECHO;
	}
	if (pick < 74) {			/* a zero-length data message */
		*len = 0;
		fz_log(f, " DATA(0)");
		*err = fz_data(cv, 1, 0);
		return bw && send ? FZ_EXP_NOTHING : FZ_EXP_CLOSE;
	}
	if (pick < 79) {			/* larger than the server's buffer */
		*len = server_len + fz_range(f, 1, 4096);
		fz_log(f, " DATA(%u > %u)", *len, server_len);
		*err = fz_data(cv, 1, *len);
		return FZ_EXP_CLOSE;
	}
	if (pick < 85 && send) {		/* a burst beyond the receive depth */
		*n = fz_range(f, UPATH_RECV_DEPTH + 1, 4 * (UPATH_RECV_DEPTH + 32));
		*len = bw && cv->size ? cv->size :
		       fz_range(f, 1, cv->r.size_max);
		fz_log(f, " BURST(%u x %u)", *n, *len);
		if (!bw)
			c->count_data = true;
		*err = fz_data(cv, *n, *len);
		return bw ? FZ_EXP_NOTHING : FZ_EXP_ECHOES;
	}
	if (pick < 90) {
		*err = fz_rdma_fault(f, cv);
		return FZ_EXP_ANY;
	}
	if (pick < 95) {
		fz_log(f, " pause");
		usleep(fz_rand(f, 20000));
		return FZ_EXP_NOTHING;
	}
	if (pick < 98 || !fz_hold(f, cv->fc)) {
		fz_log(f, " disconnect");
		f->st.disconnects++;
		cv->closed = true;
		return FZ_EXP_ANY;
	}
	cv->fc = NULL;		/* held: silent from now on */
	cv->closed = true;
	return FZ_EXP_ANY;
}

/* Wait for the server's data echoes counted by the receive handler. */
static bool fz_echoes_in(struct upath_conn *c, void *arg)
{
	return c->data_recvs >= *(uint32_t *)arg;
}

/* Check the server's answer to a step; false ends the conversation. */
static bool fz_answer(struct fz *f, struct fz_conv *cv, enum fz_expect e,
		      uint32_t n, uint32_t len, int err)
{
	struct upath_conn *c = &cv->fc->c;

	if (e == FZ_EXP_CLOSE) {
		f->st.expect_close++;
		/*
		 * The DISCONNECTED event comes at once, or (when the server
		 * ended the connection before its own ESTABLISHED) never:
		 * ask the server early, and wait the whole time only for a
		 * connection it still lists.
		 */
		if (fz_wait_closed(cv->fc, FZ_CLOSE_SOON_MS) ||
		    (fz_server_lists(f, cv->fc) &&
		     fz_wait_closed(cv->fc, f->wait_ms))) {
			f->st.closed++;
			fz_log(f, " closed");
		} else if (!fz_server_lists(f, cv->fc)) {
			/* gone on the server, but no DREQ reached us */
			f->st.ended_unsaid++;
			fz_log(f, " ended without a disconnect");
			if (f->verbose)
				fprintf(stderr, "ended without a disconnect at attempt %" PRIu64 ": %s\n",
					f->attempt, f->trace);
		} else {
			f->st.not_closed++;
			fz_anomaly(f, "the server kept a broken conversation open");
		}
		return false;
	}
	if (err && e != FZ_EXP_ANY) {
		f->st.wrong++;
		fz_anomaly(f, "a good message failed");
	}
	if (err || e == FZ_EXP_ANY)
		return false;
	switch (e) {
	case FZ_EXP_ACK:
		err = fz_expect_ctrl(f, cv, KVPERF_CTRL_ACK, n, 0);
		break;
	case FZ_EXP_REPORT:
		err = fz_expect_report(f, cv);
		c->count_data = false;
		break;
	case FZ_EXP_ECHO:
		err = fz_expect_echoes(f, cv, 1, len);
		break;
	case FZ_EXP_ECHOES:
		err = upath_conn_wait(c, fz_echoes_in, &n);
		c->count_data = false;
		c->data_recvs = 0;
		c->bad_recvs = 0;
		break;
	default:
		return true;
	}
	if (!err) {
		f->st.answered++;
		return true;
	}
	if (err == -EPROTO || err == -ETIMEDOUT) {
		f->st.wrong++;
		fz_anomaly(f, err == -EPROTO ? "a wrong answer" :
					       "no answer from the server");
	}
	return false;
}

static const char *fz_op_name(uint8_t op)
{
	return op == KVPERF_OP_SEND ? "send" :
	       op == KVPERF_OP_WRITE ? "write" : "read";
}

/* RDMA READs in flight either way: what the device takes, 16 at most. */
static uint8_t fz_rd_atom(const struct upath_conn *c)
{
	uint32_t rd = c->max_init_rd_atom < c->max_rd_atom ?
		      c->max_init_rd_atom : c->max_rd_atom;

	return rd < 16 ? rd : 16;
}

static void fz_conv_attempt(struct fz *f)
{
	struct kvperf_wire_req w;
	struct upath_conn_attr attr = {
		.poll = KVPERF_POLL_SOFTIRQ,
		.send_depth = UPATH_SEND_DEPTH,
		.recv_depth = UPATH_RECV_DEPTH,
	};
	struct fz_conv cv = { 0 };
	enum fz_expect e;
	enum fz_verdict v;
	uint32_t steps, n = 0, len = 0;
	uint8_t rd;
	int err;

	f->st.convs++;
	fz_valid_req(f, &cv.r, true);
	fz_log(f, "conv %s %s size_max %u flags 0x%x",
	       cv.r.type == KVPERF_RUN_TYPE_BW ? "bw" : "lat",
	       fz_op_name(cv.r.op),
	       cv.r.size_max, cv.r.flags);
	/* room for messages larger than the server's buffer */
	attr.size_max = cv.r.size_max + 8192;
	cv.fc = fz_conn_new(f, &attr);
	if (!cv.fc) {
		f->st.failed++;
		return;
	}
	cv.r.rkey = cv.fc->c.rx.mr->rkey;
	cv.r.addr = (uintptr_t)cv.fc->c.rx.p;
	upath_wire_req_put(&cv.r, &w);
	rd = fz_rd_atom(&cv.fc->c);
	v = fz_connect(f, cv.fc, &w, sizeof(w), rd, rd, false);
	fz_count_verdict(f, cv.fc, v);
	if (v == FZ_REFUSED && cv.fc->rej_reason == KVPERF_WIRE_REJ_BAD_REQUEST) {
		f->st.disagree++;
		fz_anomaly(f, "a valid request was refused as bad");
	}
	if (v != FZ_ACCEPTED) {
		fz_conn_free(cv.fc);
		return;
	}
	if (f->delay_ms)
		usleep(f->delay_ms * 1000);
	for (steps = fz_range(f, 1, 8); steps && !fz_stopping; steps--) {
		f->st.steps++;
		e = fz_step(f, &cv, &n, &len, &err);
		if (cv.closed || !fz_answer(f, &cv, e, n, len, err))
			break;
	}
	fz_conn_free(cv.fc);
}

/* ---- I/O conversations: a host's in-capsule commands ---- */

/*
 * Put a command with no segment (in-capsule data) in @c's send buffer:
 * @len in the command, @data bytes after the 512-byte capsule. Return:
 * the message's length.
 */
static uint32_t fz_io_cmd(struct upath_conn *c, uint16_t cid, uint8_t opcode,
			  uint32_t len, uint32_t data)
{
	struct kvperf_wire_io_cmd cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.cid = htons(cid);
	cmd.opcode = opcode;
	cmd.len = htonl(len);
	memset(c->tx.p, 0, KVPERF_WIRE_IO_CAPSULE);
	memcpy(c->tx.p, &cmd, sizeof(cmd));
	memset(c->tx.p + KVPERF_WIRE_IO_CAPSULE, 0xa5, data);
	return KVPERF_WIRE_IO_CAPSULE + data;
}

/* The response to command @cid has status @status. */
static bool fz_io_expect(struct fz *f, struct upath_conn *c, uint16_t cid,
			 uint8_t status)
{
	struct kvperf_wire_io_rsp rsp;
	struct upath_recv r;
	int err;

	err = upath_conn_wait_recv(c, &r);
	if (err || r.has_imm || r.byte_len != sizeof(rsp)) {
		fz_log(f, " err %d imm %d len %u", err, r.has_imm, r.byte_len);
		return false;
	}
	memcpy(&rsp, c->rx.p, sizeof(rsp));
	fz_log(f, " status %u", rsp.status);
	return ntohs(rsp.cid) == cid && rsp.status == status;
}

/*
 * A host of an I/O run (writes, or a mix) that may send in-capsule data,
 * one command at a time: a good one is done (status 0); one whose length
 * does not match its message, that reads, or that is larger than the
 * in-capsule size is malformed (status 1); data beyond the target's
 * receive close the connection.
 */
static void fz_io_attempt(struct fz *f)
{
	struct upath_conn_attr attr = {
		.poll = KVPERF_POLL_SOFTIRQ,
		.send_depth = UPATH_SEND_DEPTH,
		.recv_depth = UPATH_RECV_DEPTH,
		.size_max = KVPERF_WIRE_IO_CAPSULE + KVPERF_IO_INLINE_DATA_MAX +
			    4096,
	};
	struct fz_conv cv = { 0 };
	struct kvperf_wire_req w;
	uint32_t steps, fit, len, msg;
	enum fz_verdict v;
	uint16_t cid = 0;
	uint8_t status;
	bool close;
	int err;

	f->st.io_convs++;
	cv.r.type = KVPERF_RUN_TYPE_IO;
	cv.r.op = fz_chance(f, 50) ? KVPERF_OP_WRITE : KVPERF_OP_READ;
	if (cv.r.op == KVPERF_OP_READ)
		cv.r.flags = KVPERF_WIRE_IO_MIXED;
	cv.r.size_max = KVPERF_IO_BS_MIN * fz_range(f, 1, 32);
	cv.r.tx_depth = fz_range(f, 1, 4);
	cv.r.post_list = 1;
	cv.r.inline_size = fz_chance(f, 20) ? 0 :
			   fz_range(f, 1, KVPERF_IO_INLINE_DATA_MAX);
	fit = cv.r.inline_size < cv.r.size_max ? cv.r.inline_size :
						 cv.r.size_max;
	fz_log(f, "io %s bs %u inline %u", cv.r.flags ? "mixed" : "write",
	       cv.r.size_max, cv.r.inline_size);
	cv.fc = fz_conn_new(f, &attr);
	if (!cv.fc) {
		f->st.failed++;
		return;
	}
	upath_wire_req_put(&cv.r, &w);
	v = fz_connect(f, cv.fc, &w, sizeof(w), 1, 1, false);
	fz_count_verdict(f, cv.fc, v);
	if (v == FZ_REFUSED && cv.fc->rej_reason == KVPERF_WIRE_REJ_BAD_REQUEST) {
		f->st.disagree++;
		fz_anomaly(f, "a valid I/O request was refused as bad");
	}
	if (v != FZ_ACCEPTED) {
		fz_conn_free(cv.fc);
		return;
	}
	for (steps = fz_range(f, 1, 6); steps && !fz_stopping; steps--) {
		f->st.steps++;
		status = KVPERF_WIRE_IO_BAD_COMMAND;
		close = false;
		switch (fit ? fz_rand(f, 5) : 4) {
		case 0:
			len = fz_range(f, 1, fit);
			msg = fz_io_cmd(&cv.fc->c, ++cid, KVPERF_OP_WRITE, len,
					len);
			status = KVPERF_WIRE_IO_OK;
			fz_log(f, " write %u", len);
			break;
		case 1:
			len = fz_range(f, 1, fit);
			msg = fz_io_cmd(&cv.fc->c, ++cid, KVPERF_OP_WRITE, len,
					len - 1);
			fz_log(f, " write %u, one byte short", len);
			break;
		case 2:
			len = fz_range(f, 1, fit);
			msg = fz_io_cmd(&cv.fc->c, ++cid, KVPERF_OP_READ, len,
					len);
			fz_log(f, " read %u in the capsule", len);
			break;
		case 3:
			len = fit + fz_range(f, 1, 4096);
			msg = fz_io_cmd(&cv.fc->c, ++cid, KVPERF_OP_WRITE, len,
					0);
			fz_log(f, " write %u, over %u", len, fit);
			break;
		default:
			/* more than the target's receive holds */
			len = cv.r.inline_size + fz_range(f, 1, 4096);
			msg = fz_io_cmd(&cv.fc->c, ++cid, KVPERF_OP_WRITE, len,
					len);
			close = true;
			fz_log(f, " write %u, beyond the receive", len);
			break;
		}
		err = fz_send(&cv.fc->c, IBV_WR_SEND, msg, 0);
		if (close) {
			fz_answer(f, &cv, FZ_EXP_CLOSE, 0, 0, err);
			break;
		}
		if (!err && fz_io_expect(f, &cv.fc->c, cid, status)) {
			f->st.answered++;
			f->st.io_answered++;
			continue;
		}
		f->st.wrong++;
		fz_anomaly(f, "an I/O command got no answer or the wrong status");
		break;
	}
	fz_conn_free(cv.fc);
}

/* ---- bursts of connections ---- */

/*
 * @n valid connections at once, each of @size_max (0: a small random
 * latency run), kept open until all were asked.
 */
static void fz_burst(struct fz *f, unsigned int n, uint32_t size_max)
{
	struct upath_conn_attr attr = {
		.poll = KVPERF_POLL_BUSY,
		.size_max = FZ_RAW_BUF,
		.send_depth = 1,
		.recv_depth = 1,
	};
	struct fz_conn *fcs[FZ_BURST_MAX] = { 0 };
	struct kvperf_wire_req w;
	struct upath_req r;
	enum fz_verdict v;
	unsigned int i;

	f->st.bursts++;
	fz_log(f, "burst %u", n);
	for (i = 0; i < n && i < FZ_BURST_MAX && !fz_stopping; i++) {
		memset(&r, 0, sizeof(r));
		r.op = KVPERF_OP_SEND;
		r.size_max = size_max ?: fz_range(f, 1, 4096);
		upath_wire_req_put(&r, &w);
		fcs[i] = fz_conn_new(f, &attr);
		if (!fcs[i]) {
			f->st.failed++;
			continue;
		}
		v = fz_connect(f, fcs[i], &w, sizeof(w), 0, 0, false);
		fz_count_verdict(f, fcs[i], v);
	}
	for (i = 0; i < FZ_BURST_MAX; i++)
		fz_conn_free(fcs[i]);
}

static void fz_attempt(struct fz *f, uint64_t i)
{
	uint64_t start = upath_now_ns();
	uint32_t kind;

	f->attempt = i;
	f->rng = f->seed ^ (i * 0xd1342543de82ef95ULL);
	fz_mix(&f->rng);
	f->trace_len = 0;
	f->trace[0] = 0;
	f->st.attempts++;
	/*
	 * Some kinds go by index, so that a short run of any seed has them:
	 * every tenth attempt an I/O host, every hundredth a burst. The
	 * others draw their kind (2 % of them bursts too).
	 */
	if (i % 10 == 7) {
		fz_io_attempt(f);
		goto out;
	}
	kind = fz_rand(f, 100);
	if (i % 100 == 13 || kind >= 98)
		fz_burst(f, fz_range(f, FZ_SERVER_CONNS_MAX + 1,
				     FZ_SERVER_CONNS_MAX + 4), 0);
	else if (kind < 45)
		fz_raw_attempt(f);
	else
		fz_conv_attempt(f);
out:
	if (f->verbose)
		printf("#%" PRIu64 " %" PRIu64 " ms: %s\n", i,
		       (uint64_t)((upath_now_ns() - start) / UPATH_NS_PER_MS),
		       f->trace);
}

/* ---- the modes ---- */

static void fz_print_result(const struct fz *f, double secs)
{
	const struct fz_stats *s = &f->st;

	printf("result seconds=%.1f attempts=%" PRIu64 " raw=%" PRIu64 " conversations=%" PRIu64 " bursts=%" PRIu64 " early=%" PRIu64 "\n",
	       secs, s->attempts, s->raw, s->convs, s->bursts, s->early);
	printf("result accepted=%" PRIu64 " refused_bad=%" PRIu64 " refused_busy=%" PRIu64 " refused_peer=%" PRIu64 " refused_memory=%" PRIu64 " refused_resources=%" PRIu64 " refused_other=%" PRIu64 " rejected_other=%" PRIu64 " unanswered=%" PRIu64 " failed=%" PRIu64 "\n",
	       s->accepted, s->refused[KVPERF_WIRE_REJ_BAD_REQUEST],
	       s->refused[KVPERF_WIRE_REJ_TOO_MANY],
	       s->refused[KVPERF_WIRE_REJ_PEER_BUSY],
	       s->refused[KVPERF_WIRE_REJ_MEMORY],
	       s->refused[KVPERF_WIRE_REJ_RESOURCES],
	       s->refused[0] + s->refused[KVPERF_WIRE_REJ_ADDRESS] +
	       s->refused[KVPERF_WIRE_REJ_KEY],
	       s->rejected_other, s->unanswered, s->failed);
	printf("result predicted_bad=%" PRIu64 " disagree=%" PRIu64 " bad_rep=%" PRIu64 "\n",
	       s->predicted_bad, s->disagree, s->bad_rep);
	printf("result messages=%" PRIu64 " steps=%" PRIu64 " answered=%" PRIu64 " wrong=%" PRIu64 " expect_close=%" PRIu64 " closed=%" PRIu64 " ended_unsaid=%" PRIu64 " not_closed=%" PRIu64 " rdma_faults=%" PRIu64 " disconnects=%" PRIu64 " silent=%" PRIu64 " anomalies=%u\n",
	       fz_messages, s->steps, s->answered, s->wrong, s->expect_close,
	       s->closed, s->ended_unsaid, s->not_closed, s->rdma_faults,
	       s->disconnects, s->silent, f->anomalies);
	printf("result io_conversations=%" PRIu64 " io_answered=%" PRIu64 "\n",
	       s->io_convs, s->io_answered);
}

static int fz_run(struct fz *f)
{
	uint64_t start = upath_now_ns();
	uint64_t end = start + f->seconds * UPATH_NS_PER_S;
	unsigned int i;
	uint64_t a;

	printf("seed 0x%" PRIx64 " (replay one attempt: -s 0x%" PRIx64 " -r N -v)\n",
	       f->seed, f->seed);
	fflush(stdout);
	if (f->replay >= 0) {
		for (a = 0; a < f->repeat && !fz_stopping; a++) {
			fz_attempt(f, f->replay);
			if (!f->verbose)
				printf("#%ld %s\n", f->replay, f->trace);
		}
	} else {
		for (a = 0; a < f->count && !fz_stopping; a++) {
			if (f->seconds && upath_now_ns() > end)
				break;
			fz_attempt(f, a);
		}
	}
	for (i = 0; i < f->nheld; i++)
		fz_conn_free(f->held[i]);
	f->nheld = 0;
	fz_print_result(f, (upath_now_ns() - start) / 1e9);
	return 0;
}

/* Hold @n valid idle connections until a signal. */
static int fz_hold_mode(struct fz *f, unsigned int n)
{
	struct upath_conn_attr attr = {
		.poll = KVPERF_POLL_BUSY,
		.size_max = FZ_RAW_BUF,
		.send_depth = 1,
		.recv_depth = 1,
	};
	struct kvperf_wire_req w;
	struct upath_req r = { .op = KVPERF_OP_SEND, .size_max = 64 };
	unsigned int i, held = 0;

	f->silent_max = n;
	for (i = 0; i < n; i++) {
		struct fz_conn *fc = fz_conn_new(f, &attr);

		if (!fc)
			continue;
		upath_wire_req_put(&r, &w);
		if (fz_connect(f, fc, &w, sizeof(w), 0, 0, false) == FZ_ACCEPTED &&
		    fz_hold(f, fc))
			held++;
		else
			fz_conn_free(fc);
	}
	printf("holding %u of %u\n", held, n);
	fflush(stdout);
	while (!fz_stopping)
		pause();
	for (i = 0; i < f->nheld; i++)
		fz_conn_free(f->held[i]);
	return held == n ? 0 : 1;
}

/*
 * The connection of a one-shot mode: @r as the request, with this
 * process's receive buffer in it, accepted. NULL, after saying why on
 * stdout, when it is not.
 */
static struct fz_conn *fz_mode_connect(struct fz *f, uint32_t depth,
				       struct upath_req *r)
{
	struct upath_conn_attr attr = {
		.poll = KVPERF_POLL_BUSY,
		.size_max = FZ_RAW_BUF,
		.send_depth = depth,
		.recv_depth = depth,
	};
	struct kvperf_wire_req w;
	struct fz_conn *fc;

	fc = fz_conn_new(f, &attr);
	if (!fc) {
		printf("no connection could be set up\n");
		return NULL;
	}
	r->rkey = fc->c.rx.mr->rkey;
	r->addr = (uintptr_t)fc->c.rx.p;
	upath_wire_req_put(r, &w);
	if (fz_connect(f, fc, &w, sizeof(w), 0, 0, false) != FZ_ACCEPTED) {
		printf("not accepted\n");
		fz_conn_free(fc);
		return NULL;
	}
	return fc;
}

/*
 * A bandwidth run's phase lengths at and beyond the spec's ranges, each
 * in one connect request of an otherwise valid one-sided run: the server
 * must accept the former and refuse the latter as bad requests, as the
 * user path's check does. One line per request; exit status 1 when any
 * verdict is not the one wanted.
 */
static int fz_edge_mode(struct fz *f)
{
	static const struct {
		const char *name;
		uint8_t flags;
		uint32_t count, warmup;
		bool ok;
	} edges[] = {
		{ "iterations 0", 0, 0, 16, false },
		{ "iterations at the maximum", 0, KVPERF_ITERATIONS_MAX, 16, true },
		{ "iterations beyond the maximum", 0, KVPERF_ITERATIONS_MAX + 1, 16, false },
		{ "time an hour", KVPERF_WIRE_TIMED, KVPERF_DURATION_MS_MAX, 16, true },
		{ "time an hour and 1 ms", KVPERF_WIRE_TIMED, KVPERF_DURATION_MS_MAX + 1, 16, false },
		{ "time 0xffffffff ms", KVPERF_WIRE_TIMED, 0xffffffff, 16, false },
		{ "warmup at the maximum", 0, 1000, KVPERF_WARMUP_MAX, true },
		{ "warmup beyond the maximum", 0, 1000, KVPERF_WARMUP_MAX + 1, false },
		{ "warmup time ten minutes", KVPERF_WIRE_WARMUP_TIMED, 1000, KVPERF_WARMUP_MS_MAX, true },
		{ "warmup time ten minutes and 1 ms", KVPERF_WIRE_WARMUP_TIMED, 1000, KVPERF_WARMUP_MS_MAX + 1, false },
		{ "bidir, both phases 0xffffffff ms",
		  KVPERF_WIRE_BIDIR | KVPERF_WIRE_TIMED | KVPERF_WIRE_WARMUP_TIMED,
		  0xffffffff, 0xffffffff, false },
	};
	struct upath_conn_attr attr = {
		.poll = KVPERF_POLL_BUSY,
		.size_max = FZ_RAW_BUF,
		.send_depth = 1,
		.recv_depth = 1,
	};
	struct upath_req r = {
		.op = KVPERF_OP_WRITE, .type = KVPERF_RUN_TYPE_BW,
		.size_max = 64, .tx_depth = 1, .post_list = 1, .signal_every = 1,
	};
	unsigned int i, wrong = 0;
	struct kvperf_wire_req w;

	for (i = 0; i < ARRAY_SIZE(edges) && !fz_stopping; i++) {
		struct fz_conn *fc = fz_conn_new(f, &attr);
		enum fz_verdict v;
		bool user_ok, bad;

		if (!fc) {
			printf("edge %s: no connection could be set up\n",
			       edges[i].name);
			wrong++;
			continue;
		}
		upath_wire_req_put(&r, &w);
		w.flags = edges[i].flags;
		w.count = htobe32(edges[i].count);
		w.warmup = htobe32(edges[i].warmup);
		user_ok = fz_predict_ok((const uint8_t *)&w);
		v = fz_connect(f, fc, &w, sizeof(w), 0, 0, false);
		bad = v == FZ_REFUSED &&
		      fc->rej_reason == KVPERF_WIRE_REJ_BAD_REQUEST;
		if (edges[i].ok ? v != FZ_ACCEPTED || !user_ok :
				  !bad || user_ok)
			wrong++;
		printf("edge %s: %s%s (want %s; the user path's check %s)\n",
		       edges[i].name,
		       v == FZ_ACCEPTED ? "accepted" :
		       bad ? "refused as a bad request" : "another answer",
		       v == FZ_REFUSED && !bad ? " (refused for another reason)" : "",
		       edges[i].ok ? "accepted" : "refused",
		       user_ok ? "accepts" : "refuses");
		fz_conn_free(fc);
	}
	printf("edges %zu wrong %u\n", ARRAY_SIZE(edges), wrong);
	return wrong ? 1 : 0;
}

/*
 * More control messages than a server connection's ring of unread ones
 * holds (KVPERF_RECV_DEPTH, 8): a bandwidth send run, whose server
 * keeps a receive posted for every message in flight, gets its first
 * size message and then 12 more while the test holds its thread
 * (stall_servers). Prints "sent" once they are all sent; the test then
 * lets the server go, and it must close the connection rather than
 * read the ring past what it holds. Exit status 0 when it does within
 * 5 times -w.
 */
static int fz_overrun_mode(struct fz *f)
{
	struct upath_req r = {
		.op = KVPERF_OP_SEND, .type = KVPERF_RUN_TYPE_BW,
		.size_max = 64, .tx_depth = 64, .post_list = 1,
		.signal_every = 1, .iterations = 1000,
	};
	struct fz_conn *fc = fz_mode_connect(f, 16, &r);
	bool closed;
	int i, err = 0;

	if (!fc)
		return 1;
	for (i = 0; i < 13 && !err; i++) {
		err = fz_send(&fc->c, IBV_WR_SEND_WITH_IMM, 0,
			      KVPERF_CTRL(KVPERF_CTRL_SIZE, 64));
		/* the first reaches the server's thread, which then stalls */
		if (!i)
			usleep(500000);
	}
	printf(err ? "send failed after %d\n" : "sent %d control messages\n",
	       i);
	fflush(stdout);
	closed = !err && fz_wait_closed(fc, 5 * f->wait_ms);
	printf("%s\n", closed ? "closed" : "still open");
	fz_conn_free(fc);
	return closed ? 0 : 1;
}

/*
 * A write-latency client that announces its size and then writes
 * nothing: the server's thread polls its buffer for the next write. The
 * connection's request carries this process's buffer, as a client's
 * does. Prints "polled" once the server acknowledged the size, then
 * holds the connection until killed (the test measures the thread's CPU
 * time meanwhile). Exit status 1 when the size is not acknowledged.
 */
static int fz_idle_write_mode(struct fz *f)
{
	struct upath_req r = {
		.op = KVPERF_OP_WRITE, .type = KVPERF_RUN_TYPE_LAT,
		.size_max = 64,
	};
	struct fz_conn *fc = fz_mode_connect(f, 4, &r);
	struct upath_recv rv;
	int err;

	if (!fc)
		return 1;
	err = fz_send(&fc->c, IBV_WR_SEND_WITH_IMM, 0,
		      KVPERF_CTRL(KVPERF_CTRL_SIZE, 64));
	if (!err)
		err = upath_conn_wait_recv(&fc->c, &rv);
	if (err || !rv.has_imm ||
	    KVPERF_CTRL_OP(rv.imm) != KVPERF_CTRL_ACK) {
		printf("the size was not acknowledged\n");
		fz_conn_free(fc);
		return 1;
	}
	printf("polled\n");
	fflush(stdout);
	while (!fz_stopping)
		pause();
	fz_conn_free(fc);
	return 0;
}

/* ---- a hostile server ---- */

static void fz_probe_done(struct upath_conn *c, const struct ibv_wc *wc)
{
	struct fz_conn *fc = container_of(c, struct fz_conn, c);

	fc->probe_status = wc->status;
	fc->probed = true;
	c->sends_done++;
}

static bool fz_probed(struct upath_conn *c, void *arg)
{
	(void)arg;
	return container_of(c, struct fz_conn, c)->probed;
}

/*
 * The wait for the probe's completion ended on an error first: a
 * flushed receive's completion, or the client's disconnect, whose
 * DISCONNECTED event can come before the device has completed the probe
 * with the client's NAK (a remote access error, sent before the
 * client's queue pair failed). The queue pair is left as it is (an
 * error state now would flush the probe and lose its status): its
 * completion is waited for, polled each millisecond, for up to @ms.
 */
static void fz_probe_late(struct fz_conn *fc, unsigned int ms)
{
	const struct timespec tick = { .tv_nsec = 1000000 };
	unsigned int i;

	for (i = 0; i <= ms && !fc->probed; i++) {
		if (upath_conn_poll(&fc->c, 64) < 0)
			return;
		if (!fc->probed)
			nanosleep(&tick, NULL);
	}
}

static bool fz_established(struct upath_conn *c, void *arg)
{
	(void)arg;
	return c->established;
}

/*
 * The next kvperf connect request on the listener's channel @ch, within
 * @secs: its CM id, and what it asks in @r; NULL when none came. A
 * request that is not kvperf's is rejected.
 */
static struct rdma_cm_id *fz_next_request(struct rdma_event_channel *ch,
					  unsigned int secs,
					  struct upath_req *r)
{
	uint64_t deadline = upath_now_ns() + secs * UPATH_NS_PER_S;
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int err;

	while (!fz_stopping && upath_now_ns() < deadline) {
		if (rdma_get_cm_event(ch, &ev)) {
			poll(&pfd, 1, 20);
			continue;
		}
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_ack_cm_event(ev);
			continue;
		}
		id = ev->id;
		err = upath_wire_req_get(ev->param.conn.private_data,
					 ev->param.conn.private_data_len, r);
		rdma_ack_cm_event(ev);
		if (!err)
			return id;
		printf("a connect request that is not kvperf's: rejected\n");
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
	}
	return NULL;
}

/*
 * Connection @n of the hostile server: accepted as a kvperf server
 * would, with this process's buffer in the accept, and, once the
 * client's first message came, @op (8 bytes) at the buffer its request
 * named. Prints the completion's status. Return: 0 when the operation
 * completed, whatever its status.
 */
static int fz_hostile_conn(struct fz *f, struct rdma_event_channel *ch,
			   unsigned int n, enum ibv_wr_opcode op)
{
	struct upath_conn_attr attr = {
		.poll = KVPERF_POLL_SOFTIRQ,
		.size_max = FZ_RAW_BUF,
		.send_depth = 1,
		.recv_depth = UPATH_RECV_DEPTH,
	};
	const char *what = op == IBV_WR_RDMA_WRITE ?
			   "write into the client's buffer" :
			   "read of the client's buffer";
	struct fz_conn *fc = calloc(1, sizeof(*fc));
	struct upath_conn *c;
	struct upath_recv rv;
	struct upath_req r;
	int err, rc;
	uint8_t rd;

	if (!fc)
		return 1;
	c = &fc->c;
	upath_conn_init(c, f->wait_ms * UPATH_NS_PER_MS, fz_should_stop, NULL,
			&fc->w);
	c->server = true;
	c->id = fz_next_request(ch, f->seconds, &r);
	if (!c->id) {
		printf("connection %u: no kvperf connect request in %u s\n", n,
		       f->seconds);
		free(fc);
		return 1;
	}
	printf("connection %u: %s %s%s, its buffer rkey 0x%x at 0x%" PRIx64 "\n",
	       n, r.type == KVPERF_RUN_TYPE_BW ? "bw" :
	       r.type == KVPERF_RUN_TYPE_IO ? "io" : "lat", fz_op_name(r.op),
	       r.flags & KVPERF_WIRE_BIDIR ? " bidir" : "", r.rkey, r.addr);
	c->remote_rkey = r.rkey;
	c->remote_addr = r.addr;
	if (upath_conn_create(c, &attr) || upath_conn_post_recvs(c) ||
	    upath_conn_own_channel(c)) {
		printf("connection %u: cannot be set up (%s)\n", n,
		       c->reason ?: "no event channel");
		rdma_reject(c->id, NULL, 0);
		fz_conn_free(fc);
		return 1;
	}
	/*
	 * READs both ways, whatever the client asked: ib_cm gives the
	 * client's QP the accept's initiator depth as its responder
	 * resources, and remote read access with them. Only the client's
	 * registration of its buffer is left in the way.
	 */
	rd = fz_rd_atom(c);
	if (upath_conn_accept(c, 0, rd, rd) ||
	    upath_conn_wait(c, fz_established, NULL) ||
	    upath_conn_wait_recv(c, &rv)) {
		printf("connection %u: no first message (%s)\n", n,
		       c->reason ?: "not accepted");
		fz_conn_free(fc);
		return 1;
	}
	/* the client registered its buffer before it sent anything */
	c->send_cqe.done = fz_probe_done;
	err = upath_conn_post_send(c, op, FZ_PROBE_LEN, 0);
	if (!err)
		err = upath_conn_wait(c, fz_probed, NULL);
	if (err && !fc->probed)
		fz_probe_late(fc, f->wait_ms);
	if (fc->probed)
		printf("%s: %s\n", what, ibv_wc_status_str(fc->probe_status));
	else
		printf("%s: no completion (%s)\n", what,
		       c->reason ?: strerror(-err));
	rc = fc->probed ? 0 : 1;
	fz_conn_free(fc);
	return rc;
}

/*
 * A hostile server: listens on the address and port of -a and -p,
 * prints "ready", and takes two kvperf connections one after the other
 * (each within -t seconds): an RDMA WRITE into the first client's buffer,
 * an RDMA READ of the second's. One operation a connection: one that
 * fails puts both queue pairs in the error state. Exit status 1 when a
 * connection did not come or its operation did not complete.
 */
static int fz_hostile_mode(struct fz *f)
{
	struct rdma_event_channel *ch = NULL;
	struct rdma_cm_id *id = NULL;
	int rc = 1;

	if (fz_cm_id(&ch, &id, NULL) ||
	    rdma_bind_addr(id, (struct sockaddr *)&f->dst) ||
	    rdma_listen(id, 1)) {
		printf("cannot listen there: %s\n", strerror(errno));
	} else {
		printf("ready\n");
		rc = fz_hostile_conn(f, ch, 1, IBV_WR_RDMA_WRITE) ||
		     fz_hostile_conn(f, ch, 2, IBV_WR_RDMA_READ);
	}
	if (id)
		rdma_destroy_id(id);
	if (ch)
		rdma_destroy_event_channel(ch);
	return rc;
}

static int fz_burst_mode(struct fz *f, unsigned int n, uint32_t size)
{
	fz_burst(f, n, size);
	printf("burst %u size %u: accepted %" PRIu64 " refused_memory %" PRIu64 " refused_busy %" PRIu64 "\n",
	       n, size, f->st.accepted, f->st.refused[KVPERF_WIRE_REJ_MEMORY],
	       f->st.refused[KVPERF_WIRE_REJ_TOO_MANY]);
	return 0;
}

static void fz_usage(void)
{
	fprintf(stderr,
		"usage: wire_fuzz -a ADDR [-p PORT] [-s SEED] [-n COUNT] [-t SECONDS]\n"
		"                 [-w WAIT_MS] [-q SILENT] [-r ATTEMPT [-R TIMES]] [-d MS]\n"
		"                 [-l LIST_CMD] [-v]\n"
		"       wire_fuzz -a ADDR [-p PORT] -H N\n"
		"       wire_fuzz -a ADDR [-p PORT] -B N -S SIZE\n"
		"       wire_fuzz -a ADDR [-p PORT] [-w WAIT_MS] -E\n"
		"       wire_fuzz -a ADDR [-p PORT] [-w WAIT_MS] -O\n"
		"       wire_fuzz -a ADDR [-p PORT] [-w WAIT_MS] -W\n"
		"       wire_fuzz -a ADDR [-p PORT] [-w WAIT_MS] [-t SECONDS] -L\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct fz f = {
		.count = 2000, .seconds = 30, .wait_ms = 2000, .silent_max = 4,
		.replay = -1, .repeat = 1,
	};
	unsigned long port = KVPERF_DEFAULT_PORT, hold = 0, burst = 0;
	unsigned long size = 0;
	struct sigaction sa = { .sa_handler = fz_on_signal };
	bool have_addr = false, have_seed = false, edge = false, overrun = false;
	bool idle_write = false, hostile = false;
	int opt;

	while ((opt = getopt(argc, argv, "a:p:s:n:t:w:q:r:R:d:l:vH:B:S:EOWL")) != -1) {
		switch (opt) {
		case 'a':
			if (fz_parse_addr(optarg, &f.dst))
				fz_usage();
			have_addr = true;
			break;
		case 'p':
			port = strtoul(optarg, NULL, 0);
			break;
		case 's':
			f.seed = strtoull(optarg, NULL, 0);
			have_seed = true;
			break;
		case 'n':
			f.count = strtoul(optarg, NULL, 0);
			break;
		case 't':
			f.seconds = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			f.wait_ms = strtoul(optarg, NULL, 0);
			break;
		case 'q':
			f.silent_max = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			f.replay = strtol(optarg, NULL, 0);
			break;
		case 'R':
			f.repeat = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			f.delay_ms = strtoul(optarg, NULL, 0);
			break;
		case 'l':
			f.list_cmd = optarg;
			break;
		case 'v':
			f.verbose = true;
			break;
		case 'H':
			hold = strtoul(optarg, NULL, 0);
			break;
		case 'B':
			burst = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			size = strtoul(optarg, NULL, 0);
			break;
		case 'E':
			edge = true;
			break;
		case 'O':
			overrun = true;
			break;
		case 'W':
			idle_write = true;
			break;
		case 'L':
			hostile = true;
			break;
		default:
			fz_usage();
		}
	}
	if (!have_addr || optind != argc || !port || port > 65535 ||
	    !f.wait_ms || hold > FZ_MAX_HELD || burst > FZ_BURST_MAX ||
	    size > KVPERF_SIZE_MAX)
		fz_usage();
	if (!have_seed)
		f.seed = upath_now_ns() ^ ((uint64_t)getpid() << 32);
	fz_sockaddr_port(&f.dst, port);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (hold)
		return fz_hold_mode(&f, hold);
	if (burst)
		return fz_burst_mode(&f, burst, size);
	if (edge)
		return fz_edge_mode(&f);
	if (overrun)
		return fz_overrun_mode(&f);
	if (idle_write)
		return fz_idle_write_mode(&f);
	if (hostile)
		return fz_hostile_mode(&f);
	return fz_run(&f);
}
