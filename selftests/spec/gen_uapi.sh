#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Generate the UAPI header from the netlink spec with the kernel's own
# ynl-gen-c.py, taken from the linux-source package.
#   gen_uapi.sh KSRC SPEC OUT
# ynl looks for the schema next to the spec and for the kernel root above
# it, so the spec is staged inside the extracted tree first.
set -eu
ksrc=$1 spec=$2 out=$3
python=${PYTHON:-/usr/bin/python3}

stage=$ksrc/Documentation/netlink/specs
mkdir -p "$stage"
cp "$spec" "$stage/"
"$python" "$ksrc/tools/net/ynl/ynl-gen-c.py" --mode uapi --header \
	--spec "$(cd "$stage" && pwd)/$(basename "$spec")" -o "$out"
