/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host list of a fabric run, in the syntax pdsh's -w and Slurm's
 * node lists share: names separated by commas, a name may hold ranges in
 * brackets ("node[01-04,10]", "r[1-2]n[1-3]"), numbers keeping the width
 * of the range's first bound ("n[08-10]": n08 n09 n10). Or a host file:
 * one such list per line, '#' to the end of a line a comment. The order
 * is the list's: a host's place in it is its rank.
 */
#ifndef KVPERF_FABRIC_HOSTS_H
#define KVPERF_FABRIC_HOSTS_H

#include <stddef.h>

/* The longest host name taken (a DNS name). */
#define FABRIC_HOST_LEN		255

/**
 * struct fabric_hosts - an expanded host list
 * @n: how many names
 * @name: the names, in list order, each FABRIC_HOST_LEN + 1 bytes
 */
struct fabric_hosts {
	unsigned int n;
	char (*name)[FABRIC_HOST_LEN + 1];
};

int fabric_hosts_parse(struct fabric_hosts *h, const char *list, char *err,
		       size_t errlen);
int fabric_hosts_add(struct fabric_hosts *h, const char *list, char *err,
		     size_t errlen);
int fabric_hosts_find(const struct fabric_hosts *h, const char *name);
void fabric_hosts_free(struct fabric_hosts *h);

#endif /* KVPERF_FABRIC_HOSTS_H */
