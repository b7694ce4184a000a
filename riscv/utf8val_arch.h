/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * utf8val's vector path on riscv64, RVV 1.0: when the CPU may run it, and
 * the section that may use vector registers. In the kernel,
 * kernel_vector_begin() saves the task's vector registers first, as
 * kernel_fpu_begin() does on x86, so the module takes RVV from the same
 * length (Documentation/utf8val.rst, "Vector paths").
 *
 * Included by utf8val_simd.h only (Kbuild and the Makefile put this
 * folder on the include path; riscv/utf8val.mk builds the path).
 */
#ifndef UTF8VAL_RISCV_ARCH_H
#define UTF8VAL_RISCV_ARCH_H

enum utf8val_path {
	UTF8VAL_PATH_SCALAR,
	UTF8VAL_PATH_RVV,
	NR_UTF8VAL_PATHS
};

/*
 * RVV: 64 bytes a step in one group of four 128-bit registers, the tail
 * as one block overlapping the last (from 80 bytes).
 */
size_t utf8val_rvv_blocks(const u8 *s, size_t from, size_t to, bool end,
			  u64 *chars);
u64 utf8val_rvv_newlines(const u8 *s, size_t len, size_t *last_end);

/*
 * The name, the blocks function, the length below which the DFA alone is
 * faster, and below which ASCII words go first; the newline counter.
 */
#define UTF8VAL_ARCH_IMPLS						\
	[UTF8VAL_PATH_RVV] = { "rvv", utf8val_rvv_blocks, 80, 256,	\
			       .newlines = utf8val_rvv_newlines },

#ifdef __KERNEL__
#include <asm/cpufeature.h>
#include <asm/simd.h>
#include <asm/vector.h>

/*
 * The whole V extension, not only the Zve32x that has_vector() asks for:
 * V's registers are of 128 bits or more, which the path's 64-byte groups
 * of four need (its elements are bytes).
 */
static inline unsigned int utf8val_arch_paths(void)
{
	return riscv_has_extension_unlikely(RISCV_ISA_EXT_v) <<
	       UTF8VAL_PATH_RVV;
}

#define utf8val_simd_usable()	may_use_simd()
#define utf8val_simd_begin()	kernel_vector_begin()
#define utf8val_simd_end()	kernel_vector_end()
#define UTF8VAL_SIMD_MIN_LEN	4096	/* x86's, unmeasured here: utf8val.rst */
#else
/*
 * Whether Linux lets this process use the V extension: the riscv_hwprobe
 * system call (Linux 6.5 and later, the first to allow V in user space),
 * made directly, as the core uses no C library. Its key 4
 * (RISCV_HWPROBE_KEY_IMA_EXT_0) has bit 2 (RISCV_HWPROBE_IMA_V) for V.
 * Asked once, when the library loads: a process whose threads are denied
 * V (prctl(PR_RISCV_V_SET_CONTROL)) should choose utf8val_simd_select()'s
 * scalar path, and a seccomp filter must allow the call.
 */
static inline unsigned int utf8val_arch_paths(void)
{
	struct {
		long long key;
		unsigned long long value;
	} pair = { 4, 0 };
	register long a0 __asm__("a0") = (long)&pair;
	register long a1 __asm__("a1") = 1;	/* one pair */
	register long a2 __asm__("a2") = 0;	/* every CPU */
	register long a3 __asm__("a3") = 0;
	register long a4 __asm__("a4") = 0;
	register long a7 __asm__("a7") = 258;	/* __NR_riscv_hwprobe */

	__asm__ volatile ("ecall"
			  : "+r"(a0)
			  : "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a7)
			  : "memory");
	return !a0 && pair.key == 4 && (pair.value & 1u << 2) ?
	       1u << UTF8VAL_PATH_RVV : 0;
}
#endif

static inline enum utf8val_path utf8val_arch_auto(unsigned int has)
{
	return has & 1u << UTF8VAL_PATH_RVV ? UTF8VAL_PATH_RVV :
					      UTF8VAL_PATH_SCALAR;
}

#endif /* UTF8VAL_RISCV_ARCH_H */
