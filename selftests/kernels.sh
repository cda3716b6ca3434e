#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the release of the newest installed Debian kernel of each series
# kvperf is tested on (6.1 and 6.12), one per line, for which both the
# image and the headers are installed.
#
# --require: print them the same way, but exit 1, naming each series
# that has no such kernel on stderr, unless every series has one.
#
# KVPERF_BOOT_DIR and KVPERF_HEADERS_DIR (default /boot and /usr/src)
# say where to look; the harness tests point them at fakes.
set -eu
series_list="6.1 6.12"
boot=${KVPERF_BOOT_DIR:-/boot}
hdrs=${KVPERF_HEADERS_DIR:-/usr/src}
require=
case "${1:-}" in
--require) require=1 ;;
'') ;;
*) echo "usage: $0 [--require]" >&2; exit 2 ;;
esac

missing=()
for series in $series_list; do
	kver=$(ls -d "$hdrs/linux-headers-$series".*-amd64 2>/dev/null |
		sed "s,^$hdrs/linux-headers-,," | grep -Ev -- '-(cloud|rt)-' |
		while read -r kver; do
			[ -e "$boot/vmlinuz-$kver" ] && echo "$kver"
		done | sort -V | tail -n 1)
	if [ -n "$kver" ]; then
		echo "$kver"
	else
		missing+=("$series")
	fi
done
if [ -n "$require" ] && [ ${#missing[@]} -gt 0 ]; then
	for series in "${missing[@]}"; do
		echo "kernels: no Debian $series kernel with headers" \
		     "($boot/vmlinuz-$series.*, $hdrs/linux-headers-$series.*-amd64);" \
		     "make deps installs it" >&2
	done
	exit 1
fi
exit 0
