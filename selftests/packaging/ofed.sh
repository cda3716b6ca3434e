#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make OFED=DIR, for a host with MLNX_OFED: as far as a host without it
# can tell, on a fake ofa_kernel tree (include/linux/compat-2.6.h,
# include/uapi/, Module.symvers). For each tested Debian kernel, with
# make -n (nothing is compiled): kbuild compiles kmod/ with the
# compat header first and OFED's include/ and include/uapi/ before the
# kernel's headers, and modpost reads OFED's Module.symvers; without
# OFED, none of that. Then: an OFED without Module.symvers is an error
# that says so; make dkms OFED=DIR passes it on in dkms.conf. KTAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/kvperf-ofed.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"

mapfile -t kernels < <("$top/selftests/kernels.sh" 2>/dev/null)

echo "TAP version 13"
echo "1..$((2 * ${#kernels[@]} + 2))"

ofed=$tmp/ofa_kernel/default
mkdir -p "$ofed/include/linux" "$ofed/include/uapi"
: >"$ofed/include/linux/compat-2.6.h"
: >"$ofed/Module.symvers"

# the module's sources, as DKMS gets them, with the modules.order of a
# build, which make -n does not write and modpost wants
src=$tmp/src
make -s -C "$top" dkms >"$tmp/dkms.log" 2>&1
cp -R "$top"/build/dkms/kvperf-* "$src" 2>>"$tmp/dkms.log"
: >"$src/modules.order"

want="-include $ofed/include/linux/compat-2.6.h -I$ofed/include -I$ofed/include/uapi"
for k in "${kernels[@]}"; do
	log=$tmp/$k.log
	make -n -C "/lib/modules/$k/build" M="$src" OFED="$ofed" modules \
		>"$log" 2>&1
	line=$(grep -m 1 -- '-c -o .*kmod/main\.o' "$log")
	{
		echo "compiles: ${line:0:400}"
		# OFED's flags, then the kernel's first include (its arch/)
		grep -qE -- "-nostdinc +$want +-I[^ ]*arch/" <<<"$line" ||
			echo "not first: $want"
	} >>"$log"
	grep -q -- "-i $ofed/Module.symvers" "$log" && ! grep -q '^not first' "$log"
	result $? "$k: OFED's headers first, its Module.symvers to modpost" \
		"$(diag "$log")"

	make -n -C "/lib/modules/$k/build" M="$src" modules >"$log" 2>&1
	! grep -q "$ofed" "$log" && grep -q -- '-c -o .*kmod/main\.o' "$log"
	result $? "$k: without OFED, the kernel's own" "$(diag "$log")"
done

rm "$ofed/Module.symvers"
! make -n -C "$top" modules OFED="$ofed" >"$tmp/nosymvers.log" 2>&1 &&
	grep -q "OFED=$ofed has no Module.symvers" "$tmp/nosymvers.log"
result $? "an OFED without Module.symvers is an error that says so" \
	"$(diag "$tmp/nosymvers.log")"

make -s -C "$top" dkms OFED="$ofed" >>"$tmp/dkms.log" 2>&1
grep -h '^MAKE\[0\]' "$top"/build/dkms/kvperf-*/dkms.conf >>"$tmp/dkms.log" 2>&1
grep -q "^MAKE\[0\]=.* OFED=$ofed modules\"$" "$tmp/dkms.log"
result $? "make dkms OFED=... passes it to DKMS's build" "$(diag "$tmp/dkms.log")"
# leave build/dkms as make dkms leaves it
make -s -C "$top" dkms >/dev/null 2>&1
[ "$fail" -eq 0 ]
