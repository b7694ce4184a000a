// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val's AVX2 fast path: strict RFC 3629, yes or no, in blocks of 64
 * bytes (two 32-byte registers), two blocks a step, in the block loop of
 * utf8val_simd_loop.h, and in whole(), which checks a short input in one
 * call.
 *
 * The rules are the nibble tables of utf8val_simd_tables.h.
 *
 * Only vector registers and this translation unit's flags differ from the
 * core; the caller (utf8val_core.c) owns the FPU section, the choice of
 * path, and the exact answer, which the scalar code computes from a
 * character boundary before the block this code rejects.
 */
#ifndef __CHECKER__	/* sparse cannot parse the intrinsics */
/* first: gcc-10's immintrin.h uses size_t without defining it */
#include "../utf8val_simd.h"
#include "../utf8val_simd_tables.h"

#include <immintrin.h>

/* utf8val_simd_loop.h's types: a block, the checks' constants */
struct avx2_block {
	__m256i a, b;
};

#define vec_block	struct avx2_block

struct avx2_consts {
	__m256i prev_high, prev_low, this_high, nibble;
	__m256i third_min, fourth_min, bit7, tail_max;
};

#define vec_consts	struct avx2_consts

/*
 * The last 32 bytes checked (the rules read them only before the input's
 * first block: the others load the bytes before them again), and nonzero
 * if they end inside a character.
 */
struct vec_carry {
	__m256i prev, open;
};

#define VEC_LOOK_BACK	32

/*
 * From this many bytes: on an Intel Xeon (family 6, model 167), 1 MiB of
 * MAINTAINERS 16 bytes past a cache line ran at 0.70 of its speed on a
 * page boundary; the Chinese page at 0.82, the JSON 0.85. Aligning from
 * 1 KiB instead ran text mostly ASCII of 1 KiB at 0.68 to 0.92 times
 * this on an AMD EPYC Zen 5, random characters at 1.02.
 */
#define VEC_ALIGN_FROM	2048

static inline __m256i broadcast16(const char *t)
{
	return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
}

static inline __m256i load32(const u8 *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

/*
 * GCC gets the constants through pointers it cannot see through: where
 * it knew them, it built four of them again with broadcasts in the loop
 * of two blocks a step (VEC_PAIRS), and random characters ran 5 to 8 %
 * slower than in the loop of one block. Clang, which keeps them in
 * registers as they are, spilled more with the pointers hidden.
 */
static __always_inline vec_consts vec_consts_make(void)
{
	static const char splats[5][32] __aligned(32) = {
		{ [0 ... 31] = 0x0f },
		{ [0 ... 31] = (char)(THIRD_MIN - 0x80) },
		{ [0 ... 31] = (char)(FOURTH_MIN - 0x80) },
		{ [0 ... 31] = (char)0x80 },
		/* tail_max */
		{ [0 ... 28] = (char)0xff, (char)0xef, (char)0xdf, (char)0xbf },
	};
	const char (*c)[32] = splats;
	const char *ph = prev_high, *pl = prev_low, *th = this_high;

#ifndef __clang__
	__asm__ ("" : "+r" (c), "+r" (ph), "+r" (pl), "+r" (th));
#endif
	return (vec_consts){
		.prev_high = broadcast16(ph),
		.prev_low = broadcast16(pl),
		.this_high = broadcast16(th),
		.nibble = load32((const u8 *)c[0]),
		.third_min = load32((const u8 *)c[1]),
		.fourth_min = load32((const u8 *)c[2]),
		.bit7 = load32((const u8 *)c[3]),
		.tail_max = load32((const u8 *)c[4]),
	};
}

/* utf8val_simd_rules.h's primitives: a register of 32 bytes */
#define rule_vec	__m256i
#define rule_tables	const vec_consts *
#define rule_before	__m256i

/* The bytes @n back of those of @in, the first ones from @prev's end. */
static __always_inline __m256i rule_back(__m256i last __always_unused,
					 __m256i in, __m256i prev, int n)
{
	/* prev's high 128-bit lane, in's low one */
	__m256i shifted = _mm256_permute2x128_si256(prev, in, 0x21);

	return n == 1 ? _mm256_alignr_epi8(in, shifted, 15) :
	       n == 2 ? _mm256_alignr_epi8(in, shifted, 14) :
			_mm256_alignr_epi8(in, shifted, 13);
}

static __always_inline __m256i rule_high(const vec_consts *t, __m256i v)
{
	return _mm256_and_si256(_mm256_srli_epi16(v, 4), t->nibble);
}

static __always_inline __m256i rule_low(const vec_consts *t, __m256i v)
{
	return _mm256_and_si256(v, t->nibble);
}

static __always_inline __m256i rule_lookup(const vec_consts *t,
					   enum rule_table which,
					   __m256i nibbles)
{
	return _mm256_shuffle_epi8(which == RULE_PREV_HIGH ? t->prev_high :
				   which == RULE_PREV_LOW ? t->prev_low :
				   t->this_high, nibbles);
}

static __always_inline __m256i rule_and3(__m256i a, __m256i b, __m256i c)
{
	return _mm256_and_si256(_mm256_and_si256(a, b), c);
}

static __always_inline __m256i rule_lead_at_least(const vec_consts *t,
						  __m256i v, u8 min)
{
	return _mm256_subs_epu8(v, min == THIRD_MIN ? t->third_min :
				t->fourth_min);
}

static __always_inline __m256i rule_or(__m256i a, __m256i b)
{
	return _mm256_or_si256(a, b);
}

static __always_inline __m256i
rule_xor_bit7(const vec_consts *t, __m256i a, __m256i b)
{
	return _mm256_xor_si256(a, _mm256_and_si256(b, t->bit7));
}

#include "../utf8val_simd_rules.h"

/*
 * rule_errors() of the register read from @p, with the bytes before it
 * read from the input again (from @p - 3): three loads, which have ports
 * of their own, in place of a lane permute and three byte shifts on the
 * ports the lookups need. Documentation/utf8val.rst has the figures.
 */
static __always_inline __m256i errors_loaded(const vec_consts *k, __m256i in,
					     const u8 *p)
{
	return rule_errors_back(k, in, load32(p - 1), load32(p - 2),
				load32(p - 3));
}

/* Nonzero if @v ends inside a character: a lead in its last 3 bytes. */
static inline __m256i ends_open(const vec_consts *k, __m256i v)
{
	return _mm256_subs_epu8(v, k->tail_max);
}

static __always_inline vec_block vec_load(const u8 *s, size_t i)
{
	return (vec_block){ load32(s + i), load32(s + i + 32) };
}

static __always_inline bool vec_ascii(vec_block b)
{
	return !_mm256_movemask_epi8(_mm256_or_si256(b.a, b.b));
}

/*
 * ASCII 128 bytes a step from @i: past the first block, ASCII tends to
 * go on. Where @to_block, a step that fails still takes its first block
 * if that one is ASCII, so that the block loop checks the other at once
 * (on a branch: an index chosen without one made the next step's loads
 * wait for the step's test). The pairs of blocks check both instead,
 * which ran faster there (Documentation/utf8val.rst).
 */
static __always_inline size_t ascii_steps(const u8 *s, size_t i, size_t to,
					  bool to_block)
{
	while (to - i >= 128) {
		__m256i lo = _mm256_or_si256(load32(s + i), load32(s + i + 32));
		__m256i hi = _mm256_or_si256(load32(s + i + 64),
					     load32(s + i + 96));

		if (_mm256_movemask_epi8(_mm256_or_si256(lo, hi))) {
			if (to_block && !_mm256_movemask_epi8(lo))
				i += 64;
			break;
		}
		i += 128;
	}
	return i;
}

static __always_inline size_t vec_ascii_run(const u8 *s, size_t i, size_t to)
{
	return ascii_steps(s, i, to, true);
}

static __always_inline void vec_carry_before(const vec_consts *k,
					     struct vec_carry *c,
					     const u8 *s, size_t i)
{
	c->prev = i >= VEC_LOOK_BACK ? load32(s + i - VEC_LOOK_BACK) :
				       _mm256_setzero_si256();
	c->open = ends_open(k, c->prev);
}

static __always_inline void vec_carry_ascii(struct vec_carry *c,
					    const u8 *s, size_t i)
{
	c->prev = load32(s + i - 32);
}

static __always_inline bool vec_open(const struct vec_carry *c)
{
	return !_mm256_testz_si256(c->open, c->open);
}

/* Nonzero where block @b, at @s + @i, after what *@c carries breaks a rule */
static __always_inline __m256i block_errors(const vec_consts *k,
					    const struct vec_carry *c,
					    vec_block b, const u8 *s, size_t i)
{
	__m256i err_a;

	/*
	 * Only the input's first block has nothing before it to load: the
	 * carry holds zeros for it (vec_carry_before()).
	 */
	if (i >= VEC_LOOK_BACK)
		err_a = errors_loaded(k, b.a, s + i);
	else
		err_a = rule_errors(k, b.a, c->prev);
	return _mm256_or_si256(err_a, errors_loaded(k, b.b, s + i + 32));
}

/* The bytes at @s + @i are in @b already */
static __always_inline bool vec_check(const vec_consts *k,
				      struct vec_carry *c, vec_block b,
				      const u8 *s, size_t i)
{
	__m256i err = block_errors(k, c, b, s, i);

	c->prev = b.b;
	c->open = ends_open(k, b.b);
	return _mm256_testz_si256(err, err);
}

/* utf8val_simd_loop.h's pairs of blocks (VEC_PAIRS) */
#define VEC_PAIRS

static __always_inline bool vec_ascii_pair(vec_block b0, vec_block b1)
{
	__m256i both = _mm256_or_si256(_mm256_or_si256(b0.a, b0.b),
				       _mm256_or_si256(b1.a, b1.b));

	return !_mm256_movemask_epi8(both);
}

static __always_inline size_t vec_ascii_pairs(const u8 *s, size_t i,
					      size_t to)
{
	return ascii_steps(s, i, to, false);
}

static __always_inline bool vec_check_pair(const vec_consts *k,
					   struct vec_carry *c, vec_block b0,
					   vec_block b1, const u8 *s, size_t i)
{
	__m256i err = block_errors(k, c, b0, s, i);

	err = _mm256_or_si256(err, errors_loaded(k, b1.a, s + i + 64));
	err = _mm256_or_si256(err, errors_loaded(k, b1.b, s + i + 96));

	c->open = ends_open(k, b1.b);
	return _mm256_testz_si256(err, err);
}

/* Where the bytes of @b start a character (all but 80..BF). */
static __always_inline u64 vec_char_starts(vec_block b, unsigned int skip)
{
	const __m256i last_cont = _mm256_set1_epi8((char)0xbf);
	u32 ma = _mm256_movemask_epi8(_mm256_cmpgt_epi8(b.a, last_cont));
	u32 mb = _mm256_movemask_epi8(_mm256_cmpgt_epi8(b.b, last_cont));

	return __builtin_popcountll(((u64)mb << 32 | ma) >> skip);
}

#include "../utf8val_simd_loop.h"

size_t utf8val_avx2_blocks(const u8 *s, size_t from, size_t to, bool end,
			   u64 *chars)
{
	return vec_blocks(s, from, to, end, chars);
}

/* whole(): where inputs that short take a vector path (utf8val_arch.h) */
#if UTF8VAL_WHOLE_MAX
/*
 * A step of whole(): the registers at @pa and at @pb, 32 bytes after it
 * or fewer (over it), add their errors to *@err, and *@open says whether
 * the second leaves a character open. A step of ASCII is not checked (a
 * branch, as in the block loop): it closes no character, so one left
 * open before it is an error. The rules of @pb's register read the 3
 * bytes before it from the input again (errors_loaded()), which must be
 * there, and so do @pa's but where @first: @pa is the input's start,
 * with nothing before it.
 */
static __always_inline void whole_step(const vec_consts *k, __m256i *err,
				       __m256i *open, const u8 *pa,
				       const u8 *pb, bool first)
{
	__m256i a = load32(pa), b = load32(pb), ea;

	if (vec_ascii((vec_block){ a, b })) {
		*err = _mm256_or_si256(*err, *open);
		return;
	}
	ea = first ? rule_errors(k, a, _mm256_setzero_si256()) :
		     errors_loaded(k, a, pa);
	ea = _mm256_or_si256(ea, errors_loaded(k, b, pb));
	*err = _mm256_or_si256(*err, ea);
	*open = ends_open(k, b);
}

/*
 * Whether the UTF8VAL_AVX2_WHOLE_MIN (35) to UTF8VAL_WHOLE_MAX (1024)
 * bytes at @s, the whole input, are valid: what utf8val_check() asks of them,
 * without the block loop's set-up (and under 256 bytes its ASCII words
 * first, under 96 the DFA). 64 bytes a step; the last one, and under 64
 * bytes the first one's second register, end at @len over the bytes
 * before, which are checked twice and alike, as the rules of a register
 * read the 3 bytes before it from the input: those must be in it, hence
 * 35 bytes, and a last step at least 3 bytes in.
 */
bool utf8val_avx2_whole(const u8 *s, size_t len)
{
	const vec_consts k = vec_consts_make();
	__m256i err = _mm256_setzero_si256(), open = err;
	size_t i;

	whole_step(&k, &err, &open, s, s + (len >= 64 ? 32 : len - 32), true);
	for (i = 64; i + 64 < len; i += 64)
		whole_step(&k, &err, &open, s + i, s + i + 32, false);
	if (len > 64)
		whole_step(&k, &err, &open, s + (len >= 67 ? len - 64 : 3),
			   s + len - 32, false);
	err = _mm256_or_si256(err, open);
	return _mm256_testz_si256(err, err);
}
#endif /* UTF8VAL_WHOLE_MAX */

/* Whether the 64 bytes at @p hold a newline. */
static inline bool has_newline(const u8 *p, __m256i nl)
{
	__m256i eq = _mm256_or_si256(_mm256_cmpeq_epi8(load32(p), nl),
				     _mm256_cmpeq_epi8(load32(p + 32), nl));

	return !_mm256_testz_si256(eq, eq);
}

/*
 * The newlines in the @len bytes at @s, @len a multiple of 64: a counter
 * a byte lane, summed before one could pass 255; then back from the end
 * to the last block that holds one.
 */
u64 utf8val_avx2_newlines(const u8 *s, size_t len, size_t *last_end)
{
	const __m256i nl = _mm256_set1_epi8('\n');
	const __m256i zero = _mm256_setzero_si256();
	__m256i sums = zero;
	size_t i = 0;
	u64 n;

	while (len - i >= 64) {
		const size_t stop = len - i > 255 * 64 ? i + 255 * 64 : len;
		__m256i a = zero, b = zero;

		/* a newline compares to 0xff, -1: the counters count down */
		for (; stop - i >= 64; i += 64) {
			a = _mm256_sub_epi8(a, _mm256_cmpeq_epi8(load32(s + i),
								 nl));
			b = _mm256_sub_epi8(b, _mm256_cmpeq_epi8(load32(s + i + 32),
								 nl));
		}
		sums = _mm256_add_epi64(sums, _mm256_sad_epu8(a, zero));
		sums = _mm256_add_epi64(sums, _mm256_sad_epu8(b, zero));
	}
	n = (u64)_mm256_extract_epi64(sums, 0) + _mm256_extract_epi64(sums, 1) +
	    _mm256_extract_epi64(sums, 2) + _mm256_extract_epi64(sums, 3);
	for (i = len; n && i >= 64; i -= 64) {
		if (has_newline(s + i - 64, nl)) {
			*last_end = i;
			break;
		}
	}
	return n;
}
#endif /* __CHECKER__ */
