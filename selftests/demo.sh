#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: install what is missing, build, boot a VM with two Soft-RoCE
# devices and show them as kvperf sees them, next to ibv_devinfo's view.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

selftests/deps.sh --check >/dev/null || selftests/deps.sh
echo "demo: building"
make -s all
# shellcheck disable=SC2016 # expanded in the guest
exec selftests/vmtest.sh -- bash -c '
set -e
echo "== kvperf dev show (the kernel module'\''s view)"
kvperf dev show
echo
echo "== kvperf -j -p dev show $KVPERF_DEV0"
kvperf -j -p dev show "$KVPERF_DEV0"
echo
echo "== ibv_devinfo -d $KVPERF_DEV0 (libibverbs'\'' view, for comparison)"
ibv_devinfo -d "$KVPERF_DEV0"
'
