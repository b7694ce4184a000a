/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The block loop of the vector paths that check 64 bytes a step (AVX2,
 * NEON, RVV): a template, which each includes after defining its vector
 * types and helpers. The loop is written once; what a vector register
 * holds, and how it is checked, is the includer's.
 *
 * The includer defines two types, as macros (the kernel's templates take
 * their types that way; a sizeless vector type cannot be wrapped in a
 * struct):
 *
 *   vec_block        one 64-byte block (a struct of registers, or a
 *                    register group)
 *   vec_consts       the checks' tables and constants, made once a call
 *                    (a struct, or a tuple of registers)
 *
 * and a struct, a constant, and these functions (static __always_inline):
 *
 *   struct vec_carry what one block carries to the next: the bytes the
 *                    checks look back at, and whether a character is open
 *   VEC_LOOK_BACK    how many bytes before a block vec_carry_before()
 *                    reads: the overlapping tail needs 64 + that many
 *
 *   vec_consts vec_consts_make(void)
 *   vec_block vec_load(const u8 *s, size_t i)     the block at @s + @i
 *   bool vec_ascii(vec_block b)                   whether all below 0x80
 *   size_t vec_ascii_run(const u8 *s, size_t i, size_t to)
 *                    @i + 64 k, where k whole blocks from @i are ASCII
 *                    (it may stop short of the last: the loop goes on);
 *                    where 128 bytes or more are left, the block there
 *                    is not ASCII (the loop checks it without a test)
 *   void vec_carry_before(const vec_consts *k, struct vec_carry *c,
 *                         const u8 *s, size_t i)
 *                    the carry of the bytes before @i (none if fewer than
 *                    VEC_LOOK_BACK)
 *   void vec_carry_ascii(struct vec_carry *c, const u8 *s, size_t i)
 *                    the same after ASCII that ends at @i (at least 64),
 *                    with no character open before it (none is after)
 *   bool vec_open(const struct vec_carry *c)     a character is open
 *   bool vec_check(const vec_consts *k, struct vec_carry *c, vec_block b,
 *                  const u8 *s, size_t i)
 *                    whether block @b, at @s + @i, keeps the rules after
 *                    what *@c carries; updates *@c to carry @b
 *   u64 vec_char_starts(vec_block b, unsigned int skip)
 *                    the characters that start in @b from its byte @skip
 *
 * and, optionally, VEC_ALIGN_FROM: from that many bytes, the steps read
 * from a 64-byte boundary (a load across two cache lines costs two).
 *
 * and, optionally, VEC_PAIRS: two blocks a step (vec_pairs()), with
 *
 *   bool vec_ascii_pair(vec_block b0, vec_block b1)
 *   size_t vec_ascii_pairs(const u8 *s, size_t i, size_t to)
 *                    @i + 128 k, where k whole steps of two blocks from
 *                    @i are ASCII: where 128 bytes or more are left, the
 *                    step there holds a byte from 0x80
 *   bool vec_check_pair(const vec_consts *k, struct vec_carry *c,
 *                       vec_block b0, vec_block b1, const u8 *s, size_t i)
 *                    vec_ascii() and vec_check() of @b0 at @s + @i and
 *                    @b1 after it, with one test; the checks load the
 *                    bytes before @i from @s, but where fewer than
 *                    VEC_LOOK_BACK are (the carry's then, from
 *                    vec_carry_before()), and update only the carry's
 *                    test for an open character (vec_pairs() loads the
 *                    rest again after the pairs)
 *
 * and then vec_blocks() is a utf8val_blocks_fn (utf8val_simd.h) to call
 * from the path's entry point.
 */
#ifndef UTF8VAL_SIMD_LOOP_H
#define UTF8VAL_SIMD_LOOP_H

#include "utf8val_simd.h"

/* Whether the steps over @i to @to read from a boundary (VEC_ALIGN_FROM) */
#ifdef VEC_ALIGN_FROM
#define vec_aligns(i, to)	((to) - (i) >= VEC_ALIGN_FROM)
#else
#define vec_aligns(i, to)	((void)(i), (void)(to), false)	/* as they fall */
#endif

/*
 * Check the blocks from *@i up to a 64-byte boundary, as VEC_ALIGN_FROM
 * asks, and move *@i there, its carry the VEC_LOOK_BACK bytes before it
 * (at the input's start, to the boundary after the next where the first
 * is fewer than VEC_LOOK_BACK bytes in). The bytes past the boundary in
 * the last block are checked again by the steps. False at an error, *@i
 * not moved.
 */
static __always_inline bool vec_align(const vec_consts *k,
				      struct vec_carry *carry, const u8 *s,
				      size_t *i, size_t to, u64 *count)
{
	size_t skip = 64 - ((unsigned long)(s + *i) & 63);
	u64 starts = 0;
	size_t at;

	if (!vec_aligns(*i, to) || skip == 64)
		return true;
	if (*i + skip < VEC_LOOK_BACK)
		skip += 64;
	for (at = *i; at < *i + skip; at += 64) {
		vec_block b = vec_load(s, at);

		if (!vec_check(k, carry, b, s, at))
			return false;
		if (count)
			starts += vec_char_starts(b, 0) -
				  (at + 64 > *i + skip ?
				   vec_char_starts(b, *i + skip - at) : 0);
	}
	if (count)
		*count += starts;
	*i += skip;
	vec_carry_before(k, carry, s, *i);
	return true;
}

#ifdef VEC_PAIRS
/*
 * Two blocks a step from *@i, while 128 bytes are left: a step of ASCII
 * goes on as a run, any other has both blocks checked, one of them
 * perhaps ASCII. Where non-ASCII comes and goes (names in JSON, prose
 * with a few characters), checking a block of ASCII costs less than a
 * branch a block to skip it, which mispredicts. Not where characters
 * are counted: there the pairs' counts and checks took more registers
 * than there are, and ran slower. False at an error, *@i the start of
 * its step; else *@i is where fewer than 128 bytes are left, and the
 * carry that of the bytes before it.
 */
static __always_inline bool vec_pairs(const vec_consts *k,
				      struct vec_carry *carry, const u8 *s,
				      size_t *i, size_t to)
{
	size_t at = *i;

	while (to - at >= 128) {
		vec_block b0 = vec_load(s, at), b1 = vec_load(s, at + 64);

		if (vec_ascii_pair(b0, b1)) {
			/* ASCII: wrong only after an open character */
			if (vec_open(carry))
				break;
			at = vec_ascii_pairs(s, at + 128, to);
			continue;
		}
		if (!vec_check_pair(k, carry, b0, b1, s, at))
			break;
		at += 128;
	}
	*i = at;
	if (to - at >= 128)
		return false;
	vec_carry_before(k, carry, s, at);
	return true;
}
#endif

static __always_inline size_t vec_block_loop(const u8 *s, size_t from,
					     size_t to, bool end, u64 *chars)
{
	const vec_consts k = vec_consts_make();
	struct vec_carry carry;
	u64 count = 0;
	size_t i = from, rest;
	bool aligned;

	vec_carry_before(&k, &carry, s, from);
	if (!vec_align(&k, &carry, s, &i, to, chars ? &count : NULL))
		goto out;
	aligned = i != from;
#ifdef VEC_PAIRS
	if (!chars && !vec_pairs(&k, &carry, s, &i, to))
		goto out;
#endif
	while (to - i >= 64) {
		vec_block b = vec_load(s, i);

		if (vec_ascii(b)) {
			size_t run = i;

			/* ASCII: wrong only after an open character */
			if (vec_open(&carry))
				goto out;
			i = vec_ascii_run(s, i + 64, to);
			count += i - run;
			vec_carry_ascii(&carry, s, i);
			/* fewer left: it may have stopped for the end */
			if (to - i < 128)
				continue;
			b = vec_load(s, i);
		}
		if (!vec_check(&k, &carry, b, s, i))
			goto out;
		if (chars)
			count += vec_char_starts(b, 0);
		i += 64;
	}
	/*
	 * Unless the input ends at @to, the blocks end @to less (to - from)
	 * % 64, as the caller counts them, or at @to where they were
	 * aligned (the last one over the one before).
	 */
	if (!end && !aligned)
		goto out;
	rest = to - i;
	if (rest && to >= 64 + VEC_LOOK_BACK) {
		/* the last 64 bytes, overlapping what is checked already */
		vec_block b = vec_load(s, to - 64);

		vec_carry_before(&k, &carry, s, to - 64);
		if (!vec_check(&k, &carry, b, s, to - 64))
			goto out;
		if (chars)
			count += vec_char_starts(b, 64 - rest);
		i = to;
	}
	if (!end)
		goto out;
	/*
	 * At the end of the input, the last block must close its character:
	 * if it does not, it is not clean, nor are its characters counted.
	 * It is the 64 bytes before @i (an ASCII block leaves no character
	 * open), loaded again rather than kept through the loop in
	 * registers its checks need; where fewer than 64 bytes were
	 * checked, none is clean, and there is no block to load.
	 */
	if (i == to && vec_open(&carry))
		i = utf8val_drop_open_block(i, from, &count, chars &&
					    i - from >= 64 ?
					    vec_char_starts(vec_load(s, i - 64),
							    0) : 0);
out:
	if (chars)
		*chars += count;
	return i;
}

/* Two loops: the one for a NULL @chars counts nothing. */
static __always_inline size_t vec_blocks(const u8 *s, size_t from, size_t to,
					 bool end, u64 *chars)
{
	return chars ? vec_block_loop(s, from, to, end, chars) :
		       vec_block_loop(s, from, to, end, NULL);
}

#endif /* UTF8VAL_SIMD_LOOP_H */
