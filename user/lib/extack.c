// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing the extended ACK the kernel appends to NLMSG_ERROR and NLMSG_DONE,
 * and naming the attribute of our request that it points at.
 */
#include <errno.h>
#include <string.h>
#include <netlink/attr.h>

#include "attrs.h"
#include "extack.h"

static void extack_parse_tlvs(struct extack *ext, struct nlattr *head,
			      int len)
{
	struct nlattr *nla;
	int rem;

	nla_for_each_attr(nla, head, len, rem) {
		int alen = nla_len(nla);
		const char *data = nla_data(nla);

		switch (nla_type(nla)) {
		case NLMSGERR_ATTR_MSG:
			if (alen > 0 && memchr(data, '\0', alen))
				ext->msg = data;
			break;
		case NLMSGERR_ATTR_OFFS:
			if (alen == 4) {
				ext->offs = nla_get_u32(nla);
				ext->has_offs = true;
			}
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			if (alen == 4) {
				ext->miss_type = nla_get_u32(nla);
				ext->has_miss_type = true;
			}
			break;
		case NLMSGERR_ATTR_MISS_NEST:
			if (alen == 4) {
				ext->miss_nest = nla_get_u32(nla);
				ext->has_miss_nest = true;
			}
			break;
		}
	}
}

/**
 * extack_parse() - read the error and extended ACK of a message
 * @nlh: an NLMSG_ERROR (ACK or error) or NLMSG_DONE (end of dump) message,
 *       its nlmsg_len already checked against what was received
 * @ext: filled in; @ext->msg points into @nlh
 *
 * NLMSG_DONE carries an error too: a dump that fails part-way reports it
 * there, not in NLMSG_ERROR.
 *
 * Return: 0, or -1 if @nlh is too short to carry an error.
 */
int extack_parse(const struct nlmsghdr *nlh, struct extack *ext)
{
	const char *base = (const char *)nlh;
	const struct nlmsgerr *e;
	unsigned int off;
	int error;

	memset(ext, 0, sizeof(*ext));
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
			return -1;
		e = NLMSG_DATA(nlh);
		ext->error = e->error;
		/* the request comes back whole unless capped by NETLINK_CAP_ACK */
		off = NLMSG_HDRLEN + sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
		    e->msg.nlmsg_len > NLMSG_HDRLEN)
			off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	} else {
		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(error)))
			return -1;
		memcpy(&error, NLMSG_DATA(nlh), sizeof(error));
		ext->error = error;
		off = NLMSG_HDRLEN + sizeof(error);
	}
	off = NLMSG_ALIGN(off);
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && off < nlh->nlmsg_len)
		extack_parse_tlvs(ext, (struct nlattr *)(base + off),
				  nlh->nlmsg_len - off);
	return 0;
}

static void path_add(char *buf, size_t size, const struct attr_spec *spec,
		     int type)
{
	size_t len = strlen(buf);
	const char *sep = len ? "." : "";

	if (spec && spec->name)
		snprintf(buf + len, size - len, "%s%s", sep, spec->name);
	else
		snprintf(buf + len, size - len, "%s%d", sep, type);
}

/**
 * extack_attr_path() - name the attribute at an offset in our request
 * @req: the request as we sent it
 * @hdrlen: length of the family header after the netlink header
 * @set: the attribute set of the request's top-level attributes
 * @offs: offset from the start of @req, as NLMSGERR_ATTR_OFFS gives it
 * @buf: receives the path of names from the top level down, joined by '.',
 *       e.g. "name" or "port.gid.value"; unknown types as numbers
 * @size: size of @buf
 * @spec: receives the attribute's spec, NULL if unknown; may be NULL
 *
 * Return: true if @offs falls in one of the request's attributes.
 */
bool extack_attr_path(const struct nlmsghdr *req, unsigned int hdrlen,
		      const struct attr_set *set, uint32_t offs,
		      char *buf, size_t size, const struct attr_spec **spec)
{
	const char *base = (const char *)req;
	unsigned int start = NLMSG_HDRLEN + NLMSG_ALIGN(hdrlen);
	const struct attr_spec *s = NULL;
	struct nlattr *head, *nla;
	int len, rem, type;
	bool found = false;

	if (!size)
		return false;
	buf[0] = '\0';
	if (req->nlmsg_len <= start || offs < start || offs >= req->nlmsg_len)
		return false;
	head = (struct nlattr *)(base + start);
	len = req->nlmsg_len - start;
again:
	nla_for_each_attr(nla, head, len, rem) {
		uint32_t a = (const char *)nla - base;

		if (offs < a || offs >= a + nla->nla_len)
			continue;
		type = nla_type(nla);
		s = NULL;
		if (set && type > 0 && (unsigned int)type <= set->max)
			s = &set->attrs[type];
		path_add(buf, size, s, type);
		found = true;
		/* inside the payload of a nest: look at its members */
		if (offs >= a + NLA_HDRLEN && s && s->kind == ATTR_NEST) {
			head = nla_data(nla);
			len = nla_len(nla);
			set = s->nested;
			goto again;
		}
		break;
	}
	if (spec)
		*spec = s;
	return found;
}

/* The value we sent in the string attribute at @offs, or NULL. */
static const char *bad_attr_string(const struct nlmsghdr *req, uint32_t offs,
				   const struct attr_spec *spec)
{
	const struct nlattr *nla = (const void *)((const char *)req + offs);
	const char *val = (const char *)nla + NLA_HDRLEN;

	if (spec && spec->kind == ATTR_STRING &&
	    offs + NLA_HDRLEN <= req->nlmsg_len &&
	    nla->nla_len > NLA_HDRLEN &&
	    offs + nla->nla_len <= req->nlmsg_len &&
	    memchr(val, '\0', nla->nla_len - NLA_HDRLEN))
		return val;
	return NULL;
}

/*
 * Name the offending attribute and, for a string, repeat the value we
 * sent: older kernels cannot put it in their message.
 */
static void report_bad_attr(FILE *f, const char *path, const char *val)
{
	if (val)
		fprintf(f, "kvperf: offending attribute: %s \"%s\"\n", path,
			val);
	else
		fprintf(f, "kvperf: offending attribute: %s\n", path);
}

/**
 * extack_report() - tell the user why the kernel refused a request
 * @f: where to write
 * @ext: the parsed error, @ext->error negative
 * @req: the request, to name the attribute the kernel points at; may be NULL
 * @hdrlen: length of the family header in @req
 * @set: attribute set of @req's top-level attributes
 *
 * The offending attribute is named on a line of its own, unless it is a
 * string the message names: a kernel too old for formatted messages
 * (6.1) says "no RDMA device with that name", and the first line then
 * adds the name we sent, so that the device is named once, on one line.
 *
 * An EPERM or ENOENT without a message is generic netlink's, not the
 * module's: a command that needs CAP_NET_ADMIN, or a family that is gone
 * (the module was unloaded after the tool found it); the message says so.
 */
void extack_report(FILE *f, const struct extack *ext,
		   const struct nlmsghdr *req, unsigned int hdrlen,
		   const struct attr_set *set)
{
	const struct attr_spec *nest = NULL, *bad = NULL;
	const struct attr_set *mset = set;
	const char *msg = ext->msg, *val = NULL;
	bool has_path = false;
	char path[128];
	const char *name;

	if (req && ext->has_offs)
		has_path = extack_attr_path(req, hdrlen, set, ext->offs, path,
					    sizeof(path), &bad);
	if (has_path)
		val = bad_attr_string(req, ext->offs, bad);
	/* the module's messages carry its name already */
	if (msg && !strncmp(msg, "kvperf: ", 8))
		msg += 8;
	if (msg && msg[0] && val && !strstr(msg, val))
		/* a kernel without formatted messages (6.1): name it here */
		fprintf(f, "kvperf: kernel refused the request: %s: %s \"%s\" (%s)\n",
			msg, path, val, strerror(-ext->error));
	else if (msg && msg[0])
		fprintf(f, "kvperf: kernel refused the request: %s (%s)\n",
			msg, strerror(-ext->error));
	else if (ext->error == -EPERM)
		/* generic netlink's own refusal of an admin-perm command */
		fprintf(f, "kvperf: kernel refused the request: %s: it needs CAP_NET_ADMIN (run as root or with sudo)\n",
			strerror(-ext->error));
	else if (ext->error == -ENOENT)
		/*
		 * The module says why of each ENOENT it returns; one without
		 * a word is generic netlink's: the family is gone.
		 */
		fprintf(f, "kvperf: the kvperf module was unloaded (the kernel answered: %s); load it again with 'sudo modprobe kvperf'\n",
			strerror(-ext->error));
	else
		fprintf(f, "kvperf: kernel refused the request: %s\n",
			strerror(-ext->error));
	if (!req)
		return;

	/* a string the message names, or the line above does, is said */
	if (has_path && !(val && msg && msg[0]))
		report_bad_attr(f, path, val);

	if (!ext->has_miss_type)
		return;
	path[0] = '\0';
	if (ext->has_miss_nest) {
		if (!extack_attr_path(req, hdrlen, set, ext->miss_nest, path,
				      sizeof(path), &nest))
			return;
		mset = nest && nest->kind == ATTR_NEST ? nest->nested : NULL;
	}
	name = mset ? attrs_name(mset, ext->miss_type) : NULL;
	if (name)
		fprintf(f, "kvperf: missing attribute: %s%s%s\n",
			path, path[0] ? "." : "", name);
	else
		fprintf(f, "kvperf: missing attribute: %s%s%u\n",
			path, path[0] ? "." : "", ext->miss_type);
}
