/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: /sys/kernel/debug/kvperf/, a front end of the module. The
 * runs' directories follow the runs through an observer (see
 * run_events.h).
 */
#ifndef _KVPERF_DEBUGFS_H
#define _KVPERF_DEBUGFS_H

#include "run_events.h"

void kvperf_debugfs_init(void);
void kvperf_debugfs_exit(void);
extern struct kvperf_run_observer kvperf_debugfs_observer;

#endif /* _KVPERF_DEBUGFS_H */
