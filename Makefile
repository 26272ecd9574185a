# SPDX-License-Identifier: GPL-2.0
#
# rdma-reset: RDMA modules that survive device resets, for Debian's 6.12 kernel.
#
#   make              build the module set (+ ABI check) for the resolved kernel
#   make install      install into /lib/modules/$(uname -r)/updates (matching kernel only)
#   make uninstall    remove them again
#   make deb          the DKMS package of the 6.12 lanes (build/deb)
#   make check-deb    install, use and remove it on each 6.12 lane (VMs)
#   make check        build, then run every VM test case (tests/cases),
#                     then check-lanes and Debian 12's check-deb
#   make check-lanes  every other kernel lane's build, ABI check and smoke cases
#   make demo         build, then boot a VM showing the main job
#   make bench        build, then run the benchmarks (bench/) and print a table
#   make soak         build, then run the long soak cases (tests/soak)
#   make check-debug  the suite on a debug kernel (KASAN, lockdep, kmemleak,
#                     debugobjects) built from the same linux-source
#   make deps         install the Debian packages the project needs
#   make refresh      forget the resolved kernel version (pick the archive's newest)
#   make clean        remove build products (keeps downloads and the extracted kernel)
#   make distclean    remove build/ entirely
#
# Variables: CACHE (downloads, default /var/cache/rdma-reset), DEB_VERSION
# (pin a kernel package version), TARGET=archive|running, CASES (a subset of
# tests/cases for make check), JOBS (make -j, default nproc), LANE (the
# kernel lane, see below).

TOP	:= $(CURDIR)
B	:= $(TOP)/build

# LANE: the kernel lane (scripts/lanes.sh: bookworm-6.12, trixie-6.12,
# sid-7.2).  Unset, it is the running kernel's lane, else bookworm-6.12, and
# builds in build/ as always; another lane has a build directory of its own.
LANE	?=
LANES	:= $(shell bash -c '. $(TOP)/scripts/lanes.sh && echo $$LANES')
ifneq ($(word 2,$(LANE)),)
$(error LANE=$(LANE): one lane at a time)
endif
ifneq ($(filter-out $(LANES),$(LANE)),)
$(error LANE=$(LANE): no such lane (lanes: $(LANES)))
endif
# What another lane can do: build and ABI-check, install, and boot its
# kernel with its suite's userspace for check, demo, bench, soak and
# torture, or a debug kernel built from its source for check-debug (not
# the lint and series goals, which check the sources once, on the default
# lane).  sid-7.2 builds the upstream series (patches-7.2/), and makes it
# for review (patches, patches-bisect).
LANE_GOALS	:= all modules kernel refresh deps install uninstall check demo bench soak torture \
		   debug-kernel check-debug clean distclean
LANE_GOALS_trixie-6.12	:= $(LANE_GOALS)
LANE_GOALS_sid-7.2	:= $(LANE_GOALS) series-tree series-export patches patches-bisect
# The series of the lane's kernel line (scripts/prepare-src.sh picks the same).
PATCHDIR := $(if $(filter sid-7.2,$(LANE)),patches-7.2,patches)
ifneq ($(filter-out bookworm-6.12,$(LANE)),)
B	:= $(TOP)/build/lane-$(LANE)
ifneq ($(filter-out $(LANE_GOALS_$(LANE)),$(or $(MAKECMDGOALS),all)),)
$(error LANE=$(LANE): only these goals work on this lane so far: $(LANE_GOALS_$(LANE)))
endif
endif
CACHE	?= /var/cache/rdma-reset
JOBS	?= $(shell nproc)

# Goals that need no kernel: they read the resolved kernel if there is
# one, but never resolve it (nor install packages to do so).
NOKERNEL_GOALS := clean distclean refresh deps series-export dkms-uninstall
ifneq ($(MAKECMDGOALS),)
ifeq ($(filter-out $(NOKERNEL_GOALS),$(MAKECMDGOALS)),)
NO_KERNEL := 1
endif
endif

# A kernel pin given to this make (not the resolved one kversion.mk holds).
LANE_PIN := $(strip $(foreach v,DEB_VERSION KVER,$(if $(filter command line environment,$(origin $(v))),$(v))) \
	      $(if $(filter running,$(TARGET)),TARGET))
-include $(B)/kversion.mk
KLANE	?= bookworm-6.12

KERNELDIR := $(B)/kernel/$(KREL)
ifeq ($(KSRC),running)
KDIR	:= /lib/modules/$(KREL)/build
else
KDIR	:= $(KERNELDIR)/root/usr/src/linux-headers-$(KREL)
endif
SRC	:= $(B)/src
# CONFIG_MODULE_SRCVERSION_ALL=y: modpost gives each of our modules a
# srcversion (a hash of its sources; Debian's kernels do not set it, so
# their modules have none), which the tests and an admin compare with
# /sys/module/*/srcversion to tell which build is loaded.
KMAKE	 = $(MAKE) -C $(KDIR) M=$(SRC) NOSTDINC_FLAGS=-I$(SRC)/include CONFIG_MODULE_SRCVERSION_ALL=y
# A lane whose kernel's build tools cannot run here (trixie's and sid's
# need a newer glibc) builds in a root of its suite (scripts/suite-root.sh,
# made once and cached); bookworm's builds here.
IN_ROOT	 = root=$$(scripts/suite-root.sh $(KLANE) $(CACHE)) && scripts/in-root.sh "$$root" $(TOP)

.PHONY: check-debug debug-kernel all modules deps refresh kernel src install uninstall check check-lanes lint patches patches-bisect series-tree series-export deb check-deb dkms-install dkms-uninstall torture demo bench soak clean distclean

all: modules

deps:
	@scripts/install-deps.sh

ifndef NO_KERNEL
$(B)/kversion.mk: | deps
	@mkdir -p $(B)
	@LANE=$(LANE) CACHE=$(CACHE) scripts/kversion.sh > $@.tmp && mv $@.tmp $@
	@sed 's/^/  KERNEL  /' $@
endif

refresh:
	rm -f $(B)/kversion.mk

$(KERNELDIR)/deb-version: $(B)/kversion.mk
	@scripts/fetch-kernel.sh $(KLANE) $(DEB_VERSION) $(KREL) $(CACHE) $(KERNELDIR)

kernel: $(KERNELDIR)/deb-version

# Staging is cheap (the extracted subtrees are cached) and syncs by content,
# so it runs every time: no stale tree after a rename or a checkout.
src: $(KERNELDIR)/deb-version
	@scripts/prepare-src.sh $(TOP) $(KERNELDIR) $(SRC)

modules: src
	+@$(IN_ROOT) $(KMAKE) -j$(JOBS) modules
	@scripts/abi-check.sh $(KDIR)/Module.symvers $(SRC)/Module.symvers

install: modules
	@scripts/install.sh install $(KREL) $(SRC) $(DESTDIR)

uninstall:
	@scripts/install.sh uninstall $(KREL) $(DESTDIR)

# The DKMS package of the 6.12 lanes, rdma-reset-dkms_<version>_all.deb in
# build/deb (scripts/mkdeb.sh, Debian's tools): each lane is built and
# ABI-checked first.  dkms-install installs it with apt, as an admin would.
DEB	:= $(TOP)/build/deb/rdma-reset-dkms_$(shell cat $(TOP)/VERSION)_all.deb
deb: modules
	+@$(MAKE) --no-print-directory LANE=trixie-6.12 modules
	@scripts/mkdeb.sh $(TOP) $(TOP)/build/deb

dkms-install: deb
	DEBIAN_FRONTEND=noninteractive apt-get install -y $(DEB)

dkms-uninstall:
	DEBIAN_FRONTEND=noninteractive apt-get remove -y rdma-reset-dkms

# The lint lanes and the harness's self-test (tests/selftest) run first,
# unless CASES picks cases.  (lint checks the sources once, on the default
# lane.)  On the default lane without CASES, check-lanes follows.
check: modules
	@$(if $(CASES),,$(if $(filter-out bookworm-6.12,$(LANE)),,JOBS=$(JOBS) scripts/lint.sh $(TOP) $(KERNELDIR) $(KDIR) $(SRC) &&) tests/selftest.sh &&) CACHE=$(CACHE) tests/run.sh $(CASES)
	+@$(if $(CASES)$(filter-out bookworm-6.12,$(LANE))$(LANE_PIN),,$(MAKE) --no-print-directory check-lanes && \
		$(MAKE) --no-print-directory check-deb DEB_CHECK_LANES=bookworm-6.12)

# The DKMS package on a 6.12 lane's system, as an admin installs and
# removes it (tests/deb.sh: DKMS builds in a chroot of the lane's root, a
# VM of the lane's kernel boots it).  make check runs Debian 12's (10
# minutes); check-deb both lanes.
DEB_CHECK_LANES ?= bookworm-6.12 trixie-6.12
check-deb: deb
	@CACHE=$(CACHE) tests/deb.sh $(DEB_CHECK_LANES)

# Every other lane's smoke: its build and ABI check, its suite's root and
# a boot of its kernel with SMOKE_CASES: the lane's userspace, Debian's
# modules beside ours, a core reset of each kind, and a host-side reset
# of each protocol.  Each lane runs even if one before it failed.  (The
# default lane, the one make check ran, is not among them.)  A version pin
# (DEB_VERSION, KVER, TARGET) names one lane's kernel: with one, make check
# skips check-lanes and check-lanes refuses.
SMOKE_CASES ?= 008 009 006 010 011 031 040 050
check-lanes:
	@$(if $(LANE_PIN),echo "check-lanes: a kernel pin (DEB_VERSION/KVER/TARGET) is one lane's; run it without" >&2; exit 1)
	@rc=0; for l in $(filter-out bookworm-6.12 $(KLANE),$(LANES)); do \
		echo "== lane $$l: $(SMOKE_CASES)"; \
		$(MAKE) --no-print-directory LANE=$$l check CASES="$(SMOKE_CASES)" || rc=1; \
	done; exit $$rc

# checkpatch --strict, kernel-doc, sparse and W=1 (scripts/lint.sh).
lint: modules
	@JOBS=$(JOBS) scripts/lint.sh $(TOP) $(KERNELDIR) $(KDIR) $(SRC)

# An upstream-style series (git format-patch + cover letter) in build/series;
# patches-bisect also builds every commit on its own.
patches: kernel
	@PATCHDIR=$(PATCHDIR) scripts/mkpatches.sh $(TOP) $(KERNELDIR) $(B)/series

# Edit the series as git commits: series-tree makes build/series-tree (one
# commit per patch, see scripts/series.sh), series-export writes it back.
series-tree: kernel
	@PATCHDIR=$(PATCHDIR) SERIES_TREE=$(B)/series-tree scripts/series.sh $(TOP) $(KERNELDIR) tree

series-export:
	@PATCHDIR=$(PATCHDIR) SERIES_TREE=$(B)/series-tree scripts/series.sh $(TOP) $(KERNELDIR) export

patches-bisect: kernel
	@root=$$(scripts/suite-root.sh $(KLANE) $(CACHE)) && \
	BUILD_ROOT="$$root" PATCHDIR=$(PATCHDIR) JOBS=$(JOBS) scripts/mkpatches.sh $(TOP) $(KERNELDIR) $(B)/series $(KDIR)

demo: modules
	@LANE=$(LANE) CACHE=$(CACHE) tests/demo.sh

# Long soaks (tests/soak): not part of check.  The kernel's own memory
# checkers that Debian's build has (KFENCE, SLUB debugging with poisoning)
# are on, so a corruption is caught where it happens: issue 7's double fault.
SOAK_APPEND ?= kfence.sample_interval=10 slub_debug=FZP page_poison=1 panic_on_warn=1
soak: modules
	@CACHE=$(CACHE) CASEDIR=tests/soak VM_APPEND="$(SOAK_APPEND)" tests/run.sh $(CASES)

# The torture case (tests/cases/060) with N resets instead of check's 8.
N ?= 1000
torture: modules
	@CACHE=$(CACHE) CASE_TIMEOUT=$$(($(N) * 40 + 600)) RR_TORTURE_N=$(N) tests/run.sh 060-torture

# The debug-kernel lane: a kernel from the same linux-source with KASAN,
# lockdep, kmemleak and debugobjects (tests/debug/kernel.config; built once
# and cached, ~25 min on 2 cores), our set built against it (no ABI check:
# this kernel is not Debian's), then the suite booting it.  Any report
# fails the case it happened in.  Not in CI: the kernel build alone does not
# fit its budget.
DBG	:= $(B)/debug
debug-kernel: kernel
	@scripts/debug-kernel.sh $(KERNELDIR) $(DBG) $(JOBS)

check-debug: debug-kernel
	@scripts/prepare-src.sh $(TOP) $(KERNELDIR) $(DBG)/src
	+$(MAKE) -C $(DBG)/obj M=$(DBG)/src NOSTDINC_FLAGS=-I$(DBG)/src/include -j$(JOBS) modules
	@LANE=$(LANE) DEBUG_KERNEL=1 RR_TIME_SCALE=$${RR_TIME_SCALE:-8} RR_IO_DIV=$${RR_IO_DIV:-4} \
		CACHE=$(CACHE) tests/run.sh $(CASES)

# Benchmarks: not part of check (minutes of VM time); see bench/run.sh.
bench: modules
	@CACHE=$(CACHE) bench/run.sh $(CASES)

clean:
	if [ -d $(SRC) ] && [ -d $(KDIR) ]; then $(IN_ROOT) $(KMAKE) clean; fi
	rm -rf $(B)/tests $(B)/vm

distclean:
	rm -rf $(B)
