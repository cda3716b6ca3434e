// SPDX-License-Identifier: GPL-2.0
/*
 * What the unit tests of runs share (run_test.h): command lines turned
 * into requests, whole command lines through kvperf_main(), run replies
 * built and printed, and the end of a run.
 */
#include <stdio.h>
#include <string.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "args.h"
#include "attrs.h"
#include "cli.h"
#include "kvperf.h"
#include "print.h"
#include "run.h"
#include "run_model.h"
#include "run_print.h"
#include "run_test.h"
#include "unit.h"

static const uint8_t addr4[4] = { 198, 18, 0, 1 };

/* "run lat|bw WORDS...": parse, and build the request if that worked. */
void run_cmdline_words(struct run_cmdline *l, uint8_t type,
		       const char *const *words)
{
	struct kvperf kv = { 0 };
	struct capture out, err;
	struct nl_msg *msg;
	char *argv[40];
	struct args a;
	int argc = 0;

	while (*words && argc < 40)
		argv[argc++] = (char *)*words++;
	a.argc = argc;
	a.argv = argv;
	kv.out = cap_open(&out);
	kv.err = cap_open(&err);
	l->ret = run_parse(&kv, &a, type, &l->o);
	snprintf(l->err, sizeof(l->err), "%s", cap_str(&err));
	CHECK_STR(cap_str(&out), "");
	l->req[0] = '\0';
	if (!l->ret) {
		msg = unit_genl_msg(KVPERF_CMD_RUN_START);
		CHECK_INT(run_cfg_put(msg, &l->o.cfg), 0);
		snprintf(l->req, sizeof(l->req), "%s",
			 unit_attrs_str(msg, &attrs_run));
		nlmsg_free(msg);
	}
	cap_close(&out);
	cap_close(&err);
}

/* The objects as main.c lists them. */
static const struct kvperf_cmd *const objects[] = {
	&dev_object, &monitor_object, &server_object, &run_object, NULL,
};

void run_cli_words(struct run_cli *c, const char *const *words)
{
	struct kvperf kv = { 0 };
	char *argv[48];
	int argc = 0;

	argv[argc++] = "kvperf";
	while (*words && argc < 47)
		argv[argc++] = (char *)*words++;
	argv[argc] = NULL;
	kv.out = cap_open(&c->out);
	kv.err = cap_open(&c->err);
	c->ret = kvperf_main(&kv, argc, argv, objects);
	cap_str(&c->out);
	cap_str(&c->err);
}

/* As the kernel's nla_put_u64_64bit() lays them out, with pads. */
void run_put_u64(struct nl_msg *msg, int type, int pad, uint64_t v)
{
	nla_put(msg, pad, 0, NULL);
	nla_put_u64(msg, type, v);
}

/*
 * Everything run-get replies with but the results, error, cpu, verify, and
 * what bandwidth runs add.
 */
struct nl_msg *run_type_msg(uint8_t cmd, uint32_t id, uint8_t type,
			    uint8_t op, uint8_t state)
{
	struct nl_msg *msg = unit_genl_msg(cmd);

	nla_put_u32(msg, KVPERF_A_RUN_ID, id);
	nla_put_u8(msg, KVPERF_A_RUN_TYPE, type);
	nla_put_u8(msg, KVPERF_A_RUN_OP, op);
	nla_put(msg, KVPERF_A_RUN_ADDR, sizeof(addr4), addr4);
	nla_put_u16(msg, KVPERF_A_RUN_PORT, 18515);
	nla_put_string(msg, KVPERF_A_RUN_DEV, "rxe0");
	nla_put_u32(msg, KVPERF_A_RUN_SIZE, 64);
	nla_put_u32(msg, KVPERF_A_RUN_ITERATIONS, 10000);
	nla_put_u32(msg, KVPERF_A_RUN_WARMUP, 16);
	nla_put_u8(msg, KVPERF_A_RUN_POLL, KVPERF_POLL_BUSY);
	nla_put_u32(msg, KVPERF_A_RUN_INLINE, 0);
	nla_put_u32(msg, KVPERF_A_RUN_TIMEOUT_MS, 5000);
	nla_put_u8(msg, KVPERF_A_RUN_STATE, state);
	nla_put_string(msg, KVPERF_A_RUN_KERNEL, "6.1.0-56-amd64");
	nla_put_u32(msg, KVPERF_A_RUN_MTU, 1024);
	run_put_u64(msg, KVPERF_A_RUN_PROGRESS, KVPERF_A_RUN_PAD, 10016);
	return msg;
}

int run_print_one(struct capture *c, bool json, bool gbits,
		  struct nl_msg *msg, struct capture *err)
{
	struct printer p;
	int ret;

	pr_init(&p, cap_open(c), json, false);
	cap_open(err);
	if (gbits) {
		struct kv_run run;

		ret = run_model_decode(&run, nlmsg_hdr(msg), err->f);
		if (!ret)
			run_print(&p, &run, true);
		run_model_free(&run);
	} else {
		ret = run_print_msg(&p, nlmsg_hdr(msg), err->f);
	}
	pr_finish(&p);
	cap_str(c);
	cap_str(err);
	return ret;
}

void run_finish_capture(struct run_finished *f, struct nl_msg *msg,
			bool json, bool gbits)
{
	struct kvperf kv = { .json = json };

	kv.out = cap_open(&f->out);
	kv.err = cap_open(&f->err);
	f->ret = run_finish(&kv, nlmsg_hdr(msg), gbits);
	cap_str(&f->out);
	cap_str(&f->err);
}

void run_finish_done(struct run_finished *f)
{
	cap_close(&f->out);
	cap_close(&f->err);
}
