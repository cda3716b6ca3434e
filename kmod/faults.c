// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the tests' fault injection, in /sys/kernel/debug/kvperf/. Built
 * only into the tests' module (make vm-module: KVPERF_FAULTS=y), never
 * into one that make, DKMS or a package builds: there the hooks are the
 * no-ops of faults.h and the files do not exist.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>

#include "conn.h"
#include "faults.h"

/*
 * Fault injection for the tests (debugfs corrupt_payloads): how many of
 * the next payloads a verify check inspects get one byte flipped first.
 */
static atomic_t kvperf_corrupt_payloads = ATOMIC_INIT(0);

/**
 * kvperf_buf_fault() - flip one byte of a received payload while the
 *			corrupt_payloads fault hook asks for it
 * @c: the connection
 * @b: the buffer, synced for the CPU
 * @len: the bytes the caller's verify check is about to compare with
 *	 their pattern
 *
 * Called by every payload check just before it compares, so that each
 * corruption the hook hands out is exactly one mismatch. The count is
 * taken atomically: several connections may check at once. Which byte
 * flips depends on what is left after taking one (2, 1, 0, then again):
 * the first, the middle, the last of the @len, so that a check which
 * skips either end misses some. A payload of no bytes takes nothing.
 *
 * Return: true when a byte was flipped.
 */
bool kvperf_buf_fault(struct kvperf_conn *c, struct kvperf_buf *b,
		      size_t len)
{
	size_t off;
	int left;

	if (!len || likely(!atomic_read(&kvperf_corrupt_payloads)))
		return false;
	left = atomic_dec_if_positive(&kvperf_corrupt_payloads);
	if (left < 0)
		return false;
	switch (left % 3) {
	case 2:
		off = 0;
		break;
	case 1:
		off = len / 2;
		break;
	default:
		off = len - 1;
		break;
	}
	*kvperf_buf_ptr(b, off) ^= 0xff;
	/* the CPU wrote to the buffer: the device's next write must win */
	kvperf_buf_for_device(c, b, off + 1);
	return true;
}

/*
 * Fault injection for the tests (debugfs inline_dma_addresses): inline
 * SGEs carry DMA addresses, a bug that only a device with real DMA
 * mapping (an IOMMU) shows.
 */
static bool kvperf_inline_dma_addresses;

/**
 * kvperf_fault_inline_dma() - does the inline_dma_addresses hook ask for
 *			       DMA addresses in inline SGEs?
 *
 * Return: true while it does.
 */
bool kvperf_fault_inline_dma(void)
{
	return READ_ONCE(kvperf_inline_dma_addresses);
}

/*
 * Fault injection for the tests (debugfs stall_servers): servers stop
 * answering without closing their connections, as a dead host would.
 */
static bool kvperf_stall_servers;

/**
 * kvperf_serve_stall() - hold a server connection silent while the
 *			  stall_servers fault hook is set
 * @c: the server's connection; its stop condition ends the stall too
 */
void kvperf_serve_stall(struct kvperf_conn *c)
{
	while (READ_ONCE(kvperf_stall_servers) && !c->stop(c->stop_arg))
		msleep(20);
}

/*
 * Fault injection for the tests (debugfs page_chunks): connections' message
 * buffers come in single pages, as when high-order pages are short and
 * kvperf_chunks_alloc() fell back to order 0.
 */
static bool kvperf_page_chunks;

/**
 * kvperf_fault_single_pages() - does the page_chunks hook ask for buffers
 *				in single pages?
 *
 * Return: true while it does.
 */
bool kvperf_fault_single_pages(void)
{
	return READ_ONCE(kvperf_page_chunks);
}

/*
 * Fault injection for the tests (debugfs slow_accepts): a listener takes
 * this many milliseconds more to set a connection up, as a large
 * allocation would, so that a test can show what does not wait for it.
 */
static u32 kvperf_slow_accepts_ms;

/**
 * kvperf_fault_slow_accept() - delay a connection's setup by slow_accepts
 *				milliseconds, at most 5 s
 */
void kvperf_fault_slow_accept(void)
{
	u32 ms = min_t(u32, READ_ONCE(kvperf_slow_accepts_ms), 5000);

	if (!ms)
		return;
	pr_info("slow_accepts: holding a connection's setup for %u ms\n", ms);
	msleep(ms);
}

/**
 * kvperf_faults_debugfs_init() - the hooks' files
 * @dir: kvperf's debugfs directory
 */
void kvperf_faults_debugfs_init(struct dentry *dir)
{
	debugfs_create_bool("stall_servers", 0600, dir, &kvperf_stall_servers);
	debugfs_create_atomic_t("corrupt_payloads", 0600, dir,
				&kvperf_corrupt_payloads);
	debugfs_create_bool("inline_dma_addresses", 0600, dir,
			    &kvperf_inline_dma_addresses);
	debugfs_create_bool("page_chunks", 0600, dir, &kvperf_page_chunks);
	debugfs_create_u32("slow_accepts", 0600, dir, &kvperf_slow_accepts_ms);
}
