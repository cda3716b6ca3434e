/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf: the events of the run engine, the device list and the
 * listeners, and the observers the front ends (netlink, sysfs, debugfs)
 * subscribe with. The engine knows no front end: it publishes here, and
 * whoever registered hears about it.
 */
#ifndef _KVPERF_RUN_EVENTS_H
#define _KVPERF_RUN_EVENTS_H

#include <linux/list.h>
#include <linux/types.h>

struct kvperf_device;
struct kvperf_run;
struct kvperf_sconn;
struct kvperf_server;

/**
 * struct kvperf_run_bw_progress - a progress event with an interval: of a
 *				    bandwidth run, or an I/O run's
 * @size: message size being measured (I/O runs: the block size)
 * @bytes: measured bytes so far, all sizes
 * @interval_bytes: bytes completed in the interval
 * @interval_messages: messages completed in the interval (I/Os)
 * @interval_ns: its length
 */
struct kvperf_run_bw_progress {
	u32 size;
	u64 bytes;
	u64 interval_bytes;
	u64 interval_messages;
	u64 interval_ns;
};

/**
 * struct kvperf_run_observer - what a front end wants to hear about
 * @node: entry in the observer list; the events code's
 * @name: for messages
 * @run_added: a run was created: it has its id and configuration and is
 *	       in the run table, its thread does not exist yet. Process
 *	       context, may sleep; the runs' table mutex is held, so it
 *	       must not call back into the run table (kvperf_run_count(),
 *	       kvperf_run_start(), kvperf_run_delete()). Return 0, or a
 *	       negative errno that fails the run's start: the observers
 *	       before this one then get @run_removed, this one gets
 *	       nothing more, so it undoes its own partial work itself.
 * @run_progress: a running run made progress: about once a second for
 *		  latency runs, once per sampling window for bandwidth
 *		  runs. Called from the run's thread: may sleep, no kvperf
 *		  lock held. @bw is the last window of a bandwidth run, NULL
 *		  for a latency run.
 * @run_finished: a run ended (done, failed or stopped); its state and
 *		  error are final. Called from the run's thread as its last
 *		  act: may sleep, no kvperf lock held.
 * @run_removed: a run is being deleted: it has left the run table and
 *		 its thread has ended (or never started). Process context,
 *		 may sleep; the runs' table mutex may be held (module exit,
 *		 a failed start), so the same rule as @run_added applies.
 *		 The run itself stays valid until the observer's last own
 *		 reference (kvperf_run_hold()) is put; after this returns,
 *		 no more events of the run come.
 * @dev_added: ib_core added an RDMA device. Its ib_client add callback:
 *	       may sleep; the device list lock is held, so it must not
 *	       call kvperf_device_lock().
 * @dev_removed: ib_core is removing an RDMA device; it has left the list
 *		 and is freed after this returns. Its ib_client remove
 *		 callback: may sleep; the device list lock is held.
 * @server_started: a listener started: it is on the server list with its
 *		    id. Process context, may sleep; the server list lock is
 *		    held, so it must not call kvperf_servers_lock().
 * @server_stopped: a listener stopped: it is off the list, its
 *		    connections are closed, and it is freed after this
 *		    returns. Process context, may sleep, no kvperf lock held.
 * @conn_accepted: a listener's connection is established. Called from
 *		   the connection's thread: may sleep, no kvperf lock held.
 * @conn_closed: an established connection ended; called from its thread
 *		 once its resources are freed, as for @conn_accepted.
 *
 * Any callback may be NULL. Observers are called in the order they were
 * registered, but @run_removed in the reverse order, so an observer's
 * objects go in the reverse order they came.
 */
struct kvperf_run_observer {
	struct list_head node;
	const char *name;
	int (*run_added)(struct kvperf_run *run);
	void (*run_progress)(struct kvperf_run *run,
			     const struct kvperf_run_bw_progress *bw);
	void (*run_finished)(struct kvperf_run *run);
	void (*run_removed)(struct kvperf_run *run);
	void (*dev_added)(struct kvperf_device *kdev);
	void (*dev_removed)(struct kvperf_device *kdev);
	void (*server_started)(struct kvperf_server *srv);
	void (*server_stopped)(struct kvperf_server *srv);
	void (*conn_accepted)(struct kvperf_sconn *sc);
	void (*conn_closed)(struct kvperf_sconn *sc);
};

void kvperf_run_observer_register(struct kvperf_run_observer *obs);
void kvperf_run_observer_unregister(struct kvperf_run_observer *obs);

/* publishing, for the engine */
int kvperf_run_publish_added(struct kvperf_run *run);
void kvperf_run_publish_progress(struct kvperf_run *run,
				 const struct kvperf_run_bw_progress *bw);
void kvperf_run_publish_finished(struct kvperf_run *run);
void kvperf_run_publish_removed(struct kvperf_run *run);
void kvperf_dev_publish_added(struct kvperf_device *kdev);
void kvperf_dev_publish_removed(struct kvperf_device *kdev);
void kvperf_server_publish_started(struct kvperf_server *srv);
void kvperf_server_publish_stopped(struct kvperf_server *srv);
void kvperf_conn_publish_accepted(struct kvperf_sconn *sc);
void kvperf_conn_publish_closed(struct kvperf_sconn *sc);

#endif /* _KVPERF_RUN_EVENTS_H */
