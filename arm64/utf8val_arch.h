/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * utf8val's vector path on arm64, NEON (Advanced SIMD): when the CPU may
 * run it, and the section that may use vector registers. In the kernel,
 * kernel_neon_begin() saves the task's FPSIMD registers first, as
 * kernel_fpu_begin() does on x86, so the module takes NEON from the same
 * length (Documentation/utf8val.rst, "Vector paths").
 *
 * Included by utf8val_simd.h only (Kbuild and the Makefile put this
 * folder on the include path; arm64/utf8val.mk builds the path).
 */
#ifndef UTF8VAL_ARM64_ARCH_H
#define UTF8VAL_ARM64_ARCH_H

enum utf8val_path {
	UTF8VAL_PATH_SCALAR,
	UTF8VAL_PATH_NEON,
	NR_UTF8VAL_PATHS
};

/* NEON: 64 bytes a step, the tail as one block overlapping the last
 * (from 80 bytes).
 */
size_t utf8val_neon_blocks(const u8 *s, size_t from, size_t to, bool end,
			   u64 *chars);
u64 utf8val_neon_newlines(const u8 *s, size_t len, size_t *last_end);

/*
 * The name, the blocks function, the length below which the DFA alone is
 * faster, and below which ASCII words go first; the newline counter.
 */
#define UTF8VAL_ARCH_IMPLS						\
	[UTF8VAL_PATH_NEON] = { "neon", utf8val_neon_blocks, 80, 256,	\
				.newlines = utf8val_neon_newlines },

#ifdef __KERNEL__
#include <asm/cpufeature.h>
#include <asm/neon.h>
#include <asm/simd.h>

/* The kernel runs on CPUs without FP/SIMD too, where it has none. */
static inline unsigned int utf8val_arch_paths(void)
{
	return cpu_have_named_feature(ASIMD) << UTF8VAL_PATH_NEON;
}

/*
 * False in hard IRQ and NMI context and with interrupts off. (6.1 also
 * says false inside another NEON section; 6.12 lets a softirq nest in one,
 * saving the task's section first.)
 */
#define utf8val_simd_usable()	may_use_simd()
#ifdef UTF8VAL_NEON_SAVE_AREA
/*
 * From 6.19 (Kbuild's probe says which form this kernel has) the caller
 * gives the buffer the task's FP/SIMD state is saved to, on its stack, as
 * scoped_ksimd() does.
 */
#define UTF8VAL_SIMD_SAVE_AREA						\
	struct user_fpsimd_state utf8val_fpsimd_save __uninitialized
#define UTF8VAL_SIMD_SAVE_AREA_SIZE	sizeof(struct user_fpsimd_state)
#define utf8val_simd_begin()	kernel_neon_begin(&utf8val_fpsimd_save)
#define utf8val_simd_end()	kernel_neon_end(&utf8val_fpsimd_save)
#else
#define utf8val_simd_begin()	kernel_neon_begin()
#define utf8val_simd_end()	kernel_neon_end()
#endif
#define UTF8VAL_SIMD_MIN_LEN	4096	/* x86's, unmeasured here: utf8val.rst */
#else
/*
 * Linux's arm64 user space is built for Advanced SIMD (the ABI has it,
 * and GCC's arm64 target assumes it): no program here runs without it.
 */
static inline unsigned int utf8val_arch_paths(void)
{
	return 1u << UTF8VAL_PATH_NEON;
}
#endif

static inline enum utf8val_path utf8val_arch_auto(unsigned int has)
{
	return has & 1u << UTF8VAL_PATH_NEON ? UTF8VAL_PATH_NEON :
					       UTF8VAL_PATH_SCALAR;
}

#endif /* UTF8VAL_ARM64_ARCH_H */
