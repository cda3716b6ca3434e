#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb, from a clean clone of HEAD in a temporary folder: it builds
# the two packages; kvperf holds the tool, its man page and completion
# and depends on the libraries it links; kvperf-dkms holds the module's
# sources and a dkms.conf of this version in /usr/src/kvperf-VERSION and
# depends on dkms; lintian says nothing that is not overridden; and DKMS
# builds the module from the package for each tested Debian kernel
# (selftests/kernels.sh). DKMS runs with a private tree (--dkmstree,
# --sourcetree, --installtree, and a throwaway signing key), so that
# nothing is installed: no root install, /var/lib/dkms and /lib/modules
# untouched. About three minutes on two cores, most of it the two
# module builds. KTAP.
#
# Under run.sh (make check's packaging group) the packages come from
# its one make deb (make_deb.sh), and when run.sh says deb_install.sh
# installs them for real (KVPERF_DKMS_BY_INSTALL=1: root), DKMS's
# builds are checked there, by the packages' own postinst, and not a
# second time here.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/kvperf-deb.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"
# shellcheck source=selftests/packaging/make_deb.sh
. "$top/selftests/packaging/make_deb.sh"

mapfile -t kernels < <("$top/selftests/kernels.sh" 2>/dev/null)

echo "TAP version 13"
if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" != "$top" ]; then
	echo "1..0 # SKIP not a git checkout (make deb packages one)"
	exit 0
fi
for tool in dpkg-buildpackage dh dh_dkms lintian; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP no $tool (make deps)"
		exit 0
	fi
done
dkms_kernels=("${kernels[@]}")
if [ "${KVPERF_DKMS_BY_INSTALL:-}" = 1 ]; then
	echo "# DKMS's builds: checked by deb_install.sh's install, not here"
	dkms_kernels=()
fi
echo "1..$((6 + ${#dkms_kernels[@]}))"

src=$tmp/src
make_deb "$src" "$tmp/deb.log"
[ -f "$tool" ] && [ -f "$dkms" ]
result $? "make deb in a clean clone builds kvperf and kvperf-dkms $version-1" \
	"$(diag "$tmp/deb.log")"

# a build dependency missing (one that no Debian has, here): named, with
# the command that installs it, before anything is built or removed
sum=$(md5sum "$tool" "$dkms" 2>&1)
make -s -C "$src" deb DEB_BUILD_DEPS="debhelper kvperf-no-such-package" \
	>"$tmp/nodep" 2>&1
rc=$?
{
	echo "exit $rc"
	[ "$sum" = "$(md5sum "$tool" "$dkms" 2>&1)" ] || echo "the packages changed"
} >>"$tmp/nodep"
grep -qx 'exit 2' "$tmp/nodep" &&
	grep -qx 'kvperf: make deb needs Debian packages that are not installed: kvperf-no-such-package' "$tmp/nodep" &&
	grep -qx 'kvperf: install them with: sudo apt-get install kvperf-no-such-package' "$tmp/nodep" &&
	! grep -q 'packages changed\|DIST\|DPKG' "$tmp/nodep"
result $? "make deb without a build dependency names it and its apt-get line, builds nothing" \
	"$(diag "$tmp/nodep")"

# contents: the tool's three files; the module's sources, each file of
# the tree's and nothing else, and the dkms.conf
{
	dpkg-deb -c "$tool" | awk '{ print $6 }' >"$tmp/tool.list"
	for f in usr/sbin/kvperf usr/share/man/man8/kvperf.8.gz \
		 usr/share/bash-completion/completions/kvperf; do
		grep -qx "\./$f" "$tmp/tool.list" || echo "kvperf: no $f"
	done
	grep '^\./usr/src/' "$tmp/tool.list" | sed 's/^/kvperf: /'
	dpkg-deb -c "$dkms" | awk '{ print $6 }' |
		sed -n "s,^\./usr/src/kvperf-$version/,,p" | grep -v -e '/$' -e '^$' |
		sort >"$tmp/dkms.list"
	{ git -C "$src" ls-files Kbuild kmod include/uapi; echo dkms.conf; } |
		sort | diff -u - "$tmp/dkms.list"
} >"$tmp/contents" 2>&1
[ ! -s "$tmp/contents" ]
result $? "the packages hold the tool, man page, completion; the module sources, dkms.conf" \
	"$(diag "$tmp/contents")"

{
	dep=$(dpkg-deb -f "$tool" Depends)
	echo "kvperf Depends: $dep"
	for lib in libnl-genl-3-200 libibverbs1 librdmacm1; do
		grep -qw "$lib" <<<"$dep" || echo "kvperf does not depend on $lib"
	done
	grep -qw dkms <<<"$dep" && echo "kvperf depends on dkms"
	dep=$(dpkg-deb -f "$dkms" Depends)
	echo "kvperf-dkms Depends: $dep"
	grep -qw dkms <<<"$dep" || echo "kvperf-dkms does not depend on dkms"
} >"$tmp/deps" 2>&1
! grep -q ' depend' "$tmp/deps"
result $? "kvperf depends on libnl-genl-3-200, libibverbs1, librdmacm1; kvperf-dkms on dkms" \
	"$(diag "$tmp/deps")"

root=$tmp/root
dpkg-deb -x "$dkms" "$root" 2>"$tmp/conf"
conf=$root/usr/src/kvperf-$version/dkms.conf
{
	cat "$conf"
	for want in 'PACKAGE_NAME="kvperf"' "PACKAGE_VERSION=\"$version\"" \
		    'BUILT_MODULE_NAME\[0\]="kvperf"' \
		    'BUILT_MODULE_LOCATION\[0\]="kmod/"' 'AUTOINSTALL="yes"'; do
		grep -qx "$want" "$conf" || echo "missing: $want"
	done
} >>"$tmp/conf" 2>&1
! grep -q '^missing' "$tmp/conf" && [ -s "$conf" ]
result $? "dkms.conf names kvperf $version, kmod/kvperf.ko, AUTOINSTALL" \
	"$(diag "$tmp/conf")"

# overridden tags (each with its reason in debian/*.lintian-overrides)
# are not shown; anything else is a finding
lintian --pedantic "$deb"/kvperf_*.changes >"$tmp/lintian" 2>&1
grep -E '^[EWIPX]: ' "$tmp/lintian" >"$tmp/tags"
[ ! -s "$tmp/tags" ]
result $? "lintian --pedantic: no tag but the overridden" "$(diag "$tmp/lintian")"

# DKMS as the package's postinst runs it, in a private tree
dkms_args=(-m kvperf -v "$version" --dkmstree "$tmp/dkms"
	   --sourcetree "$root/usr/src" --installtree "$tmp/lib")
mkdir -p "$tmp/dkms" "$tmp/lib"
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub
dkms add "${dkms_args[@]}" >"$tmp/add.log" 2>&1
for k in "${dkms_kernels[@]}"; do
	log=$tmp/dkms-$k.log
	cp "$tmp/add.log" "$log"
	{
		dkms build "${dkms_args[@]}" -k "$k" &&
			dkms status "${dkms_args[@]}" -k "$k" | tee "$tmp/status"
		ko=$(find "$tmp/dkms/kvperf/$version/$k" -name 'kvperf.ko*')
		echo "module: ${ko:-none}"
		[ -n "$ko" ] && modinfo -F vermagic "$ko"
	} >>"$log" 2>&1
	grep -q ": built$" "$tmp/status" 2>/dev/null &&
		grep -q "^$k " "$log"
	result $? "DKMS builds kvperf.ko from kvperf-dkms for $k" "$(diag "$log")"
	rm -f "$tmp/status"
done
[ "$fail" -eq 0 ]
