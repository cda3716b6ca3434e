// SPDX-License-Identifier: GPL-2.0
/*
 * What every part of fabric reads the same way: a member of a JSON object
 * the hosts printed (json-c), and the monotonic clock in milliseconds its
 * time limits are counted in.
 */
#include <time.h>
#include <json-c/json.h>

#include "fabric.h"

/**
 * fabric_now_ms() - the monotonic clock
 *
 * Return: milliseconds since an arbitrary start.
 */
uint64_t fabric_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/**
 * fabric_jstr() - a string member
 * @j: an object, or NULL
 * @key: the member's name
 *
 * Return: its value, valid while @j is; NULL when @j has no string @key.
 */
const char *fabric_jstr(struct json_object *j, const char *key)
{
	struct json_object *v;

	if (!j || !json_object_object_get_ex(j, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/**
 * fabric_jint() - a number member, as an integer
 * @j: an object, or NULL
 * @key: the member's name
 * @def: what to return when there is none
 *
 * Return: its value (a fraction cut off), or @def when @j has no number
 * @key.
 */
int64_t fabric_jint(struct json_object *j, const char *key, int64_t def)
{
	struct json_object *v;

	if (!j || !json_object_object_get_ex(j, key, &v) ||
	    (!json_object_is_type(v, json_type_int) &&
	     !json_object_is_type(v, json_type_double)))
		return def;
	return json_object_get_int64(v);
}
