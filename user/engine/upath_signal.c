// SPDX-License-Identifier: GPL-2.0
/*
 * SIGINT and SIGTERM set a flag that every loop of the user path checks
 * between rounds, and interrupt the system calls they sleep in.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "upath_signal.h"

/* lock-free, so the handler may set it */
static int upath_signal;

static void upath_on_signal(int sig)
{
	__atomic_store_n(&upath_signal, sig, __ATOMIC_RELAXED);
}

/**
 * upath_catch_signals() - make SIGINT and SIGTERM set the flag
 *
 * No SA_RESTART: a poll() or nanosleep() a signal interrupts returns.
 *
 * Return: 0 or a negative errno.
 */
int upath_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = upath_on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return -errno;
	return 0;
}

/**
 * upath_signalled() - did SIGINT or SIGTERM arrive?
 *
 * Return: true once one did.
 */
bool upath_signalled(void)
{
	return __atomic_load_n(&upath_signal, __ATOMIC_RELAXED) != 0;
}
