/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel helpers the tool uses, for userspace.
 */
#ifndef KVPERF_COMPILER_H
#define KVPERF_COMPILER_H

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

#endif /* KVPERF_COMPILER_H */
