/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Values as people write them: numbers, sizes, addresses.
 */
#ifndef KVPERF_PARSE_H
#define KVPERF_PARSE_H

#include <stdint.h>

int parse_u64(const char *s, uint64_t *val);
int parse_u32(const char *s, uint32_t *val);
int parse_size(const char *s, uint64_t *val);
int parse_addr(const char *s, uint8_t addr[16]);

#endif /* KVPERF_PARSE_H */
