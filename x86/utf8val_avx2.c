// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val's AVX2 fast path: strict RFC 3629, yes or no, 64 bytes a step.
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

struct avx2_tables {
	__m256i prev_high, prev_low, this_high, nibble;
	__m256i third_min, fourth_min, tail_max;
};

static inline __m256i broadcast16(const char *t)
{
	return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
}

static inline __m256i high_nibbles(__m256i v, __m256i nibble)
{
	return _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
}

/* Nonzero bytes where @in, after @prev, breaks a rule. */
static inline __m256i check32(const struct avx2_tables *t, __m256i in,
			      __m256i prev)
{
	__m256i shifted = _mm256_permute2x128_si256(prev, in, 0x21);
	__m256i prev1 = _mm256_alignr_epi8(in, shifted, 15);
	__m256i prev2 = _mm256_alignr_epi8(in, shifted, 14);
	__m256i prev3 = _mm256_alignr_epi8(in, shifted, 13);
	__m256i by_prev_high, by_prev_low, by_this_high, classes, third_fourth;

	by_prev_high = _mm256_shuffle_epi8(t->prev_high,
					   high_nibbles(prev1, t->nibble));
	by_prev_low = _mm256_shuffle_epi8(t->prev_low,
					  _mm256_and_si256(prev1, t->nibble));
	by_this_high = _mm256_shuffle_epi8(t->this_high,
					   high_nibbles(in, t->nibble));
	classes = _mm256_and_si256(_mm256_and_si256(by_prev_high, by_prev_low),
				   by_this_high);
	/* bit 7 where the byte two back is E0..FF or three back F0..FF */
	third_fourth = _mm256_or_si256(_mm256_subs_epu8(prev2, t->third_min),
				       _mm256_subs_epu8(prev3, t->fourth_min));
	return _mm256_xor_si256(classes,
				_mm256_and_si256(third_fourth,
						 _mm256_set1_epi8((char)0x80)));
}

/* Nonzero if @v ends inside a character: a lead in its last 3 bytes. */
static inline __m256i ends_open(const struct avx2_tables *t, __m256i v)
{
	return _mm256_subs_epu8(v, t->tail_max);
}

/* Where the bytes of @a and @b start a character (all but 80..BF). */
static inline u64 starts_mask(__m256i a, __m256i b)
{
	const __m256i last_cont = _mm256_set1_epi8((char)0xbf);
	u32 ma = _mm256_movemask_epi8(_mm256_cmpgt_epi8(a, last_cont));
	u32 mb = _mm256_movemask_epi8(_mm256_cmpgt_epi8(b, last_cont));

	return (u64)mb << 32 | ma;
}

static inline u64 char_starts(__m256i a, __m256i b)
{
	return __builtin_popcountll(starts_mask(a, b));
}

/* The same in the last @rest bytes only (1..63). */
static inline u64 char_starts_tail(__m256i a, __m256i b, size_t rest)
{
	return __builtin_popcountll(starts_mask(a, b) >> (64 - rest));
}

static inline __m256i load32(const u8 *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

static inline bool ascii128(const u8 *p)
{
	__m256i lo = _mm256_or_si256(load32(p), load32(p + 32));
	__m256i hi = _mm256_or_si256(load32(p + 64), load32(p + 96));

	return !_mm256_movemask_epi8(_mm256_or_si256(lo, hi));
}

/*
 * The checks of one block and what they carry to the next: the block's
 * second half, and whether it ends inside a character.
 */
static __always_inline bool block_ok(const struct avx2_tables *t, __m256i a,
				     __m256i b, __m256i *prev, __m256i *open)
{
	__m256i err = _mm256_or_si256(check32(t, a, *prev),
				      check32(t, b, a));

	*prev = b;
	*open = ends_open(t, b);
	return _mm256_testz_si256(err, err);
}

static __always_inline size_t blocks(const u8 *s, size_t from, size_t to,
				     bool end, u64 *chars)
{
	static const char tail_max[32] = {
		[0 ... 28] = (char)0xff, (char)0xef, (char)0xdf, (char)0xbf,
	};
	const struct avx2_tables t = {
		.prev_high = broadcast16(prev_high),
		.prev_low = broadcast16(prev_low),
		.this_high = broadcast16(this_high),
		.nibble = _mm256_set1_epi8(0x0f),
		.third_min = _mm256_set1_epi8((char)(THIRD_MIN - 0x80)),
		.fourth_min = _mm256_set1_epi8((char)(FOURTH_MIN - 0x80)),
		.tail_max = load32((const u8 *)tail_max),
	};
	__m256i prev = _mm256_setzero_si256(), open, a = prev, b = prev;
	u64 count = 0;
	size_t i = from, rest;

	if (from >= 32)
		prev = load32(s + from - 32);
	open = ends_open(&t, prev);
	while (to - i >= 64) {
		a = load32(s + i);
		b = load32(s + i + 32);
		if (!_mm256_movemask_epi8(_mm256_or_si256(a, b))) {
			size_t run = i;

			/* ASCII: wrong only after an open character */
			if (!_mm256_testz_si256(open, open))
				goto out;
			i += 64;
			while (to - i >= 128 && ascii128(s + i))
				i += 128;
			count += i - run;
			prev = load32(s + i - 32);
			continue;
		}
		if (!block_ok(&t, a, b, &prev, &open))
			goto out;
		if (chars)
			count += char_starts(a, b);
		i += 64;
	}
	if (!end)
		goto out;
	rest = to - i;
	if (rest && to >= 96) {
		/* the last 64 bytes, overlapping what is checked already */
		prev = load32(s + to - 96);
		a = load32(s + to - 64);
		b = load32(s + to - 32);
		if (!block_ok(&t, a, b, &prev, &open))
			goto out;
		if (chars)
			count += char_starts_tail(a, b, rest);
		i = to;
	}
	/*
	 * At the end of the input, the last block must close its character:
	 * if it does not, it is not clean, nor are its characters counted.
	 * a and b hold it (an ASCII block leaves no character open).
	 */
	if (i == to && !_mm256_testz_si256(open, open))
		i = utf8val_drop_open_block(i, from, &count,
					    chars ? char_starts(a, b) : 0);
out:
	if (chars)
		*chars += count;
	return i;
}

size_t utf8val_avx2_blocks(const u8 *s, size_t from, size_t to, bool end,
			   u64 *chars)
{
	return chars ? blocks(s, from, to, end, chars) :
		       blocks(s, from, to, end, NULL);
}
#endif /* __CHECKER__ */
