// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val's NEON fast path (arm64 Advanced SIMD): strict RFC 3629, yes or
 * no, 64 bytes (four 16-byte registers) a step, runs of ASCII 128, in the
 * block loop of utf8val_simd_loop.h.
 *
 * The rules are the nibble tables of utf8val_simd_tables.h, as on x86:
 * TBL looks the three tables up, EXT gives the bytes one, two and three
 * back. Unsigned shifts of single bytes need no mask for the high nibble,
 * and a saturating subtract keeps the "lead two or three back" test in
 * bit 7, where the class it corrects lives.
 *
 * Only vector registers and this translation unit's flags differ from the
 * core; the caller (utf8val_core.c) owns the NEON section
 * (kernel_neon_begin() in the kernel), the choice of path, and the exact
 * answer, which the scalar code computes from a character boundary before
 * the block this code rejects.
 */
#ifndef __CHECKER__	/* sparse cannot parse the intrinsics */
/*
 * The kernel's headers first: GCC's stdint.h, which arm_neon.h includes,
 * takes back its limits before defining them, the kernel's do not.
 */
#include "../utf8val_simd.h"
#include "../utf8val_simd_tables.h"

#ifdef __KERNEL__
#include <asm/neon-intrinsics.h>
#else
#include <arm_neon.h>
#endif

/*
 * A block of 64 bytes, as four registers passed by value: the compiler
 * keeps them in registers (a pointer to a uint8x16x4_t sends it through
 * the stack).
 */
struct neon_block {
	uint8x16_t v0, v1, v2, v3;
};

#define vec_block	struct neon_block

/* The tables and constants of the checks */
struct neon_consts {
	uint8x16_t prev_high, prev_low, this_high, nibble;
	uint8x16_t third_min, fourth_min, bit7, tail_max;
};

#define vec_consts	struct neon_consts

/* The last 16 bytes checked, and nonzero if they end inside a character. */
struct vec_carry {
	uint8x16_t prev, open;
};

#define VEC_LOOK_BACK	16

static __always_inline vec_consts vec_consts_make(void)
{
	static const u8 tail_max[16] = {
		[0 ... 12] = 0xff, 0xef, 0xdf, 0xbf,
	};

	return (vec_consts){
		.prev_high = vld1q_u8((const u8 *)prev_high),
		.prev_low = vld1q_u8((const u8 *)prev_low),
		.this_high = vld1q_u8((const u8 *)this_high),
		.nibble = vdupq_n_u8(0x0f),
		.third_min = vdupq_n_u8(THIRD_MIN - 0x80),
		.fourth_min = vdupq_n_u8(FOURTH_MIN - 0x80),
		.bit7 = vdupq_n_u8(0x80),
		.tail_max = vld1q_u8(tail_max),
	};
}

/* utf8val_simd_rules.h's primitives: a register of 16 bytes */
#define rule_vec	uint8x16_t
#define rule_tables	const vec_consts *
#define rule_before	uint8x16_t

/* The bytes @n back of those of @in, the first ones from @prev's end. */
static __always_inline uint8x16_t
rule_back(uint8x16_t last __always_unused, uint8x16_t in, uint8x16_t prev,
	  int n)
{
	return n == 1 ? vextq_u8(prev, in, 15) :
	       n == 2 ? vextq_u8(prev, in, 14) : vextq_u8(prev, in, 13);
}

/* (a shift of single bytes: no mask) */
static __always_inline uint8x16_t rule_high(const vec_consts *t __always_unused,
					    uint8x16_t v)
{
	return vshrq_n_u8(v, 4);
}

static __always_inline uint8x16_t rule_low(const vec_consts *t, uint8x16_t v)
{
	return vandq_u8(v, t->nibble);
}

static __always_inline uint8x16_t rule_lookup(const vec_consts *t,
					      enum rule_table which,
					      uint8x16_t nibbles)
{
	return vqtbl1q_u8(which == RULE_PREV_HIGH ? t->prev_high :
			  which == RULE_PREV_LOW ? t->prev_low : t->this_high,
			  nibbles);
}

static __always_inline uint8x16_t rule_and3(uint8x16_t a, uint8x16_t b,
					    uint8x16_t c)
{
	return vandq_u8(vandq_u8(a, b), c);
}

static __always_inline uint8x16_t rule_lead_at_least(const vec_consts *t,
						     uint8x16_t v, u8 min)
{
	return vqsubq_u8(v, min == THIRD_MIN ? t->third_min : t->fourth_min);
}

static __always_inline uint8x16_t rule_or(uint8x16_t a, uint8x16_t b)
{
	return vorrq_u8(a, b);
}

static __always_inline uint8x16_t rule_xor_bit7(const vec_consts *t,
						uint8x16_t a, uint8x16_t b)
{
	return veorq_u8(a, vandq_u8(b, t->bit7));
}

#include "../utf8val_simd_rules.h"

static inline bool any_set(uint8x16_t v)
{
	return vmaxvq_u32(vreinterpretq_u32_u8(v)) != 0;
}

/* Nonzero if @v ends inside a character: a lead in its last 3 bytes. */
static inline uint8x16_t ends_open(const vec_consts *k, uint8x16_t v)
{
	return vqsubq_u8(v, k->tail_max);
}

/* 0xff where a byte of @v starts a character (all but 80..BF). */
static inline uint8x16_t starts(uint8x16_t v)
{
	return vcgtq_s8(vreinterpretq_s8_u8(v), vdupq_n_s8(-65));
}

/*
 * One LD1 of four registers where the compiler has vld1q_u8_x4() (GCC from
 * 10.3, and 9.4 and 8.5): four loads cost 15 % more on ASCII.
 */
#if defined(__clang__) || __GNUC__ > 10 || \
	(__GNUC__ == 10 && __GNUC_MINOR__ >= 3)
static __always_inline vec_block vec_load(const u8 *s, size_t i)
{
	uint8x16x4_t b = vld1q_u8_x4(s + i);

	return (vec_block){ b.val[0], b.val[1], b.val[2], b.val[3] };
}
#else
static __always_inline vec_block vec_load(const u8 *s, size_t i)
{
	return (vec_block){ vld1q_u8(s + i), vld1q_u8(s + i + 16),
			    vld1q_u8(s + i + 32), vld1q_u8(s + i + 48) };
}
#endif

/* The bytes of @b ORed together: bit 7 set where one is not ASCII. */
static __always_inline uint8x16_t vec_or(vec_block b)
{
	return vorrq_u8(vorrq_u8(b.v0, b.v1), vorrq_u8(b.v2, b.v3));
}

static __always_inline bool vec_ascii(vec_block b)
{
	return vmaxvq_u8(vec_or(b)) < 0x80;
}

/*
 * Two blocks a step, one test for both, as on x86, and on a pointer (GCC
 * spends three more instructions a block on an index and a length). A
 * step that fails still takes its first block if that one is ASCII,
 * rather than have the block loop load it and come back for it alone.
 */
static __always_inline size_t vec_ascii_run(const u8 *s, size_t i, size_t to)
{
	const u8 *p = s + i, *steps_end = p + ((to - i) & ~(size_t)127);

	while (p != steps_end) {
		uint8x16_t first = vec_or(vec_load(p, 0));

		if (vmaxvq_u8(vorrq_u8(first, vec_or(vec_load(p, 64)))) >= 0x80)
			return p - s + (vmaxvq_u8(first) < 0x80 ? 64 : 0);
		p += 128;
	}
	/* a last block of 64 */
	if ((to - i) & 64 && vec_ascii(vec_load(p, 0)))
		p += 64;
	return p - s;
}

static __always_inline void vec_carry_before(const vec_consts *k,
					     struct vec_carry *c,
					     const u8 *s, size_t i)
{
	c->prev = i >= VEC_LOOK_BACK ? vld1q_u8(s + i - VEC_LOOK_BACK) :
				       vdupq_n_u8(0);
	c->open = ends_open(k, c->prev);
}

static __always_inline void vec_carry_ascii(struct vec_carry *c,
					    const u8 *s, size_t i)
{
	c->prev = vld1q_u8(s + i - 16);
}

/* Only the last three bytes can be set: the high half holds them. */
static __always_inline bool vec_open(const struct vec_carry *c)
{
	return vgetq_lane_u64(vreinterpretq_u64_u8(c->open), 1) != 0;
}

/* The bytes at @s + @i are in @b already */
static __always_inline bool vec_check(const vec_consts *k,
				      struct vec_carry *c, vec_block b,
				      const u8 *s __always_unused,
				      size_t i __always_unused)
{
	uint8x16_t err = vorrq_u8(vorrq_u8(rule_errors(k, b.v0, c->prev),
					   rule_errors(k, b.v1, b.v0)),
				  vorrq_u8(rule_errors(k, b.v2, b.v1),
					   rule_errors(k, b.v3, b.v2)));

	c->prev = b.v3;
	c->open = ends_open(k, b.v3);
	return !any_set(err);
}

/* The characters that start in @b, counting only its bytes from @skip. */
static __always_inline u64 vec_char_starts(vec_block b, unsigned int skip)
{
	uint8x16_t s0 = starts(b.v0), s1 = starts(b.v1);
	uint8x16_t s2 = starts(b.v2), s3 = starts(b.v3);
	int8x16_t minus;

	if (skip) {	/* the overlapping tail only: not the bytes before */
		static const u8 lanes[16] = {
			0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		};
		const uint8x16_t from = vdupq_n_u8(skip), step = vdupq_n_u8(16);
		uint8x16_t at = vld1q_u8(lanes);

		s0 = vandq_u8(s0, vcgeq_u8(at, from));
		at = vaddq_u8(at, step);
		s1 = vandq_u8(s1, vcgeq_u8(at, from));
		at = vaddq_u8(at, step);
		s2 = vandq_u8(s2, vcgeq_u8(at, from));
		at = vaddq_u8(at, step);
		s3 = vandq_u8(s3, vcgeq_u8(at, from));
	}
	/* 0xff (-1) where a character starts: each lane sums -4 to 0 */
	minus = vreinterpretq_s8_u8(vaddq_u8(vaddq_u8(s0, s1),
					     vaddq_u8(s2, s3)));
	return vaddlvq_u8(vreinterpretq_u8_s8(vnegq_s8(minus)));
}

#include "../utf8val_simd_loop.h"

size_t utf8val_neon_blocks(const u8 *s, size_t from, size_t to, bool end,
			   u64 *chars)
{
	return vec_blocks(s, from, to, end, chars);
}

/* Whether the 64 bytes at @p hold a newline. */
static inline bool has_newline(const u8 *p, uint8x16_t nl)
{
	uint8x16_t eq = vorrq_u8(vorrq_u8(vceqq_u8(vld1q_u8(p), nl),
					  vceqq_u8(vld1q_u8(p + 16), nl)),
				 vorrq_u8(vceqq_u8(vld1q_u8(p + 32), nl),
					  vceqq_u8(vld1q_u8(p + 48), nl)));

	return vmaxvq_u8(eq);
}

/*
 * The newlines in the @len bytes at @s, @len a multiple of 64: a counter
 * a byte lane, summed before one could pass 255; then back from the end
 * to the last block that holds one.
 */
u64 utf8val_neon_newlines(const u8 *s, size_t len, size_t *last_end)
{
	const uint8x16_t nl = vdupq_n_u8('\n');
	size_t i = 0;
	u64 n = 0;

	while (len - i >= 64) {
		const size_t stop = len - i > 255 * 64 ? i + 255 * 64 : len;
		uint8x16_t a = vdupq_n_u8(0), b = a, c = a, d = a;

		/* a newline compares to 0xff, -1: the counters count down */
		for (; stop - i >= 64; i += 64) {
			a = vsubq_u8(a, vceqq_u8(vld1q_u8(s + i), nl));
			b = vsubq_u8(b, vceqq_u8(vld1q_u8(s + i + 16), nl));
			c = vsubq_u8(c, vceqq_u8(vld1q_u8(s + i + 32), nl));
			d = vsubq_u8(d, vceqq_u8(vld1q_u8(s + i + 48), nl));
		}
		n += vaddlvq_u8(a) + vaddlvq_u8(b) + vaddlvq_u8(c) +
		     vaddlvq_u8(d);
	}
	for (i = len; n && i >= 64; i -= 64) {
		if (has_newline(s + i - 64, nl)) {
			*last_end = i;
			break;
		}
	}
	return n;
}
#endif /* __CHECKER__ */
