// SPDX-License-Identifier: GPL-2.0
/*
 * SIGINT and SIGTERM for the commands that wait (run, monitor): taken
 * through a file descriptor rather than a handler.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>

#include "kvperf.h"
#include "signals.h"

/**
 * cli_signalfd() - receive SIGINT and SIGTERM through a file descriptor
 * @kv: the invocation, for error messages
 *
 * The signals are blocked and arrive through a signalfd polled next to the
 * socket: libnl retries recvmsg() on EINTR, so a handler that sets a flag
 * would not get us out of it.
 *
 * Return: the signalfd, or -1 after printing an error.
 */
int cli_signalfd(struct kvperf *kv)
{
	sigset_t mask;
	int fd;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &mask, NULL)) {
		kvperf_errorf(kv, "cannot block signals: %s", strerror(errno));
		return -1;
	}
	fd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (fd < 0)
		kvperf_errorf(kv, "cannot create a signalfd: %s",
			      strerror(errno));
	return fd;
}
