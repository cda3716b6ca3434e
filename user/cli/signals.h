/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SIGINT and SIGTERM through a file descriptor, for the commands that
 * wait.
 */
#ifndef KVPERF_SIGNALS_H
#define KVPERF_SIGNALS_H

struct kvperf;

int cli_signalfd(struct kvperf *kv);

#endif /* KVPERF_SIGNALS_H */
