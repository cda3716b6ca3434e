// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of user/cli/print.c: the same calls rendered as text and JSON.
 */
#include <string.h>

#include "fmt.h"
#include "print.h"
#include "unit.h"

/* One record through the printer, the way dev_print() drives it. */
static void emit(struct printer *p)
{
	pr_arr_open(p, NULL);
	pr_obj_open(p, NULL);
	pr_u64(p, "index", "%s:", 7);
	pr_str(p, "name", "%s:", "mlx5_0");
	pr_str(p, "hidden", NULL, "json only");
	pr_enum(p, "state", "state %s", 4, &fmt_port_state);
	pr_enum(p, "speed", "speed %s", 200, &fmt_speed);
	pr_eol(p);
	/* a line that gets nothing does not appear, indent included */
	pr_indent(p, 4);
	pr_eol(p);
	pr_indent(p, 4);
	pr_text(p, "limits:");
	pr_u64(p, "max_qp", "max_qp %s", 18446744073709551615ULL);
	pr_u64_as(p, "rate_mbps", "rate %s Gb/s", 2500, "2.5");
	pr_str_as(p, "event", "%s", "dev-add", "dev add");
	pr_eol(p);
	pr_arr_open(p, "items");
	pr_indent(p, 8);
	pr_obj_open(p, NULL);
	pr_u64(p, "n", "item %s", 1);
	pr_obj_close(p);
	pr_eol(p);
	pr_arr_close(p);
	pr_obj_close(p);
	pr_arr_close(p);
	pr_finish(p);
}

static void print_text(void)
{
	struct printer p;
	struct capture c;

	pr_init(&p, cap_open(&c), false, false);
	emit(&p);
	CHECK_STR(cap_str(&c),
		  "7: mlx5_0: state ACTIVE speed 200\n"
		  "    limits: max_qp 18446744073709551615 rate 2.5 Gb/s dev add\n"
		  "        item 1\n");
	cap_close(&c);
}

static void print_json(void)
{
	struct printer p;
	struct capture c;

	pr_init(&p, cap_open(&c), true, false);
	emit(&p);
	CHECK_STR(cap_str(&c),
		  "[{\"index\":7,\"name\":\"mlx5_0\",\"hidden\":\"json only\","
		  "\"state\":\"ACTIVE\",\"speed\":200,"
		  "\"max_qp\":18446744073709551615,\"rate_mbps\":2500,"
		  "\"event\":\"dev-add\",\"items\":[{\"n\":1}]}]\n");
	CHECK_JSON(c.buf, "assert d[0]['max_qp'] == 2**64 - 1\n"
		   "assert d[0]['speed'] == 200\n"
		   "assert d[0]['items'] == [{'n': 1}]");
	cap_close(&c);
}

static void print_json_pretty(void)
{
	struct printer p;
	struct capture c;

	pr_init(&p, cap_open(&c), true, true);
	emit(&p);
	CHECK(strstr(cap_str(&c), "\n        \"rate_mbps\": 2500,\n") != NULL);
	CHECK_JSON(c.buf, "assert d[0]['rate_mbps'] == 2500\n"
		   "assert d[0]['event'] == 'dev-add'");
	cap_close(&c);
}

static void print_text_line_handling(void)
{
	struct printer p;
	struct capture c;

	pr_init(&p, cap_open(&c), false, false);
	/* finishing with a line open ends it; nothing open adds nothing */
	pr_str(&p, "a", "a=%s", "1");
	pr_finish(&p);
	pr_finish(&p);
	pr_indent(&p, 2);
	pr_str(&p, "b", "%s", "x y");
	pr_str(&p, "c", NULL, "gone");
	pr_str(&p, "d", "[%s]", "%s %d");
	pr_finish(&p);
	CHECK_STR(cap_str(&c), "a=1\n  x y [%s %d]\n");
	cap_close(&c);
}

const struct unit_test unit_tests[] = {
	UNIT(print_text),
	UNIT(print_json),
	UNIT(print_json_pretty),
	UNIT(print_text_line_handling),
	{ NULL },
};
