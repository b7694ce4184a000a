// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val's RISC-V vector path (RVV 1.0, integer instructions only):
 * strict RFC 3629, yes or no, 64 bytes a step: one group of four
 * registers (LMUL 4: 64 bytes at the 128 bits every V CPU has) finds
 * ASCII and counts characters, and the rules are checked a register
 * (16 bytes) at a time.
 *
 * The rules are the nibble tables of utf8val_simd_tables.h, as on x86 and
 * arm64: vrgather looks the three tables up, and vslide1up brings in the
 * bytes one, two and three back, the first ones from the bytes before.
 * A byte that breaks a rule is nonzero, and vfirst finds one.
 *
 * Only vector registers and this translation unit's flags differ from the
 * core; the caller (utf8val_core.c) owns the vector section
 * (kernel_vector_begin() in the kernel), the choice of path, and the
 * exact answer, which the scalar code computes from a character boundary
 * before the block this code rejects.
 */
#ifndef __CHECKER__	/* sparse cannot parse the intrinsics */
#include "../utf8val_simd.h"
#include "../utf8val_simd_tables.h"

#ifdef __KERNEL__
/*
 * The compiler's stdint.h, which riscv_vector.h includes, must give the
 * 64-bit types the kernel's (long long), as arm64's neon-intrinsics.h
 * does for arm_neon.h.
 */
#undef __INT64_TYPE__
#define __INT64_TYPE__		long long
#undef __UINT64_TYPE__
#define __UINT64_TYPE__		unsigned long long
#endif
#include <riscv_vector.h>

#define VL	64	/* bytes a block: e8, LMUL 4, 128-bit registers */

/*
 * The rules are checked 16 bytes at a time, in single registers (vl 16):
 * the three tables take one register each, and a gather of one register
 * costs a quarter of one of four (or less: up to 16 times on many cores).
 * Groups of four for the whole block ran out of registers, and the
 * compiler spilled them to a stack frame whose size grows with VLEN.
 */
#define VL_RULES	16

/* The entries of @table (its first 16 bytes) at the nibbles @idx. */
static __always_inline vuint8m1_t lookup(vuint8m1_t table, vuint8m1_t idx)
{
	return __riscv_vrgather_vv_u8m1(table, idx, VL_RULES);
}

/*
 * Nonzero bytes where the 16 bytes at @p, after the three bytes just
 * before them (zeros before the input: @at is @p's offset in it), break
 * a rule of the tables @ph, @pl and @th (prev_high, prev_low, this_high).
 */
static __always_inline vuint8m1_t check16(vuint8m1_t ph, vuint8m1_t pl,
					  vuint8m1_t th, const u8 *p,
					  size_t at)
{
	vuint8m1_t in = __riscv_vle8_v_u8m1(p, VL_RULES);
	vuint8m1_t prev1, prev2, prev3, high1, low1, high, classes;
	vuint8m1_t two_back, three_back;

	prev1 = __riscv_vslide1up_vx_u8m1(in, at ? p[-1] : 0, VL_RULES);
	prev2 = __riscv_vslide1up_vx_u8m1(prev1, at > 1 ? p[-2] : 0, VL_RULES);
	prev3 = __riscv_vslide1up_vx_u8m1(prev2, at > 2 ? p[-3] : 0, VL_RULES);
	high1 = __riscv_vsrl_vx_u8m1(prev1, 4, VL_RULES);
	low1 = __riscv_vand_vx_u8m1(prev1, 0x0f, VL_RULES);
	high = __riscv_vsrl_vx_u8m1(in, 4, VL_RULES);
	classes = __riscv_vand_vv_u8m1(lookup(ph, high1), lookup(pl, low1),
				       VL_RULES);
	classes = __riscv_vand_vv_u8m1(classes, lookup(th, high), VL_RULES);
	/* bit 7 where the byte two back is E0..FF or three back F0..FF */
	two_back = __riscv_vssubu_vx_u8m1(prev2, THIRD_MIN - 0x80, VL_RULES);
	three_back = __riscv_vssubu_vx_u8m1(prev3, FOURTH_MIN - 0x80, VL_RULES);
	two_back = __riscv_vor_vv_u8m1(two_back, three_back, VL_RULES);
	two_back = __riscv_vand_vx_u8m1(two_back, 0x80, VL_RULES);
	return __riscv_vxor_vv_u8m1(classes, two_back, VL_RULES);
}

/* Whether no bit of @mask is set. */
static __always_inline bool none(vbool2_t mask)
{
	return __riscv_vfirst_m_b2(mask, VL) < 0;
}

static __always_inline bool ascii64(vuint8m4_t in)
{
	return none(__riscv_vmsgeu_vx_u8m4_b2(in, 0x80, VL));
}

/* The characters that start in @in (all but 80..BF), from byte @skip. */
static __always_inline u64 char_starts(vuint8m4_t in, unsigned int skip)
{
	vuint8m4_t top = __riscv_vand_vx_u8m4(in, 0xc0, VL);
	vbool2_t starts = __riscv_vmsne_vx_u8m4_b2(top, 0x80, VL);
	vbool2_t from_skip;

	if (skip) {	/* the overlapping tail only: not the bytes before */
		from_skip = __riscv_vmsgeu_vx_u8m4_b2(__riscv_vid_v_u8m4(VL),
						      skip, VL);
		starts = __riscv_vmand_mm_b2(starts, from_skip, VL);
	}
	return __riscv_vcpop_m_b2(starts, VL);
}

/* Whether the 64 bytes at @p end inside a character: a lead in the last 3. */
static __always_inline bool ends_open(const u8 *p)
{
	return p[63] >= 0xc0 || p[62] >= 0xe0 || p[61] >= 0xf0;
}

/* Whether the 64 bytes at @s + @i keep the rules. */
static __always_inline bool block_ok(vuint8m1_t ph, vuint8m1_t pl,
				     vuint8m1_t th, const u8 *s, size_t i)
{
	vuint8m1_t err = check16(ph, pl, th, s + i, i);

	err = __riscv_vor_vv_u8m1(err, check16(ph, pl, th, s + i + 16, i + 16),
				  VL_RULES);
	err = __riscv_vor_vv_u8m1(err, check16(ph, pl, th, s + i + 32, i + 32),
				  VL_RULES);
	err = __riscv_vor_vv_u8m1(err, check16(ph, pl, th, s + i + 48, i + 48),
				  VL_RULES);
	return __riscv_vfirst_m_b8(__riscv_vmsne_vx_u8m1_b8(err, 0, VL_RULES),
				   VL_RULES) < 0;
}

static __always_inline size_t blocks(const u8 *s, size_t from, size_t to,
				     bool end, u64 *chars)
{
	vuint8m1_t ph, pl, th;	/* the tables, in the first 16 bytes */
	vuint8m4_t in = __riscv_vmv_v_x_u8m4(0, VL);
	bool open;
	u64 count = 0;
	size_t i = from, rest;

	/* 128-bit registers, the least V allows: never fewer, but check */
	if (__riscv_vsetvl_e8m4(VL) < VL)
		return from;
	ph = __riscv_vle8_v_u8m1((const u8 *)prev_high, 16);
	pl = __riscv_vle8_v_u8m1((const u8 *)prev_low, 16);
	th = __riscv_vle8_v_u8m1((const u8 *)this_high, 16);
	open = from >= 64 && ends_open(s + from - 64);
	while (to - i >= 64) {
		in = __riscv_vle8_v_u8m4(s + i, VL);
		if (ascii64(in)) {
			size_t run = i;

			/* ASCII: wrong only after an open character */
			if (open)
				goto out;
			i += 64;
			while (to - i >= 64) {
				in = __riscv_vle8_v_u8m4(s + i, VL);
				if (!ascii64(in))
					break;
				i += 64;
			}
			count += i - run;
			open = false;
			continue;
		}
		if (!block_ok(ph, pl, th, s, i))
			goto out;
		open = ends_open(s + i);
		if (chars)
			count += char_starts(in, 0);
		i += 64;
	}
	if (!end)
		goto out;
	rest = to - i;
	if (rest && to >= 80) {
		/* the last 64 bytes, overlapping what is checked already */
		in = __riscv_vle8_v_u8m4(s + to - 64, VL);
		if (!block_ok(ph, pl, th, s, to - 64))
			goto out;
		open = ends_open(s + to - 64);
		if (chars)
			count += char_starts(in, 64 - rest);
		i = to;
	}
	/*
	 * At the end of the input, the last block must close its character:
	 * if it does not, it is not clean, nor are its characters counted.
	 * in holds it (an ASCII block leaves no character open).
	 */
	if (i == to && open)
		i = utf8val_drop_open_block(i, from, &count,
					    chars ? char_starts(in, 0) : 0);
out:
	if (chars)
		*chars += count;
	return i;
}

size_t utf8val_rvv_blocks(const u8 *s, size_t from, size_t to, bool end,
			  u64 *chars)
{
	return chars ? blocks(s, from, to, end, chars) :
		       blocks(s, from, to, end, NULL);
}
#endif /* __CHECKER__ */
