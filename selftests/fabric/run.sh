#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The four-guest suite (selftests/vmcluster.sh runs it in kvc0, once the
# cluster is ready): selftests/suite_run.sh runs this folder's plan, one
# KTAP stream. The other guests only serve (sshd, slurmd, kvperf.ko):
# the tests reach them over ssh, pdsh and Slurm.
#
# usage: run.sh [TEST...]

set -u

dir=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
KV_SUITE_DIR=$dir KV_SUITE=fabric exec bash "$dir/../suite_run.sh" "$@"
