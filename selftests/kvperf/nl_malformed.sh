#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nl_malformed (raw malformed netlink requests, kselftest_harness) on the
# suite's devices and module: this wrapper provides them (SW mode creates
# the devices when none are configured, see lib.sh) and runs the
# program, whose KTAP is the test's.

# shellcheck source=selftests/kvperf/lib.sh
. "$(dirname "$0")/lib.sh"

ktap_print_header
kv_require_devices
kv_require_module
[ -x "$KV_DIR/nl_malformed" ] ||
	kv_skip_all "$KV_DIR/nl_malformed is not built (make -C selftests/kvperf)"

# the header is printed: the program prints none (kselftest.h)
KSFT_TAP_LEVEL=1 "$KV_DIR/nl_malformed"
