#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the release of the newest installed Debian kernel of each series
# kvperf is tested on (6.1 and 6.12), one per line, for which both the
# image and the headers are installed.
set -eu
for series in 6.1 6.12; do
	ls -d /usr/src/linux-headers-"$series".*-amd64 2>/dev/null |
		sed 's,^/usr/src/linux-headers-,,' | grep -Ev -- '-(cloud|rt)-' |
		while read -r kver; do
			[ -e "/boot/vmlinuz-$kver" ] && echo "$kver"
		done | sort -V | tail -n 1
done
