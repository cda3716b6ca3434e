/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: /sys/kernel/kvperf/, a front end of the module. The runs'
 * directories follow the runs through an observer (see run_events.h).
 */
#ifndef _KVPERF_SYSFS_H
#define _KVPERF_SYSFS_H

#include <linux/kobject.h>

#include "run_events.h"

/* sysfs.c */
int kvperf_sysfs_init(void);
void kvperf_sysfs_exit(void);
struct kobject *kvperf_sysfs_runs(void);

/* run_sysfs.c */
extern struct kvperf_run_observer kvperf_run_sysfs_observer;

#endif /* _KVPERF_SYSFS_H */
