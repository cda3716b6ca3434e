/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the coordinator of a fabric run knows: the hosts as discovery
 * found them, every measurement, every round; fabric_coord.c fills it,
 * fabric_report.c writes it out.
 */
#ifndef KVPERF_FABRIC_COORD_H
#define KVPERF_FABRIC_COORD_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric.h"

enum coord_host_state {
	COORD_HOST_NONE,	/* not reached yet */
	COORD_HOST_OK,		/* measured */
	COORD_HOST_LEFT_OUT,	/* by discovery: why says */
	COORD_HOST_LOST,	/* gone in a round: why says */
};

struct coord_host {
	enum coord_host_state state;
	char addr[FABRIC_ADDR_LEN];
	char why[FABRIC_WHY_LEN];
	uint32_t lost_round;
	struct json_object *probe;
	bool done;		/* said done in the round running */
};

/* kinds of rounds */
enum coord_kind { COORD_FULL, COORD_QUICK, COORD_PAIRS, COORD_RETEST };

struct coord_meas {
	uint32_t round;
	uint16_t client, server;	/* host ranks */
	uint8_t test, path, phase;
	int status;			/* 0 measured */
	char error[FABRIC_WHY_LEN];
	uint64_t lat_ns;		/* lat: p50 */
	uint64_t bps;			/* bw: bytes per second */
	double iops;			/* io */
	bool bad;			/* out of tolerance, or failed */
	struct json_object *run;	/* what kvperf run printed */
};

struct coord_round {
	uint32_t round;
	enum coord_kind kind;
	unsigned int npairs;
	struct fabric_pair *pairs;	/* host ranks */
	uint64_t ms;			/* how long it took */
};

struct coord {
	struct kvperf *kv;
	struct fabric_opts *o;
	struct coord_host *h;
	struct coord_meas *m;
	size_t nm, mcap;
	struct coord_round *r;
	unsigned int nr, rcap;
	int sfd;
	bool interrupted;
	char started[32];
	uint64_t start_ms;
	/* the references of the verdict, per test and path */
	uint64_t min_lat[FABRIC_PATHS];
	uint64_t max_bps[FABRIC_PATHS];
	enum fabric_host_state *state;	/* per host, from fabric_judge() */
	bool judged;
	unsigned int measured;		/* hosts measured */
};

extern const char *const coord_kind_names[];
extern const char *const coord_state_names[];

int fabric_report(struct coord *c);

#endif /* KVPERF_FABRIC_COORD_H */
