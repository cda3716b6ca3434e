// SPDX-License-Identifier: GPL-2.0
/*
 * The command line: global options, dispatch to objects and commands,
 * help, version, and the usage errors every level reports.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kvperf.h>

#include "access.h"
#include "args.h"
#include "cli.h"
#include "kvperf.h"
#include "version.h"

/**
 * cli_lookup() - find the table entry a word selects
 * @table: NULL-terminated table of objects or commands
 * @word: what the user typed
 *
 * An exact match wins; otherwise the first entry in table order that @word
 * is a prefix of. Resolving in table order rather than refusing ambiguous
 * prefixes keeps every abbreviation that works today working when entries
 * are appended later, which is what scripts need.
 *
 * Return: the entry, or NULL if none matches.
 */
const struct kvperf_cmd *cli_lookup(const struct kvperf_cmd *const *table,
				     const char *word)
{
	const struct kvperf_cmd *const *c;

	for (c = table; *c; c++)
		if (!strcmp(word, (*c)->name))
			return *c;
	for (c = table; *c; c++)
		if (args_matches(word, (*c)->name))
			return *c;
	return NULL;
}

/**
 * kvperf_usage() - report a usage error
 * @kv: the invocation
 * @obj: the object whose help to point at, or NULL for the top level
 * @fmt: printf format of the one-line message
 *
 * Return: KVPERF_EXIT_USAGE, for the caller to return.
 */
int kvperf_usage(struct kvperf *kv, const char *obj, const char *fmt, ...)
{
	va_list ap;

	fputs("kvperf: ", kv->err);
	va_start(ap, fmt);
	vfprintf(kv->err, fmt, ap);
	va_end(ap);
	fprintf(kv->err, " (try 'kvperf %s%shelp')\n", obj ? obj : "",
		obj ? " " : "");
	return KVPERF_EXIT_USAGE;
}

/**
 * kvperf_no_more_args() - refuse arguments a command does not take
 * @kv: the invocation
 * @args: what is left after the command consumed its arguments
 * @obj: the object, for the hint
 *
 * Return: KVPERF_EXIT_OK, or KVPERF_EXIT_USAGE after reporting.
 */
int kvperf_no_more_args(struct kvperf *kv, struct args *args,
			const char *obj)
{
	if (args_empty(args))
		return KVPERF_EXIT_OK;
	return kvperf_usage(kv, obj, "unexpected argument '%s'",
			    args_peek(args));
}

static bool is_help(const char *word)
{
	return args_matches(word, "help");
}

/**
 * kvperf_dispatch() - run the command of an object the next word selects
 * @kv: the invocation
 * @args: the words after the object
 * @obj: the object, for help and hints
 * @cmds: its commands, NULL-terminated; the first is the default
 *
 * "help" (or a prefix no command claims) prints the object's help.
 *
 * Return: the command's exit code.
 */
int kvperf_dispatch(struct kvperf *kv, struct args *args,
		    const struct kvperf_cmd *obj,
		    const struct kvperf_cmd *const *cmds)
{
	const struct kvperf_cmd *cmd;
	const char *word;

	word = args_next(args);
	if (!word)
		return cmds[0]->run(kv, args);
	cmd = strcmp(word, "help") ? cli_lookup(cmds, word) : NULL;
	if (cmd)
		return cmd->run(kv, args);
	if (is_help(word)) {
		if (!args_empty(args))
			return kvperf_no_more_args(kv, args, obj->name);
		obj->help(kv->out);
		return KVPERF_EXIT_OK;
	}
	return kvperf_usage(kv, obj->name, "unknown %s command '%s'",
			    obj->name, word);
}

static void print_version(FILE *f)
{
	fprintf(f, "kvperf " KVPERF_VERSION "\n"
		"built for the " KVPERF_FAMILY_NAME
		" netlink family, version %d\n", KVPERF_FAMILY_VERSION);
}

static void print_help(FILE *f, const struct kvperf_cmd *const *objects)
{
	const struct kvperf_cmd *const *o;

	fputs("Usage: kvperf [OPTIONS] OBJECT [COMMAND [ARGS]]\n"
	      "       kvperf [OPTIONS] OBJECT help\n"
	      "       kvperf help [OBJECT]\n"
	      "\n"
	      "Objects:\n", f);
	for (o = objects; *o; o++)
		fprintf(f, "  %-10s %s\n", (*o)->name, (*o)->summary);
	fputs("\n"
	      "Options:\n"
	      "  -j, --json      JSON output\n"
	      "  -p, --pretty    pretty-printed JSON output (implies -j)\n"
	      "  -V, --version   print the version and exit\n"
	      "  -h, --help      print this help and exit\n"
	      "\n"
	      "Objects and commands may be abbreviated to any prefix; \"show\" is\n"
	      "the default command.\n"
	      "\n"
	      "Examples:\n"
	      "  kvperf dev\n"
	      "  kvperf d sh rxe0\n"
	      "  kvperf -j -p dev show rxe0\n"
	      "  kvperf -j monitor\n"
	      "  kvperf server start addr 198.18.0.1      (on the server host)\n"
	      "  kvperf run lat op send addr 198.18.0.1   (on the client host)\n"
	      "  kvperf run lat op write addr 198.18.0.1 sizes all iters 10000\n"
	      "  kvperf run bw op write addr 198.18.0.1 size 64K time 10\n"
	      "  kvperf compare lat op send addr 198.18.0.1 size 64 rounds 3\n"
	      "  kvperf run lat op send addr 198.18.0.1 path user   (libibverbs)\n"
	      "  kvperf server start addr 198.18.0.1 path user      (foreground)\n"
	      "  kvperf -j run show 3\n"
	      "  kvperf dev help\n"
	      "  kvperf run help\n"
	      "\n"
	      "Exit status:\n"
	      "  0  success\n"
	      "  1  the kernel refused the request, or another runtime error\n"
	      "  2  usage error (unknown object, command, option or argument)\n"
	      "  3  the kvperf module is not loaded\n", f);
}

/* kvperf help [OBJECT] */
static int help(struct kvperf *kv, struct args *args,
		const struct kvperf_cmd *const *objects)
{
	const struct kvperf_cmd *obj;
	const char *word = args_next(args);

	if (!word) {
		print_help(kv->out, objects);
		return KVPERF_EXIT_OK;
	}
	obj = cli_lookup(objects, word);
	if (!obj)
		return kvperf_usage(kv, NULL, "unknown object '%s'", word);
	if (!args_empty(args))
		return kvperf_no_more_args(kv, args, NULL);
	obj->help(kv->out);
	return KVPERF_EXIT_OK;
}

enum { OPT_JSON = 1, OPT_PRETTY, OPT_VERSION, OPT_HELP };

static int long_option(const char *name)
{
	static const struct {
		const char *name;
		int opt;
	} opts[] = {
		{ "json", OPT_JSON },
		{ "pretty", OPT_PRETTY },
		{ "version", OPT_VERSION },
		{ "help", OPT_HELP },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opts); i++)
		if (!strcmp(name, opts[i].name))
			return opts[i].opt;
	return 0;
}

static int short_option(char c)
{
	switch (c) {
	case 'j':
		return OPT_JSON;
	case 'p':
		return OPT_PRETTY;
	case 'V':
		return OPT_VERSION;
	case 'h':
		return OPT_HELP;
	}
	return 0;
}

struct cli_opts {
	bool version;
	bool help;
};

static void set_option(struct kvperf *kv, struct cli_opts *o, int opt)
{
	switch (opt) {
	case OPT_PRETTY:
		/* pretty only means something for JSON */
		kv->pretty = true;
		kv->json = true;
		break;
	case OPT_JSON:
		kv->json = true;
		break;
	case OPT_VERSION:
		o->version = true;
		break;
	case OPT_HELP:
		o->help = true;
		break;
	}
}

/* Options come before the object, as with ip and rdma; "--" ends them. */
static int parse_options(struct kvperf *kv, struct args *args,
			 struct cli_opts *o)
{
	const char *word, *c;
	int opt;

	while ((word = args_peek(args)) && word[0] == '-' && word[1]) {
		args_next(args);
		if (!strcmp(word, "--"))
			break;
		if (word[1] == '-') {
			opt = long_option(word + 2);
			if (!opt)
				return kvperf_usage(kv, NULL,
						    "unknown option '%s'", word);
			set_option(kv, o, opt);
			continue;
		}
		/* a cluster of short options, e.g. -jp */
		for (c = word + 1; *c; c++) {
			opt = short_option(*c);
			if (!opt)
				return kvperf_usage(kv, NULL,
						    "unknown option '-%c'", *c);
			set_option(kv, o, opt);
		}
	}
	return KVPERF_EXIT_OK;
}

/* Is @word one of the global options (-j, -jp, --json, ...)? */
static bool is_option(const char *word)
{
	const char *c;

	if (word[0] != '-' || !word[1])
		return false;
	if (word[1] == '-')
		return long_option(word + 2);
	for (c = word + 1; *c; c++)
		if (!short_option(*c))
			return false;
	return true;
}

/* Append " @word" to the @size bytes at @buf, @len of them used. */
static size_t append_word(char *buf, size_t size, size_t len,
			  const char *word)
{
	if (len < size)
		len += snprintf(buf + len, size - len, " %s", word);
	return len;
}

/*
 * An option after the object ("kvperf dev show -j rxe0"): say where it
 * goes, with the command line it was meant to be.
 * @all: the words after the program's name
 * @obj: the index of the object's word in @all
 */
static int option_after_object(struct kvperf *kv, const char *obj_name,
			       const struct args *all, int obj)
{
	const char *bad = NULL;
	char fixed[256] = "kvperf";
	size_t len = strlen(fixed);
	int i;

	/* the options given before it, those given after, then the rest */
	for (i = 0; i < obj; i++)
		len = append_word(fixed, sizeof(fixed), len, all->argv[i]);
	for (i = obj + 1; i < all->argc; i++) {
		if (!is_option(all->argv[i]))
			continue;
		bad = bad ?: all->argv[i];
		len = append_word(fixed, sizeof(fixed), len, all->argv[i]);
	}
	for (i = obj; i < all->argc; i++)
		if (i == obj || !is_option(all->argv[i]))
			len = append_word(fixed, sizeof(fixed), len,
					  all->argv[i]);
	return kvperf_usage(kv, obj_name,
			    "option '%s' after the object: options go before it, as in '%s'",
			    bad, fixed);
}

/**
 * kvperf_main() - the whole command line
 * @kv: output streams; the options are filled in here
 * @argc: as main() gets it
 * @argv: as main() gets it
 * @objects: the objects, NULL-terminated
 *
 * Return: the exit code.
 */
int kvperf_main(struct kvperf *kv, int argc, char **argv,
		const struct kvperf_cmd *const *objects)
{
	struct args args = { .argc = argc - 1, .argv = argv + 1 };
	const struct args all = args;
	const struct kvperf_cmd *obj;
	struct cli_opts o = { 0 };
	const char *word;
	int ret, i;

	ret = parse_options(kv, &args, &o);
	if (ret)
		return ret;
	if (o.version) {
		print_version(kv->out);
		return KVPERF_EXIT_OK;
	}
	if (o.help) {
		print_help(kv->out, objects);
		return KVPERF_EXIT_OK;
	}

	word = args_next(&args);
	if (!word) {
		print_help(kv->err, objects);
		return KVPERF_EXIT_USAGE;
	}
	obj = strcmp(word, "help") ? cli_lookup(objects, word) : NULL;
	for (i = 0; obj && i < args.argc; i++)
		if (is_option(args.argv[i]))
			return option_after_object(kv, obj->name, &all,
						   all.argc - args.argc - 1);
	if (obj)
		return obj->run(kv, &args);
	if (is_help(word))
		return help(kv, &args, objects);
	return kvperf_usage(kv, NULL, "unknown object '%s'", word);
}

/**
 * access_key_arg() - the value of a key or key-file keyword
 * @kv: the invocation, for the messages
 * @obj: the object whose help a usage error points at
 * @file: @val is the path of a key file, not the key
 * @val: the hex digits, or the path
 * @key: receives the key
 *
 * The messages name what is wrong, never the key's characters.
 *
 * Return: KVPERF_EXIT_OK; KVPERF_EXIT_USAGE for a key that is not one,
 * KVPERF_EXIT_ERROR for a key file that cannot be used.
 */
int access_key_arg(struct kvperf *kv, const char *obj, bool file,
		   const char *val, uint8_t key[KVPERF_WIRE_KEY_LEN])
{
	char why[ACCESS_WHY_LEN];
	int err;

	if (!file) {
		err = access_key_parse(val, key);
		if (err)
			return kvperf_usage(kv, obj, "invalid key: %s",
					    access_key_error(err));
		return KVPERF_EXIT_OK;
	}
	if (access_key_file(val, key, why)) {
		kvperf_errorf(kv, "key file '%s': %s", val, why);
		return KVPERF_EXIT_ERROR;
	}
	return KVPERF_EXIT_OK;
}

/**
 * cli_terminal() - may @f get terminal control sequences?
 * @f: an output stream
 *
 * Only a terminal that can take them: @f is one (isatty()), and TERM is
 * set and not "dumb" (as Emacs' shell and CI runners say). A pipe, a file
 * or a log gets plain lines, never "\r" or "\033[K".
 *
 * Return: true if a progress line may be drawn and erased on @f.
 */
bool cli_terminal(FILE *f)
{
	const char *term = getenv("TERM");

	return f && isatty(fileno(f)) && term && *term &&
	       strcmp(term, "dumb") != 0;
}
