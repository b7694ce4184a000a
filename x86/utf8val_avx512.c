// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val's AVX-512 fast path (F, BW and VBMI): strict RFC 3629, yes or
 * no, 256 bytes (four 64-byte registers) a step.
 *
 * The rules are the nibble tables of utf8val_simd_tables.h, as in the
 * AVX2 path; AVX-512 adds four things. VBMI's byte permute looks the
 * tables up by the low six bits of each byte, where a byte shuffle reads
 * bit 7 as "zero": the nibbles need no mask. A ternary-logic instruction
 * does the three-way AND and the XOR of the "two continuations" class,
 * and ORs three registers at once. Mask registers replace movemask. And
 * a masked load, which never faults on the bytes it leaves out, reads the
 * tail shorter than a step as if zeros followed it: a zero after an
 * unfinished character is an error like any other, so the end of the
 * input needs no check of its own, and inputs shorter than a block take
 * this path too.
 *
 * The rules are utf8val_simd_rules.h's, as in every path; the block loop
 * is its own, not utf8val_simd_loop.h's: that one checks a 64-byte block
 * a step and ends with an overlapping block, where this one takes four
 * blocks a step with one branch on ASCII and one test for their errors,
 * reads from a 64-byte boundary (ALIGN_FROM), and ends with masked
 * loads. Each is what its registers do best.
 *
 * The caller (utf8val_core.c) owns the FPU section, the choice of path,
 * and the exact answer.
 */
#ifndef __CHECKER__	/* sparse cannot parse the intrinsics */
/* first: gcc-10's immintrin.h uses size_t without defining it */
#include "../utf8val_simd.h"
#include "../utf8val_simd_tables.h"

#include <immintrin.h>

/* _mm512_ternarylogic_epi32() truth tables of inputs A, B and C */
#define TERN_A_AND_B_AND_C	0x80
#define TERN_A_XOR_B_AND_C	0x78	/* A ^ (B & C) */
#define TERN_A_OR_B_OR_C	0xfe

/*
 * From this many bytes, reads start at a 64-byte boundary: a load across
 * two cache lines costs two, and a caller's buffer is rarely aligned.
 * The start costs one more block's check, and the end a masked group.
 * bench --offsets on an AMD EPYC Zen 5 showed 3 to 6 % more on
 * mostly-ASCII text at 4 and 64 KiB, 2 % less on 4-byte text at 4 KiB.
 * Aligning from 768 rather than 2048 (each build's speed as a ratio to
 * simdutf's in the same run) took random characters 1.31 times as fast
 * at 768 bytes and 1.26 at 1 KiB, other text 0.99 to 1.15; from 512 it
 * cost mostly-ASCII text 4 to 16 % at 512 bytes
 * (Documentation/utf8val.rst). simdutf starts at 2 KiB. The length is
 * the section's, to - from in blocks().
 */
#define ALIGN_FROM	768

struct avx512_tables {
	__m512i prev_high, prev_low, this_high;
	__m512i third_min, fourth_min, bit7, tail_max;
};

static inline __m512i broadcast16(const char *t)
{
	return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)t));
}

/*
 * The constants of the tables, each a whole register in memory. From a
 * byte (_mm512_set1_epi8()), or from a table whose bytes it can see, GCC
 * moves the byte into a general register and broadcasts it from there:
 * a shuffle, on the one port of Intel's cores that also does the checks'
 * own lookups. In whole() that was five of the seventeen instructions
 * on that port (before VPERMB took the place of the nibble masks).
 * Reached through a pointer GCC cannot see through (tables_loaded()),
 * they are loads, most of them folded into the instruction that uses
 * them.
 */
static const struct avx512_splats {
	char third_min[64], fourth_min[64], bit7[64];
	/* the largest byte at each place of a block that ends a character */
	char tail_max[64];
} splats __aligned(64) = {
	.third_min = { [0 ... 63] = (char)(THIRD_MIN - 0x80) },
	.fourth_min = { [0 ... 63] = (char)(FOURTH_MIN - 0x80) },
	.bit7 = { [0 ... 63] = (char)0x80 },
	.tail_max = { [0 ... 60] = (char)0xff, (char)0xef, (char)0xdf,
		      (char)0xbf },
};

/* (only those a caller uses are loaded: it inlines) */
static __always_inline struct avx512_tables tables(void)
{
	return (struct avx512_tables){
		.prev_high = broadcast16(prev_high),
		.prev_low = broadcast16(prev_low),
		.this_high = broadcast16(this_high),
		.third_min = _mm512_set1_epi8((char)(THIRD_MIN - 0x80)),
		.fourth_min = _mm512_set1_epi8((char)(FOURTH_MIN - 0x80)),
		.bit7 = _mm512_set1_epi8((char)0x80),
		.tail_max = _mm512_load_si512(splats.tail_max),
	};
}

/* utf8val_simd_rules.h's primitives: a register of 64 bytes */
#define rule_vec	__m512i
#define rule_tables	const struct avx512_tables *
#define rule_before	__m512i

/* The bytes @n back of those of @in, the first ones from @prev's end. */
static __always_inline __m512i rule_back(__m512i last __always_unused,
					 __m512i in, __m512i prev, int n)
{
	/* 128-bit lanes: prev's last, in's first three */
	__m512i shifted = _mm512_alignr_epi64(in, prev, 6);

	return n == 1 ? _mm512_alignr_epi8(in, shifted, 15) :
	       n == 2 ? _mm512_alignr_epi8(in, shifted, 14) :
			_mm512_alignr_epi8(in, shifted, 13);
}

/*
 * The nibbles as VBMI's permute takes them: it reads the low six bits of
 * each byte, and the tables repeat every 16 bytes (broadcast16()), so
 * bits 4 and 5 choose among equal copies. A 16-bit shift leaves the next
 * byte's low bits there, and the low nibble is the byte itself: no mask,
 * where a shuffle, which reads bit 7 as "zero", needs one. Both masks
 * were three of a block's sixteen instructions on the two ports that
 * run 512-bit ones.
 */
static __always_inline __m512i
rule_high(const struct avx512_tables *t __always_unused, __m512i v)
{
	return _mm512_srli_epi16(v, 4);
}

static __always_inline __m512i
rule_low(const struct avx512_tables *t __always_unused, __m512i v)
{
	return v;
}

static __always_inline __m512i rule_lookup(const struct avx512_tables *t,
					   enum rule_table which,
					   __m512i nibbles)
{
	return _mm512_permutexvar_epi8(nibbles,
				       which == RULE_PREV_HIGH ? t->prev_high :
				       which == RULE_PREV_LOW ? t->prev_low :
				       t->this_high);
}

/* one ternary-logic instruction for the three-way AND */
static __always_inline __m512i rule_and3(__m512i a, __m512i b, __m512i c)
{
	return _mm512_ternarylogic_epi32(a, b, c, TERN_A_AND_B_AND_C);
}

static __always_inline __m512i rule_lead_at_least(const struct avx512_tables *t,
						  __m512i v, u8 min)
{
	return _mm512_subs_epu8(v, min == THIRD_MIN ? t->third_min :
				t->fourth_min);
}

static __always_inline __m512i rule_or(__m512i a, __m512i b)
{
	return _mm512_or_si512(a, b);
}

/* and one for the XOR of the masked leads */
static __always_inline __m512i rule_xor_bit7(const struct avx512_tables *t,
					     __m512i a, __m512i b)
{
	return _mm512_ternarylogic_epi32(a, b, t->bit7, TERN_A_XOR_B_AND_C);
}

#include "../utf8val_simd_rules.h"

static inline bool any(__m512i v)
{
	return _mm512_test_epi8_mask(v, v);
}

/* Whether @v ends inside a character: a lead in its last 3 bytes. */
static inline bool ends_open(const struct avx512_tables *t, __m512i v)
{
	return _mm512_cmpgt_epu8_mask(v, t->tail_max);
}

/* Where the bytes of @v start a character (all but 80..BF). */
static inline u64 starts(__m512i v)
{
	return _mm512_cmpgt_epi8_mask(v, _mm512_set1_epi8((char)0xbf));
}

/* The first @n bytes (0 to 64) of a block. */
static inline __mmask64 first_bytes(size_t n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/*
 * Four blocks: 256 bytes, or fewer at the end of the input, read as if
 * zeros followed them (a masked load never faults on the bytes it leaves
 * out): a zero after an unfinished character is an error like any other.
 */
struct group {
	__m512i a, b, c, d;
	__mmask64 ma, mb, mc, md;	/* the bytes of each that are input */
};

/* The first @n bytes at @p, 64 <= @n < 256 (a block past them loads none) */
static __always_inline struct group load_group(const u8 *p, size_t n)
{
	struct group g = {
		.ma = ~0ull,
		.mb = first_bytes(n - 64),
		.mc = first_bytes(n > 128 ? n - 128 : 0),
		.md = first_bytes(n > 192 ? n - 192 : 0),
	};

	g.a = _mm512_loadu_si512(p);
	g.b = _mm512_maskz_loadu_epi8(g.mb, p + 64);
	g.c = _mm512_maskz_loadu_epi8(g.mc, n > 128 ? p + 128 : p);
	g.d = _mm512_maskz_loadu_epi8(g.md, n > 192 ? p + 192 : p);
	return g;
}

static __always_inline struct group load256(const u8 *p)
{
	return (struct group){
		.a = _mm512_loadu_si512(p), .b = _mm512_loadu_si512(p + 64),
		.c = _mm512_loadu_si512(p + 128),
		.d = _mm512_loadu_si512(p + 192),
		.ma = ~0ull, .mb = ~0ull, .mc = ~0ull, .md = ~0ull,
	};
}

/* The group's bytes ORed: a top bit set where any is not ASCII. */
static __always_inline __m512i group_high(const struct group *g)
{
	return _mm512_ternarylogic_epi64(g->a, g->b,
					 _mm512_or_si512(g->c, g->d),
					 TERN_A_OR_B_OR_C);
}

/*
 * Whether the group is all ASCII and @prev leaves no character open
 * before it: then it is valid, and leaves none open itself. One branch
 * for both: an open character before ASCII goes the long way, which
 * finds the error.
 */
static __always_inline bool group_ascii(const struct avx512_tables *t,
					const struct group *g, __m512i prev)
{
	return !(_mm512_movepi8_mask(group_high(g)) |
		 _mm512_cmpgt_epu8_mask(prev, t->tail_max));
}

/* The bytes of the group, after @prev, that break a rule. */
static __always_inline __m512i group_error_bits(const struct avx512_tables *t,
						const struct group *g,
						__m512i prev)
{
	__m512i cd = _mm512_or_si512(rule_errors(t, g->c, g->b),
				     rule_errors(t, g->d, g->c));

	return _mm512_ternarylogic_epi64(rule_errors(t, g->a, prev),
					 rule_errors(t, g->b, g->a), cd,
					 TERN_A_OR_B_OR_C);
}

/* Whether the group, after @prev, breaks a rule: one test for four. */
static __always_inline bool group_errors(const struct avx512_tables *t,
					 const struct group *g, __m512i prev)
{
	return any(group_error_bits(t, g, prev));
}

static __always_inline u64 group_starts(const struct group *g)
{
	return __builtin_popcountll(starts(g->a) & g->ma) +
	       __builtin_popcountll(starts(g->b) & g->mb) +
	       __builtin_popcountll(starts(g->c) & g->mc) +
	       __builtin_popcountll(starts(g->d) & g->md);
}

/*
 * Check one group after @prev; advance *@prev past it and *@count by
 * its characters (@counting, a constant where inlined, leaves the
 * counting out of the loop that does not need it).
 */
static __always_inline bool group_ok(const struct avx512_tables *t,
				     const struct group *g, __m512i *prev,
				     u64 *count, bool counting)
{
	if (group_ascii(t, g, *prev)) {
		*prev = _mm512_setzero_si512();
		if (counting)
			*count += __builtin_popcountll(g->ma) +
				  __builtin_popcountll(g->mb) +
				  __builtin_popcountll(g->mc) +
				  __builtin_popcountll(g->md);
		return true;
	}
	if (group_errors(t, g, *prev))
		return false;
	*prev = g->d;
	if (counting)
		*count += group_starts(g);
	return true;
}

/*
 * The bytes that break a rule in the last 1 to 127 bytes of the input,
 * at @p after @prev: less than two blocks, each checked (no branch on
 * ASCII, the check is cheaper), one test for both: a short input pays
 * for the blocks it has, not for four. Zeros follow the input in its
 * last block, so a character it leaves open there is an error, but at
 * 64 bytes, which the test for one open at the end covers.
 */
static __always_inline __m512i tail_error_bits(const struct avx512_tables *t,
					       const u8 *p, size_t n,
					       __m512i prev)
{
	__m512i in, err = _mm512_setzero_si512();

	if (n > 64) {
		in = _mm512_loadu_si512(p);
		err = rule_errors(t, in, prev);
		prev = in;
		p += 64;
		n -= 64;
	}
	in = _mm512_maskz_loadu_epi8(first_bytes(n), p);
	err = _mm512_or_si512(err, rule_errors(t, in, prev));
	if (n == 64)
		err = _mm512_or_si512(err, _mm512_subs_epu8(in, t->tail_max));
	return err;
}

/*
 * The characters the 1 to 127 bytes at @p start, once tail_error_bits()
 * found them valid: read again (they are in L1) rather than counted
 * there through a pointer, whose local a KASAN build pads on the stack.
 * The zeros a masked load leaves past the input are starts to starts():
 * only the input's bytes count.
 */
static __always_inline u64 tail_chars(const u8 *p, size_t n)
{
	__mmask64 m;
	u64 c = 0;

	if (n > 64) {
		c = __builtin_popcountll(starts(_mm512_loadu_si512(p)));
		p += 64;
		n -= 64;
	}
	m = first_bytes(n);
	return c + __builtin_popcountll(starts(_mm512_maskz_loadu_epi8(m, p)) &
					m);
}

/*
 * 256 bytes a step, one branch on whether they are all ASCII: where
 * non-ASCII comes and goes, as in most text, a branch a block would
 * mispredict more often than checking all four blocks costs, and the
 * four checks share one test.
 */
static __always_inline size_t blocks(const u8 *s, size_t from, size_t to,
				     bool end, u64 *chars)
{
	const struct avx512_tables t = tables();
	__m512i prev = _mm512_setzero_si512();
	struct group g;
	u64 count = 0;
	size_t i = from, k;
	bool aligned = false;

	if (from >= 64)
		prev = _mm512_loadu_si512(s + from - 64);
	k = 64 - ((unsigned long)(s + from) & 63);
	if (to - from >= ALIGN_FROM && k < 64 && (from || k >= 3)) {
		/*
		 * The @k bytes to the boundary, checked as the start of a
		 * block (its other bytes are checked again after); then the
		 * groups from the boundary, after the 3 bytes before it, all
		 * the rules look back at, in the top of @prev. Those are the
		 * input's, read without a byte before @s: hence @k >= 3 at
		 * the input's start. (test_exhaustive's aligned starts check
		 * that valid text is taken whole across the boundary.)
		 */
		__m512i head = _mm512_loadu_si512(s + from);

		if (any(rule_errors(&t, head, prev)))
			goto out;
		if (chars)
			count += __builtin_popcountll(starts(head) &
						      ((1ull << k) - 1));
		i += k;
		aligned = true;
		prev = _mm512_alignr_epi64(_mm512_maskz_loadu_epi8(7, s + i - 3),
					   _mm512_setzero_si512(), 1);
		prev = _mm512_bslli_epi128(prev, 5);
	}
	for (; to - i >= 256; i += 256) {
		g = load256(s + i);
		if (!group_ok(&t, &g, &prev, &count, chars))
			goto out;
	}
	if (!end) {	/* the whole blocks left, each checked */
		for (; to - i >= 64; i += 64) {
			__m512i in = _mm512_loadu_si512(s + i);

			if (any(rule_errors(&t, in, prev)))
				goto out;
			prev = in;
			if (chars)
				count += __builtin_popcountll(starts(in));
		}
		if (aligned && i < to) {
			/* a last block ending at @to, over the one before */
			__m512i in = _mm512_loadu_si512(s + to - 64);

			if (any(rule_errors(&t, in,
					    _mm512_loadu_si512(s + to - 128))))
				goto out;
			if (chars)
				count += __builtin_popcountll(starts(in) >>
							      (64 - (to - i)));
			i = to;
		}
		goto out;
	}
	if (to - i >= 128) {
		/* the rest as one group: the zeros after it close the input */
		g = load_group(s + i, to - i);
		if (group_ok(&t, &g, &prev, &count, chars))
			i = to;
		goto out;
	}
	if (i < to) {
		if (!any(tail_error_bits(&t, s + i, to - i, prev))) {
			if (chars)
				count += tail_chars(s + i, to - i);
			i = to;
		}
		goto out;
	}
	/*
	 * The input ends with the last group (in prev: an ASCII one leaves
	 * none open), which must close its character; if not, its last
	 * block is not clean, nor are its characters counted.
	 */
	if (ends_open(&t, prev))
		i = utf8val_drop_open_block(i, from, &count, chars ?
					    __builtin_popcountll(starts(prev)) :
					    0);
out:
	if (chars)
		*chars += count;
	return i;
}

/* whole(): where inputs that short take a vector path (utf8val_arch.h) */
#if UTF8VAL_WHOLE_MAX
/*
 * tables() with its constants loaded: for one block, where setting them
 * up is a third of the work. (Not for the block loop, which sets them up
 * once: the loads this brought into it cost ASCII at 64 KiB a tenth of
 * its speed.)
 */
static __always_inline struct avx512_tables tables_loaded(void)
{
	const struct avx512_splats *c = &splats;
	struct avx512_tables t = tables();	/* the three nibble tables */

	__asm__ ("" : "+r" (c));	/* GCC no longer knows the bytes */
	t.third_min = _mm512_load_si512(c->third_min);
	t.fourth_min = _mm512_load_si512(c->fourth_min);
	t.bit7 = _mm512_load_si512(c->bit7);
	t.tail_max = _mm512_load_si512(c->tail_max);
	return t;
}

/*
 * Whether the 1 to 64 bytes at @s, the whole input, are valid: one
 * masked block and no branch on the length. Short strings are where a
 * path's fixed cost shows: blocks() spends twice the instructions on
 * them. ASCII leaves before the tables are loaded, on the one branch,
 * which goes the same way for most strings of a kind (names, keys,
 * paths). Zeros follow a shorter input, so a character it leaves open
 * is an error there; the test for one open at the end of a whole block
 * is applied at every length, as no valid input of 64 bytes or fewer
 * has a lead byte whose character would need a 65th.
 */
bool utf8val_avx512_whole(const u8 *s, size_t len)
{
	__m512i in = _mm512_maskz_loadu_epi8(~0ull >> (64 - len), s);
	struct avx512_tables t;
	__m512i open;

	if (!_mm512_movepi8_mask(in))
		return true;
	t = tables_loaded();
	open = _mm512_subs_epu8(in, t.tail_max);
	return !any(_mm512_or_si512(rule_errors(&t, in, _mm512_setzero_si512()),
				    open));
}

/*
 * The last @n bytes of a whole input at @p, 64 <= @n <= 256: masked as
 * the end of the input is, but at 256 bytes, where masked loads took up
 * to a fifth longer than plain ones (Documentation/utf8val.rst).
 */
static __always_inline struct group load_end(const u8 *p, size_t n)
{
	return n == 256 ? load256(p) : load_group(p, n);
}

/*
 * whole256() of 65 to 128 bytes: two blocks, the second masked as the
 * end of the input is, at 128 bytes too (where the plain load that 256
 * bytes take is not measured). A short input pays for the blocks it
 * has, not four.
 */
static __always_inline bool pair_whole(const u8 *s, size_t len)
{
	__m512i a = _mm512_loadu_si512(s);
	__m512i b = _mm512_maskz_loadu_epi8(first_bytes(len - 64), s + 64);
	struct avx512_tables t;

	if (!_mm512_movepi8_mask(_mm512_or_si512(a, b)))
		return true;
	t = tables();
	return !any(_mm512_ternarylogic_epi64(rule_errors(&t, a,
							  _mm512_setzero_si512()),
					      rule_errors(&t, b, a),
					      _mm512_subs_epu8(b, t.tail_max),
					      TERN_A_OR_B_OR_C));
}

/*
 * Whether the 65 to 256 bytes at @s, the whole input, are valid: what
 * utf8val_check() asks of them, without the block loop's set-up, which
 * was half of such a call. To 128 bytes two blocks (pair_whole()), past
 * that one group (load_end()), each read as the end of the input is. The
 * test for a character left open at the end of the last block is made at
 * every length: a block the input does not reach holds zeros, which open
 * none.
 */
bool utf8val_avx512_whole256(const u8 *s, size_t len)
{
	struct group g;
	struct avx512_tables t;

	if (len <= 128)
		return pair_whole(s, len);
	g = load_end(s, len);
	if (!_mm512_movepi8_mask(group_high(&g)))
		return true;
	t = tables();	/* (tables_loaded() measured the same here) */
	return !group_errors(&t, &g, _mm512_setzero_si512()) &&
	       !ends_open(&t, g.d);
}

/*
 * Whether the 257 to 512 bytes at @s, the whole input, are valid: two
 * groups, the second masked as the end of the input is (under 64 bytes
 * of it, one block and three of zeros), one branch on ASCII for both and
 * one test of the rules, as whole256() does for one.
 */
bool utf8val_avx512_whole512(const u8 *s, size_t len)
{
	const size_t n = len - 256;
	struct group g = load256(s), h = { };
	struct avx512_tables t;
	__m512i err;

	if (n >= 64)
		h = load_end(s + 256, n);
	else
		h.a = _mm512_maskz_loadu_epi8(first_bytes(n), s + 256);
	if (!_mm512_movepi8_mask(_mm512_or_si512(group_high(&g),
						 group_high(&h))))
		return true;
	t = tables();
	err = group_error_bits(&t, &g, _mm512_setzero_si512());
	return !any(_mm512_ternarylogic_epi64(err,
					      group_error_bits(&t, &h, g.d),
					      _mm512_subs_epu8(h.d, t.tail_max),
					      TERN_A_OR_B_OR_C));
}

/*
 * Whether the 513 to 1024 bytes at @s, the whole input, are valid: the
 * groups before the last as the block loop takes them, a branch on ASCII
 * each, then the last 1 to 256 bytes as its end does (under 128 of them
 * a block or two, else a group masked as the end of the input is, and a
 * character left open at its end). The block loop's set-up, and its
 * aligned start, cost more than they save here
 * (Documentation/utf8val.rst).
 */
bool utf8val_avx512_whole1024(const u8 *s, size_t len)
{
	const struct avx512_tables t = tables();
	__m512i prev = _mm512_setzero_si512();
	struct group g;
	size_t i, n;

	for (i = 0; len - i > 256; i += 256) {
		g = load256(s + i);
		if (!group_ok(&t, &g, &prev, NULL, false))
			return false;
	}
	n = len - i;
	if (n < 128)
		return !any(tail_error_bits(&t, s + i, n, prev));
	g = load_end(s + i, n);
	if (group_ascii(&t, &g, prev))
		return true;
	return !any(_mm512_or_si512(group_error_bits(&t, &g, prev),
				    _mm512_subs_epu8(g.d, t.tail_max)));
}
#endif /* UTF8VAL_WHOLE_MAX */

/*
 * The loop that counts and the one that does not, each in a function of
 * its own: both in one, a kernel built with KASAN gave it a frame past
 * 1 KiB (-Wframe-larger-than).
 */
static noinline size_t blocks_counted(const u8 *s, size_t from, size_t to,
				      bool end, u64 *chars)
{
	return blocks(s, from, to, end, chars);
}

static noinline size_t blocks_uncounted(const u8 *s, size_t from, size_t to,
					bool end)
{
	return blocks(s, from, to, end, NULL);
}

size_t utf8val_avx512_blocks(const u8 *s, size_t from, size_t to, bool end,
			     u64 *chars)
{
	return chars ? blocks_counted(s, from, to, end, chars) :
		       blocks_uncounted(s, from, to, end);
}

/*
 * The newlines in the @len bytes at @s, @len a multiple of 64; then back
 * from the end to the last block that holds one.
 */
u64 utf8val_avx512_newlines(const u8 *s, size_t len, size_t *last_end)
{
	const __m512i nl = _mm512_set1_epi8('\n');
	size_t i;
	u64 n = 0;

	for (i = 0; len - i >= 64; i += 64) {
		__m512i in = _mm512_loadu_si512(s + i);

		n += __builtin_popcountll(_mm512_cmpeq_epi8_mask(in, nl));
	}
	for (i = len; n && i >= 64; i -= 64) {
		__m512i in = _mm512_loadu_si512(s + i - 64);

		if (_mm512_cmpeq_epi8_mask(in, nl)) {
			*last_end = i;
			break;
		}
	}
	return n;
}
#endif /* __CHECKER__ */
