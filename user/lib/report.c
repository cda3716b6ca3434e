// SPDX-License-Identifier: GPL-2.0
/*
 * How the tool says what went wrong: one line on the invocation's error
 * stream.
 */
#include <stdarg.h>
#include <stdio.h>

#include "kvperf.h"

/**
 * kvperf_errorf() - print "kvperf: <message>" to the error stream
 * @kv: the invocation
 * @fmt: printf format of the message, without the final newline
 */
void kvperf_errorf(struct kvperf *kv, const char *fmt, ...)
{
	va_list ap;

	fputs("kvperf: ", kv->err);
	va_start(ap, fmt);
	vfprintf(kv->err, fmt, ap);
	va_end(ap);
	fputc('\n', kv->err);
}
