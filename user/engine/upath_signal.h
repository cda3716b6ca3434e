/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SIGINT and SIGTERM for the user path's loops: a flag they look at, as
 * the module's loops look at a stop request.
 */
#ifndef KVPERF_UPATH_SIGNAL_H
#define KVPERF_UPATH_SIGNAL_H

#include <stdbool.h>

int upath_catch_signals(void);
bool upath_signalled(void);

#endif /* KVPERF_UPATH_SIGNAL_H */
