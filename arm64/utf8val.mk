# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# arm64's vector path, read by Kbuild and by the Makefile alike (see
# x86/utf8val.mk for the names).
utf8val_vec := neon
utf8val_neon_flags :=
# 6.12's arm64 Makefile names the flags (CC_FLAGS_FPU, CC_FLAGS_NO_FPU), as
# lib/raid6 uses them; 6.1's does not: arm_neon.h needs -ffreestanding.
# (utf8val_fpu is the kernel's only.)
utf8val_no_fpu := $(or $(CC_FLAGS_NO_FPU),-mgeneral-regs-only)
utf8val_fpu := $(or $(CC_FLAGS_FPU),-ffreestanding)

# From 6.19 kernel_neon_begin() takes the buffer that the task's state is
# saved to: Kbuild's probes tell the two forms apart.
ifneq ($(utf8val_building),)
ifeq ($(call utf8val_either,neon_begin_state,neon_begin_void,kernel_neon_begin()),neon_begin_state)
ccflags-y += -DUTF8VAL_NEON_SAVE_AREA
endif
endif
