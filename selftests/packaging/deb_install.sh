#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packages installed for real, as an admin installs them (README,
# "Installing the packages"): make deb in a clean clone of HEAD, then
# apt-get install ./kvperf_*.deb ./kvperf-dkms_*.deb on this machine.
# Checks that dkms status shows kvperf installed for each tested Debian
# kernel (selftests/kernels.sh); that a VM of each kernel loads the
# DKMS-built module with modprobe kvperf (its file under updates/dkms,
# its srcversion the one DKMS built, the tree's module not loaded) and
# passes a smoke run with the installed /usr/sbin/kvperf; that man -w
# kvperf finds the page; that the installed completion offers dev,
# server, run after "kvperf " and send, write, read after
# "kvperf run lat op "; then apt-get purge and that nothing is left:
# no file of either package, no dkms entry, no module under
# /lib/modules, no modules.dep line, no new file anywhere under /usr,
# /etc, /lib/modules or /var/lib/dkms.
#
# Needs root and installs system-wide, so it runs only where that is
# wanted: as root (CI), with neither package installed beforehand (it
# would replace an admin's install), and with the packages' dependencies
# present (make deps); otherwise a KTAP SKIP that says why. An exit trap
# purges whatever it installed. About six minutes on two cores: the
# packages, two DKMS builds, a VM boot per kernel. KTAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/kvperf-debinst.XXXXXX) || exit 1
installed=
cleanup() {
	[ -n "$installed" ] &&
		apt-get purge -y kvperf kvperf-dkms >"$tmp/trap-purge.log" 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"
# shellcheck source=selftests/packaging/make_deb.sh
. "$top/selftests/packaging/make_deb.sh"

mapfile -t kernels < <("$top/selftests/kernels.sh" 2>/dev/null)

skip() {
	echo "1..0 # SKIP $*"
	exit 0
}

echo "TAP version 13"
[ "$(id -u)" = 0 ] || skip "not root: it installs the packages system-wide"
if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" != "$top" ]; then
	skip "not a git checkout (make deb packages one)"
fi
for p in kvperf kvperf-dkms; do
	if dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null |
	   grep -qv '^not-installed$'; then
		skip "$p is installed here; it would be replaced and purged"
	fi
done
for tool in apt-get dpkg-buildpackage dh_dkms dkms man qemu-system-x86_64; do
	command -v "$tool" >/dev/null || skip "no $tool (make deps)"
done
[ ${#kernels[@]} -gt 0 ] || skip "no Debian kernel with headers (make deps)"
echo "1..$((4 + 2 * ${#kernels[@]}))"

# files NAME: the names of every file and folder where a package or DKMS
# could leave something
files() {
	find /usr /etc /lib/modules /var/lib/dkms -xdev 2>/dev/null | sort >"$tmp/$1"
}

make_deb "$tmp/src" "$tmp/deb.log"
files before
installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y "$tool" "$dkms" \
	>>"$tmp/deb.log" 2>&1
rc=$?
dpkg-query -W -f '${Package} ${Version} ${db:Status-Status}\n' \
	kvperf kvperf-dkms >"$tmp/status" 2>&1
cat "$tmp/status" >>"$tmp/deb.log"
[ "$rc" = 0 ] && [ "$(grep -c " $version-1 installed$" "$tmp/status")" = 2 ]
result $? "apt-get install ./kvperf_$version-1 ./kvperf-dkms_$version-1 (from make deb)" \
	"$(diag "$tmp/deb.log")"

# The postinst builds for every kernel in /lib/modules when the running
# one has none there (a build host, as CI's), else for the running and
# the newest only; a kernel it left out gets dkms autoinstall -k, as
# README says an admin runs it. Both ways the module is the package's.
for k in "${kernels[@]}"; do
	log=$tmp/dkms-$k.log
	{
		echo "postinst: $(grep -m1 '^Building for ' "$tmp/deb.log")"
		if ! dkms status -m kvperf -v "$version" -k "$k" | grep -q ': installed$'; then
			echo "not built by the postinst: dkms autoinstall -k $k"
			dkms autoinstall -k "$k"
		fi
		dkms status -m kvperf -k "$k" | tee "$tmp/dkms-status"
		ko=$(modinfo -k "$k" -n kvperf)
		echo "modinfo -k $k -n kvperf: $ko"
		[[ $ko == "/lib/modules/$k/updates/dkms/kvperf.ko"* ]] || echo "not DKMS's"
	} >"$log" 2>&1
	grep -qx "kvperf/$version, $k, x86_64: installed" "$tmp/dkms-status" &&
		! grep -q "^not DKMS's" "$log"
	result $? "dkms status: kvperf $version installed for $k, modprobe finds updates/dkms/kvperf.ko" \
		"$(diag "$log")"
	rm -f "$tmp/dkms-status"
done

# The guest's root is this machine's, read-only: its modprobe finds the
# module DKMS installed, and /usr/sbin/kvperf is the package's. (The
# guest has its own /tmp: the script goes as bash -c's argument.)
cat >"$tmp/smoke.sh" <<'EOF'
set -u
k=$(uname -r)
ko=$(modinfo -n kvperf)
echo "modinfo -n kvperf: $ko"
[[ $ko == "/lib/modules/$k/updates/dkms/kvperf.ko"* ]] || { echo "not DKMS's module"; exit 1; }
[ ! -e /sys/module/kvperf ] || { echo "kvperf loaded before modprobe"; exit 1; }
modprobe kvperf || exit 1
want=$(modinfo -F srcversion "$ko")
got=$(cat /sys/module/kvperf/srcversion)
echo "srcversion: loaded $got, DKMS's $want"
[ -n "$want" ] && [ "$got" = "$want" ] || exit 1
kv=/usr/sbin/kvperf
out=$($kv server start addr "$KVPERF_ADDR0") || exit 1
echo "$out"
id=$(sed -n 's/^server \([0-9]*\) listening on .*/\1/p' <<<"$out")
# its stderr a pipe, not the guest's serial terminal, so that it prints
# no progress line; a patient timeout (the suite's 5 s times its time
# scale, 3): a loaded host has stalled a 64-byte ping-pong that long
$kv -j run lat op send addr "$KVPERF_ADDR0" size 64 iters 200 timeout 15s \
	2> >(cat >&2) || exit 1
$kv server stop "$id" && rmmod kvperf
EOF
for k in "${kernels[@]}"; do
	log=$tmp/vm-$k.log
	KVPERF_NO_MODULE=1 "$top/selftests/vmtest.sh" -k "$k" -- \
		bash -c "$(cat "$tmp/smoke.sh")" >"$log" 2>&1
	rc=$?
	ok=1
	python3 - "$log" "$k" >"$log.json" 2>&1 <<'PY' && [ "$rc" = 0 ] && ok=0

import json, sys
# the run's JSON: the one line of the log that is an object
run = [json.loads(line) for line in open(sys.argv[1]) if line.startswith('{')]
if len(run) != 1:
    sys.exit(f"{len(run)} JSON lines in the log, want the run's one")
run = run[0]
res = run['results'][0]
want = (('kernel', run, sys.argv[2]), ('state', run, 'done'),
        ('size', res, 64), ('iterations', res, 200))
bad = [f"{key} {obj.get(key)}, want {val}" for key, obj, val in want
       if obj.get(key) != val]
if not 0 < res['min_ns'] <= res['mean_ns'] <= res['max_ns']:
    bad.append(f"min {res['min_ns']} mean {res['mean_ns']} max {res['max_ns']}")
print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY
	cat "$log.json" >>"$log"
	result $ok "VM on $k: modprobe kvperf loads DKMS's module; send latency, 200 x 64 B, with /usr/sbin/kvperf" \
		"$(diag "$log")"
done

man -w kvperf >"$tmp/man" 2>&1
grep -qx /usr/share/man/man8/kvperf.8.gz "$tmp/man"
result $? "man -w kvperf: /usr/share/man/man8/kvperf.8.gz" "$(diag "$tmp/man")"

# the installed completion, in a plain bash, with the installed kvperf
(
	PATH=/usr/sbin:/usr/bin:/sbin:/bin
	# shellcheck source=user/kvperf.bash-completion
	. /usr/share/bash-completion/completions/kvperf || exit 1
	# shellcheck source=selftests/packaging/offers.sh
	. "$top/selftests/packaging/offers.sh"
	offers kvperf ""
	echo "after 'kvperf ': $got"
	for want in dev server run; do
		[[ " $got " == *" $want "* ]] || echo "no $want after 'kvperf '"
	done
	offers kvperf run lat op ""
	echo "after 'kvperf run lat op ': $got"
	same "read send write" "$got" ||
		echo "want 'read send write' after 'kvperf run lat op '"
) >"$tmp/completion" 2>&1
! grep -q '^no \|^want \|completions/kvperf' "$tmp/completion"
result $? "installed completion: dev server run after 'kvperf ', send write read after 'kvperf run lat op '" \
	"$(diag "$tmp/completion")"

# purge, then what is left. /var/lib/dkms/mok.key and mok.pub are DKMS's
# own signing key, made the first time it signs any module and kept for
# all of them: not ours to remove.
DEBIAN_FRONTEND=noninteractive apt-get purge -y kvperf kvperf-dkms \
	>"$tmp/purge.log" 2>&1 && installed=
{
	[ -z "$installed" ] || echo "apt-get purge failed"
	dpkg-query -W -f '${Package} ${db:Status-Status}\n' kvperf kvperf-dkms 2>/dev/null |
		grep -v ' not-installed$' | sed 's/^/still in dpkg: /'
	dkms status -m kvperf | sed 's/^/still in dkms: /'
	grep -l kvperf /lib/modules/*/modules.dep | sed 's/^/modules.dep names kvperf: /'
	files after
	comm -13 "$tmp/before" "$tmp/after" | sed \
		-e "s,^/var/lib/dkms/mok\.\(key\|pub\)$,DKMS's signing key (kept): &," \
		-e "t" -e "s/^/new: /"
	echo "apt-get purge -y kvperf kvperf-dkms:"
	tail -n 20 "$tmp/purge.log"
} >"$tmp/left" 2>&1
! grep -q '^apt-get purge failed\|^still \|^modules\.dep \|^new: ' "$tmp/left"
result $? "apt-get purge leaves no file, dpkg or dkms entry, modules.dep line" \
	"$(diag "$tmp/left")"
[ "$fail" -eq 0 ]
