#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install DESTDIR=... PREFIX=/usr puts the tool in sbin, the man
# page in share/man/man8 (where man finds it), the completion in
# share/bash-completion/completions and the module under lib/modules/
# KVER/extra (where depmod and modprobe find it; with version 0.1.0 and
# the parameters the modprobe.d example of the man page and the README
# sets); make uninstall with the same variables leaves no file behind;
# PREFIX defaults to /usr/local. The module's part is skipped without kernel headers. Needs
# no root: everything goes under a temporary DESTDIR. KTAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/kvperf-install.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root

# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"

# skip DESC REASON
skip() {
	n=$((n + 1))
	echo "ok $n $1 # SKIP $2"
}

echo "TAP version 13"
echo "1..9"

kver=$(make -s -C "$top" --no-print-directory kdir 2>/dev/null |
	sed -n 's/^kvperf: building against \([^ ]*\) .*/\1/p')

if [ -n "$kver" ]; then
	target=install
else
	target=install-tools
fi
make -s -C "$top" "$target" DESTDIR="$dest" PREFIX=/usr \
	>"$tmp/install.log" 2>&1
result $? "make $target DESTDIR=... PREFIX=/usr" "$(diag "$tmp/install.log")"

{
	[ -x "$dest/usr/sbin/kvperf" ] || echo "no usr/sbin/kvperf"
	"$dest/usr/sbin/kvperf" -V | grep -qx "kvperf $("$top/user/version.sh")" ||
		echo "usr/sbin/kvperf -V is not this tree's version"
} >"$tmp/tool" 2>&1
[ ! -s "$tmp/tool" ]
result $? "the tool is usr/sbin/kvperf, of this tree's version" "$(diag "$tmp/tool")"

MANPATH=$dest/usr/share/man man -w kvperf >"$tmp/man" 2>&1 &&
	grep -qx "$dest/usr/share/man/man8/kvperf.8" "$tmp/man"
result $? "the man page is usr/share/man/man8/kvperf.8, and man -w finds it" \
	"$(diag "$tmp/man")"

comp=$dest/usr/share/bash-completion/completions/kvperf
bash --norc --noprofile -c '. "$1" && COMP_WORDS=(kvperf "") COMP_CWORD=1 &&
	_kvperf && echo "${COMPREPLY[*]}"' _ "$comp" >"$tmp/comp" 2>&1 &&
	grep -qw run "$tmp/comp"
result $? "the completion is usr/share/bash-completion/completions/kvperf, and works" \
	"$(diag "$tmp/comp")"

if [ -z "$kver" ]; then
	skip "the module is under lib/modules/KVER/extra and depmod finds it" \
		"no kernel headers"
	skip "the module's parameters are those of the modprobe.d example (man page, README)" \
		"no kernel headers"
	skip "the installed module has none of the tests' fault hooks" \
		"no kernel headers"
else
	ko=$(find "$dest/lib/modules/$kver/extra" -name 'kvperf.ko*' 2>/dev/null)
	{
		echo "installed: ${ko:-nothing}"
		# a copy, so that depmod's files do not count as installed
		mkdir -p "$tmp/modroot" && cp -a "$dest/lib" "$tmp/modroot/" &&
			depmod -b "$tmp/modroot" "$kver" 2>/dev/null &&
			modprobe -d "$tmp/modroot" -S "$kver" --show-depends \
				kvperf
	} >"$tmp/mod" 2>&1
	[ -n "$ko" ] && grep -q "^insmod $tmp/modroot/lib/modules/$kver/extra/.*kvperf\.ko" \
		"$tmp/mod"
	result $? "the module is under lib/modules/$kver/extra and depmod finds it" \
		"$(diag "$tmp/mod")"

	# the options line of the example, the same in the README, and
	# every parameter the module has
	sed -n 's/^ *options kvperf //p' "$top/Documentation/kvperf.8.rst" \
		>"$tmp/options"
	sed -n 's/^options kvperf //p' "$top/README.md" >"$tmp/readme"
	tr ' ' '\n' <"$tmp/options" | sed 's/=.*//' | sort >"$tmp/example"
	{
		diff -u "$tmp/options" "$tmp/readme"
		modinfo -F parm "$ko" | sed 's/:.*//' | sort >"$tmp/parms"
		diff -u "$tmp/parms" "$tmp/example"
		modinfo -F version "$ko" | grep -qx "$("$top/user/version.sh" |
			sed 's/+.*//')" || echo "modinfo version is not the release's"
	} >"$tmp/parm" 2>&1
	[ -s "$tmp/parms" ] && [ ! -s "$tmp/parm" ]
	result $? "the module's parameters are those of the modprobe.d example (man page, README)" \
		"$(diag "$tmp/parm")"

	# The tests' fault injection (kmod/faults.c) is built into make
	# vm-module's module only: an installed one has none of its debugfs
	# files' names.
	case $ko in
	*.xz) xz -dc "$ko" ;;
	*.zst) zstd -qdc "$ko" ;;
	*) cat "$ko" ;;
	esac >"$tmp/kvperf.ko" 2>"$tmp/faults"
	for hook in stall_servers corrupt_payloads inline_dma_addresses page_chunks \
		    slow_accepts; do
		grep -aq "$hook" "$tmp/kvperf.ko" &&
			echo "the installed module has the fault hook $hook"
	done >>"$tmp/faults"
	[ -s "$tmp/kvperf.ko" ] && [ ! -s "$tmp/faults" ]
	result $? "the installed module has none of the tests' fault hooks" \
		"$(diag "$tmp/faults")"
fi

make -s -C "$top" "un$target" DESTDIR="$dest" PREFIX=/usr \
	>"$tmp/uninstall.log" 2>&1 &&
	find "$dest" ! -type d >>"$tmp/uninstall.log" 2>&1 &&
	[ -z "$(find "$dest" ! -type d)" ]
result $? "make un$target with the same variables leaves no file" \
	"$(diag "$tmp/uninstall.log")"

rm -rf "$dest"
{
	make -s -C "$top" install-tools DESTDIR="$dest" &&
		find "$dest" ! -type d | sed "s,^$dest,," | sort &&
		make -s -C "$top" uninstall-tools DESTDIR="$dest" &&
		find "$dest" ! -type d
} >"$tmp/local" 2>&1
cat >"$tmp/want" <<'EOF'
/usr/local/sbin/kvperf
/usr/local/share/bash-completion/completions/kvperf
/usr/local/share/man/man8/kvperf.8
EOF
grep '^/' "$tmp/local" | diff -u "$tmp/want" - >"$tmp/local.diff" 2>&1
rc=$?
cat "$tmp/local.diff" >>"$tmp/local"
result $rc "PREFIX defaults to /usr/local, and uninstall-tools removes it all" \
	"$(diag "$tmp/local")"
[ "$fail" -eq 0 ]
