/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: the tests' fault injection hooks (faults.c). Without
 * KVPERF_FAULTS (every build but make vm-module's) they do nothing and
 * cost nothing.
 */
#ifndef _KVPERF_FAULTS_H
#define _KVPERF_FAULTS_H

#include <linux/types.h>

struct dentry;
struct kvperf_buf;
struct kvperf_conn;

#ifdef KVPERF_FAULTS
bool kvperf_buf_fault(struct kvperf_conn *c, struct kvperf_buf *b,
		      size_t len);
bool kvperf_fault_inline_dma(void);
bool kvperf_fault_single_pages(void);
void kvperf_serve_stall(struct kvperf_conn *c);
void kvperf_fault_slow_accept(void);
void kvperf_faults_debugfs_init(struct dentry *dir);
#else
static inline bool kvperf_buf_fault(struct kvperf_conn *c,
				    struct kvperf_buf *b, size_t len)
{
	return false;
}

static inline bool kvperf_fault_inline_dma(void)
{
	return false;
}

static inline bool kvperf_fault_single_pages(void)
{
	return false;
}

static inline void kvperf_serve_stall(struct kvperf_conn *c)
{
}

static inline void kvperf_fault_slow_accept(void)
{
}

static inline void kvperf_faults_debugfs_init(struct dentry *dir)
{
}
#endif

#endif
