#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Generate C from the netlink spec with the kernel's own ynl-gen-c.py,
# taken from the linux-source package.
#   ynl_gen.sh KSRC SPEC OUT [MODE ARGS...]
# MODE ARGS default to "--mode uapi --header" (the UAPI header, make uapi);
# spec_test.sh also asks for "--mode user --header" and "--source".
# ynl looks for the schema next to the spec and for the kernel root above
# it (a tree with MAINTAINERS; elsewhere it searches for ever), so the
# spec is staged inside the extracted tree first.
set -eu
ksrc=$1 spec=$2 out=$3
shift 3
[ $# -gt 0 ] || set -- --mode uapi --header
python=${PYTHON:-/usr/bin/python3}

stage=$ksrc/Documentation/netlink/specs
mkdir -p "$stage"
cp "$spec" "$stage/"
"$python" "$ksrc/tools/net/ynl/ynl-gen-c.py" "$@" \
	--spec "$(cd "$stage" && pwd)/$(basename "$spec")" -o "$out"
