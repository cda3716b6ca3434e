#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The version of this tree, one line: what kvperf -V prints and what
# make dist names its tarball after. The module's KVPERF_VERSION
# (kmod/kvperf.h) is the release; a tag vX.Y.Z names a release, and
# anything else is the last release plus the commit:
#   v0.2.0 (tagged)          0.2.0
#   3 commits after v0.2.0   0.2.0+3.gabc1234
#   no tag                   0.1.0+gabc1234
#   uncommitted changes      ... .dirty appended
# Outside git (a tarball of make dist) it is the VERSION file the
# tarball carries; failing that, the module's version.
top=$(cd "$(dirname "$0")/.." && pwd)
base=$(sed -n 's/^#define KVPERF_VERSION[[:space:]]*"\(.*\)"/\1/p' \
	"$top/kmod/kvperf.h")

# only this tree's own git, never that of a folder it was unpacked in
if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" != "$top" ]; then
	if [ -s "$top/VERSION" ]; then
		cat "$top/VERSION"
	else
		echo "${base:-unknown}"
	fi
	exit 0
fi

d=$(git -C "$top" describe --tags --always --dirty --match 'v[0-9]*')
dirty=
case $d in
*-dirty) d=${d%-dirty} dirty=.dirty ;;
esac
case $d in
v[0-9]*-[0-9]*-g*)	# v0.2.0-3-gabc1234
	rest=${d#v}
	hash=${rest##*-}
	rest=${rest%-*}
	echo "${rest%-*}+${rest##*-}.$hash$dirty"
	;;
v[0-9]*)
	echo "${d#v}$dirty"
	;;
*)
	echo "$base+g$d$dirty"
	;;
esac
