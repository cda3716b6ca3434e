# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# make_deb SRC LOG, for deb.sh and deb_install.sh: make deb in a clean
# clone of HEAD of the tree at $top, in SRC, its output in LOG; sets
# version (the packages' upstream version), deb (their folder), tool and
# dkms (the paths of kvperf's and kvperf-dkms's .deb, which exist when
# the build worked). With KVPERF_DEB_TREE (and KVPERF_DEB_LOG) set, the
# build packaging/run.sh made once for all its scripts: SRC is a link
# to it, and LOG a copy of its log.
# shellcheck disable=SC2034 # the callers' variables
make_deb() {
	if [ -n "${KVPERF_DEB_TREE:-}" ]; then
		ln -s "$KVPERF_DEB_TREE" "$1" && cp "${KVPERF_DEB_LOG:?}" "$2"
	else
		{
			git clone -q "${top:?}" "$1" &&
				git -C "$1" checkout -q --detach "$(git -C "$top" rev-parse HEAD)" &&
				make -s -C "$1" deb
		} >"$2" 2>&1
	fi
	# by the tree's real path: version.sh asks git for its top, which
	# a link's path is not
	version=$("$(readlink -f "$1")/user/version.sh" 2>/dev/null)
	deb=$1/build/deb
	tool=$deb/kvperf_${version}-1_$(dpkg --print-architecture).deb
	dkms=$deb/kvperf-dkms_${version}-1_all.deb
	ls "$deb" >>"$2" 2>&1
}
