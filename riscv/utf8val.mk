# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# riscv's vector path, RVV 1.0, read by Kbuild and by the Makefile alike
# (see x86/utf8val.mk for the names): 64-bit kernels with
# CONFIG_RISCV_ISA_V, and riscv64 user space, where the compiler has the
# RVV intrinsics the path uses (GCC 14 and later: the probes decide);
# otherwise the generic header. The kernel's object is integer vector code only (Zve64x, added
# to the kernel's own ISA string, with its ABI without floating point):
# it never touches the floating-point registers that kernel_vector_begin()
# does not save.
ifeq ($(CONFIG_RISCV_ISA_V)$(CONFIG_64BIT),yy)
utf8val_rvv_march := $(patsubst -march=%,%,$(lastword $(filter -march=%,$(KBUILD_CFLAGS))))_zve64x
# (riscv_vector.h includes the compiler's own stdint.h)
utf8val_fpu := -ffreestanding
ifneq ($(utf8val_building),)
# Kernel-mode vector (6.8 and later) and the intrinsics, with the flags of
# the module's objects (clang's target among them).
utf8val_rvv_probe := $(shell $(CC) $(utf8val_probe_flags) -march=$(utf8val_rvv_march) \
	-ffreestanding -isystem $(shell $(CC) -print-file-name=include) \
	-fsyntax-only $(utf8val_dir)riscv/probe_kernel_vector.c >/dev/null 2>&1 && echo y)
ifneq ($(utf8val_rvv_probe),y)
$(warning utf8val: building without the RVV path: riscv/probe_kernel_vector.c does not \
	compile (kernel-mode vector is 6.8's; the intrinsics GCC 14's))
endif
else
utf8val_rvv_probe := y	# (cleaning: every object the build may make)
endif
else ifneq ($(filter riscv64-%,$(utf8val_machine)),)
utf8val_rvv_march := rv64gcv
utf8val_rvv_probe := $(shell printf '\043include <riscv_vector.h>\nint f(const unsigned char *p) { vuint8m1_t v = __riscv_vle8_v_u8m1(p, 16); vuint8m1x3_t t = __riscv_vcreate_v_u8m1x3(v, v, v); return __riscv_vfirst_m_b8(__riscv_vmsne_vx_u8m1_b8(__riscv_vrgather_vv_u8m1(__riscv_vget_v_u8m1x3_u8m1(t, 2), __riscv_vslide1up_vx_u8m1(v, 0, 16), 16), 0, 16), 16); }\n' | \
	$(CC) -march=$(utf8val_rvv_march) -x c -fsyntax-only - >/dev/null 2>&1 && echo y)
endif
ifeq ($(utf8val_rvv_probe),y)
utf8val_vec := rvv
utf8val_rvv_flags := -march=$(utf8val_rvv_march)
endif
