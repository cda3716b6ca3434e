/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Values as people write them: numbers, sizes, addresses, times.
 */
#ifndef KVPERF_PARSE_H
#define KVPERF_PARSE_H

#include <stddef.h>
#include <stdint.h>

int parse_u64(const char *s, uint64_t *val);
int parse_u32(const char *s, uint32_t *val);
int parse_size(const char *s, uint64_t *val);
int parse_addr(const char *s, uint8_t addr[16]);
int parse_time_ms(const char *s, uint32_t *ms);
char *fmt_time_ms(char *buf, size_t len, uint32_t ms);

/* Room for fmt_time_ms(). */
#define PARSE_TIME_LEN	16

#endif /* KVPERF_PARSE_H */
