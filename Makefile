# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The kernel module (through Kbuild) and the user-space builds of the core
# (in build/).
#
#   make modules       utf8val.ko and the sample client, against KDIR
#   make lib           build/libutf8val.a, the core for user space
#   make test          host tests in every variant (see VARIANTS)
#   make test-variants only the variants' programs (scripts/test.sh's)
#   make check         the package build's tests: the plain variant's
#                      (the exhaustive test quick) and the command as built
#   make bench         throughput and instructions-per-byte table
#   make fuzz          libFuzzer differential run for FUZZ_SECONDS
#   make freestanding  proof that the core needs no libc
#   make cli           build/utf8val, the command-line validator
#   make utf8names     build/utf8names, the BPF LSM file name policy (tools/utf8names)
#   make bpf           that, and build/kfuncs_test, the kfuncs' guest test
#   make install       headers (utf8val.h, linux/utf8val.h for the device),
#                      libraries, pkg-config file, command and manuals,
#                      under DESTDIR and PREFIX (/usr/local)
#   make uninstall     the same files removed

BUILD		?= build
CLANG		?= clang
FUZZ_SECONDS	?= 60

# The target CPU: the compiler's, or with CROSS_COMPILE=aarch64-linux-gnu-
# (s390x-linux-gnu-, arm-linux-gnueabihf-, i686-linux-gnu-) another one.
ifeq ($(origin CC),default)
CC		:= $(CROSS_COMPILE)gcc
endif
ifeq ($(origin CXX),default)
CXX		:= $(CROSS_COMPILE)g++
endif
ifeq ($(origin AR),default)
AR		:= $(CROSS_COMPILE)ar
endif
MACHINE		:= $(shell $(CC) -dumpmachine)

# The target's vector paths: its architecture's folder (named as the
# kernel names it) says which, and with which flags (utf8val.mk, which
# Kbuild reads too), and holds them with their header; an architecture
# without them has generic/'s header. KERNEL_NO_FPU: the flags of the
# target's kernel code (no FPU/SIMD registers) that the vector units drop.
utf8val_machine	:= $(MACHINE)
SRCARCH		:= $(shell echo '$(MACHINE)' | sed -e 's/-.*//' \
		   -e 's/^i.86$$/x86/' -e 's/^x86_64$$/x86/' -e 's/^arm.*/arm/' \
		   -e 's/^aarch64.*/arm64/' -e 's/^riscv.*/riscv/' -e 's/^s390.*/s390/' \
		   -e 's/^p.*pc.*/powerpc/' -e 's/^mips.*/mips/' \
		   -e 's/^loongarch.*/loongarch/' -e 's/^sparc.*/sparc/' \
		   -e 's/^hppa.*/parisc/' -e 's/^sh[234].*/sh/' -e 's/^m68k.*/m68k/')
-include $(SRCARCH)/utf8val.mk
VEC		:= $(utf8val_vec)
ARCH_DIR	:= $(if $(VEC),$(SRCARCH),generic)
KERNEL_NO_FPU	:= $(utf8val_no_fpu)
KERNEL_ARCH	:= $(utf8val_no_fpu) $(utf8val_kernel_codegen)
ARCH_HDR	:= $(ARCH_DIR)/utf8val_arch.h $(wildcard $(ARCH_DIR)/utf8val.mk)
ARCH_INC	:= -I$(ARCH_DIR)

WERROR		?= -Werror
WARN		:= -Wall -Wextra -Wno-missing-field-initializers $(WERROR)
HOST_CFLAGS	:= -O2 -g $(WARN) $(ARCH_INC)
# What gets installed also takes the builder's CPPFLAGS, CFLAGS and
# LDFLAGS (a distribution's hardening flags).
INSTALLED_CFLAGS := $(HOST_CFLAGS) $(CPPFLAGS) $(CFLAGS)
# The command's files, all alike: GNU's functions, and off_t of 64 bits
# (files past 2 GiB on 32-bit systems; struct input holds offsets).
CLI_CPPFLAGS	:= -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -I.

CORE_SRC	:= utf8val_core.c
CORE_HDR	:= utf8val.h utf8val_types.h utf8val_simd.h utf8val_lines.h \
		   utf8val_user.h $(ARCH_HDR)
VEC_HDR		:= utf8val_simd_tables.h utf8val_simd_rules.h utf8val_simd_loop.h
TEST_COMMON	:= tests/common.c tests/reference.c tests/tap.c
# where the tests find shared/ wherever they run (tests/common.c)
TEST_SHARED	:= -DUTF8VAL_TREE_SHARED='"$(abspath $(CURDIR)/../shared)"'
TEST_HDR	:= tests/common.h tests/reference.h tests/tap.h $(CORE_HDR)
TESTS		:= test_api test_vectors test_random test_replace test_exhaustive test_race test_position \
		   test_options

# Kernel code generation, as Kbuild uses it: no jump tables, no FPU.
KERNEL_CFLAGS	:= -O2 -g $(WARN) $(ARCH_INC) -ffreestanding -fno-strict-aliasing \
		   -fno-common -fno-delete-null-pointer-checks \
		   -fno-jump-tables $(KERNEL_ARCH)

# The module's vector threshold (each utf8val_arch.h's in the kernel), for
# the builds that run the core as the kernel does: the core and its vector
# objects alike, which then leave out what no call that short reaches.
KERNEL_MIN_LEN	:= -DUTF8VAL_SIMD_MIN_LEN=4096

SAN_FLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=all

# Each variant builds the core with CORE_FLAGS and the tests with
# TEST_FLAGS (LDFLAGS to link). Another CPU's build runs its tests in an
# emulator (scripts/cross-tests): the plain variant only.
ifeq ($(CROSS_COMPILE),)
VARIANTS	:= host asan kernel-flags aligned
else
VARIANTS	:= host
endif
host_CORE	:= $(HOST_CFLAGS)
host_TEST	:= $(HOST_CFLAGS)
asan_CORE	:= -O1 -g $(WARN) $(ARCH_INC) $(SAN_FLAGS)
asan_TEST	:= $(asan_CORE)
asan_LD		:= $(SAN_FLAGS)
# The scalar code as RISC-V builds it (utf8val_core.c's WORDS_ALIGNED),
# here under ASan and UBSan, whose alignment check sees the misaligned
# word loads that RISC-V's emulator runs without a fault
aligned_CORE	:= $(asan_CORE) -DWORDS_ALIGNED=1
aligned_TEST	:= $(aligned_CORE)
aligned_LD	:= $(SAN_FLAGS)
kernel-flags_CORE := $(KERNEL_CFLAGS)
kernel-flags_TEST := $(HOST_CFLAGS)

# Objects depend on the target: a build directory switched to another CPU
# rebuilds them.
TARGET_STAMP	:= $(BUILD)/.target
$(shell mkdir -p $(BUILD); echo '$(MACHINE)' | cmp -s - $(TARGET_STAMP) || \
	echo '$(MACHINE)' >$(TARGET_STAMP))

KDIR		?= /lib/modules/$(shell uname -r)/build

VERSION		:= $(shell sed -n 's/^\#define UTF8VAL_VERSION_STRING[^"]*"\(.*\)"/\1/p' utf8val.h)
SOMAJOR		:= $(firstword $(subst ., ,$(VERSION)))

.PHONY: all modules vector-paths test-names lib test test-variants check test-build core-tests bench bench-emu bench-arm64 fuzz freestanding cli utf8names bpf clean \
	install install-utf8names uninstall
all: lib cli

# --- the kernel module -------------------------------------------------------
modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

# The target's vector paths, as its folder's utf8val.mk names them.
vector-paths:
	@echo $(VEC)
# the core's test programs, for the scripts that run them
# (scripts/run-host-tests, scripts/cross-tests)
test-names:
	@echo $(TESTS)

# --- the library -----------------------------------------------------------
# Static and shared; the shared one exports utf8val.h's functions only
# (utf8val.map) under the soname libutf8val.so.$(SOMAJOR).
SONAME		:= libutf8val.so.$(SOMAJOR)
LIB_SO		:= $(BUILD)/libutf8val.so.$(VERSION)
lib: $(BUILD)/libutf8val.a $(LIB_SO) $(BUILD)/utf8val.pc

$(BUILD)/lib/utf8val_core.o: $(CORE_SRC) $(CORE_HDR) $(TARGET_STAMP)
	@mkdir -p $(@D)
	$(CC) $(INSTALLED_CFLAGS) -fPIC -c $< -o $@
$(BUILD)/libutf8val.a: $(BUILD)/lib/utf8val_core.o $(VEC:%=$(BUILD)/lib/utf8val_%.o)
	rm -f $@
	$(AR) rcs $@ $^
$(LIB_SO): $(BUILD)/lib/utf8val_core.o $(VEC:%=$(BUILD)/lib/utf8val_%.o) utf8val.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=utf8val.map \
		-Wl,-z,relro -Wl,-z,now -Wl,--as-needed $(LDFLAGS) \
		-o $@ $(filter %.o,$^)
	ln -sf $(notdir $@) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libutf8val.so

# Each vector path in each build directory DIR, with DIR's flags less the
# kernel's no-FPU ones: $(call vec_rules,DIR,FLAGS)
define vec_rules
$(foreach v,$(VEC),
$(BUILD)/$(1)/utf8val_$(v).o: $(ARCH_DIR)/utf8val_$(v).c $(CORE_HDR) $(VEC_HDR) $(TARGET_STAMP)
	@mkdir -p $$(@D)
	$(CC) $$(filter-out $(KERNEL_NO_FPU),$(2)) $(utf8val_$(v)_flags) -c $$< -o $$@
)
endef
$(eval $(call vec_rules,lib,$(INSTALLED_CFLAGS) -fPIC))

# --- host tests, one directory per variant ---------------------------------
define variant_rules
$(BUILD)/$(1)/utf8val_core.o: $(CORE_SRC) $(CORE_HDR) $(TARGET_STAMP)
	@mkdir -p $$(@D)
	$(CC) $$($(1)_CORE) -c $$< -o $$@
$(call vec_rules,$(1),$($(1)_CORE))

$(1)_OBJS := $(BUILD)/$(1)/utf8val_core.o $(VEC:%=$(BUILD)/$(1)/utf8val_%.o)
$(BUILD)/$(1)/%: tests/%.c $(TEST_COMMON) $(TEST_HDR) $$($(1)_OBJS)
	$(CC) $$($(1)_TEST) $(TEST_SHARED) -o $$@ $$< $(TEST_COMMON) $$($(1)_OBJS) $$($(1)_LD) $(LDFLAGS)

core-tests: $(addprefix $(BUILD)/$(1)/,$(TESTS))
# (the command's own arithmetic, from its folder)
$(BUILD)/$(1)/test_position: tools/utf8val/position.c tools/utf8val/cli.h
$(BUILD)/$(1)/test_position: $(1)_TEST += $(CLI_CPPFLAGS)
$(BUILD)/$(1)/test_options: tools/utf8val/options.c tools/utf8val/cli.h
$(BUILD)/$(1)/test_options: $(1)_TEST += $(CLI_CPPFLAGS) \
		-DMANUAL='"$(CURDIR)/Documentation/man/utf8val.1"' \
		-DHELP='"$(CURDIR)/tests/utf8val-help.txt"'
endef
$(foreach v,$(VARIANTS),$(eval $(call variant_rules,$(v))))

# A user's view: the public header alone, strict C99 and C++, linked to
# the library.
$(BUILD)/header_check: tests/header_check.c utf8val.h $(BUILD)/libutf8val.a
	$(CC) -std=c99 -pedantic $(WARN) -I. -o $@ $< $(BUILD)/libutf8val.a
$(BUILD)/header_check_cxx: tests/header_check.c utf8val.h $(BUILD)/libutf8val.a
	$(CXX) -x c++ -std=c++11 -pedantic $(WARN) -I. -o $@ $< -x none $(BUILD)/libutf8val.a
test-build: $(BUILD)/header_check $(BUILD)/header_check_cxx

# The device's traffic under the module's vector threshold, the vector
# entry points wrapped so that the test counts their calls.
KCHUNK_WRAP	:= $(VEC:%=-Wl,--wrap=utf8val_%_blocks) \
		   $(VEC:%=-Wl,--wrap=utf8val_%_newlines) \
		   -D'UTF8VAL_WRAPPED=$(foreach v,$(VEC),WRAP(utf8val_$(v)_blocks) WRAP_NEWLINES(utf8val_$(v)_newlines))'
$(BUILD)/kchunks/utf8val_core.o: $(CORE_SRC) $(CORE_HDR) $(TARGET_STAMP)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(KERNEL_MIN_LEN) -c $< -o $@
$(eval $(call vec_rules,kchunks,$(HOST_CFLAGS) $(KERNEL_MIN_LEN)))
KCHUNK_OBJS	:= $(BUILD)/kchunks/utf8val_core.o $(VEC:%=$(BUILD)/kchunks/utf8val_%.o)
$(BUILD)/kchunks/test_kernel_chunks: tests/test_kernel_chunks.c $(TEST_COMMON) $(TEST_HDR) $(KCHUNK_OBJS)
	$(CC) $(HOST_CFLAGS) $(TEST_SHARED) -I. -o $@ $< $(TEST_COMMON) $(KCHUNK_OBJS) $(KCHUNK_WRAP) $(LDFLAGS)
core-tests: $(BUILD)/kchunks/test_kernel_chunks

# The fuzz target without libFuzzer, for CPUs that clang's libFuzzer does
# not build for here (scripts/cross-tests).
$(BUILD)/fuzz_replay: tests/fuzz_replay.c tests/fuzz_core.c $(TEST_COMMON) $(TEST_HDR) $(host_OBJS)
	$(CC) $(HOST_CFLAGS) $(TEST_SHARED) -o $@ $< tests/fuzz_core.c $(TEST_COMMON) $(host_OBJS) $(LDFLAGS)
core-tests: $(BUILD)/fuzz_replay
test-build: core-tests

test: test-build freestanding cli
	scripts/run-host-tests $(BUILD) $(VARIANTS)

# Only the variants' programs: scripts/test.sh's, whose package build runs
# the rest (make check).
test-variants: test-build
	scripts/run-host-tests --variants-only $(BUILD) $(VARIANTS)

# dh_auto_test's: what make test runs, less the sanitizer and kernel-flags
# builds and the exhaustive test's long form, for the library and the
# command as the package ships them.
check: $(addprefix $(BUILD)/host/,$(TESTS)) $(BUILD)/kchunks/test_kernel_chunks \
	$(BUILD)/header_check $(BUILD)/header_check_cxx freestanding cli
	UTF8VAL_QUICK=1 LD_LIBRARY_PATH=$(abspath $(BUILD)) \
		scripts/run-host-tests $(BUILD) host

# --- the core without libc -------------------------------------------------
# Only the compiler's own freestanding headers; no symbol may stay undefined.
FREESTANDING	:= -fno-pie -nostdlib -nostdinc -isystem $(shell $(CC) -print-file-name=include)
freestanding: $(BUILD)/freestanding/utf8val_core.o $(VEC:%=$(BUILD)/freestanding/utf8val_%.o)
	@undef=$$(nm -u $^ | grep -v -e '^$$' -e ':$$' -e 'utf8val_.*_blocks' -e 'utf8val_.*_whole' \
		-e 'utf8val_.*_newlines'); \
	if [ -n "$$undef" ]; then echo "freestanding core needs: $$undef"; exit 1; fi
$(BUILD)/freestanding/utf8val_core.o: $(CORE_SRC) $(CORE_HDR) $(TARGET_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KERNEL_CFLAGS) $(FREESTANDING) -c $< -o $@
$(eval $(call vec_rules,freestanding,$(KERNEL_CFLAGS) $(FREESTANDING)))

# --- command-line validator -------------------------------------------------
# linked to the static library, so that it runs wherever it is copied;
# CLI_LINK=shared links libutf8val.so.1, as the Debian package does.
CLI_LINK	?= static
CLI_LIBS	:= $(if $(filter shared,$(CLI_LINK)),-L$(BUILD) -lutf8val,$(BUILD)/libutf8val.a)
cli: $(BUILD)/utf8val
CLI_SRC		:= $(wildcard tools/utf8val/*.c)
$(BUILD)/utf8val: $(CLI_SRC) tools/utf8val/cli.h $(CORE_HDR) $(BUILD)/libutf8val.a $(LIB_SO)
	$(CC) $(INSTALLED_CFLAGS) $(CLI_CPPFLAGS) -pthread $(LDFLAGS) -o $@ $(CLI_SRC) $(CLI_LIBS)

# --- BPF: the file name policy and the kfuncs' test ---------------------------
# tools/utf8names: a BPF LSM policy (clang -target bpf, CO-RE) in a
# libbpf skeleton (bpftool), and its loader, one static binary that runs
# from a busybox initramfs; build/kfuncs_test (selftests/bpf), the kfuncs
# against the reference, the same way. Debian's clang, llvm, bpftool,
# libbpf-dev, libelf-dev and zlib1g-dev.
UTF8NAMES	:= tools/utf8names
BPF_CLANG	?= clang
BPFTOOL		?= bpftool
BPF_CFLAGS	= -g -O2 -Wall -Werror -target bpf \
		   -I/usr/include/$(shell gcc -dumpmachine)
BPF_LIBS	:= -lbpf -lelf -lz
# For another CPU (CROSS_COMPILE=), that CPU's libbpf, libelf and zlib,
# unpacked by scripts/fetch-sysroot: BPF_SYSROOT=$(scripts/fetch-sysroot
# arm64 libbpf-dev libelf-dev zlib1g-dev)
BPF_SYSROOT	?=
BPF_USER_FLAGS	:= $(if $(BPF_SYSROOT),-isystem $(BPF_SYSROOT)/usr/include \
		   -L$(BPF_SYSROOT)/usr/lib/$(MACHINE))
BPF_OBJS	:= $(BUILD)/bpf/utf8names.bpf.o $(BUILD)/bpf/kfuncs.bpf.o
utf8names: $(BUILD)/utf8names
bpf: $(BUILD)/utf8names $(BUILD)/kfuncs_test
$(BUILD)/bpf/utf8names.bpf.o: $(UTF8NAMES)/utf8names.bpf.c $(UTF8NAMES)/utf8names.h \
		$(wildcard $(UTF8NAMES)/*.bpf.h)
# fetching atomics (verdict.bpf.h, in_flight()): BPF v3, kernels 5.12 on
$(BUILD)/bpf/utf8names.bpf.o: BPF_CFLAGS += -mcpu=v3
$(BUILD)/bpf/kfuncs.bpf.o: selftests/bpf/kfuncs.bpf.c selftests/bpf/kfuncs.h
$(BPF_OBJS): utf8val.h bpf/utf8val_kfuncs.h
	@mkdir -p $(@D)
	$(BPF_CLANG) $(BPF_CFLAGS) -c $(filter %.bpf.c,$^) -o $@
$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf >$@.tmp && mv $@.tmp $@
# static for the busybox guests; the Debian package links it to the
# shared libraries (UTF8NAMES_STATIC=)
UTF8NAMES_STATIC ?= -static
# (the loader's files, loader.h lists them; statx() and renameat2() are
# _GNU_SOURCE's)
UTF8NAMES_SRC	:= $(filter-out %.bpf.c,$(wildcard $(UTF8NAMES)/*.c))
$(BUILD)/utf8names: $(UTF8NAMES_SRC) $(UTF8NAMES)/loader.h $(UTF8NAMES)/utf8names.h \
		$(BUILD)/bpf/utf8names.skel.h $(BUILD)/libutf8val.a
	$(CC) $(INSTALLED_CFLAGS) -D_GNU_SOURCE $(UTF8NAMES_STATIC) -I. -I$(UTF8NAMES) \
		-I$(BUILD)/bpf -o $@ $(UTF8NAMES_SRC) \
		$(BUILD)/libutf8val.a $(BPF_USER_FLAGS) $(LDFLAGS) $(BPF_LIBS)
$(BUILD)/kfuncs_test: selftests/bpf/kfuncs_test.c selftests/bpf/kfuncs.h \
		$(BUILD)/bpf/kfuncs.skel.h selftests/dev_model.c selftests/dev_model.h \
		tests/reference.c tests/reference.h tests/tap.c tests/tap.h
	$(CC) $(HOST_CFLAGS) -static -I. -I$(BUILD)/bpf -o $@ \
		$(filter %.c,$^) $(BPF_USER_FLAGS) $(BPF_LIBS)

# --- installation ------------------------------------------------------------
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
SBINDIR		?= $(PREFIX)/sbin
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
MANDIR		?= $(PREFIX)/share/man
COMPLETIONDIR	?= $(PREFIX)/share/bash-completion/completions
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
MANPAGES	:= Documentation/man/utf8val.1 Documentation/man/utf8val.3 \
		   Documentation/man/utf8val.4
INSTALL		?= install

$(BUILD)/utf8val.pc: utf8val.pc.in utf8val.h Makefile
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    $< >$@

# The .pc file names the directories: rebuild it for each install.
install: lib cli
	rm -f $(BUILD)/utf8val.pc
	$(MAKE) $(BUILD)/utf8val.pc
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(INCLUDEDIR)/linux $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man4 $(DESTDIR)$(COMPLETIONDIR)
	$(INSTALL) -m 755 $(BUILD)/utf8val $(DESTDIR)$(BINDIR)/utf8val
	$(INSTALL) -m 644 tools/utf8val/utf8val.bash $(DESTDIR)$(COMPLETIONDIR)/utf8val
	$(INSTALL) -m 644 utf8val.h $(DESTDIR)$(INCLUDEDIR)/utf8val.h
	$(INSTALL) -m 644 uapi/linux/utf8val.h $(DESTDIR)$(INCLUDEDIR)/linux/utf8val.h
	$(INSTALL) -m 644 $(BUILD)/libutf8val.a $(DESTDIR)$(LIBDIR)/libutf8val.a
	$(INSTALL) -m 644 $(LIB_SO) $(DESTDIR)$(LIBDIR)/$(notdir $(LIB_SO))
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libutf8val.so
	$(INSTALL) -m 644 $(BUILD)/utf8val.pc $(DESTDIR)$(PKGCONFIGDIR)/utf8val.pc
	$(INSTALL) -m 644 Documentation/man/utf8val.1 $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 Documentation/man/utf8val.3 $(DESTDIR)$(MANDIR)/man3/
	$(INSTALL) -m 644 Documentation/man/utf8val.4 $(DESTDIR)$(MANDIR)/man4/
	@# on the live system, programs find the library at once (not for a
	@# staged DESTDIR, nor for a user's own prefix ldconfig cannot write)
	$(if $(DESTDIR),,-[ ! -w /etc/ld.so.cache ] || ldconfig)

# The file name policy (tools/utf8names): its loader and manual.
install-utf8names: $(BUILD)/utf8names
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8
	$(INSTALL) -m 755 $(BUILD)/utf8names $(DESTDIR)$(SBINDIR)/utf8names
	$(INSTALL) -m 644 Documentation/man/utf8names.8 $(DESTDIR)$(MANDIR)/man8/

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/utf8names $(DESTDIR)$(MANDIR)/man8/utf8names.8
	rm -f $(DESTDIR)$(BINDIR)/utf8val $(DESTDIR)$(COMPLETIONDIR)/utf8val \
	      $(DESTDIR)$(INCLUDEDIR)/utf8val.h \
	      $(DESTDIR)$(INCLUDEDIR)/linux/utf8val.h \
	      $(DESTDIR)$(LIBDIR)/libutf8val.a \
	      $(DESTDIR)$(LIBDIR)/libutf8val.so.$(VERSION) \
	      $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libutf8val.so \
	      $(DESTDIR)$(PKGCONFIGDIR)/utf8val.pc \
	      $(DESTDIR)$(MANDIR)/man1/utf8val.1 \
	      $(DESTDIR)$(MANDIR)/man3/utf8val.3 \
	      $(DESTDIR)$(MANDIR)/man4/utf8val.4
	$(if $(DESTDIR),,-[ ! -w /etc/ld.so.cache ] || ldconfig)

# --- benchmark -------------------------------------------------------------
BENCH_PKGS	:= glib-2.0 icu-uc
$(BUILD)/bench/utf8val_core.o: $(CORE_SRC) $(CORE_HDR) $(TARGET_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KERNEL_CFLAGS) -c $< -o $@
$(eval $(call vec_rules,bench,$(KERNEL_CFLAGS)))
BENCH_OBJS	:= $(BUILD)/bench/utf8val_core.o $(VEC:%=$(BUILD)/bench/utf8val_%.o)
$(BUILD)/bench/peers.o: bench/peers.cc bench/peers.h $(TARGET_STAMP)
	@mkdir -p $(@D)
	$(CXX) -O2 -g -std=c++17 -Wall -Wextra -c $< -o $@ \
		$(shell pkg-config --cflags $(BENCH_PKGS))
$(BUILD)/bench/peers_simdjson.o: bench/peers_simdjson.cc bench/peers.h $(TARGET_STAMP)
	@mkdir -p $(@D)
	$(CXX) -O2 -g -std=c++17 -Wall -Wextra $(SIMDJSON_CFLAGS) -c $< -o $@
# simdutf: unstable's build (bookworm has none), unpacked into the cache
# once by scripts/fetch-sysroot; scripts/emu-icount passes another CPU's.
SIMDUTF_ROOT	:= .cache/sysroot-sid-$(shell dpkg --print-architecture)
SIMDUTF_LIBDIR	:= $(SIMDUTF_ROOT)/usr/lib/$(shell $(CC) -print-multiarch)
SIMDUTF_CFLAGS	?= -I$(SIMDUTF_ROOT)/usr/include
SIMDUTF_LIBS	?= -L$(SIMDUTF_LIBDIR) -Wl,-rpath,$(abspath $(SIMDUTF_LIBDIR)) -lsimdutf
SIMDUTF_FETCH	:= $(if $(filter command line,$(origin SIMDUTF_CFLAGS)),,$(SIMDUTF_ROOT)/.pkg-libsimdutf35)
$(SIMDUTF_ROOT)/.pkg-libsimdutf35:
	scripts/fetch-sysroot sid/$(shell dpkg --print-architecture) libsimdutf-dev libsimdutf35 >/dev/null
# simdutf's current source (../shared/peers/simdutf, its README), the
# peer issue 35 names: built here as simdutf builds it (-O3), its
# namespace renamed beside the package's, its C API (the same names as
# the package's) kept local. (The package's 9.1.2 has the same AVX-512
# validator, aligned reads included: their columns differ by the build.)
SIMDUTF_NOW	:= $(abspath $(CURDIR)/../shared)/peers/simdutf
SIMDUTF_NOW_NS	:= -Dsimdutf=simdutf_now
$(BUILD)/bench/simdutf_now.o: $(SIMDUTF_NOW)/simdutf.cpp $(SIMDUTF_NOW)/simdutf.h
	@mkdir -p $(@D)
	$(CXX) -O3 -std=c++17 $(SIMDUTF_NOW_NS) -c $< -o $@.tmp
	objcopy --wildcard --localize-symbol='simdutf_*' $@.tmp $@
	rm -f $@.tmp
$(BUILD)/bench/peers_simdutf_now.o: bench/peers_simdutf.cc bench/peers.h $(SIMDUTF_NOW)/simdutf.h
	@mkdir -p $(@D)
	$(CXX) -O2 -g -std=c++17 -Wall -Wextra -DSIMDUTF_NOW $(SIMDUTF_NOW_NS) \
		-I$(SIMDUTF_NOW) -c $< -o $@
SIMDUTF_NOW_OBJS := $(if $(wildcard $(SIMDUTF_NOW)/simdutf.cpp),\
			$(BUILD)/bench/peers_simdutf_now.o $(BUILD)/bench/simdutf_now.o)
PEERS		:= $(BUILD)/bench/peers.o $(BUILD)/bench/peers_simdjson.o \
		   $(BUILD)/bench/peers_simdutf.o $(SIMDUTF_NOW_OBJS)
# The inputs and the read ceiling, shared by the tables; the corpora
# scripts/bench-corpora makes, read beside ../shared's.
BENCH_COMMON	:= bench/datasets.c bench/read_ceiling.c
BENCH_CORPORA	:= $(BUILD)/bench/corpus
BENCH_DEFS	:= -DMADE_CORPORA='"$(BENCH_CORPORA)"'
BENCH_COMMON_HDR := bench/datasets.h bench/read_ceiling.h bench/peers.h utf8val.h
$(BUILD)/bench/bench: bench/bench.c $(BENCH_COMMON) $(BENCH_COMMON_HDR) $(PEERS) $(BENCH_OBJS)
	$(CC) -O2 -g $(WARN) -I. $(ARCH_INC) $(BENCH_DEFS) -o $@ $< $(BENCH_COMMON) \
		$(PEERS) $(BENCH_OBJS) -lsimdjson $(SIMDUTF_LIBS) \
		$(shell pkg-config --libs $(BENCH_PKGS)) -lstdc++

$(BUILD)/bench/fpu_cost: bench/fpu_cost.c $(BENCH_OBJS)
	$(CC) -O2 -g $(WARN) -I. $(ARCH_INC) -o $@ $< $(BENCH_OBJS)
$(BUILD)/bench/icount: bench/icount.c bench/datasets.c $(BENCH_COMMON_HDR) $(BENCH_OBJS) $(BUILD)/bench/peers_simdutf.o $(SIMDUTF_NOW_OBJS)
	$(CC) -O2 -g $(WARN) -I. $(ARCH_INC) $(BENCH_DEFS) -o $@ $< bench/datasets.c \
		$(BENCH_OBJS) $(BUILD)/bench/peers_simdutf.o $(SIMDUTF_NOW_OBJS) \
		$(SIMDUTF_LIBS) -lstdc++

# Instructions per byte on an emulated CPU (scripts/emu-icount builds it
# with CROSS_COMPILE= another architecture's triplet and that
# architecture's peers): EMU_PEER lists them, each with its flags,
# simdjson (SIMDJSON_CFLAGS, SIMDJSON_LIBS) and simdutf (SIMDUTF_CFLAGS,
# SIMDUTF_LIBS); arm64 has both, riscv64 simdutf alone.
EMU_PEER	?= simdjson
$(if $(filter-out simdjson simdutf,$(EMU_PEER)),\
	$(error EMU_PEER: simdjson, simdutf or both, not "$(EMU_PEER)"))
SIMDJSON_LIBS	?= -lsimdjson
$(BUILD)/bench/peers_simdutf.o: bench/peers_simdutf.cc bench/peers.h $(TARGET_STAMP) | $(SIMDUTF_FETCH)
	@mkdir -p $(@D)
	$(CXX) -O2 -g -std=c++17 -Wall -Wextra $(SIMDUTF_CFLAGS) -c $< -o $@
EMU_DEFS_simdjson := -DEMU_PEER_SIMDJSON
EMU_DEFS_simdutf := -DEMU_PEER_SIMDUTF
EMU_LIBS_simdjson = $(SIMDJSON_LIBS)
EMU_LIBS_simdutf = $(SIMDUTF_LIBS)
# (the list, kept in a file that changes with it: another list relinks)
EMU_PEER_STAMP	:= $(BUILD)/bench/.emu-peer
$(EMU_PEER_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(EMU_PEER)' | cmp -s - $@ || echo '$(EMU_PEER)' >$@
FORCE:
$(BUILD)/bench/emu_icount: bench/emu_icount.c bench/peers.h $(EMU_PEER_STAMP) \
			   $(EMU_PEER:%=$(BUILD)/bench/peers_%.o) $(BENCH_OBJS)
	$(CC) -O2 -g $(WARN) -I. $(ARCH_INC) \
		$(foreach p,$(EMU_PEER),$(EMU_DEFS_$(p))) -o $@ $< \
		$(filter %.o,$^) $(foreach p,$(EMU_PEER),$(EMU_LIBS_$(p))) -lstdc++

# What kernel callers get: kernel flags and the module's vector threshold.
$(BUILD)/kbench/utf8val_core.o: $(CORE_SRC) $(CORE_HDR) $(TARGET_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KERNEL_CFLAGS) $(KERNEL_MIN_LEN) -c $< -o $@
$(eval $(call vec_rules,kbench,$(KERNEL_CFLAGS) $(KERNEL_MIN_LEN)))
$(BUILD)/kbench/word_loop.o: bench/word_loop.c bench/word_loop.h utf8val_types.h $(TARGET_STAMP)
	@mkdir -p $(@D)
	$(CC) $(KERNEL_CFLAGS) -I. -c $< -o $@
$(BUILD)/bench/kernel_rows: bench/kernel_rows.c bench/word_loop.h $(BENCH_COMMON) $(BENCH_COMMON_HDR) $(PEERS) $(BUILD)/kbench/utf8val_core.o $(VEC:%=$(BUILD)/kbench/utf8val_%.o) $(BUILD)/kbench/word_loop.o
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -I. $(ARCH_INC) $(BENCH_DEFS) -o $@ $< $(BENCH_COMMON) \
		$(filter %.o,$^) \
		-lsimdjson $(SIMDUTF_LIBS) $(shell pkg-config --libs $(BENCH_PKGS)) -lstdc++

# The library in process on a file: the yardstick of the command.
$(BUILD)/bench/file_speed: bench/file_speed.c utf8val.h $(BUILD)/libutf8val.a
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -I. $(ARCH_INC) -pthread -o $@ $< $(BUILD)/libutf8val.a

# (fpu_cost: what kernel_fpu_begin() saves, x86's XSAVE)
BENCH_BINS	:= $(addprefix $(BUILD)/bench/,bench icount kernel_rows \
		   $(if $(filter x86,$(ARCH_DIR)),fpu_cost))
bench: $(BENCH_BINS) $(BUILD)/bench/file_speed cli
	scripts/bench-corpora $(BENCH_CORPORA)
	scripts/run-bench $(BENCH_BINS)
	scripts/bench-cli $(BUILD)/utf8val $(BUILD)/bench/file_speed
	scripts/emu-icount

# The emulated CPUs' instruction counts alone, arm64's and riscv64's
# (cross builds of their own); bench-arm64, arm64's alone.
bench-emu:
	scripts/emu-icount
bench-arm64:
	scripts/emu-icount arm64

# --- fuzzing ---------------------------------------------------------------
FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OBJS	:= $(VEC:%=$(BUILD)/fuzz/utf8val_%.o)
$(FUZZ_OBJS): $(BUILD)/fuzz/utf8val_%.o: $(ARCH_DIR)/utf8val_%.c $(CORE_HDR) $(VEC_HDR)
	@mkdir -p $(@D)
	$(CLANG) -O1 -g $(ARCH_INC) \
		$(filter-out $(utf8val_gcc_sched),$(utf8val_$*_flags)) $(FUZZ_SAN) \
		-fsanitize=fuzzer-no-link -c $< -o $@
$(BUILD)/fuzz/fuzz_core: tests/fuzz_core.c $(CORE_SRC) $(TEST_COMMON) $(TEST_HDR) $(FUZZ_OBJS)
	$(CLANG) -O1 -g $(ARCH_INC) $(FUZZ_SAN) -fsanitize=fuzzer \
		-o $@ $< $(CORE_SRC) $(TEST_COMMON) $(FUZZ_OBJS)

fuzz: $(BUILD)/fuzz/fuzz_core
	scripts/run-fuzz $< $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD)
	[ ! -d $(KDIR) ] || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
