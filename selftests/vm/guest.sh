#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the vmtest guest, started by init.sh after switch_root. Sets up
# two Soft-RoCE devices on dummy netdevs, loads kvperf.ko, runs what
# vmtest.sh asked for (its run directory holds the request), saves the exit
# status and the kernel log there, and powers off.
#
# Channels: ttyS0 is the kernel console (a file on the host), ttyS1 the
# host's stdout (and the terminal in shell mode), ttyS2 the host's stderr.

set -u

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

top=
run=
# shellcheck disable=SC2013 # the command line is one line of words
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	kvtop=*) top=${arg#kvtop=} ;;
	kvrun=*) run=${arg#kvrun=} ;;
	esac
done

poweroff_now() {
	sync
	/bin/busybox poweroff -f 2>/dev/null
	echo o >/proc/sysrq-trigger
	sleep 10
}

if [ -z "$run" ] || [ ! -r "$run/config" ]; then
	echo "vmtest-guest: no run directory (kvrun=$run)" >/dev/ttyS1
	poweroff_now
fi

# Written by vmtest.sh: MODE (run, suite, shell), KVER, KO, CWD, ROWS,
# COLS, TERM_HOST, and maybe TIME_SCALE, RXE_KO (the DMA lane's
# Soft-RoCE, loaded instead of the kernel's own) and CLOCK (icount for
# vmtest.sh -i, wall otherwise).
# shellcheck source=/dev/null
. "$run/config"

# The setup's own waits grow with the suite's time scale (a positive
# integer; 1 when the config has none or a bad one).
time_scale=${TIME_SCALE:-1}
case "$time_scale" in
'' | *[!0-9]* | 0) time_scale=1 ;;
esac

set_phase() {
	echo "$1" >"$run/phase"
}

finish() {
	local status=$1

	dmesg >"$run/dmesg" 2>&1
	echo "$status" >"$run/status"
	set_phase finished
	poweroff_now
}

out=/dev/ttyS1
err=/dev/ttyS2
[ "$MODE" = shell ] && err=$out
# Held open from here on: a tty forgets its window size when closed.
exec >"$err" 2>&1 </dev/null
if [ "$MODE" = shell ]; then
	stty -F "$out" sane 115200 rows "$ROWS" cols "$COLS"
else
	# Byte-exact output: no CR before LF.
	stty -F "$out" raw -echo 115200
	stty -F "$err" raw -echo 115200
fi

fail_setup() {
	echo "$*" >"$run/setup-failed"
	finish 1
}

set_phase setup
hostname kvperf-vm
ip link set lo up
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
ln -sf /proc/self/fd /dev/fd
# as udev makes them: the kselftest runner writes its tests' output to
# /dev/stdout (without the link, into a file of that name)
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr

# A four-guest run (selftests/vmcluster.sh): its NIC, names and services
# (started in the background, while the modules below load).
if [ -n "${CLUSTER_NAME:-}" ]; then
	# shellcheck source=selftests/vm/cluster.sh
	. "$top/selftests/vm/cluster.sh"
	cluster_start
fi

# In parallel: loading ib_core and friends is most of the setup time.
modprobe rdma_ucm &
ucm=$!
modprobe dummy || fail_setup "modprobe dummy"
if [ -n "${RXE_KO:-}" ]; then
	# What the patched driver needs, then the driver; its name is the
	# stock one's, so that "rdma link add ... type rxe" finds it loaded.
	deps=$(modinfo -F depends "$RXE_KO") ||
		fail_setup "modinfo $RXE_KO"
	# shellcheck disable=SC2046 # one module name per word
	modprobe -a $(tr , ' ' <<<"$deps") ||
		fail_setup "modprobe the DMA lane's dependencies ($deps)"
	insmod "$RXE_KO" || fail_setup "insmod $RXE_KO"
else
	modprobe rdma_rxe || fail_setup "modprobe rdma_rxe"
fi
wait "$ucm" || fail_setup "modprobe rdma_ucm"

# shellcheck source=selftests/kvperf/swdev.sh
. "$top/selftests/kvperf/swdev.sh"
kv_sw_netdevs_add || fail_setup "creating the dummy netdevs kvd0, kvd1"
why=$(kv_sw_rxe_add) || fail_setup "$why"
# On the DMA lane each device says which PCI function it maps through;
# without one it is not created at all.
if [ -n "${RXE_KO:-}" ]; then
	for i in 0 1; do
		dmesg | grep -q "rdma_rxe (DMA lane): kvd$i maps DMA through " ||
			fail_setup "rxe$i does not map DMA through an IOMMU:" \
				"$(dmesg | grep 'DMA lane' | tail -n 3)"
	done
fi

why=$(kv_sw_ready "$((10 * time_scale))") || fail_setup "$why"

# A two-guest run (selftests/vmpair.sh): the link to the other guest.
if [ -n "${PAIR_ROLE:-}" ]; then
	# shellcheck source=selftests/vm/pair.sh
	. "$top/selftests/vm/pair.sh"
	pair_setup
fi
[ -n "${CLUSTER_NAME:-}" ] && cluster_setup

if [ -n "$KO" ]; then
	insmod "$KO" || fail_setup "insmod $KO"
fi

# From here on, every kernel message below debug level also lands in the
# console file, so a guest that hangs still leaves its log behind.
echo 7 >/proc/sys/kernel/printk

# the tests' knobs vmtest.sh passed on (its list)
# shellcheck source=/dev/null
[ -r "$run/env" ] && . "$run/env"
export KVPERF_KVER=$KVER
export KVPERF_TOP=$top
export KVPERF_KO=$KO
export KVPERF_RUNDIR=$run
kv_sw_export
export KVPERF_VM=1
# 1 on the DMA lane (vmtest.sh -d): DMA addresses are IOMMU addresses.
export KVPERF_DMA_LANE=$([ -n "${RXE_KO:-}" ] && echo 1 || echo 0)
# 1 on the bounce-buffer lane (vmtest.sh -b): swiotlb bounces every mapping.
export KVPERF_BOUNCE_LANE=${BOUNCE:-0}
export KVPERF_TIME_SCALE=$time_scale
# the harness's usual scale (selftests/vm/defaults.sh), against which a
# test tells a guest slowed further (a debug kernel's)
# shellcheck source=selftests/vm/defaults.sh
. "$top/selftests/vm/defaults.sh"
export KVPERF_USUAL_TIME_SCALE=$vm_default_time_scale
export KVPERF_CLOCK=${CLOCK:-wall}
export KVPERF_MARK=${MARK:-}
# vmtest.sh -p: the symbols that name the profiler's addresses, the
# module's included.
if [ -n "$KVPERF_MARK" ]; then
	cat /proc/kallsyms >"$run/kallsyms" || fail_setup "reading /proc/kallsyms"
fi
export HOME=/root
export PATH=$top/user:$PATH

echo "# vmtest: kernel $(uname -r)," \
	"rxe0 on kvd0 $KVPERF_ADDR0/24 $KVPERF_ADDR6_0/64," \
	"rxe1 on kvd1 $KVPERF_ADDR1/24 $KVPERF_ADDR6_1/64," \
	"module ${KO:-(none)}${RXE_KO:+, DMA lane (rdma_rxe behind an IOMMU)}"

[ -n "${PAIR_ROLE:-}" ] && pair_export && pair_ready
[ -n "${CLUSTER_NAME:-}" ] && cluster_export && cluster_ready

if ! cd "$CWD" 2>/dev/null; then
	cd "$top" || cd /
fi

set_phase running
# The guest's commands write to a serial line, a terminal to them: the
# host's own stdout decides (TERM_HOST is dumb when that is a file or a
# pipe), so progress lines carry no control sequences into logs.
export TERM=$TERM_HOST
case "$MODE" in
run)
	bash "$run/cmd" >"$out" 2>"$err" </dev/null
	status=$?
	;;
suite)
	# A copy of the KTAP stream for vmtest.sh's summary.
	bash "$top/selftests/kvperf/run.sh" 2>"$err" </dev/null |
		tee "$run/ktap" >"$out"
	status=${PIPESTATUS[0]}
	;;
shell)
	cat >/tmp/vmtest.bashrc <<-EOF
		[ -r /etc/bash.bashrc ] && . /etc/bash.bashrc
		PS1='kvperf-vm:\w\\$ '
		PATH=$PATH
		echo "# vmtest: exit the shell to power off"
	EOF
	# setsid -c makes ttyS1 the shell's controlling terminal (job
	# control, ^C reaches the foreground job, not PID 1).
	# shellcheck disable=SC2094 # a terminal, not a file
	setsid -w -c bash --rcfile /tmp/vmtest.bashrc -i \
		<"$out" >"$out" 2>&1
	status=$?
	;;
*)
	echo "vmtest-guest: unknown mode $MODE"
	status=125
	;;
esac
finish "$status"
