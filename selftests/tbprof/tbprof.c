// SPDX-License-Identifier: GPL-2.0
/*
 * tbprof: a QEMU TCG plugin that counts how often the guest runs each
 * translated block, and so how many guest instructions each piece of
 * code took, without adding a single instruction to the guest. Each time
 * the guest runs the marker program (kvperf-mark, built from mark.S at a
 * fixed address), the counts since the last mark are written to
 * OUT/dump.NNNN, one "address instructions-in-block executions" line per
 * block that ran, and set back to zero. tbprof.py names the functions.
 *
 * Arguments (-plugin tbprof.so,out=DIR,mark=ADDRESS): out, the folder of
 * the dumps; mark, the marker's entry address.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_api.h"

#define TBPROF_EXPORT	__attribute__((visibility("default")))

TBPROF_EXPORT int qemu_plugin_version = TBPROF_API_VERSION;

/* One translation of a block; a block translated again gets another. */
struct tb_count {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t runs;
};

#define TB_CHUNK	65536

static struct tb_count **chunks;
static size_t nr_counts, nr_chunks;
static uint64_t mark_vaddr;
static char out_dir[4096];
static unsigned int nr_dumps;
static bool failed;

static struct tb_count *tb_count_new(void)
{
	struct tb_count **more;

	if (nr_counts == nr_chunks * TB_CHUNK) {
		more = realloc(chunks, (nr_chunks + 1) * sizeof(*chunks));
		if (!more)
			return NULL;
		chunks = more;
		chunks[nr_chunks] = calloc(TB_CHUNK, sizeof(**chunks));
		if (!chunks[nr_chunks])
			return NULL;
		nr_chunks++;
	}
	nr_counts++;
	return &chunks[(nr_counts - 1) / TB_CHUNK][(nr_counts - 1) % TB_CHUNK];
}

static void tbprof_fail(const char *what, const char *path)
{
	char msg[4400];

	if (failed)
		return;
	failed = true;
	snprintf(msg, sizeof(msg), "tbprof: %s %s: %s; no more dumps\n",
		 what, path, strerror(errno));
	qemu_plugin_outs(msg);
}

/* The guest ran the marker: write the counts since the last one. */
static void tbprof_dump(unsigned int vcpu_index, void *userdata)
{
	char path[4200];
	struct tb_count *c;
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/dump.%04u", out_dir, nr_dumps++);
	f = NULL;
	if (!failed) {
		f = fopen(path, "w");
		if (!f)
			tbprof_fail("cannot create", path);
	}
	for (i = 0; i < nr_counts; i++) {
		c = &chunks[i / TB_CHUNK][i % TB_CHUNK];
		if (!c->runs)
			continue;
		if (f)
			fprintf(f, "%llx %llu %llu\n",
				(unsigned long long)c->vaddr,
				(unsigned long long)c->insns,
				(unsigned long long)c->runs);
		c->runs = 0;
	}
	if (f && fclose(f))
		tbprof_fail("cannot write", path);
}

static void tbprof_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct tb_count *c = tb_count_new();

	if (!c) {
		errno = ENOMEM;
		tbprof_fail("cannot count the blocks for", out_dir);
		return;
	}
	c->vaddr = qemu_plugin_tb_vaddr(tb);
	c->insns = qemu_plugin_tb_n_insns(tb);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &c->runs, 1);
	if (c->vaddr == mark_vaddr)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tbprof_dump,
						     QEMU_PLUGIN_CB_NO_REGS,
						     NULL);
}

TBPROF_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
				      const qemu_info_t *info,
				      int argc, char **argv)
{
	char *end;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			snprintf(out_dir, sizeof(out_dir), "%s", argv[i] + 4);
		} else if (!strncmp(argv[i], "mark=", 5)) {
			errno = 0;
			mark_vaddr = strtoull(argv[i] + 5, &end, 0);
			if (errno || *end || !mark_vaddr) {
				fprintf(stderr, "tbprof: mark '%s' is not an address\n",
					argv[i] + 5);
				return -1;
			}
		} else {
			fprintf(stderr, "tbprof: unknown argument '%s' (out=DIR, mark=ADDRESS)\n",
				argv[i]);
			return -1;
		}
	}
	if (!out_dir[0] || !mark_vaddr) {
		fprintf(stderr, "tbprof: out=DIR and mark=ADDRESS are required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tbprof_translated);
	return 0;
}
