# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# riscv's vector path, RVV 1.0, read by Kbuild and by the Makefile alike
# (see x86/utf8val.mk for the names): 64-bit kernels with
# CONFIG_RISCV_ISA_V, and riscv64 user space, where the compiler has the
# RVV intrinsics (GCC 14, clang 17 and later); otherwise the generic
# header. The kernel's code is integer vector code only (Zve64x: no
# floating-point registers, which kernel_vector_begin() does not save).
ifeq ($(CONFIG_RISCV_ISA_V)$(CONFIG_64BIT),yy)
utf8val_rvv_march := rv64imac_zicsr_zifencei_zve64x
# (as the kernel builds: no floating point, no C library)
utf8val_rvv_kernel := -mabi=lp64 -ffreestanding
else ifneq ($(filter riscv64-%,$(utf8val_machine)),)
utf8val_rvv_march := rv64gcv
endif
ifneq ($(utf8val_rvv_march),)
utf8val_rvv_probe := $(shell printf '\043include <riscv_vector.h>\nint f(void) { return __riscv_vsetvl_e8m4(64); }\n' | \
	$(CC) -march=$(utf8val_rvv_march) $(utf8val_rvv_kernel) -x c -fsyntax-only - \
	>/dev/null 2>&1 && echo y)
ifeq ($(utf8val_rvv_probe),y)
utf8val_vec := rvv
utf8val_rvv_flags := -march=$(utf8val_rvv_march)
# (the kernel's) riscv_vector.h includes the compiler's own stdint.h
utf8val_fpu := -ffreestanding
endif
endif
