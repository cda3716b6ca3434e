// SPDX-License-Identifier: GPL-2.0
/*
 * kvperf: who may connect to a listener. A peer must come from one of the
 * listener's allowed prefixes (by default the subnet of the address it
 * listens on) and, when the listener has a key, carry that key in its
 * connect request.
 */
#include <crypto/algapi.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>

#include "server.h"

/* The address bytes of an AF_INET or AF_INET6 sockaddr, and their count. */
static const u8 *kvperf_acl_bytes(const struct sockaddr *sa, unsigned int *len)
{
	if (sa->sa_family == AF_INET) {
		*len = 4;
		return (const u8 *)&((const struct sockaddr_in *)sa)->sin_addr;
	}
	if (sa->sa_family == AF_INET6) {
		*len = 16;
		return ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
	}
	*len = 0;
	return NULL;
}

/**
 * kvperf_prefix_set() - make a prefix
 * @p: receives it
 * @addr: 4 or 16 address bytes
 * @alen: 4 or 16
 * @len: prefix length, at most 8 * @alen
 *
 * The bits past @len are cleared, so that equal prefixes compare equal.
 *
 * Return: 0, or -EINVAL for a bad address or prefix length.
 */
int kvperf_prefix_set(struct kvperf_prefix *p, const u8 *addr,
		      unsigned int alen, unsigned int len)
{
	unsigned int i;

	if ((alen != 4 && alen != 16) || len > 8 * alen)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->alen = alen;
	p->len = len;
	for (i = 0; i < alen; i++) {
		if (8 * i + 8 <= len)
			p->addr[i] = addr[i];
		else if (8 * i < len)
			p->addr[i] = addr[i] & (0xff << (8 - (len - 8 * i)));
	}
	return 0;
}

/**
 * kvperf_prefix_match() - is an address inside a prefix?
 * @p: the prefix
 * @sa: the address, AF_INET or AF_INET6 (other families never match)
 *
 * Return: true if it is.
 */
bool kvperf_prefix_match(const struct kvperf_prefix *p,
			 const struct sockaddr *sa)
{
	unsigned int alen, i, bits;
	const u8 *a = kvperf_acl_bytes(sa, &alen);

	if (!a || alen != p->alen)
		return false;
	for (i = 0; 8 * i < p->len; i++) {
		bits = min(8U, p->len - 8 * i);
		if ((a[i] ^ p->addr[i]) & (0xff << (8 - bits)))
			return false;
	}
	return true;
}

static int kvperf_acl_subnet4(struct net_device *ndev, __be32 local,
			      struct kvperf_prefix *p)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	int err = -EADDRNOTAVAIL;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (ifa->ifa_local != local)
				continue;
			err = kvperf_prefix_set(p, (const u8 *)&local, 4,
						ifa->ifa_prefixlen);
			break;
		}
	}
	rcu_read_unlock();
	return err;
}

static int kvperf_acl_subnet6(struct net_device *ndev,
			      const struct in6_addr *local,
			      struct kvperf_prefix *p)
{
	const struct inet6_ifaddr *ifp;
	struct inet6_dev *idev;
	int err = -EADDRNOTAVAIL;

	rcu_read_lock();
	idev = __in6_dev_get(ndev);
	if (idev) {
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list) {
			if (!ipv6_addr_equal(&ifp->addr, local))
				continue;
			err = kvperf_prefix_set(p, local->s6_addr, 16,
						ifp->prefix_len);
			break;
		}
		read_unlock_bh(&idev->lock);
	}
	rcu_read_unlock();
	return err;
}

/**
 * kvperf_acl_subnet() - the subnet of a local address, as configured on
 *			 its network device
 * @addr: the address, AF_INET or AF_INET6
 * @ifindex: its network device
 * @p: receives the subnet
 *
 * Return: 0, or -EADDRNOTAVAIL when the device does not hold the address.
 */
int kvperf_acl_subnet(const struct sockaddr_storage *addr, int ifindex,
		      struct kvperf_prefix *p)
{
	struct net_device *ndev;
	int err = -EADDRNOTAVAIL;

	ndev = dev_get_by_index(&init_net, ifindex);
	if (!ndev)
		return err;
	if (addr->ss_family == AF_INET)
		err = kvperf_acl_subnet4(ndev,
					 ((const struct sockaddr_in *)addr)->sin_addr.s_addr,
					 p);
	else if (addr->ss_family == AF_INET6)
		err = kvperf_acl_subnet6(ndev,
					 &((const struct sockaddr_in6 *)addr)->sin6_addr,
					 p);
	dev_put(ndev);
	return err;
}

/**
 * kvperf_acl_allows() - may a peer of this address connect?
 * @opts: the listener's options
 * @peer: the peer's address
 *
 * Return: true if one of the allowed prefixes holds it.
 */
bool kvperf_acl_allows(const struct kvperf_server_opts *opts,
		       const struct sockaddr *peer)
{
	unsigned int i;

	for (i = 0; i < opts->nallow; i++)
		if (kvperf_prefix_match(&opts->allow[i], peer))
			return true;
	return false;
}

/**
 * kvperf_acl_key_ok() - does a connect request carry the listener's key?
 * @opts: the listener's options
 * @key: the request's KVPERF_WIRE_KEY_LEN key bytes
 *
 * Compared in constant time, so the time a refusal takes says nothing of
 * how much of the key was right.
 *
 * Return: true if the listener has no key or the keys are equal.
 */
bool kvperf_acl_key_ok(const struct kvperf_server_opts *opts, const u8 *key)
{
	if (!opts->keyed)
		return true;
	return !crypto_memneq(key, opts->key, KVPERF_WIRE_KEY_LEN);
}

/**
 * kvperf_acl_same_host() - do two sockaddrs name the same host?
 * @a: one, AF_INET or AF_INET6
 * @b: the other
 *
 * Ports are ignored.
 *
 * Return: true if the families and addresses are equal.
 */
bool kvperf_acl_same_host(const struct sockaddr *a, const struct sockaddr *b)
{
	unsigned int alen, blen;
	const u8 *x = kvperf_acl_bytes(a, &alen);
	const u8 *y = kvperf_acl_bytes(b, &blen);

	return x && y && alen == blen && !memcmp(x, y, alen);
}
