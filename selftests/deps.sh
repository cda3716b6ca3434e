#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package kvperf needs to build, lint and test, and
# say what was installed. Idempotent: installs only what is missing.
# With --check, install nothing and exit 1 when something is missing.
set -eu

pkgs=(
	# build: module and tool
	make gcc libc6-dev pkg-config kmod
	linux-headers-amd64 linux-headers-6.12-amd64
	libnl-3-dev libnl-genl-3-dev libibverbs-dev librdmacm-dev
	# lint, spec and UAPI checks (checkpatch, ynl and the kselftest
	# headers come from the kernel source package)
	sparse linux-source-6.12 xz-utils perl python3 python3-yaml
	python3-jsonschema
	# the VM: kernels to boot, QEMU, initramfs tools
	linux-image-amd64 linux-image-6.12-amd64
	qemu-system-x86 busybox-static cpio
	# RDMA user space used inside the VM to cross-check kvperf
	rdma-core ibverbs-utils ibverbs-providers rdmacm-utils perftest
	infiniband-diags iproute2 util-linux procps
	# the plots of kvperf compare
	gnuplot-nox
	# the kernel's kselftest lib.mk installs with rsync
	rsync
	# selftests/kvperf/compare.sh: the programs kvperf compare runs
	strace
	# the man page: rst2man (make man, make install)
	python3-docutils
	# make deb: Debian's package tools, DKMS (the packaging tests
	# build the module with it in a private tree) and lintian
	dpkg-dev debhelper dh-dkms dkms lintian
	# make check-debug builds a kernel from linux-source-6.12
	bc flex bison libelf-dev libssl-dev
	# the two-guest suite's HW-mode test: one guest reaches the other's
	# sshd (started there by the test, with keys made for the run)
	openssh-client openssh-server
	# kvperf fabric: reads the hosts' JSON lines with json-c; its
	# four-guest test launches with pdsh (over ssh) and Slurm (munge
	# authenticates, slurmctld on one guest, slurmd on each)
	libjson-c-dev pdsh slurmctld slurmd slurm-client munge
)

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages are installed"
	exit 0
fi
if [ "${1:-}" = "--check" ]; then
	echo "deps: missing: ${missing[*]}"
	exit 1
fi

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# the VM boots its own tiny initramfs; skip building Debian's
export INITRD=No
# update only when the lists are empty or older than a day
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
	$sudo apt-get update -qq
fi
# Nothing installed here starts a service on this machine (openssh-server
# would start sshd): Debian's policy-rc.d answers "not now" (101) for the
# install, unless the machine has its own policy.
policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
	$sudo chmod 755 "$policy"
	trap '$sudo rm -f "$policy"' EXIT
fi
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: installed ${missing[*]}${policy:+ (no service started)}"
