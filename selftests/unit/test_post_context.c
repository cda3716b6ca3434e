// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the post-context run option end to end in the tool:
 * "post-context {process|bh}" on the command line of run lat and run bw,
 * the u8 of enum kvperf_post_context in the run-start request, its
 * refusal with path user (by the model check, before either path; by the
 * user-path engine too), a run-get reply's post-context decoded into the
 * model and printed (text only when bh, JSON always), and what the user
 * path reports.
 */
#include <errno.h>
#include <string.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "attrs.h"
#include "fmt.h"
#include "kvperf.h"
#include "run.h"
#include "run_cfg.h"
#include "run_model.h"
#include "run_test.h"
#include "unit.h"
#include "upath_cfg.h"

#define LAT	KVPERF_RUN_TYPE_LAT
#define BW	KVPERF_RUN_TYPE_BW

#define PATH_USER_BH	"post-context bh applies to the kernel path only: the user path posts from its own thread"

/* The spec's attribute and enum, as the tool names them. */
static void post_context_names(void)
{
	CHECK_STR(attrs_name(&attrs_run, KVPERF_A_RUN_POST_CONTEXT),
		  "post-context");
	CHECK_INT(attrs_run.attrs[KVPERF_A_RUN_POST_CONTEXT].kind, ATTR_U8);
	CHECK_INT(fmt_post_context.count, 2);
	CHECK_STR(fmt_name(&fmt_post_context, KVPERF_POST_CONTEXT_PROCESS),
		  "process");
	CHECK_STR(fmt_name(&fmt_post_context, KVPERF_POST_CONTEXT_BH), "bh");
	/* a value a newer module may add has no name here */
	CHECK(!fmt_name(&fmt_post_context, 2));
	CHECK_INT(run_cfg_fields.field[KVPERF_A_RUN_POST_CONTEXT].kind,
		  KV_FIELD_UINT);
	CHECK_INT(run_model_fields.field[KVPERF_A_RUN_POST_CONTEXT].kind,
		  KV_FIELD_UINT);
}

/* The keyword: the u8 in the request when given, nothing when not. */
static void post_context_parse(void)
{
	struct run_cmdline l;

	RUN_CMDLINE(&l, LAT, "op", "send", "addr", "198.18.0.1",
		    "post-context", "bh");
	CHECK_INT(l.ret, KVPERF_EXIT_OK);
	CHECK_STR(l.err, "");
	CHECK_STR(l.req, "type=0 op=0 addr=198.18.0.1 port=18515 post-context=1");
	CHECK(run_opt(&l.o, RUN_KW_POST_CONTEXT));
	CHECK_INT(l.o.cfg.post_context, KVPERF_POST_CONTEXT_BH);
	CHECK(KV_HAS(&l.o.cfg, KVPERF_A_RUN_POST_CONTEXT));

	RUN_OK(LAT, "type=0 op=1 addr=198.18.0.1 port=18515 post-context=0",
	       "op", "write", "addr", "198.18.0.1", "post-context", "process");
	/* the keyword abbreviates past post-list, the value does not */
	RUN_OK(LAT, "type=0 op=2 addr=1.2.3.4 port=18515 post-context=1",
	       "o", "read", "a", "1.2.3.4", "post-c", "bh");
	/* bandwidth runs take both values, with the rest */
	RUN_OK(BW, "type=1 op=0 addr=1.2.3.4 port=18515 qps=2 post-list=4 "
	       "post-context=1",
	       "op", "send", "addr", "1.2.3.4", "qps", "2", "post-list", "4",
	       "post-context", "bh");
	RUN_OK(BW, "type=1 op=1 addr=1.2.3.4 port=18515 post-context=0",
	       "op", "write", "addr", "1.2.3.4", "post-context", "process");
	/* process on the user path is what it does anyway */
	RUN_OK(LAT, "type=0 op=0 addr=1.2.3.4 port=18515 post-context=0",
	       "op", "send", "addr", "1.2.3.4", "post-context", "process",
	       "path", "user");

	RUN_CMDLINE(&l, LAT, "op", "send", "addr", "198.18.0.1");
	CHECK(!run_opt(&l.o, RUN_KW_POST_CONTEXT));
	CHECK(!KV_HAS(&l.o.cfg, KVPERF_A_RUN_POST_CONTEXT));
	CHECK(!strstr(l.req, "post-context"));

	RUN_ERR(LAT, "unknown post-context 'soft' (process or bh)",
		"op", "send", "addr", "1.2.3.4", "post-context", "soft");
	RUN_ERR(LAT, "unknown post-context 'b' (process or bh)",
		"op", "send", "addr", "1.2.3.4", "post-context", "b");
	RUN_ERR(BW, "unknown post-context '' (process or bh)",
		"op", "send", "addr", "1.2.3.4", "post-context", "");
	RUN_ERR(LAT, "missing value after 'post-context'", "op", "send",
		"post-context");
	RUN_ERR(LAT, "'post-context' given twice", "post-context", "bh",
		"post-c", "process");
}

/* path user with bh: the model's refusal, a usage error before anything. */
static void post_context_user_refused(void)
{
	char why[RUN_CFG_WHY_LEN];
	struct kv_run_cfg cfg;
	struct upath_cfg c;
	int attr = 0;

	RUN_ERR(LAT, PATH_USER_BH, "op", "send", "addr", "1.2.3.4",
		"post-context", "bh", "path", "user");
	RUN_ERR(BW, PATH_USER_BH, "op", "write", "addr", "1.2.3.4",
		"path", "user", "post-context", "bh", "qps", "2");
	/* exit status 2, nothing printed, nothing opened */
	RUN_CLI_ERR("kvperf: " PATH_USER_BH " (try 'kvperf run help')\n",
		    "run", "lat", "op", "send", "addr", "1.2.3.4", "path",
		    "user", "post-context", "bh");
	/* an error the command line finds first still comes first */
	RUN_ERR(BW, "post-list is larger than tx-depth", "op", "write",
		"addr", "1.2.3.4", "path", "user", "post-context", "bh",
		"tx-depth", "2", "post-list", "4");

	/* the check itself: which path, which attribute */
	run_cfg_init(&cfg, LAT);
	run_model_set_uint(&run_cfg_fields, &cfg, KVPERF_A_RUN_POST_CONTEXT,
			   KVPERF_POST_CONTEXT_BH);
	CHECK_INT(run_cfg_check(&cfg, KV_RUN_PATH_KERNEL, &attr, why,
				sizeof(why)), 0);
	CHECK_INT(run_cfg_check(&cfg, KV_RUN_PATH_USER, &attr, why,
				sizeof(why)), -EINVAL);
	CHECK_INT(attr, KVPERF_A_RUN_POST_CONTEXT);
	CHECK_STR(why, PATH_USER_BH);
	run_model_set_uint(&run_cfg_fields, &cfg, KVPERF_A_RUN_POST_CONTEXT,
			   KVPERF_POST_CONTEXT_PROCESS);
	CHECK_INT(run_cfg_check(&cfg, KV_RUN_PATH_USER, &attr, why,
				sizeof(why)), 0);

	/* the user-path engine refuses what it is handed, too */
	run_model_set_uint(&run_cfg_fields, &cfg, KVPERF_A_RUN_POST_CONTEXT,
			   KVPERF_POST_CONTEXT_BH);
	why[0] = '\0';
	CHECK_INT(upath_cfg_init(&c, &cfg, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, PATH_USER_BH);
	run_cfg_init(&cfg, BW);
	CHECK_INT(upath_cfg_init(&c, &cfg, why, sizeof(why)), 0);
}

/* run_cfg_put(): the attribute as the module's policy wants it, a u8. */
static void post_context_encode(void)
{
	struct nlattr *tb[KVPERF_A_RUN_MAX + 1];
	struct genlmsghdr *g;
	struct kv_run_cfg cfg;
	struct nl_msg *msg;

	run_cfg_init(&cfg, BW);
	run_model_set_uint(&run_cfg_fields, &cfg, KVPERF_A_RUN_POST_CONTEXT,
			   KVPERF_POST_CONTEXT_BH);
	msg = unit_genl_msg(KVPERF_CMD_RUN_START);
	CHECK_INT(run_cfg_put(msg, &cfg), 0);
	g = nlmsg_data(nlmsg_hdr(msg));
	CHECK_INT(attrs_parse(&attrs_run, tb, genlmsg_attrdata(g, 0),
			      genlmsg_attrlen(g, 0), NULL), 0);
	CHECK(tb[KVPERF_A_RUN_POST_CONTEXT] &&
	      nla_len(tb[KVPERF_A_RUN_POST_CONTEXT]) == 1 &&
	      nla_get_u8(tb[KVPERF_A_RUN_POST_CONTEXT]) ==
	      KVPERF_POST_CONTEXT_BH);
	nlmsg_free(msg);
}

/* A run-get reply's post-context, decoded and printed. */
static void post_context_decode_print(void)
{
	struct nl_msg *msg;
	struct capture c, err;
	struct kv_run run;

	msg = run_type_msg(KVPERF_CMD_RUN_GET, 4, LAT, KVPERF_OP_SEND,
			   KVPERF_RUN_STATE_DONE);
	nla_put_u8(msg, KVPERF_A_RUN_STATS, KVPERF_STATS_MODE_ON);
	nla_put_u8(msg, KVPERF_A_RUN_POST_CONTEXT, KVPERF_POST_CONTEXT_BH);
	CHECK_INT(run_model_decode(&run, nlmsg_hdr(msg), stderr), 0);
	CHECK(KV_HAS(&run, KVPERF_A_RUN_POST_CONTEXT));
	CHECK_INT(run.post_context, KVPERF_POST_CONTEXT_BH);
	run_model_free(&run);

	/* bh: in the title, after stats; JSON post_context "bh" */
	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	CHECK_STR(err.buf, "");
	CHECK(!strncmp(c.buf, "# run 4: lat send to 198.18.0.1:18515 dev rxe0, post-context bh, state done\n",
		       strlen("# run 4: lat send to 198.18.0.1:18515 dev rxe0, post-context bh, state done\n")));
	cap_close(&c);
	cap_close(&err);
	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK(strstr(c.buf, "\"stats\":\"on\",\"post_context\":\"bh\",\"state\":"));
	CHECK_JSON(c.buf, "assert d['post_context'] == 'bh'\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	/* process, the default: JSON only; a bandwidth run too */
	msg = run_type_msg(KVPERF_CMD_RUN_GET, 5, BW, KVPERF_OP_WRITE,
			   KVPERF_RUN_STATE_DONE);
	nla_put_u8(msg, KVPERF_A_RUN_POST_CONTEXT,
		   KVPERF_POST_CONTEXT_PROCESS);
	CHECK_INT(run_print_one(&c, false, false, msg, &err), 0);
	CHECK(!strstr(c.buf, "post-context"));
	CHECK(!strncmp(c.buf, "# run 5: bw write to 198.18.0.1:18515 dev rxe0, state done\n",
		       strlen("# run 5: bw write to 198.18.0.1:18515 dev rxe0, state done\n")));
	cap_close(&c);
	cap_close(&err);
	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK_JSON(c.buf, "assert d['post_context'] == 'process'\n"
		   "assert d['type'] == 'bw'\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);

	/* a module without the attribute: no key, nothing in the title */
	msg = run_type_msg(KVPERF_CMD_RUN_GET, 6, LAT, KVPERF_OP_SEND,
			   KVPERF_RUN_STATE_DONE);
	CHECK_INT(run_print_one(&c, true, false, msg, &err), 0);
	CHECK_JSON(c.buf, "assert 'post_context' not in d\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

const struct unit_test unit_tests[] = {
	UNIT(post_context_names),
	UNIT(post_context_parse),
	UNIT(post_context_user_refused),
	UNIT(post_context_encode),
	UNIT(post_context_decode_print),
	{ NULL },
};
