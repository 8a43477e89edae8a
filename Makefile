# SPDX-License-Identifier: GPL-2.0-or-later
# hugepar: reserve huge pages per NUMA node, in parallel, from the initramfs.

VERSION     := $(shell scripts/version.sh)
PREFIX      ?= /usr
SBINDIR     ?= $(PREFIX)/sbin
MANDIR      ?= $(PREFIX)/share/man
SYSCONFDIR  ?= /etc
DRACUTDIR   ?= $(shell pkg-config --variable=dracutmodulesdir dracut 2>/dev/null || echo /usr/lib/dracut/modules.d)
# dracut-ng's developer guide leaves 00-09, 50-59 and 90-99 to modules from outside
# dracut and recommends 50-59; 0.2 installed 90hugepar, then 05hugepar.
MODULE      := 50hugepar
MODULEDIR   := $(DRACUTDIR)/$(MODULE)
OLDMODULEDIRS := $(DRACUTDIR)/90hugepar $(DRACUTDIR)/05hugepar
DRACUTCONFDIR ?= $(shell pkg-config --variable=dracutconfdir dracut 2>/dev/null || echo /usr/lib/dracut/dracut.conf.d)
INITRAMFSDIR ?= $(PREFIX)/share/initramfs-tools
UNITDIR     ?= $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
DOCDIR      ?= $(PREFIX)/share/doc/hugepar
DESTDIR     ?=
# What the man pages point to.
DOCS        := doc/record.md doc/threads.md doc/engine.md doc/kernel-notes.md doc/services.md \
	       doc/credentials.md doc/setters.md
ITOOLS      := hooks/hugepar scripts/init-premount/hugepar scripts/init-bottom/hugepar
MANS        := doc/hugepar.8 doc/hugepar.conf.5 doc/dracut-hugepar.7 doc/hugepar-initramfs-tools.7

CC          := musl-gcc
HOSTCC      ?= cc
CLANG       ?= clang
BUILD       := build
STRIP       := strip
# The kernel's uapi headers, and the multiarch folder of its asm/ ones.
UAPI        := /usr/include
MULTIARCH   := $(shell gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
BIN         := hugepar
# The test build, and the compiler of the unit tests and simctl.
TBIN        := hugepar-test
TESTCC      := $(HOSTCC)
TESTDEPS    :=

# A cross build: make ARCH=arm64 (Debian's name of an architecture; from the command
# line: the kernel's ARCH in the environment is not one) builds build/ARCH/hugepar with
# Debian's cross compiler (gcc-TRIPLET) and that architecture's musl and uapi
# headers: installed through multiarch (musl-dev:ARCH and linux-libc-dev:ARCH, as a
# package build for ARCH has them), else fetched by package name into build/ARCH
# (scripts/fetch-sysroot.sh). The tools follow it.
HOSTARCH    := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
ifneq ($(origin ARCH),command line)
ARCH        := $(HOSTARCH)
endif
ifneq ($(ARCH),$(HOSTARCH))
TRIPLET     := $(shell dpkg-architecture -a$(ARCH) -qDEB_HOST_GNU_TYPE 2>/dev/null)
ifeq ($(TRIPLET),)
$(error ARCH=$(ARCH): not an architecture dpkg knows (arm64, amd64, ...))
endif
BUILD       := build/$(ARCH)
MULTIARCH   := $(shell dpkg-architecture -a$(ARCH) -qDEB_HOST_MULTIARCH 2>/dev/null)
MUSLSPECS   := /usr/lib/$(firstword $(subst -, ,$(TRIPLET)))-linux-musl/musl-gcc.specs
STRIP       := $(TRIPLET)-strip
BIN         := $(BUILD)/hugepar
ifneq ($(wildcard $(MUSLSPECS) /usr/include/$(MULTIARCH)/asm/unistd.h),$(MUSLSPECS) /usr/include/$(MULTIARCH)/asm/unistd.h)
SYSROOT     := $(BUILD)/sysroot
MUSLSPECS   := $(abspath $(SYSROOT))/musl-gcc.specs
UAPI        := $(abspath $(SYSROOT))/root/usr/include
SYSDEPS     := $(SYSROOT)/musl-gcc.specs
endif
CC          := $(TRIPLET)-gcc -specs=$(MUSLSPECS)
# The tests of a cross build are static musl programs of the target too, run under
# qemu-user (test/arm64-user.sh).
TBIN        := $(BUILD)/hugepar-test
TESTCC      = $(CC) -static -isystem $(abspath $(KINC))
TESTDEPS    = $(KINC)/.stamp
endif
# The caller's CFLAGS, CPPFLAGS and LDFLAGS are honoured (a package build sets them).
CFLAGS      ?= -O2
WARN        := -std=gnu11 -Wall -Wextra -Wshadow -Wno-unused-parameter -Wformat=2 -Wno-format-nonliteral
HP_CPPFLAGS := -D_GNU_SOURCE $(CPPFLAGS)
# Each function and object in a section of its own, and the linker keeps only those
# called: libnuma's affinity.c, which hugepar does not call, would bring in musl's
# regular expressions, scanf and its DNS resolver (doc/architecture.md).
GC_SECTIONS := -ffunction-sections -fdata-sections

# The binary, by layer, lowest first, a folder each (doc/architecture.md, checked by
# test/layers.sh): lib/ knows nothing of hugepar; src/kernel/ is the kernel interface
# (paths, pools, topology, the live kernel, the run lock and restore notes);
# src/plan/ settings, the plan and the judgement of results; src/engine/ the run and
# its processes; src/host/ the booted host (its log, systemd's notify, hugetlbfs
# mounts, the boot hooks' waiter); src/record/ the record written and read back;
# src/output/ what people and scrapers read; src/cmd/ the commands, a file each with
# its help, their shared context, and main(). The test build adds test/sim/ to the
# kernel layer: the simulated kernel and the fault seam's implementation.
LAYERS      := lib src/kernel src/plan src/engine src/host src/record src/output src/cmd
# The live kernel and main() are the binary's alone: the unit tests and the fuzzers
# take the rest, with the simulated kernel.
LIVE_SRCS   := src/kernel/live.c src/cmd/main.c
PURE_SRCS   := $(filter-out $(LIVE_SRCS),$(foreach d,$(LAYERS),$(wildcard $(d)/*.c)))
SRCS        := $(PURE_SRCS) $(LIVE_SRCS)
SIM_SRCS    := $(wildcard test/sim/*.c)
HDRS        := $(foreach d,$(LAYERS),$(wildcard $(d)/*.h)) $(wildcard test/sim/*.h)
INCS        := $(addprefix -I,$(LAYERS))
SIM_INCS    := $(INCS) -Itest/sim
# For unit tests and fuzzing: everything but the live kernel and main(), with the
# simulated kernel (no libnuma, no root).
PURE        := $(PURE_SRCS) $(SIM_SRCS)

# libnuma from numactl's source, built against musl. NUMACTL_SRC=dir skips the fetch.
NUMACTL_SRC ?= build/src/numactl
LIBNUMA_SRC := libnuma.c syscall.c distance.c affinity.c sysfs.c rtnetlink.c
KINC        := $(BUILD)/kinc

# The folder the tree is built in is compiled in nowhere (libnuma's __FILE__, debug
# info): the compiler writes this folder as "." and numactl's source, wherever it is,
# as "numactl", so the binary is the same byte for byte whichever folder builds it
# (test/tree.sh). Before the caller's CFLAGS: GCC takes the last map that matches, and
# a package build maps its folder itself (dpkg-buildflags).
PATHMAP     = -ffile-prefix-map=$(CURDIR)=. -ffile-prefix-map=$(abspath $(NUMACTL_SRC))=numactl

all: $(BIN)

build/src/numactl/libnuma.c:
	scripts/fetch-numactl.sh build/src

$(SYSROOT)/musl-gcc.specs:
	scripts/fetch-sysroot.sh $(ARCH) $(SYSROOT)

# musl-gcc does not search the system include path: give it the kernel's uapi headers
# (the binary checks their system call numbers: src/kernel/live.c).
$(KINC)/.stamp: $(SYSDEPS)
	mkdir -p $(KINC)
	ln -sfn $(UAPI)/linux $(KINC)/linux
	ln -sfn $(UAPI)/asm-generic $(KINC)/asm-generic
	ln -sfn $(UAPI)/$(MULTIARCH)/asm $(KINC)/asm
	touch $@

comma := ,

# Build libnuma for a compiler ($1: dir, $2: cc, $3: flags). Its constructor,
# numa_init(), is built as a plain function that nothing calls (-Dconstructor=used):
# run at every exec, it reads /proc/self/status twice and every node's meminfo (a good
# part of a small run's instructions and of each exec's time, more with each node:
# doc/benchmarks.md), and hugepar calls only what needs none of it (src/kernel/live.c,
# doc/architecture.md).
define libnuma
$(1)/libnuma.a: $(NUMACTL_SRC)/libnuma.c $(KINC)/.stamp
	rm -rf $(1) && mkdir -p $(1)/inc
	: > $(1)/config.h
	cp $(NUMACTL_SRC)/numa.h $(NUMACTL_SRC)/numaif.h $(NUMACTL_SRC)/numacompat1.h $(1)/inc/
	cd $(1) && for f in $(LIBNUMA_SRC:.c=); do \
		$(2) $(PATHMAP) $(3) -w -Dconstructor=used -I. -I$(abspath $(NUMACTL_SRC)) -isystem $(abspath $(KINC)) \
			-c $(abspath $(NUMACTL_SRC))/$$$$f.c -o $$$$f.o || exit 1; done
	ar rcs $$@ $(addprefix $(1)/,$(LIBNUMA_SRC:.c=.o))
endef
$(eval $(call libnuma,$(BUILD)/musl,$(CC),-O2 $(GC_SECTIONS)))
$(eval $(call libnuma,$(BUILD)/san,$(CLANG),-O1 -g -fsanitize=address$(comma)undefined))

MUSL_FLAGS  = $(HP_CPPFLAGS) $(WARN) $(PATHMAP) $(CFLAGS) $(GC_SECTIONS) -Wl,--gc-sections \
	      -I$(BUILD)/musl/inc -isystem $(KINC) -static

$(BIN): $(SRCS) $(HDRS) $(BUILD)/musl/libnuma.a
	$(CC) $(MUSL_FLAGS) $(INCS) -o $@ $(SRCS) $(BUILD)/musl/libnuma.a $(LDFLAGS)
	@$(STRIP) -o $(BUILD)/hugepar.stripped $@ && \
		echo "hugepar: $$(stat -c %s $(BUILD)/hugepar.stripped) bytes stripped"

# Test build: the same binary with the fault seam (HUGEPAR_FAULT) and the simulated
# kernel (--simulate).
$(TBIN): $(SRCS) $(SIM_SRCS) $(HDRS) $(BUILD)/musl/libnuma.a
	$(CC) $(MUSL_FLAGS) $(SIM_INCS) -DHUGEPAR_TESTING -o $@ $(SRCS) $(SIM_SRCS) $(BUILD)/musl/libnuma.a $(LDFLAGS)

# Sanitizer build of the binary, and the unit tests (host compiler).
$(BUILD)/hugepar-san: $(SRCS) $(SIM_SRCS) $(HDRS) $(BUILD)/san/libnuma.a
	$(CLANG) $(HP_CPPFLAGS) -DHUGEPAR_TESTING -O1 -g -fsanitize=address,undefined \
		-fno-sanitize-recover=all -I$(BUILD)/san/inc -isystem $(KINC) $(SIM_INCS) -o $@ \
		$(SRCS) $(SIM_SRCS) $(BUILD)/san/libnuma.a

# The unit tests, a file per module of the binary, by its path (test/unit/unit.h).
UNIT_SRCS   := test/unit/unit.c $(wildcard test/unit/*/*.c)
UNIT_HDRS   := $(wildcard test/unit/*.h)
$(BUILD)/unit: $(UNIT_SRCS) $(UNIT_HDRS) $(PURE) $(HDRS) $(TESTDEPS)
	@mkdir -p $(BUILD)
	$(TESTCC) $(HP_CPPFLAGS) -DHUGEPAR_TESTING $(WARN) -O1 -g $(SIM_INCS) -Itest/unit -o $@ $(UNIT_SRCS) $(PURE)

$(BUILD)/unit-san: $(UNIT_SRCS) $(UNIT_HDRS) $(PURE) $(HDRS)
	@mkdir -p $(BUILD)
	$(CLANG) $(HP_CPPFLAGS) -DHUGEPAR_TESTING -O1 -g -fsanitize=address,undefined \
		-fno-sanitize-recover=all $(SIM_INCS) -Itest/unit -o $@ $(UNIT_SRCS) $(PURE)

# For boot tests: a static program that holds huge pages on a node.
$(BUILD)/holdpages: test/holdpages.c $(KINC)/.stamp
	@mkdir -p $(BUILD)
	$(CC) $(HP_CPPFLAGS) $(WARN) -O2 -static -isystem $(KINC) -o $@ test/holdpages.c

# For bench/qemu.sh: times a way of reserving pages with the monotonic clock.
$(BUILD)/timeit: test/timeit.c $(KINC)/.stamp
	@mkdir -p $(BUILD)
	$(CC) $(HP_CPPFLAGS) $(WARN) -O2 -static -isystem $(KINC) -o $@ test/timeit.c

# For bench/whole.sh: what system calls, faults and forks cost in the guest.
$(BUILD)/syscost: test/syscost.c $(KINC)/.stamp
	@mkdir -p $(BUILD)
	$(CC) $(HP_CPPFLAGS) $(WARN) -O2 -static -isystem $(KINC) -o $@ test/syscost.c

# A tool for tests on the simulated kernel: show its state, hold pages as another
# process would.
$(BUILD)/simctl: test/simctl.c $(PURE) $(HDRS) $(TESTDEPS)
	@mkdir -p $(BUILD)
	$(TESTCC) $(HP_CPPFLAGS) -DHUGEPAR_TESTING $(WARN) -O1 -g $(SIM_INCS) -o $@ test/simctl.c $(PURE)

# The README's commands: each installs what it needs first. test/run.sh builds what
# each suite it runs needs, and only that (TESTS= selects suites and cases).
check:
	@$(MAKE) --no-print-directory deps
	test/run.sh

# make check and its long cases (test/run.sh: HUGEPAR_LONG).
check-all:
	@$(MAKE) --no-print-directory deps
	HUGEPAR_LONG=1 test/run.sh

# The correctness suites with both CPUs kept busy by other work (test/busy.sh): no
# check may pass or fail on how fast this machine is.
check-busy:
	@$(MAKE) --no-print-directory deps
	test/busy.sh

check-fast:
	HUGEPAR_SKIP_SAN=1 HUGEPAR_SKIP_BOOT=1 HUGEPAR_SKIP_FRESH=1 HUGEPAR_SKIP_IMAGE=1 test/run.sh

# Fuzzing (doc/fuzzing.md): a libFuzzer target per parser of outside input, built
# with clang from test/fuzz.c (-DFUZZ_TARGET=NAME) on objects of the binary built
# once with its coverage; make fuzz runs each FUZZ_SECONDS (60) on a scratch copy of
# its corpus, test/fuzz-seeds/NAME (FUZZ_MERGE=1 merges what it found into it).
# build/fuzz-replay, gcc's build, replays the corpus in make check (test/fuzz.sh).
FUZZ_TARGETS := settings cmdline values sysfs record restore creds
FUZZ_SECONDS ?= 60
FUZZ_MERGE  ?=
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OBJS   := $(patsubst %.c,$(BUILD)/fuzzobj/%.o,$(PURE))
FUZZ_BINS   := $(addprefix $(BUILD)/fuzz-,$(FUZZ_TARGETS))

$(FUZZ_OBJS): $(BUILD)/fuzzobj/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(HP_CPPFLAGS) -DHUGEPAR_TESTING -g -O1 -fsanitize=fuzzer-no-link $(FUZZ_SAN) \
		$(SIM_INCS) -c -o $@ $<

$(FUZZ_BINS): $(BUILD)/fuzz-%: test/fuzz.c $(FUZZ_OBJS)
	$(CLANG) $(HP_CPPFLAGS) -DHUGEPAR_TESTING -DFUZZ_TARGET=$* $(WARN) -g -O1 \
		-fsanitize=fuzzer $(FUZZ_SAN) $(SIM_INCS) -o $@ test/fuzz.c $(FUZZ_OBJS)

$(BUILD)/fuzz-replay: test/fuzz.c $(PURE) $(HDRS)
	@mkdir -p $(BUILD)
	$(HOSTCC) $(HP_CPPFLAGS) -DHUGEPAR_TESTING -DFUZZ_REPLAY $(WARN) -g -O1 $(FUZZ_SAN) \
		$(SIM_INCS) -o $@ test/fuzz.c $(PURE)

fuzz: $(FUZZ_BINS)
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_MERGE=$(FUZZ_MERGE) test/fuzz-run.sh $(FUZZ_TARGETS)

syncheck:
	@for f in module-setup.sh hook/*.sh test/*.sh test/image/*.sh image/*.sh scripts/*.sh bench/*.sh .ci/run \
		initramfs-tools/hooks/* initramfs-tools/scripts/*/*; do \
		[ -f "$$f" ] || continue; \
		if head -n 1 "$$f" | grep -q bash; then bash -n "$$f" || exit 1; \
		else sh -n "$$f" && bash --posix -n "$$f" || exit 1; fi; \
		if command -v shellcheck >/dev/null; then shellcheck -S warning "$$f" || exit 1; fi; \
	done; echo "syncheck: ok"

deps:
	scripts/deps.sh
	@scripts/fetch-kernel.sh $(BUILD)/kernels 6.1 >/dev/null
	@scripts/fetch-kernel.sh $(BUILD)/kernels 6.12 >/dev/null
	@scripts/fetch-kernel.sh $(BUILD)/kernels 7 >/dev/null
	@scripts/fetch-promtool.sh $(BUILD)/promtool >/dev/null

# The binary, the dracut module and the dracut setting that adds it to every
# initramfs, the initramfs-tools hooks, /etc/hugepar.conf (only when there is none),
# the man pages and the docs they point to, and the examples: the systemd drop-ins
# and the Prometheus alerting rules.
install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(SBINDIR)/hugepar
	rm -rf $(addprefix $(DESTDIR),$(OLDMODULEDIRS))
	install -D -m 0755 module-setup.sh $(DESTDIR)$(MODULEDIR)/module-setup.sh
	for f in hook/*.sh; do install -D -m 0755 $$f $(DESTDIR)$(MODULEDIR)/$$(basename $$f); done
	install -D -m 0644 hook/hugepar.service $(DESTDIR)$(MODULEDIR)/hugepar.service
	install -D -m 0644 hook/hugepar-ignition.service $(DESTDIR)$(MODULEDIR)/hugepar-ignition.service
	install -D -m 0644 config/hugepar.conf $(DESTDIR)$(MODULEDIR)/hugepar.conf.default
	for f in $(ITOOLS); do install -D -m 0755 initramfs-tools/$$f $(DESTDIR)$(INITRAMFSDIR)/$$f; done
	[ -e $(DESTDIR)$(SYSCONFDIR)/hugepar.conf ] || \
		install -D -m 0644 config/hugepar.conf $(DESTDIR)$(SYSCONFDIR)/hugepar.conf
	install -d $(DESTDIR)$(SYSCONFDIR)/hugepar.conf.d
	for f in $(MANS); do n=$$(basename $$f); \
		install -D -m 0644 $$f $(DESTDIR)$(MANDIR)/man$${n##*.}/$$n; done
	install -D -m 0644 systemd/hugepar-verify.service $(DESTDIR)$(UNITDIR)/hugepar-verify.service
	install -D -m 0644 systemd/hugepar-initramfs.service $(DESTDIR)$(UNITDIR)/hugepar-initramfs.service
	install -d $(DESTDIR)$(DOCDIR)/examples
	install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	install -m 0644 systemd/examples/*.conf $(DESTDIR)$(DOCDIR)/examples/
	install -m 0644 config/hugepar-alerts.rules.yml $(DESTDIR)$(DOCDIR)/examples/
	install -D -m 0644 config/dracut-hugepar.conf $(DESTDIR)$(DRACUTCONFDIR)/50-hugepar.conf
	@# on this system (no DESTDIR): the units enabled, as the package's are
	if [ -z "$(DESTDIR)" ] && command -v systemctl >/dev/null; then \
		systemctl daemon-reload 2>/dev/null; \
		systemctl enable hugepar-verify.service hugepar-initramfs.service; fi

# Everything install put there but your settings (/etc/hugepar.conf and its .d).
uninstall:
	-if [ -z "$(DESTDIR)" ] && command -v systemctl >/dev/null; then \
		systemctl disable hugepar-verify.service hugepar-initramfs.service; fi
	rm -f $(DESTDIR)$(SBINDIR)/hugepar $(DESTDIR)$(UNITDIR)/hugepar-verify.service \
		$(DESTDIR)$(UNITDIR)/hugepar-initramfs.service
	rm -f $(DESTDIR)$(DRACUTCONFDIR)/50-hugepar.conf
	rm -rf $(DESTDIR)$(MODULEDIR) $(addprefix $(DESTDIR),$(OLDMODULEDIRS)) $(DESTDIR)$(DOCDIR)
	for f in $(ITOOLS); do rm -f $(DESTDIR)$(INITRAMFSDIR)/$$f; done
	for f in $(MANS); do n=$$(basename $$f); rm -f $(DESTDIR)$(MANDIR)/man$${n##*.}/$$n; done
	-rmdir $(DESTDIR)$(SYSCONFDIR)/hugepar.conf.d 2>/dev/null
	@echo "uninstall: $(SYSCONFDIR)/hugepar.conf is left (your settings)"

# doc/fault-matrix.md from the last make check's results.
fault-matrix:
	test/fault-matrix.sh

indent:
	clang-format -i $(SRCS) $(SIM_SRCS) $(HDRS) $(UNIT_SRCS) $(UNIT_HDRS) test/*.c

demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory hugepar
	test/boot.sh demo

# Cloud images (image/build.sh, doc/cloud-images.md): a Debian 13 disk image with
# hugepar of each flavour, the settings of image/hugepar.conf; each build prints the
# QEMU command that boots it. The package is built once, for both.
IMAGEDIR    := $(BUILD)/image
image:
	@$(MAKE) --no-print-directory deps
	image/build.sh --flavour initramfs-tools $(IMAGEDIR)/hugepar-initramfs-tools.img
	image/build.sh --flavour dracut --deb $(IMAGEDIR)/deb/hugepar_$(VERSION)-1_$$(dpkg --print-architecture).deb \
		$(IMAGEDIR)/hugepar-dracut.img

# Benchmarks (about an hour): this machine, the simulated kernel, then QEMU; tables on stdout, plot in doc/.
bench:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory hugepar hugepar-test $(BUILD)/holdpages $(BUILD)/timeit $(BUILD)/syscost
	bench/run.sh
	ADAPT_RUNS=5 bench/adapt.sh
	bench/sim1g.sh
	bench/qemu.sh
	bench/idle.sh
	bench/vmemmap.sh
	bench/arm64.sh
	bench/plot.sh

clean:
	rm -rf hugepar $(TBIN) $(BUILD)/musl $(BUILD)/san $(BUILD)/unit* $(BUILD)/hugepar-* $(BUILD)/fuzz* test/out

ifneq ($(BIN),hugepar)
hugepar: $(BIN)
hugepar-test: $(TBIN)
.PHONY: hugepar hugepar-test
endif

.PHONY: all check check-all check-busy check-fast fuzz syncheck deps install uninstall indent demo bench clean image \
	fault-matrix
