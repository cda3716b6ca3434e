// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: the run engine's events and their observers (see
 * run_events.h). Module init registers the front ends' observers before
 * anything can publish and module exit unregisters them after the last
 * publisher is gone; the lock only makes that order safe to get wrong.
 * Publishing allocates nothing.
 */
#include <linux/kernel.h>
#include <linux/rwsem.h>

#include "run_events.h"

static LIST_HEAD(kvperf_run_observers);
/* writers: registration; readers: publishers, which may sleep */
static DECLARE_RWSEM(kvperf_run_observers_sem);

/* The events every observer hears in registration order. */
enum kvperf_event {
	KVPERF_EV_RUN_PROGRESS,
	KVPERF_EV_RUN_FINISHED,
	KVPERF_EV_DEV_ADDED,
	KVPERF_EV_DEV_REMOVED,
	KVPERF_EV_SERVER_STARTED,
	KVPERF_EV_SERVER_STOPPED,
	KVPERF_EV_CONN_ACCEPTED,
	KVPERF_EV_CONN_CLOSED,
};

/* What an event is about: the members its kind uses. */
struct kvperf_event_obj {
	struct kvperf_run *run;
	const struct kvperf_run_bw_progress *bw;
	struct kvperf_device *kdev;
	struct kvperf_server *srv;
	struct kvperf_sconn *sc;
};

/* Call each observer's callback of @ev that is set, in order. */
static void kvperf_publish(enum kvperf_event ev,
			   const struct kvperf_event_obj *o)
{
	struct kvperf_run_observer *obs;

	might_sleep();
	down_read(&kvperf_run_observers_sem);
	list_for_each_entry(obs, &kvperf_run_observers, node) {
		switch (ev) {
		case KVPERF_EV_RUN_PROGRESS:
			if (obs->run_progress)
				obs->run_progress(o->run, o->bw);
			break;
		case KVPERF_EV_RUN_FINISHED:
			if (obs->run_finished)
				obs->run_finished(o->run);
			break;
		case KVPERF_EV_DEV_ADDED:
			if (obs->dev_added)
				obs->dev_added(o->kdev);
			break;
		case KVPERF_EV_DEV_REMOVED:
			if (obs->dev_removed)
				obs->dev_removed(o->kdev);
			break;
		case KVPERF_EV_SERVER_STARTED:
			if (obs->server_started)
				obs->server_started(o->srv);
			break;
		case KVPERF_EV_SERVER_STOPPED:
			if (obs->server_stopped)
				obs->server_stopped(o->srv);
			break;
		case KVPERF_EV_CONN_ACCEPTED:
			if (obs->conn_accepted)
				obs->conn_accepted(o->sc);
			break;
		case KVPERF_EV_CONN_CLOSED:
			if (obs->conn_closed)
				obs->conn_closed(o->sc);
			break;
		}
	}
	up_read(&kvperf_run_observers_sem);
}

/**
 * kvperf_run_observer_register() - subscribe to the events
 * @obs: the observer; stays registered until
 *	 kvperf_run_observer_unregister()
 *
 * Called at module init, in the order the observers should hear events.
 */
void kvperf_run_observer_register(struct kvperf_run_observer *obs)
{
	down_write(&kvperf_run_observers_sem);
	list_add_tail(&obs->node, &kvperf_run_observers);
	up_write(&kvperf_run_observers_sem);
}

/**
 * kvperf_run_observer_unregister() - unsubscribe from the events
 * @obs: a registered observer
 *
 * Returns once no callback of @obs runs.
 */
void kvperf_run_observer_unregister(struct kvperf_run_observer *obs)
{
	down_write(&kvperf_run_observers_sem);
	list_del(&obs->node);
	up_write(&kvperf_run_observers_sem);
}

/**
 * kvperf_run_publish_added() - announce a new run
 * @run: the run, in the run table, its thread not created
 *
 * Call with the runs' table mutex held. On failure the observers that
 * took the run have been told it is removed.
 *
 * Return: 0, or the first observer's negative errno.
 */
int kvperf_run_publish_added(struct kvperf_run *run)
{
	struct kvperf_run_observer *obs;
	int err = 0;

	might_sleep();
	down_read(&kvperf_run_observers_sem);
	list_for_each_entry(obs, &kvperf_run_observers, node) {
		if (!obs->run_added)
			continue;
		err = obs->run_added(run);
		if (err)
			break;
	}
	if (err) {
		list_for_each_entry_continue_reverse(obs, &kvperf_run_observers,
						     node)
			if (obs->run_removed)
				obs->run_removed(run);
	}
	up_read(&kvperf_run_observers_sem);
	return err;
}

/**
 * kvperf_run_publish_progress() - announce a running run's progress
 * @run: the run; called from its thread
 * @bw: the last sampling window of a bandwidth run, NULL for latency
 */
void kvperf_run_publish_progress(struct kvperf_run *run,
				 const struct kvperf_run_bw_progress *bw)
{
	struct kvperf_event_obj o = { .run = run, .bw = bw };

	kvperf_publish(KVPERF_EV_RUN_PROGRESS, &o);
}

/**
 * kvperf_run_publish_finished() - announce that a run ended
 * @run: the run; called from its thread, its state final
 */
void kvperf_run_publish_finished(struct kvperf_run *run)
{
	struct kvperf_event_obj o = { .run = run };

	kvperf_publish(KVPERF_EV_RUN_FINISHED, &o);
}

/**
 * kvperf_run_publish_removed() - announce a run's deletion
 * @run: the run, out of the run table, its thread ended
 *
 * The observers hear it in the reverse order of registration.
 */
void kvperf_run_publish_removed(struct kvperf_run *run)
{
	struct kvperf_run_observer *obs;

	might_sleep();
	down_read(&kvperf_run_observers_sem);
	list_for_each_entry_reverse(obs, &kvperf_run_observers, node)
		if (obs->run_removed)
			obs->run_removed(run);
	up_read(&kvperf_run_observers_sem);
}

/**
 * kvperf_dev_publish_added() - announce a new RDMA device
 * @kdev: the device, on the list; the device list lock held
 */
void kvperf_dev_publish_added(struct kvperf_device *kdev)
{
	struct kvperf_event_obj o = { .kdev = kdev };

	kvperf_publish(KVPERF_EV_DEV_ADDED, &o);
}

/**
 * kvperf_dev_publish_removed() - announce an RDMA device's removal
 * @kdev: the device, off the list; the device list lock held
 */
void kvperf_dev_publish_removed(struct kvperf_device *kdev)
{
	struct kvperf_event_obj o = { .kdev = kdev };

	kvperf_publish(KVPERF_EV_DEV_REMOVED, &o);
}

/**
 * kvperf_server_publish_started() - announce a listener that started
 * @srv: the listener, on the server list; the server list lock held, so
 *	 no stop can free it meanwhile
 */
void kvperf_server_publish_started(struct kvperf_server *srv)
{
	struct kvperf_event_obj o = { .srv = srv };

	kvperf_publish(KVPERF_EV_SERVER_STARTED, &o);
}

/**
 * kvperf_server_publish_stopped() - announce a listener that stopped
 * @srv: the listener, off the list, its connections closed; no kvperf
 *	 lock held
 */
void kvperf_server_publish_stopped(struct kvperf_server *srv)
{
	struct kvperf_event_obj o = { .srv = srv };

	kvperf_publish(KVPERF_EV_SERVER_STOPPED, &o);
}

/**
 * kvperf_conn_publish_accepted() - announce an established connection
 * @sc: the connection; called from its thread
 */
void kvperf_conn_publish_accepted(struct kvperf_sconn *sc)
{
	struct kvperf_event_obj o = { .sc = sc };

	kvperf_publish(KVPERF_EV_CONN_ACCEPTED, &o);
}

/**
 * kvperf_conn_publish_closed() - announce that a connection ended
 * @sc: the connection, its resources freed; called from its thread
 */
void kvperf_conn_publish_closed(struct kvperf_sconn *sc)
{
	struct kvperf_event_obj o = { .sc = sc };

	kvperf_publish(KVPERF_EV_CONN_CLOSED, &o);
}
