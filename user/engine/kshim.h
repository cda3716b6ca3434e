/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API kmod/stats.c uses, for building it as ordinary user-space
 * C: in the kvperf command (upath_stats.c, the user path's statistics) and
 * in its host unit test (selftests/unit/test_stats.c). Types, allocation,
 * fls64, 64-bit division and min/max/clamp, with the kernel's meaning.
 */
#ifndef KVPERF_KSHIM_H
#define KVPERF_KSHIM_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t u32;
typedef uint64_t u64;

#define U64_MAX		UINT64_MAX
#define BIT(nr)		(1UL << (nr))

#define GFP_KERNEL	0
#define kvcalloc(n, size, gfp)	((void)(gfp), calloc(n, size))
#define kvfree(p)	free(p)

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

#define WARN_ON_ONCE(cond)	(!!(cond))
#define min(a, b) ({ __auto_type _a = (a); __auto_type _b = (b);	\
		     _a < _b ? _a : _b; })
#define max(a, b) ({ __auto_type _a = (a); __auto_type _b = (b);	\
		     _a > _b ? _a : _b; })
#define clamp(v, lo, hi) ({						\
	__auto_type _v = (v);						\
	__auto_type _lo = (lo);						\
	__auto_type _hi = (hi);						\
	_v < _lo ? _lo : _v > _hi ? _hi : _v; })

#endif /* KVPERF_KSHIM_H */
