// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the event lines of user/monitor.c.
 */
#include <errno.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "monitor.h"
#include "print.h"
#include "unit.h"

static struct nl_msg *event_msg(uint8_t cmd, uint32_t index, const char *name)
{
	struct nl_msg *msg = unit_genl_msg(cmd);

	nla_put_u32(msg, KVPERF_A_DEV_INDEX, index);
	nla_put_string(msg, KVPERF_A_DEV_NAME, name);
	return msg;
}

/* Print events one after another, as the monitor loop does. */
static const char *print_events(struct capture *c, bool json,
				struct nl_msg **msgs, int n)
{
	struct capture err;
	struct printer p;
	int i;

	cap_open(c);
	cap_open(&err);
	for (i = 0; i < n; i++) {
		pr_init(&p, c->f, json, false);
		CHECK_INT(monitor_print_event(&p, nlmsg_hdr(msgs[i]), err.f),
			  0);
	}
	CHECK_STR(cap_str(&err), "");
	cap_close(&err);
	return cap_str(c);
}

static void monitor_text_lines(void)
{
	struct nl_msg *msgs[3] = {
		event_msg(KVPERF_CMD_DEV_ADD_NTF, 3, "rxe2"),
		event_msg(KVPERF_CMD_DEV_DEL_NTF, 3, "rxe2"),
		event_msg(KVPERF_CMD_MAX + 7, 4, "siw0"),
	};
	struct capture c;
	int i;

	CHECK_STR(print_events(&c, false, msgs, 3),
		  "dev add 3: rxe2\n"
		  "dev del 3: rxe2\n"
		  "event 10 4: siw0\n");
	cap_close(&c);
	for (i = 0; i < 3; i++)
		nlmsg_free(msgs[i]);
}

static void monitor_json_lines(void)
{
	struct nl_msg *msgs[3] = {
		event_msg(KVPERF_CMD_DEV_ADD_NTF, 3, "rxe2"),
		event_msg(KVPERF_CMD_DEV_DEL_NTF, 3, "rxe2"),
		event_msg(KVPERF_CMD_MAX + 7, 4, "siw0"),
	};
	struct capture c;
	int i;

	CHECK_STR(print_events(&c, true, msgs, 3),
		  "{\"event\":\"dev-add\",\"index\":3,\"name\":\"rxe2\"}\n"
		  "{\"event\":\"dev-del\",\"index\":3,\"name\":\"rxe2\"}\n"
		  "{\"event\":10,\"index\":4,\"name\":\"siw0\"}\n");
	CHECK_JSON_LINES(c.buf,
			 "assert [e['event'] for e in d] == "
			 "['dev-add', 'dev-del', 10]\n"
			 "assert d[0] == {'event': 'dev-add', 'index': 3, "
			 "'name': 'rxe2'}\n");
	cap_close(&c);
	for (i = 0; i < 3; i++)
		nlmsg_free(msgs[i]);
}

static void monitor_partial_and_malformed(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_DEV_ADD_NTF);
	struct capture c, err;
	struct printer p;

	/* only the name, and an attribute from the future */
	nla_put_string(msg, KVPERF_A_DEV_NAME, "rxe9");
	nla_put_u32(msg, KVPERF_A_DEV_MAX + 1, 1);
	CHECK_STR(print_events(&c, false, &msg, 1), "dev add rxe9\n");
	cap_close(&c);
	nlmsg_free(msg);

	msg = unit_genl_msg(KVPERF_CMD_DEV_DEL_NTF);
	nla_put(msg, KVPERF_A_DEV_NAME, 3, "abc");
	pr_init(&p, cap_open(&c), false, false);
	cap_open(&err);
	CHECK_INT(monitor_print_event(&p, nlmsg_hdr(msg), err.f), -EINVAL);
	CHECK_STR(cap_str(&c), "");
	CHECK_STR(cap_str(&err), "kvperf: malformed reply from the kernel: "
		  "attribute dev.name has length 3\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

const struct unit_test monitor_tests[] = {
	UNIT(monitor_text_lines),
	UNIT(monitor_json_lines),
	UNIT(monitor_partial_and_malformed),
	{ NULL },
};
