#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packaging tests, one KTAP stream each, in this order: the man
# page against kvperf help (man_check.py), the bash completion
# (completion.sh), make install and uninstall into a temporary DESTDIR
# (install.sh), the make dist tarball built and tested elsewhere
# (dist.sh), the MLNX_OFED knob on a fake ofa_kernel tree (ofed.sh),
# make deb in a clean clone: its packages, lintian, and DKMS's builds
# in a private tree (deb.sh, about three minutes); then, as root only,
# the packages installed on this machine with apt-get, DKMS's builds, a
# VM per kernel that modprobes DKMS's module, man, the completion, and
# apt-get purge leaving nothing (deb_install.sh, about two and a half
# minutes; a SKIP when not root), the packages built once for both
# (make_deb.sh) and DKMS's builds checked once. make check runs them as its
# "packaging" group, after the build; make check-packaging alone. Needs
# user/kvperf built. Exits 1 when any of them failed. --count: print
# how many streams it prints, for make check's tally.
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/selftests/packaging
tests=(man_check.py completion.sh install.sh dist.sh ofed.sh deb.sh deb_install.sh)
if [ "${1:-}" = --count ]; then
	echo "${#tests[@]}"
	exit 0
fi
# make deb once, for deb.sh and deb_install.sh (make_deb.sh); as root
# with neither package installed, deb_install.sh installs them and the
# postinst's DKMS builds are the ones checked (not deb.sh's as well)
tmp=$(mktemp -d /tmp/kvperf-packaging.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=selftests/packaging/make_deb.sh
. "$here/make_deb.sh"
if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
	make_deb "$tmp/src" "$tmp/deb.log"
	export KVPERF_DEB_TREE=$tmp/src KVPERF_DEB_LOG=$tmp/deb.log
fi
if [ "$(id -u)" = 0 ] && ! dpkg-query -W -f '${db:Status-Status}\n' \
	kvperf kvperf-dkms 2>/dev/null | grep -qv '^not-installed$'; then
	export KVPERF_DKMS_BY_INSTALL=1
fi
rc=0
for t in "${tests[@]}"; do
	start=$SECONDS
	"$here/$t" || rc=1
	echo "# $t: $((SECONDS - start)) s"
done
exit $rc
