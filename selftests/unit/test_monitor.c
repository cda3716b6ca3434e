// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the event lines of user/cli/monitor.c, and of receiving
 * events at all (knl_event_cb()).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/kvperf.h>
#include <netlink/genl/genl.h>

#include "kvperf.h"
#include "monitor.h"
#include "nl.h"
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
		event_msg(200, 4, "siw0"),
	};
	struct capture c;
	int i;

	CHECK_STR(print_events(&c, false, msgs, 3),
		  "dev add 3: rxe2\n"
		  "dev del 3: rxe2\n"
		  "event 200 4: siw0\n");
	cap_close(&c);
	for (i = 0; i < 3; i++)
		nlmsg_free(msgs[i]);
}

static void monitor_json_lines(void)
{
	struct nl_msg *msgs[3] = {
		event_msg(KVPERF_CMD_DEV_ADD_NTF, 3, "rxe2"),
		event_msg(KVPERF_CMD_DEV_DEL_NTF, 3, "rxe2"),
		event_msg(200, 4, "siw0"),
	};
	struct capture c;
	int i;

	CHECK_STR(print_events(&c, true, msgs, 3),
		  "{\"event\":\"dev-add\",\"ifindex\":3,\"ifname\":\"rxe2\"}\n"
		  "{\"event\":\"dev-del\",\"ifindex\":3,\"ifname\":\"rxe2\"}\n"
		  "{\"event\":200,\"ifindex\":4,\"ifname\":\"siw0\"}\n");
	CHECK_JSON_LINES(c.buf,
			 "assert [e['event'] for e in d] == "
			 "['dev-add', 'dev-del', 200]\n"
			 "assert d[0] == {'event': 'dev-add', 'ifindex': 3, "
			 "'ifname': 'rxe2'}\n");
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

static struct nl_msg *run_event(uint8_t cmd, uint32_t id, uint8_t state,
				uint64_t progress, const char *error)
{
	struct nl_msg *msg = unit_genl_msg(cmd);

	nla_put_u32(msg, KVPERF_A_RUN_ID, id);
	nla_put_u8(msg, KVPERF_A_RUN_STATE, state);
	nla_put_u64(msg, KVPERF_A_RUN_PROGRESS, progress);
	if (error)
		nla_put_string(msg, KVPERF_A_RUN_ERROR, error);
	return msg;
}

static void monitor_run_events(void)
{
	struct nl_msg *msgs[4] = {
		run_event(KVPERF_CMD_RUN_PROGRESS_NTF, 3,
			  KVPERF_RUN_STATE_RUNNING, 5000, NULL),
		run_event(KVPERF_CMD_RUN_FINISHED_NTF, 3,
			  KVPERF_RUN_STATE_DONE, 10016, NULL),
		run_event(KVPERF_CMD_RUN_FINISHED_NTF, 4,
			  KVPERF_RUN_STATE_FAILED, 0, "connection refused"),
		run_event(KVPERF_CMD_RUN_FINISHED_NTF, 5,
			  KVPERF_RUN_STATE_STOPPED, 7, NULL),
	};
	struct capture c;
	int i;

	CHECK_STR(print_events(&c, false, msgs, 4),
		  "run 3 progress 5000\n"
		  "run 3 finished: done\n"
		  "run 4 finished: failed: connection refused\n"
		  "run 5 finished: stopped\n");
	cap_close(&c);

	CHECK_STR(print_events(&c, true, msgs, 4),
		  "{\"event\":\"run-progress\",\"id\":3,\"progress\":5000}\n"
		  "{\"event\":\"run-finished\",\"id\":3,\"state\":\"done\"}\n"
		  "{\"event\":\"run-finished\",\"id\":4,\"state\":\"failed\","
		  "\"error\":\"connection refused\"}\n"
		  "{\"event\":\"run-finished\",\"id\":5,\"state\":\"stopped\"}\n");
	CHECK_JSON_LINES(c.buf,
			 "assert [e['event'] for e in d] == ['run-progress', "
			 "'run-finished', 'run-finished', 'run-finished']\n"
			 "assert d[1] == {'event': 'run-finished', 'id': 3, "
			 "'state': 'done'}\n"
			 "assert d[2]['error'] == 'connection refused'\n");
	cap_close(&c);
	for (i = 0; i < 4; i++)
		nlmsg_free(msgs[i]);
}

static void monitor_run_event_malformed(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_RUN_FINISHED_NTF);
	struct capture c, err;
	struct printer p;

	/* a run event is read with the run set: a 4-byte progress is bad */
	nla_put_u32(msg, KVPERF_A_RUN_ID, 3);
	nla_put_u32(msg, KVPERF_A_RUN_PROGRESS, 1);
	pr_init(&p, cap_open(&c), true, false);
	cap_open(&err);
	CHECK_INT(monitor_print_event(&p, nlmsg_hdr(msg), err.f), -EINVAL);
	CHECK_STR(cap_str(&c), "");
	CHECK_STR(cap_str(&err), "kvperf: malformed reply from the kernel: "
		  "attribute run.progress has length 4\n");
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

static struct nl_msg *server_event(uint8_t cmd, uint32_t id, bool conn,
				   uint64_t iterations)
{
	static const uint8_t addr[4] = { 198, 18, 0, 1 };
	static const uint8_t peer[4] = { 198, 18, 0, 2 };
	struct nl_msg *msg = unit_genl_msg(cmd);
	struct nlattr *nest;

	nla_put_u32(msg, KVPERF_A_SERVER_ID, id);
	nla_put(msg, KVPERF_A_SERVER_ADDR, 4, addr);
	nla_put_u16(msg, KVPERF_A_SERVER_PORT, 18515);
	if (!conn) {
		nla_put_string(msg, KVPERF_A_SERVER_DEV, "rxe0");
		return msg;
	}
	nest = nla_nest_start(msg, KVPERF_A_SERVER_CONN);
	nla_put(msg, KVPERF_A_CONN_PEER_ADDR, 4, peer);
	nla_put_u16(msg, KVPERF_A_CONN_PEER_PORT, 40112);
	nla_put_u8(msg, KVPERF_A_CONN_OP, KVPERF_OP_SEND);
	nla_put_u32(msg, KVPERF_A_CONN_SIZE_MAX, 64);
	nla_put_u64(msg, KVPERF_A_CONN_ITERATIONS, iterations);
	nla_nest_end(msg, nest);
	return msg;
}

/* Listeners and their connections, as the module sends them. */
static void monitor_server_events(void)
{
	struct nl_msg *msgs[4] = {
		server_event(KVPERF_CMD_SERVER_STARTED_NTF, 1, false, 0),
		server_event(KVPERF_CMD_CONN_ACCEPTED_NTF, 1, true, 0),
		server_event(KVPERF_CMD_CONN_CLOSED_NTF, 1, true, 1000),
		server_event(KVPERF_CMD_SERVER_STOPPED_NTF, 1, false, 0),
	};
	struct capture c;
	int i;

	CHECK_STR(print_events(&c, false, msgs, 4),
		  "server 1 started: 198.18.0.1:18515 dev rxe0\n"
		  "server 1 conn accepted: peer 198.18.0.2:40112 op send size_max 64\n"
		  "server 1 conn closed: peer 198.18.0.2:40112 op send size_max 64 iterations 1000\n"
		  "server 1 stopped: 198.18.0.1:18515 dev rxe0\n");
	cap_close(&c);
	CHECK_STR(print_events(&c, true, msgs, 4),
		  "{\"event\":\"server-started\",\"id\":1,\"addr\":\"198.18.0.1\","
		  "\"port\":18515,\"dev\":\"rxe0\"}\n"
		  "{\"event\":\"conn-accepted\",\"id\":1,\"addr\":\"198.18.0.1\","
		  "\"port\":18515,\"peer_addr\":\"198.18.0.2\",\"peer_port\":40112,"
		  "\"op\":\"send\",\"size_max\":64}\n"
		  "{\"event\":\"conn-closed\",\"id\":1,\"addr\":\"198.18.0.1\","
		  "\"port\":18515,\"peer_addr\":\"198.18.0.2\",\"peer_port\":40112,"
		  "\"op\":\"send\",\"size_max\":64,\"iterations\":1000}\n"
		  "{\"event\":\"server-stopped\",\"id\":1,\"addr\":\"198.18.0.1\","
		  "\"port\":18515,\"dev\":\"rxe0\"}\n");
	CHECK_JSON_LINES(c.buf,
			 "assert [e['event'] for e in d] == ['server-started', "
			 "'conn-accepted', 'conn-closed', 'server-stopped']\n"
			 "assert d[2]['iterations'] == 1000\n");
	cap_close(&c);
	for (i = 0; i < 4; i++)
		nlmsg_free(msgs[i]);
}

/* A conn nest with a short peer address is refused, nothing printed. */
static void monitor_server_event_malformed(void)
{
	struct nl_msg *msg = unit_genl_msg(KVPERF_CMD_CONN_CLOSED_NTF);
	struct capture c, err;
	struct nlattr *nest;
	struct printer p;

	nla_put_u32(msg, KVPERF_A_SERVER_ID, 1);
	nest = nla_nest_start(msg, KVPERF_A_SERVER_CONN);
	nla_put(msg, KVPERF_A_CONN_PEER_ADDR, 3, "abc");
	nla_nest_end(msg, nest);
	pr_init(&p, cap_open(&c), false, false);
	cap_open(&err);
	CHECK_INT(monitor_print_event(&p, nlmsg_hdr(msg), err.f), -EINVAL);
	CHECK_STR(cap_str(&c), "");
	CHECK(strstr(cap_str(&err), "malformed reply from the kernel: attribute conn.peer-addr"));
	cap_close(&c);
	cap_close(&err);
	nlmsg_free(msg);
}

/* A run's progress only with "monitor progress"; everything else always. */
static void monitor_progress_only_when_asked(void)
{
	struct nl_msg *prog = run_event(KVPERF_CMD_RUN_PROGRESS_NTF, 3,
					KVPERF_RUN_STATE_RUNNING, 5000, NULL);
	struct nl_msg *fin = run_event(KVPERF_CMD_RUN_FINISHED_NTF, 3,
				       KVPERF_RUN_STATE_DONE, 10016, NULL);
	struct nl_msg *srv = server_event(KVPERF_CMD_SERVER_STARTED_NTF, 1,
					  false, 0);

	CHECK(!monitor_shows(nlmsg_hdr(prog), false));
	CHECK(monitor_shows(nlmsg_hdr(prog), true));
	CHECK(monitor_shows(nlmsg_hdr(fin), false));
	CHECK(monitor_shows(nlmsg_hdr(srv), false));
	nlmsg_free(prog);
	nlmsg_free(fin);
	nlmsg_free(srv);
}

static int count_event(struct nl_msg *msg, void *arg)
{
	(void)msg;
	++*(int *)arg;
	return NL_OK;
}

/*
 * Events carry sequence number 0; the callbacks the event loops use must
 * take them (libnl's default check refused them: "Message sequence number
 * mismatch"). A userspace sender on NETLINK_USERSOCK plays the kernel.
 */
static void monitor_events_any_seq(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct kvperf kv = { .err = stderr };
	struct nl_sock *sk;
	struct nl_msg *msg;
	struct nl_cb *cb;
	int fd, n = 0;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_USERSOCK);
	sk = nl_socket_alloc();
	if (fd < 0 || !sk || nl_connect(sk, NETLINK_USERSOCK) < 0) {
		unit_skip("no NETLINK_USERSOCK sockets");
		goto out;
	}
	/* a socket that sent a request expects that request's number */
	nl_socket_use_seq(sk);
	nl_socket_disable_seq_check(sk);
	sa.nl_pid = nl_socket_get_local_port(sk);
	msg = event_msg(KVPERF_CMD_DEV_ADD_NTF, 3, "rxe2");
	CHECK(sendto(fd, nlmsg_hdr(msg), nlmsg_hdr(msg)->nlmsg_len, 0,
		     (struct sockaddr *)&sa, sizeof(sa)) > 0);
	nlmsg_free(msg);

	cb = knl_event_cb(&kv);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, count_event, &n);
	CHECK(nl_recvmsgs(sk, cb) >= 0);
	CHECK_INT(n, 1);
	nl_cb_put(cb);
out:
	if (fd >= 0)
		close(fd);
	nl_socket_free(sk);
}

const struct unit_test unit_tests[] = {
	UNIT(monitor_text_lines),
	UNIT(monitor_json_lines),
	UNIT(monitor_partial_and_malformed),
	UNIT(monitor_run_events),
	UNIT(monitor_run_event_malformed),
	UNIT(monitor_events_any_seq),
	UNIT(monitor_server_events),
	UNIT(monitor_server_event_malformed),
	UNIT(monitor_progress_only_when_asked),
	{ NULL },
};
