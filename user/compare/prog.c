// SPDX-License-Identifier: GPL-2.0
/*
 * Finding a program in PATH, as execvp() would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog.h"

/**
 * prog_find() - look a program up in PATH, as execvp() would
 * @name: the program
 * @path: receives where it is
 * @len: room in @path
 *
 * Return: true if found and executable.
 */
bool prog_find(const char *name, char *path, size_t len)
{
	const char *env = getenv("PATH"), *p, *end;
	size_t n;

	if (!env)
		env = "/usr/local/bin:/usr/bin:/bin";
	for (p = env; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		n = end - p;
		if (!n)
			continue;
		snprintf(path, len, "%.*s/%s", (int)n, p, name);
		if (!access(path, X_OK))
			return true;
	}
	return false;
}
