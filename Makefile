# SPDX-License-Identifier: GPL-2.0
#
# kvperf: top-level build. `make` builds kmod/kvperf.ko and user/kvperf;
# `make help` lists the rest.

PREFIX ?= /usr/local
DESTDIR ?=
MANDIR ?= $(PREFIX)/share/man
INSTALL ?= install
# extra/ as out-of-tree modules go; depmod searches every folder under
# /lib/modules/KVER (DKMS uses updates/dkms/, searched first)
INSTALL_MOD_DIR ?= extra
PYTHON ?= /usr/bin/python3
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

ifeq ($(V),1)
  Q :=
else
  Q := @
endif

# Kernel tree: KDIR wins, then KVER, then the running kernel's, then the
# newest installed Debian headers.
ifneq ($(KVER),)
  KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER)/build /usr/src/linux-headers-$(KVER)))
  ifeq ($(KDIR),)
    $(error no kernel tree for KVER=$(KVER): install linux-headers-$(KVER) (make deps))
  endif
else ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
  KDIR ?= /lib/modules/$(shell uname -r)/build
  KDIR_WHY := the running kernel
else
  KDIR ?= $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | \
	grep -Ev -- '-(common|cloud|rt)' | sort -V | tail -n 1)
  KDIR_WHY := the newest installed headers; the running kernel has none
endif
KDIR_KVER = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)

# The linux-source package supplies checkpatch, the kselftest headers and
# ynl; they are extracted at build time, never committed.
KSRC_TAR ?= $(wildcard /usr/src/linux-source-6.12.tar.xz)
KSRC := $(TOP)/build/ksrc
KSRC_STAMP := $(KSRC)/.extracted
KSRC_FILES := scripts/checkpatch.pl scripts/spelling.txt scripts/kernel-doc \
	scripts/const_structs.checkpatch \
	tools/testing/selftests/kselftest.h \
	tools/testing/selftests/kselftest_harness.h \
	tools/testing/selftests/kselftest \
	tools/testing/selftests/lib.mk tools/testing/selftests/Makefile \
	tools/testing/selftests/run_kselftest.sh scripts/subarch.include \
	tools/net/ynl Documentation/netlink/genetlink.yaml \
	Documentation/netlink/genetlink-c.yaml \
	Documentation/netlink/genetlink-legacy.yaml

# The release version: the module's, plus the commit outside a tag (see
# user/version.sh); asked for once, by the first target that needs it.
VERSION = $(eval VERSION := $$(shell $(TOP)/user/version.sh))$(VERSION)
DIST := build/kvperf-$(VERSION).tar.gz

# kvperf(8), from Documentation/kvperf.8.rst with docutils' rst2man
RST2MAN ?= rst2man
MAN8 := build/man/kvperf.8

SPEC := Documentation/netlink/specs/kvperf.yaml
UAPI := include/uapi/linux/kvperf.h

.PHONY: all modules tools install install-module install-tools uninstall \
	uninstall-module uninstall-tools clean help deps lint check \
	check-packaging check-load check-pair check-fabric check-fuzz demo bench \
	bench-check uapi \
	ksrc vm-module selftests kdir check-debug dist man dkms \
	install-dkms uninstall-dkms deb deb-build-deps

all: modules tools

kdir:
	@test -n "$(KDIR)" -a -f "$(KDIR)/Makefile" || { \
	  echo "kvperf: no kernel headers found; install linux-headers-amd64 (make deps)" >&2; exit 2; }
	@echo "kvperf: building against $(KDIR_KVER) ($(KDIR))$(if $(KDIR_WHY), - $(KDIR_WHY))"

modules: kdir
	$(Q)$(MAKE) -C $(KDIR) M=$(TOP) $(if $(V),V=$(V)) modules

tools:
	$(Q)$(MAKE) -C user $(if $(V),V=$(V))

# make install: the module for KDIR's kernel, where modprobe finds it,
# then the tool, its man page and its bash completion under PREFIX.
# With DESTDIR (a staging tree, as packaging uses), the module goes
# under DESTDIR/lib/modules/ and depmod is left to the installed
# system (DKMS or a package's postinst runs it), so that DESTDIR holds
# only what was installed. make uninstall removes exactly that.
install: install-module install-tools

install-module: modules
	$(Q)$(MAKE) -C $(KDIR) M=$(TOP) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR) DEPMOD=true) \
		modules_install

install-tools: tools man
	$(Q)$(MAKE) -C user install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	@echo "  INSTALL $(DESTDIR)$(MANDIR)/man8/kvperf.8"
	$(Q)$(INSTALL) -d $(DESTDIR)$(MANDIR)/man8
	$(Q)$(INSTALL) -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/kvperf.8

uninstall: uninstall-module uninstall-tools

# where modules_install puts it: M's path to it (kmod/), compressed as
# the kernel's configuration says (.ko.xz on Debian's 6.12)
MOD_INSTALLED = $(DESTDIR)/lib/modules/$(KDIR_KVER)/$(INSTALL_MOD_DIR)/kmod

uninstall-module: kdir
	@echo "  RM      $(MOD_INSTALLED)/kvperf.ko*"
	$(Q)rm -f $(MOD_INSTALLED)/kvperf.ko*
	$(Q)rmdir $(MOD_INSTALLED) 2>/dev/null || true
	$(Q)$(if $(DESTDIR),:,depmod -a $(KDIR_KVER))

uninstall-tools:
	$(Q)$(MAKE) -C user uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	@echo "  RM      $(DESTDIR)$(MANDIR)/man8/kvperf.8"
	$(Q)rm -f $(DESTDIR)$(MANDIR)/man8/kvperf.8

clean:
	$(Q)if [ -n "$(KDIR)" ] && [ -f "$(KDIR)/Makefile" ]; then \
	  $(MAKE) -C $(KDIR) M=$(TOP) clean; fi
	$(Q)$(MAKE) -C user clean
	$(Q)$(MAKE) -C selftests/kvperf clean KSFT_DIR=$(KSRC)/tools/testing/selftests
	$(Q)rm -rf build

# The man page, with the version in its footer; build/man/VERSION
# changes only when the version does, so the page is rebuilt only then.
man: $(MAN8)

build/man/VERSION: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(VERSION)' >$@.tmp
	$(Q)cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(MAN8): Documentation/kvperf.8.rst build/man/VERSION
	@echo "  RST2MAN $@"
	$(Q)sed "s/^:Manual group:.*/&\n:Version: $$(cat build/man/VERSION)/" $< \
		>$@.rst
	$(Q)$(RST2MAN) --halt=warning $@.rst >$@.tmp && mv $@.tmp $@
	$(Q)rm -f $@.rst

.PHONY: FORCE
FORCE:

# $(call write,TEXT): a shell command that prints TEXT, a multi-line
# variable (a define), as it is
define newline


endef
write = printf '%s\n' '$(subst $(newline),' ',$(subst ','\'',$(1)))'

# The release tarball: the committed tree (with uncommitted changes to
# tracked files, when there are any, as the version's .dirty says) and
# a VERSION file, so that the tool built from it knows its version
# without git. DKMS and packagers build from it alone.
dist:
	@test "$$(git -C $(TOP) rev-parse --show-toplevel 2>/dev/null)" = "$(TOP)" || { \
	  echo "kvperf: make dist needs the git checkout (this is not one)" >&2; exit 2; }
	$(Q)mkdir -p build/dist
	$(Q)echo '$(VERSION)' >build/dist/VERSION
	@echo "  DIST    $(DIST)"
	$(Q)tree=$$(git stash create) && \
	git archive --format=tar --prefix=kvperf-$(VERSION)/ \
		--add-file=build/dist/VERSION $${tree:-HEAD} | \
		gzip -n -9 >$(DIST).tmp && mv $(DIST).tmp $(DIST)

# What the module builds from, and all that DKMS gets: the Kbuild files,
# kmod/'s sources and the UAPI headers.
MOD_SRCS = Kbuild kmod/Kbuild $(filter-out %.mod.c,$(wildcard kmod/*.[ch])) \
	$(wildcard include/uapi/linux/*.h)

# Build the module for an installed kernel in a private copy of the
# sources, so several kernels' builds live side by side. Prints the .ko.
# W=1 as make lint builds it in the same folder (selftests/lint.sh), so
# that the VM tests load lint's build, not a second one.
vm-module: kdir
	$(Q)mkdir -p build/mod-$(KDIR_KVER)
	$(Q)cp -p -u --parents $(MOD_SRCS) build/mod-$(KDIR_KVER)/
	$(Q)$(MAKE) -s -j$(shell nproc) -C $(KDIR) M=$(TOP)/build/mod-$(KDIR_KVER) \
		W=1 KVPERF_FAULTS=y modules >&2
	@echo $(TOP)/build/mod-$(KDIR_KVER)/kmod/kvperf.ko

# DKMS: build/dkms/kvperf-VERSION holds the module's sources and a
# dkms.conf, as DKMS wants them in /usr/src/kvperf-VERSION (make
# install-dkms; the kvperf-dkms package). DKMS builds them with kbuild
# alone (this Makefile is not there), for every installed kernel with
# RDMA and again for each new one (AUTOINSTALL), into updates/dkms/,
# which depmod searches before extra/.
DKMS_TREE = build/dkms/kvperf-$(VERSION)
DKMS_SRC_DIR = /usr/src/kvperf-$(VERSION)

define DKMS_CONF
# dkms.conf for kvperf $(VERSION), written by make dkms
PACKAGE_NAME="kvperf"
PACKAGE_VERSION="$(VERSION)"
BUILT_MODULE_NAME[0]="kvperf"
BUILT_MODULE_LOCATION[0]="kmod/"
DEST_MODULE_LOCATION[0]="/updates/dkms"
MAKE[0]="make -C $${kernel_source_dir} M=$${dkms_tree}/$${PACKAGE_NAME}/$${PACKAGE_VERSION}/build$(if $(OFED), OFED=$(OFED)) modules"
CLEAN="make -C $${kernel_source_dir} M=$${dkms_tree}/$${PACKAGE_NAME}/$${PACKAGE_VERSION}/build clean"
BUILD_EXCLUSIVE_CONFIG="CONFIG_64BIT CONFIG_INFINIBAND CONFIG_INFINIBAND_ADDR_TRANS"
AUTOINSTALL="yes"
endef

dkms:
	@echo "  DKMS    $(DKMS_TREE)"
	$(Q)rm -rf build/dkms && mkdir -p $(DKMS_TREE)
	$(Q)cp -p --parents $(MOD_SRCS) $(DKMS_TREE)/
	$(Q)$(call write,$(DKMS_CONF)) >$(DKMS_TREE)/dkms.conf

install-dkms: dkms
	@echo "  INSTALL $(DESTDIR)$(DKMS_SRC_DIR)"
	$(Q)rm -rf $(DESTDIR)$(DKMS_SRC_DIR)
	$(Q)$(INSTALL) -d $(dir $(DESTDIR)$(DKMS_SRC_DIR))
	$(Q)cp -R $(DKMS_TREE) $(DESTDIR)$(DKMS_SRC_DIR)

uninstall-dkms:
	@echo "  RM      $(DESTDIR)$(DKMS_SRC_DIR)"
	$(Q)rm -rf $(DESTDIR)$(DKMS_SRC_DIR)

# make deb: the Debian packages kvperf (the tool, its man page and
# completion) and kvperf-dkms (the module's sources and dkms.conf, built
# by DKMS on the installed kernels), with dpkg-buildpackage, debhelper
# and dh-dkms, from the make dist tarball unpacked in build/deb/, into
# build/deb/. The debian/ folder is written here, as the kernel's own
# deb-pkg writes it, and not kept in the tree: its contents are a few
# lines each, and all of their values (version, date, maintainer) come
# from this tree. Its install steps are this Makefile's (install-tools,
# install-dkms). DEBFULLNAME and DEBEMAIL name the maintainer (as dch
# takes them); by default the author of the last commit.
DEB_DIR := build/deb
DEB_SRC = $(DEB_DIR)/kvperf-$(VERSION)
DEB_VERSION = $(VERSION)-1
DEB_DATE = $(shell git -C $(TOP) log -1 --format=%cD)
DEB_YEAR = $(shell git -C $(TOP) log -1 --format=%cd --date=format:%Y)
DEBFULLNAME ?= $(shell git -C $(TOP) log -1 --format=%an)
DEBEMAIL ?= $(shell git -C $(TOP) log -1 --format=%ae)
DEB_MAINT = $(DEBFULLNAME) <$(DEBEMAIL)>

define DEB_CONTROL
Source: kvperf
Section: net
Priority: optional
Maintainer: $(DEB_MAINT)
Build-Depends: debhelper-compat (= 13), dh-sequence-dkms, pkgconf | pkg-config,
 libnl-3-dev, libnl-genl-3-dev, libibverbs-dev, librdmacm-dev,
 libjson-c-dev, python3-docutils
Standards-Version: 4.6.2
Rules-Requires-Root: no

Package: kvperf
Architecture: linux-any
Depends: $${shlibs:Depends}, $${misc:Depends}
Recommends: kvperf-dkms (= $${binary:Version})
Description: RDMA benchmark driving the kernel's and user space's verbs
 kvperf measures RDMA latency, bandwidth and storage-shaped I/O from a
 kernel module (the kernel's RDMA verbs, as NVMe-oF and SMB Direct use
 them) and from user space (libibverbs), side by side, and compares them
 with perftest.
 .
 This package holds the kvperf command, its manual page kvperf(8) and
 its bash completion. The kernel path needs the module of kvperf-dkms.

Package: kvperf-dkms
Section: kernel
Architecture: all
Depends: $${misc:Depends}
Description: RDMA benchmark driving the kernel's and user space's verbs (DKMS module)
 kvperf measures RDMA latency, bandwidth and storage-shaped I/O from a
 kernel module (the kernel's RDMA verbs, as NVMe-oF and SMB Direct use
 them) and from user space (libibverbs), side by side, and compares them
 with perftest.
 .
 This package holds the sources of the module kvperf.ko, which DKMS
 builds for the installed kernels and again for each new one.
endef

# the flags of dpkg-buildflags (hardening) for the tool; the man page
# and the unit tests as make check builds them; the installs as make
# install-tools and install-dkms do them; no -dbgsym package, so that
# build/deb/*.deb is the two packages to install
define DEB_RULES
#!/usr/bin/make -f
export DEB_BUILD_MAINT_OPTIONS = hardening=+all
DPKG_EXPORT_BUILDFLAGS = 1
include /usr/share/dpkg/buildflags.mk

%:
	dh $$@

override_dh_auto_clean:
	$$(MAKE) -C user clean
	rm -rf build

override_dh_auto_build:
	dh_auto_build -- V=1 tools man

override_dh_auto_test:
ifeq (,$$(filter nocheck,$$(DEB_BUILD_OPTIONS)))
	$$(MAKE) -C user V=1 test
endif

override_dh_auto_install:
	$$(MAKE) install-tools install-dkms PREFIX=/usr \
		DESTDIR=$$(CURDIR)/debian/tmp

override_dh_dkms:
	dh_dkms -pkvperf-dkms -- debian/tmp/usr/src/kvperf-$(VERSION)/dkms.conf

override_dh_strip:
	dh_strip --no-automatic-dbgsym
endef

define DEB_CHANGELOG
kvperf ($(DEB_VERSION)) UNRELEASED; urgency=medium

  * kvperf $(VERSION), packaged by make deb.

 -- $(DEB_MAINT)  $(DEB_DATE)
endef

define DEB_COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: kvperf

Files: *
Copyright: $(DEB_YEAR) The kvperf authors (git log)
License: GPL-2
 This program is free software; you can redistribute it and/or modify
 it under the terms of the GNU General Public License version 2 as
 published by the Free Software Foundation.
 .
 On Debian systems, the complete text of the GNU General Public License
 version 2 can be found in /usr/share/common-licenses/GPL-2.
endef

# lintian's one remaining tag: make deb builds for the host it runs on,
# it is no upload to Debian, which an ITP bug would announce
define DEB_OVERRIDES
# a local build (make deb), not an upload to Debian: no ITP bug to close
initial-upload-closes-no-bugs [usr/share/doc/*/changelog.Debian.gz:1]
endef

define DEB_KVPERF_INSTALL
usr/sbin/kvperf
usr/share/bash-completion/completions/kvperf
usr/share/man/man8/kvperf.8
endef

# What make deb needs installed: Debian's package tools and control's
# Build-Depends (dpkg-buildpackage would name those too, but only after
# the tarball, and not its own package).
DEB_BUILD_DEPS = dpkg-dev debhelper dh-dkms make gcc libc6-dev pkg-config \
	libnl-3-dev libnl-genl-3-dev libibverbs-dev librdmacm-dev libjson-c-dev \
	python3-docutils

deb-build-deps:
	@missing=$$(for p in $(DEB_BUILD_DEPS); do \
	  dpkg-query -W -f='$${db:Status-Status}' $$p 2>/dev/null | \
	    grep -qx installed || echo $$p; done); \
	test -z "$$missing" || { \
	  echo "kvperf: make deb needs Debian packages that are not installed:" $$missing >&2; \
	  echo "kvperf: install them with: sudo apt-get install" $$missing >&2; exit 2; }

deb: deb-build-deps dist
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)/debian/source
	$(Q)tar -xzf $(DIST) -C $(DEB_DIR)
	@echo "  DEBIAN  $(DEB_SRC)/debian"
	$(Q)cd $(DEB_SRC)/debian && \
	$(call write,$(DEB_CONTROL)) >control && \
	$(call write,$(DEB_RULES)) >rules && chmod +x rules && \
	$(call write,$(DEB_CHANGELOG)) >changelog && \
	$(call write,$(DEB_COPYRIGHT)) >copyright && \
	$(call write,$(DEB_KVPERF_INSTALL)) >kvperf.install && \
	echo usr/src >kvperf-dkms.install && \
	$(call write,$(DEB_OVERRIDES)) >kvperf.lintian-overrides && \
	$(call write,$(DEB_OVERRIDES)) >kvperf-dkms.lintian-overrides && \
	echo '3.0 (quilt)' >source/format
	@echo "  DPKG    $(DEB_DIR)/kvperf_$(DEB_VERSION)_*.deb, kvperf-dkms_$(DEB_VERSION)_all.deb"
	$(Q)cd $(DEB_SRC) && dpkg-buildpackage -b --no-sign \
		$(if $(V),,>../build.log 2>&1 || { tail -n 40 ../build.log; exit 1; })

$(KSRC_STAMP): Makefile
	@test -n "$(KSRC_TAR)" || { \
	  echo "kvperf: linux-source-6.12 is not installed (make deps)" >&2; exit 2; }
	@echo "  EXTRACT $(notdir $(KSRC_TAR))"
	$(Q)mkdir -p $(KSRC)
	$(Q)tar -xJf $(KSRC_TAR) -C $(KSRC) --strip-components=1 \
	  $(addprefix $(basename $(basename $(notdir $(KSRC_TAR))))/,$(KSRC_FILES))
	$(Q)touch $(KSRC)/MAINTAINERS $@

ksrc: $(KSRC_STAMP)

# Regenerate the UAPI header from the spec with the kernel's own ynl.
uapi: $(KSRC_STAMP)
	$(Q)PYTHON=$(PYTHON) selftests/spec/ynl_gen.sh $(KSRC) $(SPEC) $(UAPI)

# The selftests are a kselftest directory: built with the kernel's lib.mk
# and installed as a user installs them, by the kernel's selftests
# Makefile (TARGETS=drivers/kvperf, our folder linked into the extracted
# tree) into build/kselftest, where selftests/kvperf/run.sh runs them
# with the kernel's run_kselftest.sh.
KSFT_TREE := $(KSRC)/tools/testing/selftests
KSELFTEST := $(TOP)/build/kselftest
selftests: tools $(KSRC_STAMP)
	$(Q)$(MAKE) -C selftests/kvperf KSFT_DIR=$(KSFT_TREE) $(if $(V),V=$(V))
	$(Q)mkdir -p $(KSFT_TREE)/drivers
	$(Q)ln -sfn $(TOP)/selftests/kvperf $(KSFT_TREE)/drivers/kvperf
	$(Q)rm -rf $(KSELFTEST)
	$(Q)$(MAKE) -s --no-print-directory -C $(KSFT_TREE) \
		TARGETS=drivers/kvperf INSTALL_PATH=$(KSELFTEST) install >/dev/null
	$(Q)/usr/bin/python3 -m compileall -q selftests $(KSELFTEST) >/dev/null

deps:
	$(Q)selftests/deps.sh

lint: $(KSRC_STAMP)
	$(Q)selftests/lint.sh

check:
	$(Q)selftests/check.sh

# make check's packaging group alone: man page, completion, install,
# dist, OFED, deb and DKMS (selftests/packaging/run.sh); as root also
# the packages installed, a VM per kernel on DKMS's module, and purged.
check-packaging: tools
	$(Q)selftests/packaging/run.sh

# The VM suite on one kernel (KVER, default the newest 6.12) while a
# second guest keeps the host busy; see selftests/check.sh.
check-load:
	$(Q)selftests/check.sh --load $(KVER)

# The fuzzers' long soak (make check runs their smoke) on each kernel's
# VM lane; see selftests/check.sh.
check-fuzz:
	$(Q)selftests/check.sh --fuzz

# The two-guest suite (6.12 and 6.1 guests joined by a link); see
# selftests/vmpair.sh and selftests/check.sh.
check-pair:
	$(Q)selftests/check.sh --pair

# The four-guest suite (kvc0 to kvc3 on one Ethernet segment, with ssh,
# pdsh, munge and Slurm); see selftests/vmcluster.sh and
# selftests/check.sh.
check-fabric:
	$(Q)selftests/check.sh --fabric

# The VM suite on a debug kernel (KASAN, lockdep, kmemleak, UBSAN,
# DMA-API debug), built once and cached; see selftests/check.sh.
# TESTS="module.sh io_basic.sh": those scripts of the suite only.
check-debug:
	$(Q)selftests/check.sh --debug $(TESTS)

demo:
	$(Q)selftests/demo.sh

# The benchmark: every Debian kernel, or KVER's; see selftests/bench.sh.
# CLOCK=wall: the wall clock (busy polling too, noisy) instead of icount.
bench: all ksrc
	$(Q)selftests/bench.sh $(if $(KVER),-k $(KVER)) $(if $(CLOCK),--clock $(CLOCK))

# The regression gate: the benchmark tools' own tests (bench.sh, the
# profiler), then the short deterministic bench against the checked-in
# baseline of the same kernel (UPDATE=1 rewrites it).
bench-check: all ksrc
	$(Q)selftests/bench_test.sh
	$(Q)selftests/bench.sh --short --gate selftests/bench-baseline \
		$(if $(UPDATE),--update) $(if $(KVER),-k $(KVER))

help:
	@echo 'Targets:'
	@echo '  all (default)  build kmod/kvperf.ko and user/kvperf'
	@echo '  modules        the kernel module only (KDIR=, KVER= pick the kernel)'
	@echo '  tools          the kvperf command only'
	@echo '  install        module to /lib/modules/KVER/extra/kmod, tool to PREFIX/sbin,'
	@echo '                 man page, bash completion (install-module, install-tools)'
	@echo '  uninstall      remove what install installed (uninstall-module, -tools)'
	@echo '  clean          remove everything built'
	@echo '  deps           install every Debian package kvperf needs'
	@echo '  lint           checkpatch, W=1 and sparse on both Debian kernels, layers'
	@echo '  check          every test: unit, spec, lint, packaging, VM suite on 6.1'
	@echo '                 and on 6.12 (its DMA lane), two guests, fuzz smoke (40 min)'
	@echo '  check-fuzz     the fuzzers soak: nl_fuzz.sh, wire_fuzz.sh on both kernels'
	@echo '  check-packaging  man page, completion, install, dist, deb, DKMS tests (as root: apt install)'
	@echo '  check-load     the VM suite on one kernel beside a busy second guest'
	@echo '  check-pair     the two-guest suite: a 6.12 and a 6.1 guest joined by a link'
	@echo '  check-fabric   the four-guest suite: a cluster with ssh, pdsh and Slurm (as root)'
	@echo '  check-debug    the VM suite on a KASAN/lockdep/kmemleak debug kernel'
	@echo '  demo           build, boot a Soft-RoCE VM, compare kernel and user path'
	@echo '  bench          the benchmark matrix in the VM, into Documentation/benchmarks/'
	@echo '  bench-check    the short deterministic bench against selftests/bench-baseline/'
	@echo '  uapi           regenerate include/uapi/linux/kvperf.h from the spec'
	@echo '  man            build/man/kvperf.8 from Documentation/kvperf.8.rst (rst2man)'
	@echo '  dist           build/kvperf-VERSION.tar.gz from git archive (user/version.sh)'
	@echo '  dkms           build/dkms/kvperf-VERSION: the module sources and dkms.conf'
	@echo '  install-dkms   them in /usr/src/kvperf-VERSION, for dkms install kvperf/VERSION'
	@echo '                 (uninstall-dkms removes them)'
	@echo '  deb            build/deb/: the Debian packages kvperf and kvperf-dkms'
	@echo 'Variables: KDIR, KVER, V=1, PREFIX, DESTDIR, MANDIR, INSTALL_MOD_DIR,'
	@echo '  OFED (MLNX_OFED: make OFED=/usr/src/ofa_kernel/default), DEBFULLNAME,'
	@echo '  DEBEMAIL (make deb)'
