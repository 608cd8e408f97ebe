# SPDX-License-Identifier: GPL-2.0
#
# klp: an observable live patching core for stock kernels.
#
#   make            the core module, samples, test modules, BPF and tools
#   make run        boot the guest with a live patch, a workload and klptop
#   make check      every test, host and guest; ends "N passed, N failed"
#   make bench      benchmarks in the guest (bench/results.json)
#   make torture    the torture test in a guest (SEED=, STEPS=, TIME=)
#   make check-debug  every test again on a lockdep/KASAN kernel built from
#                   Debian's linux-source (not in CI: it builds a kernel)
#   make vmlinux.h  regenerate vmlinux.h from the target kernel's BTF
#   make install    the tools and their man pages, the BPF object,
#                   include/klp and the core's DKMS source
#                   (PREFIX=/usr/local, DESTDIR, SYSTEMD_UNITDIR)
#   make deb        Debian packages klp-dkms and klp-tools in build/deb/
#
# KVER (default: the distribution's kernel, see scripts/kver.sh) or KDIR
# select the target kernel.  `run`, `check` and `bench` first install what
# is missing.

KVER ?= $(shell scripts/kver.sh 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build
export KVER

KLP_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
PREFIX ?= /usr/local
DESTDIR ?=

OUT := build
BPF_OUT := $(OUT)/bpf
BIN := $(OUT)/bin

CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= gcc
CFLAGS ?= -g -O2 -Wall -Wextra -Wno-unused-parameter
ARCH_BPF := x86
# userspace/'s rooms (userspace/README.md): the helpers, the model, the
# sources that feed it (a folder a core) and the tools (a folder each),
# each a directory; a file is found in whichever room holds it.
USER_ROOMS := $(patsubst %/,%,$(sort $(dir $(wildcard userspace/*/*.[ch] userspace/*/*/*.[ch]))))
vpath %.c $(USER_ROOMS)
# A file sees the headers of its own room and of the rooms below it, never
# those of a room above or beside it: lib, then the model, then each
# source, then each tool (host/42 checks the calls and link lines too).
ROOMS_BELOW_lib :=
ROOMS_BELOW_model := userspace/lib
ROOMS_BELOW_sources := userspace/lib userspace/model
ROOMS_BELOW_tools := userspace/lib userspace/model $(filter userspace/sources/%,$(USER_ROOMS))
room_includes = $(addprefix -I,$(ROOMS_BELOW_$(word 2,$(subst /, ,$1))) $(patsubst %/,%,$(dir $1)))
# GNU: program_invocation_short_name names the tool in shared messages.
# libtracefs' and libtraceevent's headers include each other by bare name.
INCLUDES := -D_GNU_SOURCE -Iinclude -I$(BPF_OUT) -I$(OUT) \
	$(shell pkg-config --cflags libtracefs libtraceevent 2>/dev/null)

# The version and the git revision the tools are built from (klp-exporter's
# build_info), in build/version.h: rewritten only when they change, so a
# new commit rebuilds only what includes it, and `make -q` stays quiet.
KLP_REVISION := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
$(shell mkdir -p $(OUT) && \
	printf '#define KLP_VERSION "%s"\n#define KLP_REVISION "%s"\n' \
		'$(KLP_VERSION)' '$(KLP_REVISION)' > $(OUT)/version.h.new && \
	{ cmp -s $(OUT)/version.h.new $(OUT)/version.h && rm -f $(OUT)/version.h.new || \
	  mv $(OUT)/version.h.new $(OUT)/version.h; })

KBUILD := $(MAKE) -C $(KDIR)
KMODS := . $(FAULT_DIR)

# The fault-injection build of the core (for the selftests only): the same
# sources, linked into its own kbuild directory, with KLP_FAULT_INJECT=y.
FAULT_DIR := $(OUT)/core-fault
# The torture test's modules (selftests/torture/): each module's source
# linked under its name into its own kbuild directory.
TORTURE_DIR := $(OUT)/torture
include selftests/torture/kinds.mk
TORTURE_LINKS := ktt_sleepers.c:ktt_sleepers.c ktt_debugfs.c:ktt_debugfs.c ktt_park.h:ktt_park.h ktt.h:ktt.h Kbuild:Kbuild kinds.mk:kinds.mk \
	$(foreach s,$(KTT_SIDES),ktt_tgt.c:ktt_tgt_$(s).c) \
	$(foreach k,$(KTT_KINDS),$(foreach s,$(KTT_SIDES),ktt_patch.c:ktt_$(k)_$(s).c))
CORE_SRCS := $(filter-out %.mod.c,$(wildcard core/*.c)) $(wildcard core/*.h) core/Kbuild

BPF_PROGS := $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c))
SKELS := $(patsubst %,$(BPF_OUT)/%.skel.h,$(BPF_PROGS))
TOOLS := $(BIN)/klptop $(BIN)/klp-trace $(BIN)/klp-exporter
TOOL_OBJS := $(patsubst %.c,$(OUT)/obj/%.o,$(notdir $(wildcard $(addsuffix /*.c,$(USER_ROOMS)))))

.PHONY: all modules userspace deps run check check-debug bench torture clean kernel-check \
	install install-dkms-src

all: modules userspace

# Keep the BPF objects (make install ships them) and the helpers' objects;
# never leave a half-written target behind a failed recipe.
.SECONDARY: $(SKELS) $(SKELS:.skel.h=.bpf.o) $(TOOL_OBJS)
.DELETE_ON_ERROR:

kernel-check:
	@scripts/check-kernel.sh $(KDIR)

# One kbuild run (the top-level Kbuild), then the fault-injection core
# apart: it exports the same symbols; then upstream's livepatch test
# modules, from the installed linux-source, against klp's Module.symvers
# (build/upstream, for selftests/tests/70-upstream.sh).
modules: kernel-check
	$(KBUILD) M=$(CURDIR) modules
	mkdir -p $(FAULT_DIR) && ln -sf $(addprefix $(CURDIR)/,$(CORE_SRCS)) $(FAULT_DIR)/
	$(KBUILD) M=$(CURDIR)/$(FAULT_DIR) KLP_FAULT_INJECT=y modules
	@mkdir -p $(TORTURE_DIR) && $(foreach l,$(TORTURE_LINKS),\
		ln -sf $(CURDIR)/selftests/torture/$(word 1,$(subst :, ,$(l))) \
			$(TORTURE_DIR)/$(word 2,$(subst :, ,$(l))) &&) true
	$(KBUILD) M=$(CURDIR)/$(TORTURE_DIR) KBUILD_EXTRA_SYMBOLS=$(CURDIR)/Module.symvers modules
	scripts/upstream-selftests.sh $(KDIR)

userspace: $(TOOLS)

$(BPF_OUT) $(BIN) $(OUT)/obj:
	mkdir -p $@

# BPF objects and skeletons, as in libbpf-bootstrap
$(BPF_OUT)/%.bpf.o: bpf/%.bpf.c include/klp/uapi.h vmlinux.h | $(BPF_OUT)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH_BPF) -I. -Iinclude -c $< -o $@

$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@

# Each tool: userspace/tools/<tool>/<tool>.c, its rooms (<tool>_ROOMS, each
# a <room>.c in one of userspace/'s rooms), the helpers it shares
# (<tool>_LIBS, each a <name>_lib.c in one of them), its BPF skeleton when
# bpf/<tool>.bpf.c exists, and the libraries it needs (<tool>_PKGS).
# Header dependencies come from the compiler (-MMD), so a change rebuilds
# only what includes it.
klptop_ROOMS := model event_log source_klp_events source_klp_counters source_klp_attach \
	source_klp source_klp_state source_klp_transitions \
	klptop_screen klptop_tty klptop_keys klptop_json transition_model \
	livepatch_transitions klptop_transitions source_livepatch source_livepatch_sysfs \
	source_livepatch_probes source_livepatch_events
klptop_LIBS := alloc hindex snapshot json strbuf readat livepatch_sysfs ksyms livepatch_walk kcore
klptop_PKGS := libbpf
klp-exporter_ROOMS := model event_log source_klp_events source_klp_counters source_klp_attach \
	source_klp source_klp_state source_klp_transitions \
	transition_model livepatch_transitions \
	klp-exporter_metrics klp-exporter_transitions klp-exporter_counters \
	klp-exporter_text klp-exporter_http klp-exporter_textfile \
	klp-exporter_options klp-exporter_self source_livepatch source_livepatch_sysfs \
	source_livepatch_probes source_livepatch_events
klp-exporter_LIBS := alloc hindex snapshot strbuf readat livepatch_sysfs ksyms livepatch_walk kcore \
	procstat
klp-exporter_PKGS := libbpf libmicrohttpd
klp-trace_ROOMS := klp-trace_format klp-trace_instance klp-trace_owner klp-trace_select \
	klp-trace_builtin klp-trace_builtin_rec klp-trace_calls klp-trace_blocked \
	livepatch_transitions transition_model
klp-trace_LIBS := alloc seqorder json strbuf ksyms livepatch_sysfs kcore hindex \
	livepatch_walk btfoff readat procstat
klp-trace_PKGS := libtracefs libtraceevent libbpf

.SECONDEXPANSION:
$(OUT)/obj/%.o: %.c $$(if $$(wildcard bpf/$$*.bpf.c),$(BPF_OUT)/$$*.skel.h) | $(OUT)/obj
	$(CC) $(CFLAGS) $(INCLUDES) $(call room_includes,$<) -MMD -MP -c $< -o $@

$(BIN)/%: $(OUT)/obj/%.o $$(addprefix $(OUT)/obj/,$$(addsuffix .o,$$($$*_ROOMS)) $$(addsuffix _lib.o,$$($$*_LIBS))) | $(BIN)
	$(CC) $(CFLAGS) $^ -o $@ $(shell pkg-config --libs $($*_PKGS))

# rooms that include another tool's skeleton
$(OUT)/obj/source_klp_attach.o: $(BPF_OUT)/klptop.skel.h
$(OUT)/obj/source_livepatch.o $(OUT)/obj/source_livepatch_probes.o: \
	$(BPF_OUT)/livepatch.skel.h
$(BPF_OUT)/livepatch.bpf.o: include/klp/livepatch_source.h

-include $(wildcard $(OUT)/obj/*.d)
# A file of the rooms that an object's dependencies name where it no longer
# is (it moved to another room): the object is built again from where it is.
userspace/%.c userspace/%.h:
	@:

vmlinux.h:
	scripts/guest-kernel.sh $(KVER)
	$(BPFTOOL) btf dump file $(OUT)/kernel/$(KVER)/vmlinux format c > $@

deps:
	scripts/deps.sh $(KVER)

run: deps
	$(MAKE) all
	selftests/guest/boot.sh -i -t $${KLP_RUN_TIMEOUT:-3600} selftests/demo.sh $(KLPTOP_ARGS)

# With the default kernel, make check also runs a subset of the groups on
# the installed 6.12 (see selftests/run.sh); KVER=... runs only that one.
# Without 6.12's headers the pass is a failure ("missing"), not silence.
CHECK_ALSO ?= $(if $(filter command line environment,$(origin KVER)),,$(or $(shell scripts/kver.sh 6.12 2>/dev/null),missing))

check: deps
	$(MAKE) all
	KLP_ALSO_KVER=$(CHECK_ALSO) selftests/run.sh

# The debug kernel's release replaces KVER, its build tree KDIR; the
# modules are rebuilt against it (and again by the next plain make).
# no5lvl: with -cpu max's 5-level paging, an interrupt early in boot can
# hit KASAN in rcu_is_watching(), and that report turns lockdep off.
check-debug:
	scripts/deps.sh -d $(KVER)
	rel=$$(scripts/debug-kernel.sh) && \
	$(MAKE) KVER=$$rel KDIR=$(CURDIR)/$(OUT)/debug-kernel/obj all && \
	KVER=$$rel KDIR=$(CURDIR)/$(OUT)/debug-kernel/obj KLP_TIMEOUT_SCALE=4 \
		KLP_BOOT_ARGS=no5lvl selftests/run.sh

bench: deps
	$(MAKE) all
	bench/run.sh

# The torture (selftests/torture/klp_torture.py) in a guest: SEED (a
# number, or several separated by ':', a boot each, up to the first that
# fails: a forced transition pins modules until a reboot; default: the
# time), STEPS (60), TIME (a soak of that many seconds instead of STEPS),
# on single-threaded TCG.  A failure prints the SEED and STEPS that
# replay it.
SEED ?= $(shell date +%s)
STEPS ?= 60
TIME ?= 0
torture: deps
	$(MAKE) all
	@echo "torture: SEED=$(SEED) STEPS=$(STEPS) TIME=$(TIME) on $(KVER)"
	for seed in $(subst :, ,$(SEED)); do \
		KLP_ACCEL=tcg,thread=single selftests/guest/boot.sh \
			-t $$(( $(TIME) + 600 + 10 * $(STEPS) )) \
			selftests/tests/27-torture.sh $$seed $(STEPS) $(TIME) verbose || exit 1; \
	done

# The core's sources as DKMS wants them: /usr/src/klp-<version>/
DKMS_SRC := $(DESTDIR)/usr/src/klp-$(KLP_VERSION)
install-dkms-src:
	install -d $(DKMS_SRC)/core $(DKMS_SRC)/include/klp
	install -m 644 dkms.conf $(DKMS_SRC)/
	install -m 644 $(CORE_SRCS) $(DKMS_SRC)/core/
	install -m 644 include/klp/*.h $(DKMS_SRC)/include/klp/

SYSTEMD_UNITDIR ?= /etc/systemd/system
install: userspace $(SKELS:.skel.h=.bpf.o) install-dkms-src
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/lib/klp $(DESTDIR)$(PREFIX)/include/klp \
		$(DESTDIR)$(PREFIX)/share/man/man8
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/sbin/
	install -m 644 man/*.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 644 $(BPF_OUT)/*.bpf.o $(DESTDIR)$(PREFIX)/lib/klp/
	install -m 644 include/klp/*.h $(DESTDIR)$(PREFIX)/include/klp/
	install -d $(DESTDIR)$(SYSTEMD_UNITDIR) $(DESTDIR)$(PREFIX)/share/klp/prometheus
	sed 's|@SBINDIR@|$(PREFIX)/sbin|g' prometheus/klp-exporter.service \
		> $(DESTDIR)$(SYSTEMD_UNITDIR)/klp-exporter.service
	install -m 644 prometheus/klp.rules.yml $(DESTDIR)$(PREFIX)/share/klp/prometheus/
	@echo "klp $(KLP_VERSION): now build and install the core for every kernel with"
	@echo "  dkms install klp/$(KLP_VERSION)"

# Debian 12's packages, built with debhelper from a copy of the tree
# (scripts/deb.sh; the packages are reused while the tree is unchanged)
.PHONY: deb
deb:
	scripts/deb.sh

clean:
	for d in $(KMODS) $(TORTURE_DIR); do $(KBUILD) M=$(CURDIR)/$$d clean >/dev/null 2>&1 || true; done
	rm -rf $(BPF_OUT) $(BIN) $(OUT)/obj $(OUT)/guest $(OUT)/upstream
