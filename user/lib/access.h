/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who may use a kvperf server: address prefixes (the allow list), the
 * listening address's own subnet, and the 16-byte shared key, read from
 * the command line or a file and compared in constant time.
 */
#ifndef KVPERF_ACCESS_H
#define KVPERF_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kvperf_wire.h>

/* The spec's limit on allow prefixes of one listener. */
#define ACCESS_ALLOW_MAX	KVPERF_SERVER_ALLOW_MAX
/* "198.18.0.0/24", "ffff:...:ffff/128" plus NUL */
#define ACCESS_PREFIX_LEN	(46 + 5)

/**
 * struct access_prefix - an address prefix
 * @addr: the address, network order, host bits zero
 * @addr_len: 4 (IPv4) or 16 (IPv6)
 * @len: the prefix length in bits, at most 8 * @addr_len
 */
struct access_prefix {
	uint8_t addr[16];
	uint8_t addr_len;
	uint8_t len;
};

int access_prefix_parse(const char *s, struct access_prefix *p);
bool access_prefix_match(const struct access_prefix *p, const void *addr,
			 size_t addr_len);
bool access_allowed(const struct access_prefix *allow, unsigned int n,
		    const void *addr, size_t addr_len);
char *access_prefix_fmt(char *buf, const struct access_prefix *p);
int access_local_prefix(const void *addr, size_t addr_len,
			struct access_prefix *p);
unsigned int access_mask_len(const void *mask, size_t len);

int access_key_parse(const char *s, uint8_t key[KVPERF_WIRE_KEY_LEN]);
/* Room for what access_key_file() says is wrong. */
#define ACCESS_WHY_LEN	128
int access_key_file(const char *path, uint8_t key[KVPERF_WIRE_KEY_LEN],
		    char *why);
const char *access_key_error(int err);
bool access_key_equal(const uint8_t *a, const uint8_t *b, size_t len);

#endif /* KVPERF_ACCESS_H */
