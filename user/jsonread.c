// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON reader: recursive descent over the whole text, strict about
 * the grammar (no trailing commas, comments, leading zeros, bare control
 * characters or bytes that are not UTF-8), with a depth limit so that no
 * input can exhaust the stack.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "jsonread.h"

struct jr_parser {
	const char *s;
	size_t len;
	size_t pos;
	unsigned int depth;
	char *err;
	size_t errlen;
	bool failed;
};

__printf(2, 3)
static void jr_error(struct jr_parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return;
	p->failed = true;
	if (!p->err || !p->errlen)
		return;
	n = snprintf(p->err, p->errlen, "at byte %zu: ", p->pos);
	if (n < 0 || (size_t)n >= p->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
}

static bool jr_more(const struct jr_parser *p)
{
	return p->pos < p->len;
}

static int jr_peek(const struct jr_parser *p)
{
	return jr_more(p) ? (unsigned char)p->s[p->pos] : -1;
}

static void jr_skip_ws(struct jr_parser *p)
{
	int c;

	while ((c = jr_peek(p)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		p->pos++;
}

/* Report what was found where something else was expected. */
static void jr_unexpected(struct jr_parser *p, const char *want)
{
	int c = jr_peek(p);

	if (c < 0)
		jr_error(p, "unexpected end, expected %s", want);
	else if (c >= 0x20 && c < 0x7f)
		jr_error(p, "unexpected '%c', expected %s", c, want);
	else
		jr_error(p, "unexpected byte 0x%02x, expected %s", c, want);
}

static struct jr_value *jr_new(struct jr_parser *p, enum jr_type type)
{
	struct jr_value *v = calloc(1, sizeof(*v));

	if (!v)
		jr_error(p, "out of memory");
	else
		v->type = type;
	return v;
}

/**
 * jr_free() - free a tree from jr_parse()
 * @v: its root; NULL is fine
 */
void jr_free(struct jr_value *v)
{
	size_t i;

	if (!v)
		return;
	free(v->key);
	switch (v->type) {
	case JR_NUMBER:
		free(v->num.text);
		break;
	case JR_STRING:
		free(v->str.s);
		break;
	case JR_ARRAY:
	case JR_OBJECT:
		for (i = 0; i < v->list.count; i++)
			jr_free(v->list.items[i]);
		free(v->list.items);
		break;
	default:
		break;
	}
	free(v);
}

static bool jr_literal(struct jr_parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return false;
	p->pos += n;
	return true;
}

/* A growing byte buffer for decoded strings. */
struct jr_buf {
	char *s;
	size_t len, size;
};

static bool jr_buf_add(struct jr_parser *p, struct jr_buf *b, const char *s,
		       size_t n)
{
	size_t size;
	char *ns;

	if (b->len + n + 1 > b->size) {
		size = b->size ? b->size : 32;
		while (size < b->len + n + 1)
			size *= 2;
		ns = realloc(b->s, size);
		if (!ns) {
			jr_error(p, "out of memory");
			return false;
		}
		b->s = ns;
		b->size = size;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return true;
}

static bool jr_buf_utf8(struct jr_parser *p, struct jr_buf *b, uint32_t cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = 0xc0 | (cp >> 6);
		u[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = 0xe0 | (cp >> 12);
		u[1] = 0x80 | ((cp >> 6) & 0x3f);
		u[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		u[0] = 0xf0 | (cp >> 18);
		u[1] = 0x80 | ((cp >> 12) & 0x3f);
		u[2] = 0x80 | ((cp >> 6) & 0x3f);
		u[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	return jr_buf_add(p, b, u, n);
}

/*
 * Length of the well-formed UTF-8 sequence at @s (at most @len bytes), or
 * 0: no overlong forms, surrogates or code points above U+10FFFF.
 */
static size_t jr_utf8_len(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* The four hex digits after "\u". */
static bool jr_hex4(struct jr_parser *p, uint32_t *cp)
{
	uint32_t v = 0;
	int i, c;

	for (i = 0; i < 4; i++) {
		c = jr_peek(p);
		if (c >= '0' && c <= '9')
			v = v * 16 + c - '0';
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = v * 16 + c - 'A' + 10;
		else {
			jr_unexpected(p, "a hex digit");
			return false;
		}
		p->pos++;
	}
	*cp = v;
	return true;
}

/* After the backslash of \uXXXX: one code point, or a surrogate pair. */
static bool jr_unicode(struct jr_parser *p, struct jr_buf *b)
{
	uint32_t cp, lo;

	p->pos++;
	if (!jr_hex4(p, &cp))
		return false;
	if (cp >= 0xdc00 && cp <= 0xdfff) {
		jr_error(p, "lone low surrogate \\u%04x", cp);
		return false;
	}
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (!jr_literal(p, "\\u")) {
			jr_error(p, "high surrogate \\u%04x without its low half",
				 cp);
			return false;
		}
		if (!jr_hex4(p, &lo))
			return false;
		if (lo < 0xdc00 || lo > 0xdfff) {
			jr_error(p, "high surrogate \\u%04x without its low half",
				 cp);
			return false;
		}
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	return jr_buf_utf8(p, b, cp);
}

static bool jr_escape(struct jr_parser *p, struct jr_buf *b)
{
	static const char from[] = "\"\\/bfnrt";
	static const char to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	int c;

	p->pos++;
	c = jr_peek(p);
	if (c == 'u')
		return jr_unicode(p, b);
	e = c > 0 ? strchr(from, c) : NULL;
	if (!e) {
		jr_unexpected(p, "an escape (\" \\ / b f n r t u)");
		return false;
	}
	p->pos++;
	return jr_buf_add(p, b, &to[e - from], 1);
}

/* A string, at its opening quote; the decoded bytes go to @b. */
static bool jr_string_raw(struct jr_parser *p, struct jr_buf *b)
{
	size_t start, n;
	int c;

	p->pos++;
	if (!jr_buf_add(p, b, "", 0))
		return false;
	for (;;) {
		start = p->pos;
		while (jr_more(p) && (c = jr_peek(p)) != '"' && c != '\\' &&
		       c >= 0x20 && c < 0x80)
			p->pos++;
		if (p->pos > start &&
		    !jr_buf_add(p, b, p->s + start, p->pos - start))
			return false;
		c = jr_peek(p);
		if (c == '"') {
			p->pos++;
			return true;
		}
		if (c == '\\') {
			if (!jr_escape(p, b))
				return false;
			continue;
		}
		if (c < 0) {
			jr_error(p, "unterminated string");
			return false;
		}
		if (c < 0x20) {
			jr_error(p, "control character 0x%02x in a string", c);
			return false;
		}
		n = jr_utf8_len((const unsigned char *)p->s + p->pos,
				p->len - p->pos);
		if (!n) {
			jr_error(p, "invalid UTF-8 in a string");
			return false;
		}
		if (!jr_buf_add(p, b, p->s + p->pos, n))
			return false;
		p->pos += n;
	}
}

static struct jr_value *jr_string_value(struct jr_parser *p)
{
	struct jr_buf b = { 0 };
	struct jr_value *v;

	if (!jr_string_raw(p, &b)) {
		free(b.s);
		return NULL;
	}
	v = jr_new(p, JR_STRING);
	if (!v) {
		free(b.s);
		return NULL;
	}
	v->str.s = b.s;
	v->str.len = b.len;
	return v;
}

static bool jr_digits(struct jr_parser *p)
{
	size_t start = p->pos;

	while (jr_peek(p) >= '0' && jr_peek(p) <= '9')
		p->pos++;
	if (p->pos == start) {
		jr_unexpected(p, "a digit");
		return false;
	}
	return true;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static struct jr_value *jr_number(struct jr_parser *p)
{
	size_t start = p->pos;
	struct jr_value *v;
	char *text;

	if (jr_peek(p) == '-')
		p->pos++;
	if (jr_peek(p) == '0') {
		p->pos++;
		if (jr_peek(p) >= '0' && jr_peek(p) <= '9') {
			jr_error(p, "leading zero in a number");
			return NULL;
		}
	} else if (!jr_digits(p)) {
		return NULL;
	}
	if (jr_peek(p) == '.') {
		p->pos++;
		if (!jr_digits(p))
			return NULL;
	}
	if (jr_peek(p) == 'e' || jr_peek(p) == 'E') {
		p->pos++;
		if (jr_peek(p) == '+' || jr_peek(p) == '-')
			p->pos++;
		if (!jr_digits(p))
			return NULL;
	}
	text = strndup(p->s + start, p->pos - start);
	if (!text) {
		jr_error(p, "out of memory");
		return NULL;
	}
	v = jr_new(p, JR_NUMBER);
	if (!v) {
		free(text);
		return NULL;
	}
	v->num.text = text;
	/* out of range: strtod gives +-HUGE_VAL or 0, which will do */
	v->num.val = strtod(text, NULL);
	return v;
}

static struct jr_value *jr_value(struct jr_parser *p);

static bool jr_append(struct jr_parser *p, struct jr_value *list,
		      struct jr_value *item, size_t *size)
{
	struct jr_value **items;
	size_t n;

	if (list->list.count == *size) {
		n = *size ? *size * 2 : 8;
		items = realloc(list->list.items, n * sizeof(*items));
		if (!items) {
			jr_error(p, "out of memory");
			return false;
		}
		list->list.items = items;
		*size = n;
	}
	list->list.items[list->list.count++] = item;
	return true;
}

/* An array or an object, at its opening bracket. */
static struct jr_value *jr_list(struct jr_parser *p, enum jr_type type)
{
	char close = type == JR_ARRAY ? ']' : '}';
	struct jr_buf key = { 0 };
	struct jr_value *v, *item;
	size_t size = 0;

	if (p->depth >= JR_MAX_DEPTH) {
		jr_error(p, "nested deeper than %d", JR_MAX_DEPTH);
		return NULL;
	}
	v = jr_new(p, type);
	if (!v)
		return NULL;
	p->depth++;
	p->pos++;
	jr_skip_ws(p);
	if (jr_peek(p) == close) {
		p->pos++;
		goto out;
	}
	for (;;) {
		if (type == JR_OBJECT) {
			jr_skip_ws(p);
			if (jr_peek(p) != '"') {
				jr_unexpected(p, "a member name");
				goto err;
			}
			key = (struct jr_buf){ 0 };
			if (!jr_string_raw(p, &key))
				goto err_key;
			jr_skip_ws(p);
			if (jr_peek(p) != ':') {
				jr_unexpected(p, "':'");
				goto err_key;
			}
			p->pos++;
		}
		item = jr_value(p);
		if (!item)
			goto err_key;
		item->key = key.s;
		key.s = NULL;
		if (!jr_append(p, v, item, &size)) {
			jr_free(item);
			goto err;
		}
		jr_skip_ws(p);
		if (jr_peek(p) == close) {
			p->pos++;
			break;
		}
		if (jr_peek(p) != ',') {
			jr_unexpected(p, type == JR_ARRAY ? "',' or ']'" :
							    "',' or '}'");
			goto err;
		}
		p->pos++;
	}
out:
	p->depth--;
	return v;
err_key:
	free(key.s);
err:
	p->depth--;
	jr_free(v);
	return NULL;
}

static struct jr_value *jr_value(struct jr_parser *p)
{
	struct jr_value *v;
	int c;

	jr_skip_ws(p);
	c = jr_peek(p);
	switch (c) {
	case '{':
		return jr_list(p, JR_OBJECT);
	case '[':
		return jr_list(p, JR_ARRAY);
	case '"':
		return jr_string_value(p);
	case 't':
	case 'f':
		if (!jr_literal(p, c == 't' ? "true" : "false"))
			break;
		v = jr_new(p, JR_BOOL);
		if (v)
			v->boolean = c == 't';
		return v;
	case 'n':
		if (!jr_literal(p, "null"))
			break;
		return jr_new(p, JR_NULL);
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return jr_number(p);
		break;
	}
	jr_unexpected(p, "a value");
	return NULL;
}

/**
 * jr_parse() - parse one JSON text
 * @text: the text; need not be NUL-terminated
 * @len: its length in bytes
 * @err: receives why it is not JSON ("at byte N: ..."); may be NULL
 * @errlen: the size of @err
 *
 * Whitespace may surround the value; anything else after it is an error.
 *
 * Return: the tree, to free with jr_free(), or NULL.
 */
struct jr_value *jr_parse(const char *text, size_t len, char *err,
			  size_t errlen)
{
	struct jr_parser p = {
		.s = text, .len = len, .err = err, .errlen = errlen,
	};
	struct jr_value *v;

	if (err && errlen)
		err[0] = '\0';
	v = jr_value(&p);
	if (!v)
		return NULL;
	jr_skip_ws(&p);
	if (jr_more(&p)) {
		jr_unexpected(&p, "the end of the text");
		jr_free(v);
		return NULL;
	}
	return v;
}

/**
 * jr_get() - an object's member
 * @obj: the object; anything else has no members
 * @key: the member's name
 *
 * Return: the member (the last one of that name, as most readers do), or
 * NULL.
 */
const struct jr_value *jr_get(const struct jr_value *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != JR_OBJECT)
		return NULL;
	for (i = obj->list.count; i > 0; i--)
		if (!strcmp(obj->list.items[i - 1]->key, key))
			return obj->list.items[i - 1];
	return NULL;
}

/**
 * jr_at() - an array's element, or an object's member by position
 * @arr: the array or object
 * @i: the index
 *
 * Return: the element, or NULL when there is none.
 */
const struct jr_value *jr_at(const struct jr_value *arr, size_t i)
{
	if (!arr || (arr->type != JR_ARRAY && arr->type != JR_OBJECT) ||
	    i >= arr->list.count)
		return NULL;
	return arr->list.items[i];
}

/** jr_count() - the elements of an array or members of an object, else 0 */
size_t jr_count(const struct jr_value *v)
{
	if (!v || (v->type != JR_ARRAY && v->type != JR_OBJECT))
		return 0;
	return v->list.count;
}

/**
 * jr_double() - a number as a double
 * @v: the value
 * @val: receives the number; untouched on error
 *
 * Return: 0, or -EINVAL if @v is not a number.
 */
int jr_double(const struct jr_value *v, double *val)
{
	if (!v || v->type != JR_NUMBER)
		return -EINVAL;
	*val = v->num.val;
	return 0;
}

/**
 * jr_u64() - a number as an unsigned 64-bit integer, exactly
 * @v: the value: digits only, no sign, fraction or exponent
 * @val: receives the number; untouched on error
 *
 * Return: 0, -EINVAL if @v is not such a number, -ERANGE if it does not
 * fit.
 */
int jr_u64(const struct jr_value *v, uint64_t *val)
{
	unsigned long long u;

	if (!v || v->type != JR_NUMBER || strpbrk(v->num.text, "-.eE"))
		return -EINVAL;
	errno = 0;
	u = strtoull(v->num.text, NULL, 10);
	if (errno)
		return -ERANGE;
	*val = u;
	return 0;
}

/** jr_string() - a string's decoded bytes, or NULL if @v is no string */
const char *jr_string(const struct jr_value *v)
{
	return v && v->type == JR_STRING ? v->str.s : NULL;
}

/**
 * jr_get_double() - an object's member that is a number, as a double
 * @obj: the object
 * @key: the member's name
 * @val: receives the number; untouched unless the member is a number
 *
 * Return: true if there was such a member.
 */
bool jr_get_double(const struct jr_value *obj, const char *key, double *val)
{
	return !jr_double(jr_get(obj, key), val);
}
