// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val's RISC-V vector path (RVV 1.0, integer instructions only):
 * strict RFC 3629, yes or no, 64 bytes a step: one group of four
 * registers (LMUL 4: 64 bytes at the 128 bits every V CPU has) finds
 * ASCII and counts characters, and the rules are checked a register
 * (16 bytes) at a time, in the block loop of utf8val_simd_loop.h.
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

#define vec_block	vuint8m4_t

/* The three tables, a register each (sizeless: a tuple, not a struct) */
#define vec_consts	vuint8m1x3_t

/* Whether the bytes checked end inside a character. */
struct vec_carry {
	bool open;
};

/* The checks read the three bytes before a block from memory. */
#define VEC_LOOK_BACK	3

/* Whether no bit of @mask is set. */
static __always_inline bool none(vbool2_t mask)
{
	return __riscv_vfirst_m_b2(mask, VL) < 0;
}

static __always_inline vec_block vec_load(const u8 *s, size_t i)
{
	return __riscv_vle8_v_u8m4(s + i, VL);
}

static __always_inline bool vec_ascii(vec_block in)
{
	return none(__riscv_vmsgeu_vx_u8m4_b2(in, 0x80, VL));
}

static __always_inline size_t vec_ascii_run(const u8 *s, size_t i, size_t to)
{
	while (to - i >= 64 && vec_ascii(vec_load(s, i)))
		i += 64;
	return i;
}

/* Whether the bytes before @p end inside a character: a lead in the last 3 */
static __always_inline bool ends_open(const u8 *p)
{
	return p[-1] >= 0xc0 || p[-2] >= 0xe0 || p[-3] >= 0xf0;
}

static __always_inline vec_consts vec_consts_make(void)
{
	vuint8m1_t ph = __riscv_vle8_v_u8m1((const u8 *)prev_high, VL_RULES);
	vuint8m1_t pl = __riscv_vle8_v_u8m1((const u8 *)prev_low, VL_RULES);
	vuint8m1_t th = __riscv_vle8_v_u8m1((const u8 *)this_high, VL_RULES);

	return __riscv_vcreate_v_u8m1x3(ph, pl, th);
}

static __always_inline void
vec_carry_before(const vec_consts *k __always_unused, struct vec_carry *c,
		 const u8 *s, size_t i)
{
	c->open = i >= VEC_LOOK_BACK && ends_open(s + i);
}

/* (c->open is false already) */
static __always_inline void
vec_carry_ascii(struct vec_carry *c __always_unused,
		const u8 *s __always_unused, size_t i __always_unused)
{
}

static __always_inline bool vec_open(const struct vec_carry *c)
{
	return c->open;
}

/* utf8val_simd_rules.h's primitives: a register of VL_RULES bytes */
#define rule_vec	vuint8m1_t
#define rule_tables	vec_consts
#define rule_before	struct rvv_before

/* A register's place: @p, @at bytes into the input (none before it). */
struct rvv_before {
	const u8 *p;
	size_t at;
};

/*
 * The bytes @n back of those of @in: @last (those n - 1 back) moved up a
 * byte, with the byte @n before the register (a zero before the input).
 */
static __always_inline vuint8m1_t rule_back(vuint8m1_t last,
					    vuint8m1_t in __always_unused,
					    struct rvv_before b, int n)
{
	return __riscv_vslide1up_vx_u8m1(last, b.at >= (size_t)n ? b.p[-n] : 0,
					 VL_RULES);
}

static __always_inline vuint8m1_t rule_high(vec_consts t __always_unused,
					    vuint8m1_t v)
{
	return __riscv_vsrl_vx_u8m1(v, 4, VL_RULES);
}

static __always_inline vuint8m1_t rule_low(vec_consts t __always_unused,
					   vuint8m1_t v)
{
	return __riscv_vand_vx_u8m1(v, 0x0f, VL_RULES);
}

/* The entries of a table (its first 16 bytes) at the nibbles @idx. */
static __always_inline vuint8m1_t rule_lookup(vec_consts t,
					      enum rule_table which,
					      vuint8m1_t idx)
{
	vuint8m1_t table;

	if (which == RULE_PREV_HIGH)
		table = __riscv_vget_v_u8m1x3_u8m1(t, 0);
	else if (which == RULE_PREV_LOW)
		table = __riscv_vget_v_u8m1x3_u8m1(t, 1);
	else
		table = __riscv_vget_v_u8m1x3_u8m1(t, 2);
	return __riscv_vrgather_vv_u8m1(table, idx, VL_RULES);
}

static __always_inline vuint8m1_t rule_and3(vuint8m1_t a, vuint8m1_t b,
					    vuint8m1_t c)
{
	return __riscv_vand_vv_u8m1(__riscv_vand_vv_u8m1(a, b, VL_RULES), c,
				    VL_RULES);
}

static __always_inline vuint8m1_t
rule_lead_at_least(vec_consts t __always_unused, vuint8m1_t v, u8 min)
{
	return __riscv_vssubu_vx_u8m1(v, min - 0x80, VL_RULES);
}

static __always_inline vuint8m1_t rule_or(vuint8m1_t a, vuint8m1_t b)
{
	return __riscv_vor_vv_u8m1(a, b, VL_RULES);
}

static __always_inline vuint8m1_t rule_xor_bit7(vec_consts t __always_unused,
						vuint8m1_t a, vuint8m1_t b)
{
	return __riscv_vxor_vv_u8m1(a, __riscv_vand_vx_u8m1(b, 0x80, VL_RULES),
				    VL_RULES);
}

#include "../utf8val_simd_rules.h"

/* Nonzero bytes where the 16 bytes at @s + @i break a rule. */
static __always_inline vuint8m1_t check_at(vec_consts t, const u8 *s,
					   size_t i)
{
	return rule_errors(t, __riscv_vle8_v_u8m1(s + i, VL_RULES),
			   (struct rvv_before){ .p = s + i, .at = i });
}

/*
 * Whether the 64 bytes at @s + @i keep the rules: read again from memory,
 * a register at a time (see VL_RULES).
 */
static __always_inline bool vec_check(const vec_consts *k,
				      struct vec_carry *c,
				      vec_block in __always_unused,
				      const u8 *s, size_t i)
{
	vuint8m1_t err = check_at(*k, s, i);

	err = __riscv_vor_vv_u8m1(err, check_at(*k, s, i + 16), VL_RULES);
	err = __riscv_vor_vv_u8m1(err, check_at(*k, s, i + 32), VL_RULES);
	err = __riscv_vor_vv_u8m1(err, check_at(*k, s, i + 48), VL_RULES);
	c->open = ends_open(s + i + 64);
	return __riscv_vfirst_m_b8(__riscv_vmsne_vx_u8m1_b8(err, 0, VL_RULES),
				   VL_RULES) < 0;
}

/* The characters that start in @in (all but 80..BF), from byte @skip. */
static __always_inline u64 vec_char_starts(vec_block in, unsigned int skip)
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

#include "../utf8val_simd_loop.h"

size_t utf8val_rvv_blocks(const u8 *s, size_t from, size_t to, bool end,
			  u64 *chars)
{
	/* 128-bit registers, the least V allows: never fewer, but check */
	if (__riscv_vsetvl_e8m4(VL) < VL)
		return from;
	return vec_blocks(s, from, to, end, chars);
}

/* The newlines in the @n bytes at @p, as many a step as the CPU takes. */
static inline u64 count_newlines(const u8 *p, size_t n)
{
	size_t i, vl;
	u64 count = 0;

	for (i = 0; i < n; i += vl) {
		vuint8m4_t in;

		vl = __riscv_vsetvl_e8m4(n - i);
		in = __riscv_vle8_v_u8m4(p + i, vl);
		count += __riscv_vcpop_m_b2(__riscv_vmseq_vx_u8m4_b2(in, '\n',
								     vl),
					    vl);
	}
	return count;
}

/*
 * The newlines in the @len bytes at @s, @len a multiple of 64; then back
 * from the end to the last block that holds one.
 */
u64 utf8val_rvv_newlines(const u8 *s, size_t len, size_t *last_end)
{
	u64 n = count_newlines(s, len);
	size_t i;

	for (i = len; n && i >= 64; i -= 64) {
		if (count_newlines(s + i - 64, 64)) {
			*last_end = i;
			break;
		}
	}
	return n;
}
#endif /* __CHECKER__ */
