/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * utf8val's vector paths on x86-64, AVX2 and AVX-512 (F, BW, VBMI): which
 * exist, when the CPU may run them, which one "auto" takes, and the
 * section that may use vector registers. The kernel must save the user's
 * FPU state first, which only pays off on longer inputs
 * (Documentation/utf8val.rst, "Vector paths").
 *
 * Included by utf8val_simd.h only (Kbuild and the Makefile put this
 * folder on the include path; x86/utf8val.mk builds the paths).
 */
#ifndef UTF8VAL_X86_ARCH_H
#define UTF8VAL_X86_ARCH_H

enum utf8val_path {
	UTF8VAL_PATH_SCALAR,
	UTF8VAL_PATH_AVX2,
	UTF8VAL_PATH_AVX512,
	NR_UTF8VAL_PATHS
};

/* AVX2: the tail as one more block overlapping the last; from 96 bytes. */
size_t utf8val_avx2_blocks(const u8 *s, size_t from, size_t to, bool end,
			   u64 *chars);
/* AVX-512 F, BW and VBMI: the tail by a masked load; any length. */
size_t utf8val_avx512_blocks(const u8 *s, size_t from, size_t to, bool end,
			     u64 *chars);
u64 utf8val_avx2_newlines(const u8 *s, size_t len, size_t *last_end);
u64 utf8val_avx512_newlines(const u8 *s, size_t len, size_t *last_end);

/*
 * The name, the blocks function, the length below which the DFA alone is
 * faster, below which ASCII words go first (AVX-512 skips ASCII 256 bytes
 * a step from the start: no words first); the newline counter.
 */
#define UTF8VAL_ARCH_IMPLS						\
	[UTF8VAL_PATH_AVX2] = { "avx2", utf8val_avx2_blocks, 96, 256,	\
				.newlines = utf8val_avx2_newlines },	\
	[UTF8VAL_PATH_AVX512] = { "avx512", utf8val_avx512_blocks, 16, 0,	\
				  .newlines = utf8val_avx512_newlines },

/*
 * Intel family 6 models where 512-bit registers lower the core's clock
 * (Skylake-X, Ice Lake, Tiger Lake): "auto" takes AVX2 there. The same
 * list as the kernel's AES-XTS code (zmm_exclusion_list in
 * arch/x86/crypto/aesni-intel_glue.c), as raw numbers because the names
 * of asm/intel-family.h changed between 6.1 and 6.12.
 */
static inline bool utf8val_zmm_slow_model(unsigned int model)
{
	static const u8 models[] = {
		0x55, 0x6a, 0x6c, 0x7d, 0x7e, 0x9d, 0x8c, 0x8d,
	};
	size_t i;

	for (i = 0; i < sizeof(models); i++)
		if (model == models[i])
			return true;
	return false;
}

#ifdef __KERNEL__
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#ifdef CONFIG_UML
/*
 * UML: a host process, whose kernel_fpu_begin() has nothing to save. It
 * knows the host CPU's features, not the host's saved state (nor the
 * XFEATURE_MASK_* names) or CPU model.
 */
#define utf8val_os_saves_ymm()		true
#define utf8val_os_saves_zmm()		true
#define utf8val_cpu_zmm_slow()		false
#define utf8val_simd_usable()		irq_fpu_usable()
#else
#include <linux/preempt.h>
#include <asm/simd.h>

/* the OS saves the SSE and AVX state; and the AVX-512 state too */
#define utf8val_os_saves_ymm()	\
	cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL)
#define utf8val_os_saves_zmm()	\
	cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM | \
			  XFEATURE_MASK_AVX512, NULL)
/*
 * Not in NMI: irq_fpu_usable() warns there (WARN_ON_ONCE(in_nmi()) on 6.1
 * and 6.12), and the scalar path serves any context.
 */
#define utf8val_simd_usable()		(!in_nmi() && may_use_simd())

static inline bool utf8val_cpu_zmm_slow(void)
{
	return boot_cpu_data.x86_vendor == X86_VENDOR_INTEL &&
	       boot_cpu_data.x86 == 6 &&
	       utf8val_zmm_slow_model(boot_cpu_data.x86_model);
}
#endif

static inline bool utf8val_cpu_has_avx2(void)
{
	return boot_cpu_has(X86_FEATURE_AVX2) &&
	       boot_cpu_has(X86_FEATURE_POPCNT) &&
	       utf8val_os_saves_ymm();
}

static inline bool utf8val_cpu_has_avx512(void)
{
	return boot_cpu_has(X86_FEATURE_AVX512F) &&
	       boot_cpu_has(X86_FEATURE_AVX512BW) &&
	       boot_cpu_has(X86_FEATURE_AVX512VBMI) &&
	       boot_cpu_has(X86_FEATURE_POPCNT) &&
	       utf8val_os_saves_zmm();
}

#define utf8val_simd_begin()	kernel_fpu_begin()
#define utf8val_simd_end()	kernel_fpu_end()
#define UTF8VAL_SIMD_MIN_LEN	4096	/* bench/fpu_cost.c measures why */
#else
#include <cpuid.h>

/* XCR0: the OS saves SSE and AVX state; and the AVX-512 state */
#define XCR0_AVX	0x06
#define XCR0_AVX512	0xe6

static inline unsigned int utf8val_xcr0(void)
{
	unsigned int a, b, c, d, lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) ||
	    !(c & bit_POPCNT))
		return 0;
	__asm__ ("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return lo;
}

/* CPUID leaf 7's feature bits: EBX's, and ECX's in *@ecx */
static inline unsigned int utf8val_cpuid7(unsigned int *ecx)
{
	unsigned int a, b, d;

	*ecx = 0;
	return __get_cpuid_count(7, 0, &a, &b, ecx, &d) ? b : 0;
}

static inline bool utf8val_cpu_has_avx2(void)
{
	unsigned int ecx;

	return (utf8val_xcr0() & XCR0_AVX) == XCR0_AVX &&
	       (utf8val_cpuid7(&ecx) & bit_AVX2);
}

static inline bool utf8val_cpu_has_avx512(void)
{
	const unsigned int f_bw = bit_AVX512F | bit_AVX512BW;
	unsigned int ecx;

	return (utf8val_xcr0() & XCR0_AVX512) == XCR0_AVX512 &&
	       (utf8val_cpuid7(&ecx) & f_bw) == f_bw &&
	       (ecx & bit_AVX512VBMI);
}

static inline bool utf8val_cpu_zmm_slow(void)
{
	unsigned int a, b, c, d, family, model;

	/* "GenuineIntel" */
	if (!__get_cpuid(0, &a, &b, &c, &d) || b != 0x756e6547 ||
	    d != 0x49656e69 || c != 0x6c65746e)
		return false;
	__get_cpuid(1, &a, &b, &c, &d);
	family = (a >> 8) & 0xf;
	model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
	return family == 6 && utf8val_zmm_slow_model(model);
}

#endif

/*
 * Both paths check a whole short input in one call (utf8val_simd.h), to
 * 1 KiB, the longest measured (Documentation/utf8val.rst). AVX-512 any
 * up to sixteen blocks: one, past 64 bytes two or four, past 256 eight,
 * past 512 a group of four at a time (the callers of up to 64 know it,
 * and take no branch on the length here). AVX2 from 35 bytes (the 3
 * bytes before its second register must be in the input), 64 bytes a
 * step. utf8val_arch_whole() picks the function for a length
 * utf8val_arch_has_whole() takes, and only for one. None where the paths
 * start past that length, as the kernel's do (its UTF8VAL_SIMD_MIN_LEN,
 * above): no call there could reach them.
 */
#define UTF8VAL_X86_WHOLE_MAX		1024
#if !defined(UTF8VAL_SIMD_MIN_LEN) || \
	UTF8VAL_SIMD_MIN_LEN <= UTF8VAL_X86_WHOLE_MAX
#define UTF8VAL_WHOLE_MAX		UTF8VAL_X86_WHOLE_MAX
#define UTF8VAL_AVX2_WHOLE_MIN		35

/* each takes the lengths it names */
bool utf8val_avx2_whole(const u8 *s, size_t len);	/* 35 to 1024 */
bool utf8val_avx512_whole(const u8 *s, size_t len);	/* 1 to 64 */
bool utf8val_avx512_whole256(const u8 *s, size_t len);	/* 65 to 256 */
bool utf8val_avx512_whole512(const u8 *s, size_t len);	/* 257 to 512 */
bool utf8val_avx512_whole1024(const u8 *s, size_t len);	/* 513 to 1024 */

static inline bool utf8val_arch_has_whole(enum utf8val_path path,
					  size_t len)
{
	return len <= UTF8VAL_WHOLE_MAX &&
	       (path == UTF8VAL_PATH_AVX512 ||
		(path == UTF8VAL_PATH_AVX2 && len >= UTF8VAL_AVX2_WHOLE_MIN));
}

static inline bool utf8val_arch_whole(enum utf8val_path path, const u8 *s,
				      size_t len)
{
	if (path == UTF8VAL_PATH_AVX2)
		return utf8val_avx2_whole(s, len);
	if (len <= 64)
		return utf8val_avx512_whole(s, len);
	if (len <= 256)
		return utf8val_avx512_whole256(s, len);
	return len <= 512 ? utf8val_avx512_whole512(s, len) :
			    utf8val_avx512_whole1024(s, len);
}
#endif

/* Not a path: this CPU's clock drops with 512-bit registers. */
#define UTF8VAL_X86_ZMM_SLOW	0x80000000u

/*
 * The paths this CPU can run, a bit each, and whether AVX-512 slows it:
 * the core asks once and keeps the answer, as CPUID traps in a VM.
 */
static inline unsigned int utf8val_arch_paths(void)
{
	return utf8val_cpu_has_avx2() << UTF8VAL_PATH_AVX2 |
	       utf8val_cpu_has_avx512() << UTF8VAL_PATH_AVX512 |
	       (utf8val_cpu_zmm_slow() ? UTF8VAL_X86_ZMM_SLOW : 0);
}

/* "auto": AVX-512 unless it slows the core's clock, then AVX2. */
static inline enum utf8val_path utf8val_arch_auto(unsigned int has)
{
	if ((has & 1u << UTF8VAL_PATH_AVX512) && !(has & UTF8VAL_X86_ZMM_SLOW))
		return UTF8VAL_PATH_AVX512;
	if (has & 1u << UTF8VAL_PATH_AVX2)
		return UTF8VAL_PATH_AVX2;
	return UTF8VAL_PATH_SCALAR;
}

#endif /* UTF8VAL_X86_ARCH_H */
