/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How values of the kvperf family are shown: display names of its enums,
 * GUIDs, GIDs, link rates, IP addresses and fixed-point numbers.
 */
#ifndef KVPERF_FMT_H
#define KVPERF_FMT_H

#include <stddef.h>
#include <stdint.h>

struct name_table {
	const char *const *names;
	size_t count;
};

extern const struct name_table fmt_node_type;
extern const struct name_table fmt_transport;
extern const struct name_table fmt_port_state;
extern const struct name_table fmt_phys_state;
extern const struct name_table fmt_link_layer;
extern const struct name_table fmt_speed;
extern const struct name_table fmt_gid_type;
extern const struct name_table fmt_run_type;
extern const struct name_table fmt_op;
extern const struct name_table fmt_poll;
extern const struct name_table fmt_run_state;
extern const struct name_table fmt_stats_mode;
extern const struct name_table fmt_bidir;
extern const struct name_table fmt_post_context;
extern const struct name_table fmt_io_inv;
extern const struct name_table fmt_io_reg;

/* "xxxx:xxxx:xxxx:xxxx" plus NUL */
#define FMT_GUID_LEN	20
/* eight groups of four hex digits separated by ':' plus NUL */
#define FMT_GID_LEN	40
/* "4294967.295" plus NUL, and some */
#define FMT_RATE_LEN	16
/* a size as the command line writes it: "4294967295" at most */
#define FMT_SIZE_SHORT_LEN	11
/* an IPv6 address (INET6_ADDRSTRLEN) in brackets, ':', a port, NUL */
#define FMT_ADDR_LEN	56
/* the digits of UINT64_MAX, a point, NUL */
#define FMT_FIXED_LEN	24

const char *fmt_name(const struct name_table *t, uint64_t val);
char *fmt_guid(char *buf, uint64_t guid);
char *fmt_gid(char *buf, const uint8_t gid[16]);
char *fmt_rate(char *buf, uint32_t mbps);
char *fmt_size_short(char *buf, uint32_t size);
char *fmt_addr(char *buf, const void *addr, size_t len);
char *fmt_addr_port(char *buf, const void *addr, size_t len, uint16_t port);
struct sockaddr;
uint16_t fmt_sockaddr(char *addr, char *text, const struct sockaddr *sa);
char *fmt_fixed(char *buf, uint64_t val, unsigned int scale,
		unsigned int decimals);

#endif /* KVPERF_FMT_H */
