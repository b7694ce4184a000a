# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# x86's vector paths, read by Kbuild and by the Makefile alike. Each path
# P of utf8val_vec is utf8val_P.c, built with utf8val_P_flags, and is
# in utf8val_arch.h's enum and UTF8VAL_ARCH_IMPLS. 64-bit only: 32-bit x86
# (the kernel's or a user-space target) has the generic header.
ifneq ($(CONFIG_X86_64)$(filter x86_64-%,$(utf8val_machine)),)
utf8val_vec := avx2 avx512
# Each path's functions start at a 64-byte boundary, the unit the CPU
# fetches code in: left where the link put them, the same code checked
# 256 bytes of ASCII at 0.85 times simdutf's speed in one build and at
# 1.0 in another (Intel Xeon, family 6, model 167).
utf8val_vec_code := -falign-functions=64
# GCC's scheduling before register allocation, which x86 leaves off,
# for AVX2's 16 registers (Documentation/utf8val.rst, "Vector paths"):
# GCC's alone, as the kernel's configuration says, or a probe of $(CC).
ifneq ($(CONFIG_CC_IS_GCC)$(CONFIG_CC_IS_CLANG),)
utf8val_gcc_sched := $(if $(CONFIG_CC_IS_GCC),-fschedule-insns -fsched-pressure)
else
utf8val_gcc_sched := $(shell $(CC) -Werror -fschedule-insns -fsched-pressure \
	-x c -c -o /dev/null /dev/null >/dev/null 2>&1 && \
	echo -fschedule-insns -fsched-pressure)
endif
# immintrin.h would pull in libc's malloc through mm_malloc.h.
utf8val_avx2_flags := -mavx2 -mpopcnt $(utf8val_vec_code) \
	$(utf8val_gcc_sched) -D_MM_MALLOC_H_INCLUDED
# AVX-512 needs VBMI too (Intel from Cannon Lake, AMD from Zen 4): of the
# CPUs with F and BW, only Skylake-X's family lacks it, and "auto" gives
# those AVX2 (utf8val_arch.h).
utf8val_avx512_flags := -mavx512f -mavx512bw -mavx512vbmi -mpopcnt \
	$(utf8val_vec_code) -D_MM_MALLOC_H_INCLUDED
# The kernel's flags that keep other code off vector registers, which
# those objects drop (6.1 has no CC_FLAGS_FPU to name them).
utf8val_no_fpu := -mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx \
	-mno-80387 -mno-fp-ret-in-387 -mgeneral-regs-only
# (user space) the rest of Kbuild's code generation for x86-64, its
# tightly packed jumps and loops too
utf8val_kernel_codegen := -mno-red-zone -mpreferred-stack-boundary=3 \
	-mskip-rax-setup -mtune=generic -fcf-protection=none \
	-falign-jumps=1 -falign-loops=1
endif
