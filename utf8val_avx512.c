// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val's AVX-512 fast path (F and BW): strict RFC 3629, yes or no, one
 * 64-byte register a step.
 *
 * The rules are the nibble tables of utf8val_simd_tables.h, as in the
 * AVX2 path; AVX-512 adds three things. A ternary-logic instruction does
 * the three-way AND and the XOR of the "two continuations" class. Mask
 * registers replace movemask. And a masked load, which never faults on
 * the bytes it leaves out, reads the tail shorter than a block as if
 * zeros followed it: a zero after an unfinished character is an error
 * like any other, so the end of the input needs no check of its own, and
 * inputs shorter than a block take this path too.
 *
 * The caller (utf8val_core.c) owns the FPU section, the choice of path,
 * and the exact answer.
 */
#ifndef __CHECKER__	/* sparse cannot parse the intrinsics */
#include <immintrin.h>

#include "utf8val_simd.h"
#include "utf8val_simd_tables.h"

/* _mm512_ternarylogic_epi32() truth tables of inputs A, B and C */
#define TERN_A_AND_B_AND_C	0x80
#define TERN_A_XOR_B_AND_C	0x78	/* A ^ (B & C) */
#define TERN_A_OR_B_OR_C	0xfe

struct avx512_tables {
	__m512i prev_high, prev_low, this_high, nibble;
	__m512i third_min, fourth_min, bit7, tail_max;
};

static inline __m512i broadcast16(const char *t)
{
	return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)t));
}

static inline __m512i high_nibbles(__m512i v, __m512i nibble)
{
	return _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble);
}

/* Nonzero bits where @in, after @prev, breaks a rule. */
static inline __mmask64 check64(const struct avx512_tables *t, __m512i in,
				__m512i prev)
{
	/* 128-bit lanes: prev's last, in's first three */
	__m512i shifted = _mm512_alignr_epi64(in, prev, 6);
	__m512i prev1 = _mm512_alignr_epi8(in, shifted, 15);
	__m512i prev2 = _mm512_alignr_epi8(in, shifted, 14);
	__m512i prev3 = _mm512_alignr_epi8(in, shifted, 13);
	__m512i by_prev_high, by_prev_low, by_this_high, classes, third_fourth;

	by_prev_high = _mm512_shuffle_epi8(t->prev_high,
					   high_nibbles(prev1, t->nibble));
	by_prev_low = _mm512_shuffle_epi8(t->prev_low,
					  _mm512_and_si512(prev1, t->nibble));
	by_this_high = _mm512_shuffle_epi8(t->this_high,
					   high_nibbles(in, t->nibble));
	classes = _mm512_ternarylogic_epi32(by_prev_high, by_prev_low,
					    by_this_high, TERN_A_AND_B_AND_C);
	/* bit 7 where the byte two back is E0..FF or three back F0..FF */
	third_fourth = _mm512_or_si512(_mm512_subs_epu8(prev2, t->third_min),
				       _mm512_subs_epu8(prev3, t->fourth_min));
	classes = _mm512_ternarylogic_epi32(classes, third_fourth, t->bit7,
					    TERN_A_XOR_B_AND_C);
	return _mm512_test_epi8_mask(classes, classes);
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

static inline __m512i load64(const u8 *p)
{
	return _mm512_loadu_si512((const void *)p);
}

static inline bool ascii(__m512i v)
{
	return !_mm512_movepi8_mask(v);
}

static inline bool ascii256(const u8 *p)
{
	__m512i a = _mm512_ternarylogic_epi64(load64(p), load64(p + 64),
					      load64(p + 128), TERN_A_OR_B_OR_C);

	return ascii(_mm512_or_si512(a, load64(p + 192)));
}

/* The mask of a tail of @rest bytes, 1 to 63 */
static inline __mmask64 tail_bytes(size_t rest)
{
	return ~0ull >> (64 - rest);
}

/* The tail shorter than a block, read as if zeros followed it. */
static inline __m512i load_tail(const u8 *p, size_t rest)
{
	return _mm512_maskz_loadu_epi8(tail_bytes(rest), p);
}

/* Past the whole ASCII blocks from @i: 256, then 128, then 64 bytes. */
static inline size_t ascii_blocks(const u8 *s, size_t i, size_t to)
{
	while (to - i >= 256 && ascii256(s + i))
		i += 256;
	while (to - i >= 128 &&
	       ascii(_mm512_or_si512(load64(s + i), load64(s + i + 64))))
		i += 128;
	if (to - i >= 64 && ascii(load64(s + i)))
		i += 64;
	return i;
}

/*
 * The ASCII at the start of @s: its whole blocks, and the tail too if it
 * ends the input. This needs none of the tables, whose set-up would be
 * most of the time of a short ASCII input.
 */
static inline size_t leading_ascii(const u8 *s, size_t to, bool end)
{
	size_t i = ascii_blocks(s, 0, to);

	if (end && to - i < 64 && (i == to || ascii(load_tail(s + i, to - i))))
		return to;
	return i;
}

static __always_inline size_t blocks(const u8 *s, size_t from, size_t to,
				     bool end, u64 *chars)
{
	static const char tail_max[64] = {
		[0 ... 60] = (char)0xff, (char)0xef, (char)0xdf, (char)0xbf,
	};
	const struct avx512_tables t = {
		.prev_high = broadcast16(prev_high),
		.prev_low = broadcast16(prev_low),
		.this_high = broadcast16(this_high),
		.nibble = _mm512_set1_epi8(0x0f),
		.third_min = _mm512_set1_epi8((char)(THIRD_MIN - 0x80)),
		.fourth_min = _mm512_set1_epi8((char)(FOURTH_MIN - 0x80)),
		.bit7 = _mm512_set1_epi8((char)0x80),
		.tail_max = load64((const u8 *)tail_max),
	};
	__m512i prev = _mm512_setzero_si512(), in;
	u64 count = 0;
	size_t i = from, rest;

	if (from >= 64) {
		prev = load64(s + from - 64);
	} else {
		i = leading_ascii(s, to, end);
		count = i;
		if (i == to)
			goto out;
	}
	while (to - i >= 64) {
		in = load64(s + i);
		if (ascii(in)) {
			size_t run = i;

			/* ASCII: wrong only after an open character */
			if (ends_open(&t, prev))
				goto out;
			i = ascii_blocks(s, i + 64, to);
			count += i - run;
			/* ASCII before the next block, as good as none */
			prev = _mm512_setzero_si512();
			continue;
		}
		if (check64(&t, in, prev))
			goto out;
		prev = in;
		if (chars)
			count += __builtin_popcountll(starts(in));
		i += 64;
	}
	if (!end)
		goto out;
	rest = to - i;
	if (!rest) {
		/*
		 * At the end of the input, the last block (prev: an ASCII
		 * one leaves none open) must close its character, or it is
		 * not clean, nor are its characters counted.
		 */
		if (ends_open(&t, prev)) {
			if (i - from >= 64) {
				i -= 64;
				if (chars)
					count -= __builtin_popcountll(starts(prev));
			} else {
				i = from;
				count = 0;
			}
		}
		goto out;
	}
	/* the zeros after the tail end any character left open */
	in = load_tail(s + i, rest);
	if (ascii(in) ? ends_open(&t, prev) : check64(&t, in, prev))
		goto out;
	if (chars)
		count += __builtin_popcountll(starts(in) & tail_bytes(rest));
	i = to;
out:
	if (chars)
		*chars += count;
	return i;
}

size_t utf8val_avx512_blocks(const u8 *s, size_t from, size_t to, bool end,
			     u64 *chars)
{
	return chars ? blocks(s, from, to, end, chars) :
		       blocks(s, from, to, end, NULL);
}
#endif /* __CHECKER__ */
