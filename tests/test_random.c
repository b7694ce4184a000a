// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Long inputs against the reference: random text of every mode, the same
 * text mutated, and ill-formed sequences planted at every position of a
 * buffer long enough to take the core's multi-lane path. Every buffer is
 * also tried at every alignment.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "../utf8val_simd.h"	/* UTF8VAL_WHOLE_MAX */

#define MAX_LEN 4096
#define UNIFORM_LEN (64 * 1024)

static u64 seed = 0x7574663876616cull;	/* "utf8val" */

/* A random code point, drawn to exercise the mode's lengths. */
static u32 random_cp(struct rng *r, unsigned int flags)
{
	switch (rng_below(r, 8)) {
	case 0:
	case 1:
		return rng_below(r, 0x80);
	case 2:
		return 0x80 + rng_below(r, 0x800 - 0x80);
	case 3:
		return 0x800 + rng_below(r, 0x10000 - 0x800);
	case 4:
		return 0x10000 + rng_below(r, 0x110000 - 0x10000);
	case 5:	/* the edges of every range */
		switch (rng_below(r, 8)) {
		case 0: return 0;
		case 1: return 0xd7ff;
		case 2: return 0xd800 + rng_below(r, 0x800);
		case 3: return 0xfdd0 + rng_below(r, 0x20);
		case 4: return (rng_below(r, 17) << 16) | 0xfffe |
			       rng_below(r, 2);
		case 5: return 0xfeff;
		case 6: return 0x10ffff;
		default: return 0xe000;
		}
	case 6:
		if (flags & UTF8VAL_RFC2279)
			return 0x110000 + rng_below(r, 0x80000000u - 0x110000);
		return rng_below(r, 0x80);
	default:
		return rng_below(r, 0x110000);
	}
}

/* Random text, valid in @flags' structure (policy flags may still fail). */
static size_t random_text(struct rng *r, unsigned int flags, u8 *buf,
			  size_t len)
{
	/*
	 * Four texts in six draw every character at random (about a third
	 * of them ASCII); one draws one in 16 at random and the rest ASCII,
	 * one draws one in 300 so, which puts all-ASCII vector blocks and
	 * 256-byte steps between the others, as in most real text.
	 */
	unsigned int kind = rng_below(r, 6);
	unsigned int odds = kind == 0 ? 16 : kind == 1 ? 300 : 0;
	size_t n = 0;

	while (n + 6 <= len) {
		u32 cp = odds && rng_below(r, odds) ?
			 rng_below(r, 0x80) : random_cp(r, flags);

		if (cp >= 0xd800 && cp <= 0xdfff &&
		    !(flags & UTF8VAL_SURROGATES))
			continue;
		n += ref_encode(cp, buf + n);
	}
	return n;
}

static const u8 *const bad_snippets[] = {
	(const u8 *)"\x80", (const u8 *)"\xbf\xbf", (const u8 *)"\xc0\xaf",
	(const u8 *)"\xc1\xbf", (const u8 *)"\xe0\x80\xaf",
	(const u8 *)"\xe0\x9f\xbf", (const u8 *)"\xed\xa0\x80",
	(const u8 *)"\xed\xbf\xbf", (const u8 *)"\xf0\x8f\xbf\xbf",
	(const u8 *)"\xf4\x90\x80\x80", (const u8 *)"\xf5\x80\x80\x80",
	(const u8 *)"\xf8\x88\x80\x80\x80", (const u8 *)"\xfe",
	(const u8 *)"\xff", (const u8 *)"\xe2\x82", (const u8 *)"\xf0\x9f\x92",
	(const u8 *)"\xc3", (const u8 *)"\xef\xbb\xbf",
	(const u8 *)"\xef\xbf\xbe", (const u8 *)"\xf4\x8f\xbf\xbf",
};
#define NSNIPPETS (sizeof(bad_snippets) / sizeof(bad_snippets[0]))

static void mutate(struct rng *r, u8 *buf, size_t *len)
{
	size_t pos = rng_below(r, *len + 1);
	const u8 *snip;
	size_t n;

	switch (rng_below(r, 5)) {
	case 0:	/* overwrite a byte */
		if (pos < *len)
			buf[pos] = rng_next(r);
		break;
	case 1:	/* delete a byte */
		if (pos < *len) {
			memmove(buf + pos, buf + pos + 1, *len - pos - 1);
			(*len)--;
		}
		break;
	case 2:	/* truncate */
		*len = pos;
		break;
	default: /* plant a bad sequence */
		snip = bad_snippets[rng_below(r, NSNIPPETS)];
		n = strlen((const char *)snip);
		if (pos + n <= *len)
			memcpy(buf + pos, snip, n);
		break;
	}
}

/* Compare at every alignment of an 8-byte word. */
static bool compare_aligned(const u8 *buf, size_t len, unsigned int flags,
			    unsigned int what, struct rng *r)
{
	static u8 shifted[MAX_LEN + 16];
	bool ok = true;

	for (unsigned int a = 0; a < 8; a++) {
		memcpy(shifted + a, buf, len);
		ok &= compare_all(shifted + a, len, flags,
				  a ? CMP_DECODE : what, r);
	}
	return ok;
}

struct random_run {
	unsigned int inputs;
	unsigned int mutations;	/* up to this many per input */
};

static unsigned long random_inputs(unsigned int flags, void *arg)
{
	const struct random_run *run = arg;
	struct rng r = { seed ^ (flags * 0x9e3779b97f4a7c15ull) ^
			 run->mutations };
	static u8 buf[MAX_LEN];
	unsigned long bad = 0;

	for (unsigned int i = 0; i < run->inputs; i++) {
		/* Mostly short lengths, where the edge cases crowd. */
		size_t want = rng_below(&r, 4) ? rng_below(&r, 300) :
			      rng_below(&r, MAX_LEN);
		size_t len = random_text(&r, flags, buf, want);
		unsigned int m = run->mutations ?
				 1 + rng_below(&r, run->mutations) : 0;

		while (m--)
			mutate(&r, buf, &len);
		bad += !compare_aligned(buf, len, flags,
					CMP_STREAM_RANDOM | CMP_DECODE, &r);
	}
	return bad;
}

/*
 * Each bad snippet at every position of a text of @len bytes, so errors
 * fall in every lane, block and word position of the fast path.
 */
struct planting {
	size_t len;
	bool fast_modes_only;	/* the modes the core's DFA runs */
};

static unsigned long planted(unsigned int flags, void *arg)
{
	const struct planting *pl = arg;
	const size_t len = pl->len;
	struct rng r = { seed + flags };
	static u8 text[MAX_LEN], buf[MAX_LEN + 8];
	unsigned long bad = 0;
	size_t n;

	if (pl->fast_modes_only && flags & ~UTF8VAL_SURROGATES)
		return 0;
	n = random_text(&r, flags & ~UTF8VAL_RFC2279, text, len);

	for (size_t s = 0; s < NSNIPPETS; s++) {
		const u8 *snip = bad_snippets[s];
		size_t k = strlen((const char *)snip);

		for (size_t pos = 0; pos + k <= n; pos++) {
			memcpy(buf, text, n);
			memcpy(buf + pos, snip, k);
			bad += !compare_all(buf, n, flags, CMP_STREAM_RANDOM,
					    &r);
		}
	}
	return bad;
}

/*
 * Long runs of one sequence length: every byte lane of a word sees the
 * same kind of byte for kilobytes, the worst case for lane counters.
 */
static unsigned long uniform(unsigned int flags, void *arg)
{
	static u8 buf[UNIFORM_LEN + 8];
	/* bases whose next 0x1000 code points all take the same length */
	static const u32 bases[] = { 0x20, 0xe9, 0x4e00, 0x1f600, 0x200000,
				     0x4000000 };
	unsigned long bad = 0;
	(void)arg;

	for (unsigned int c = 0; c < 6; c++) {
		u32 span = c ? 0x1000 : 0x5f;
		size_t n = 0, chars = 0;

		while (n + 6 <= UNIFORM_LEN)
			n += ref_encode(bases[c] + chars++ % span, buf + n);
		for (size_t len = n - 64; len <= n; len++)
			bad += !compare_all(buf, len, flags, CMP_DECODE, NULL);
		bad += utf8val_count(buf, n) != chars;
	}
	return bad;
}

/*
 * Strict text ending 32 to 129 bytes past the vector paths' first 16 KiB
 * FPU section, where the last section is shorter than a block and its
 * tail overlaps the section before; mutated half the time.
 */
#define SECTION	(16u << 10)

static unsigned long past_a_section(void)
{
	static u8 buf[SECTION + 256];
	struct rng r = { seed ^ 0x5ec7 };
	unsigned long bad = 0;

	for (size_t len = SECTION + 32; len < SECTION + 130; len++) {
		for (int i = 0; i < 10; i++) {
			size_t n = random_text(&r, 0, buf, len + 6);

			if (n > len)
				n = len;
			if (i % 2)
				mutate(&r, buf, &n);
			bad += !compare_all(buf, n, 0, CMP_DECODE, NULL);
		}
	}
	return bad;
}

/*
 * Each bad sequence planted in ASCII around the end of the first 16 KiB
 * vector section: the next section must see, from the block before it,
 * a character the last one left open (an all-ASCII step after it is
 * wrong only because of that).
 */
static unsigned long across_a_section(void)
{
	static u8 buf[SECTION + 300];
	unsigned long bad = 0;

	for (size_t at = SECTION - 4; at <= SECTION + 3; at++) {
		for (size_t k = 0; k < NSNIPPETS; k++) {
			const u8 *snip = bad_snippets[k];

			memset(buf, 'a', sizeof(buf));
			memcpy(buf + at, snip, strlen((const char *)snip));
			bad += !compare_all(buf, sizeof(buf), 0, CMP_DECODE,
					    NULL);
		}
	}
	return bad;
}

/* The inputs of steps_planted() with an error at @at, and without */
static unsigned long step_inputs(u8 *buf, size_t len, size_t at)
{
	static const u8 *const bad[] = {
		(const u8 *)"\x80", (const u8 *)"\xc3", (const u8 *)"\xe2\x82",
		(const u8 *)"\xed\xa0\x80", (const u8 *)"\xf4\x90\x80\x80",
		(const u8 *)"\xff",
	};
	/* where the character is, from @at (0: none) */
	static const int near[] = { 0, -66, -40, -4, 4, 40, 66 };
	unsigned long mismatches = 0;

	for (size_t b = 0; b < ARRAY_SIZE(bad); b++) {
		for (size_t n = 0; n < ARRAY_SIZE(near); n++) {
			memset(buf, 'a', len);
			if (near[n])
				memcpy(buf + at + near[n], "\xc3\xa9", 2);
			memcpy(buf + at, bad[b], strlen((const char *)bad[b]));
			mismatches += !compare_check(buf, len);
		}
	}
	memset(buf, 'a', len);
	memcpy(buf + at, "\xc3\xa9", 2);
	return mismatches + !compare_check(buf, len);
}

/*
 * Errors in steps of ASCII and in steps with a character, at every
 * position of a 256-byte window: AVX2 checks 128 bytes a step (both
 * blocks, where either is not ASCII), AVX-512 256, and a block of ASCII
 * in a checked step must still see a character left open before it. Six
 * bad sequences, each alone in ASCII and each 4, 40 or 66 bytes before
 * or after a 2-byte character (in its block, in the other block of its
 * step, in the step next to it); then the character alone at each
 * position, which is valid. Inputs of 1100 bytes (the steps from the
 * input's start: utf8val_check() takes 1 KiB and less to a path's
 * whole()) and of 2100 (read from a 64-byte boundary), at a boundary
 * and 2 bytes past one; the window 128 bytes in.
 */
static unsigned long steps_planted(void)
{
	static const size_t lens[] = { 1100, 2100 };
	static u8 area[2100 + 64] __aligned(64);
	unsigned long bad = 0;

	for (size_t off = 0; off <= 2; off += 2) {
		for (size_t l = 0; l < ARRAY_SIZE(lens); l++) {
			for (size_t at = 128; at < 128 + 256; at++)
				bad += step_inputs(area + off, lens[l], at);
		}
	}
	return bad;
}

/*
 * Each bad sequence, and a 2-, 3- and 4-byte character, at every position
 * within 12 bytes of where the scalar path aims its lanes (on RISC-V
 * their blocks start at a word boundary at most 7 bytes before that, the
 * lane itself at most 3 bytes before that, at a lead; the first lane's
 * blocks at the first boundary in), where their blocks end, and of the
 * input's end, at every offset from a word: the bytes before a lane's
 * first block are stepped apart from its blocks, and an error there is
 * found the long way. In ASCII, and in euro signs, where each lane starts
 * back inside a character: the characters counted before a lane's
 * blocks must be taken back too where an earlier lane fails. Lengths from
 * 512, where the lanes start, to 4 KiB.
 */
static unsigned long plant_around(u8 *buf, size_t len, size_t aim, bool euros)
{
	static const u8 *const chars[] = {
		(const u8 *)"\xc3\xa9", (const u8 *)"\xe2\x82\xac",
		(const u8 *)"\xf0\x9f\x98\x80",
	};
	unsigned long bad = 0;

	for (size_t at = aim - 12; at <= aim + 12; at++) {
		for (size_t i = 0; i < NSNIPPETS + ARRAY_SIZE(chars); i++) {
			const u8 *snip = i < NSNIPPETS ? bad_snippets[i] :
					 chars[i - NSNIPPETS];
			size_t k = strlen((const char *)snip);

			if (at + k > len)
				continue;
			for (size_t j = 0; j < len; j++)
				buf[j] = euros ? "\xe2\x82\xac"[j % 3] : 'a';
			memcpy(buf + at, snip, k);
			bad += !compare_all(buf, len, 0, 0, NULL);
		}
	}
	return bad;
}

static unsigned long lane_starts(void)
{
	static const size_t lens[] = { 512, 639, 2100, 4093 };
	static u8 area[4096 + 8] __aligned(64);
	const unsigned int offsets = quick_run() ? 2 : 8;
	unsigned long bad = 0;

	for (unsigned int o = 0; o < offsets; o++) {
		for (size_t l = 0; l < ARRAY_SIZE(lens); l++) {
			const size_t len = lens[l];
			const size_t span = scalar_lane_span(len);
			const size_t one = scalar_lane_aim(len, 1);
			const size_t two = scalar_lane_aim(len, 2);
			const size_t aims[] = {
				12, one, two, scalar_lane_aim(len, 3), len - 12,
				span + 4, one + span, two + span,
			};

			/* offsets 0, 5, 2, 7, 4, 1, 6, 3 */
			for (size_t a = 0; a < ARRAY_SIZE(aims); a++) {
				bad += plant_around(area + o * 5 % 8, len,
						    aims[a], false);
				bad += plant_around(area + o * 5 % 8, len,
						    aims[a], true);
			}
		}
	}
	return bad;
}

/*
 * Each bad sequence, and each character at a bound of the rules, at every
 * position of ASCII text of every length from 1 to SHORT_MAX bytes, cut
 * short where the text ends, and that text alone (every value from 0x00
 * to 0x7f): where utf8val_check() answers from the words alone, or from
 * a path's whole() (AVX-512's: one block up to 64 bytes, two up to 128,
 * four up to 256, eight up to 512, then a group of four at a time to
 * 1 KiB, each left early on ASCII; AVX2's: from 35 bytes to 1 KiB, two
 * registers and then 64 bytes a step, the last over the one before, a
 * step of ASCII not checked), and just past
 * them: 1032 bytes on x86-64, and 72 where no path has a whole() of
 * more than 64 bytes (an emulator takes long enough over those).
 */
#define SHORT_MAX	(UTF8VAL_WHOLE_MAX > 64 ? UTF8VAL_WHOLE_MAX + 8 : 72)
/*
 * Past this length, where no entry but utf8val_check() answers other than
 * the block loop does (which the plantings in 40 and 700 bytes test at
 * every position), only check() is compared, and only near a block's
 * edges, which the rules look across, in its middle, and near the end of
 * the input, which the masks and the test for a character left open
 * see: every byte of a block is still tested there, at the lengths where
 * it is within 8 of the end. The look back across the 16-byte seams
 * inside a block is the same code at every length, and every position
 * up to SHORT_ALL_MAX tests it. The reference costs the most here: every
 * entry at every position took as long as the rest of the test.
 */
#define SHORT_ALL_MAX	264

static bool short_position(size_t at, size_t len)
{
	const size_t lane = at % 64;

	return len <= SHORT_ALL_MAX || len - at <= 8 || lane >= 58 ||
	       lane <= 3 || lane == 32;
}

static bool compare_short(const u8 *buf, size_t len)
{
	return len <= SHORT_ALL_MAX ? compare_all(buf, len, 0, 0, NULL) :
				      compare_check(buf, len);
}

static unsigned long short_planted(void)
{
	static const u8 *const bounds[] = {
		(const u8 *)"\xc2\x80", (const u8 *)"\xdf\xbf",
		(const u8 *)"\xe0\xa0\x80", (const u8 *)"\xed\x9f\xbf",
		(const u8 *)"\xee\x80\x80", (const u8 *)"\xf0\x90\x80\x80",
		(const u8 *)"\xf4\x8f\xbf\xbf",
	};
	u8 buf[SHORT_MAX];
	unsigned long bad = 0;

	for (size_t len = 1; len <= SHORT_MAX; len++) {
		for (size_t i = 0; i < len; i++)
			buf[i] = (u8)((len * 7 + i) & 0x7f);
		bad += !compare_short(buf, len);
		for (size_t k = 0; k < NSNIPPETS + ARRAY_SIZE(bounds); k++) {
			const u8 *snip = k < NSNIPPETS ? bad_snippets[k] :
					 bounds[k - NSNIPPETS];
			size_t n = strlen((const char *)snip);

			for (size_t at = 0; at < len; at++) {
				if (!short_position(at, len))
					continue;
				memset(buf, 'a', len);
				memcpy(buf + at, snip,
				       n < len - at ? n : len - at);
				bad += !compare_short(buf, len);
			}
		}
	}
	return bad;
}

int main(void)
{
	static const struct random_run valid = { 3000, 0 };
	static const struct random_run mutated = { 3000, 3 };
	/* 2100 bytes: lanes long enough for several error-check intervals */
	static const struct planting plantings[] = {
		{ 40, false }, { 700, false }, { 2100, true },
	};
	const char *env = getenv("UTF8VAL_SEED");
	unsigned long bad;

	if (env)
		seed = strtoull(env, NULL, 0);
	printf("# seed %#llx (set UTF8VAL_SEED to repeat another)\n", seed);

	bad = for_all_flags(random_inputs, (void *)&valid);
	tap_result(!bad, "random text up to %u bytes, %s, every alignment: %lu mismatches",
		   MAX_LEN, all_flags_said(), bad);
	bad = for_all_flags(random_inputs, (void *)&mutated);
	tap_result(!bad, "mutated random text, %s, every alignment: %lu mismatches",
		   all_flags_said(), bad);
	for (unsigned int i = 0; i < 3; i++) {
		bad = for_all_flags(planted, (void *)&plantings[i]);
		tap_result(!bad, "%zu ill-formed sequences at every position of %zu bytes, %s: %lu mismatches",
			   NSNIPPETS, plantings[i].len,
			   plantings[i].fast_modes_only ?
			   "strict and surrogate modes" :
			   all_flags_said(), bad);
	}
	bad = short_planted();
	tap_result(!bad, "ASCII alone, and %zu ill-formed sequences and 7 characters at the rules' bounds at every position in it, every length up to %u bytes (past %u, check() alone, near block edges and the end), cut short by the end, every path: %lu mismatches",
		   NSNIPPETS, SHORT_MAX, SHORT_ALL_MAX, bad);
	bad = steps_planted();
	tap_result(!bad,
		   "6 ill-formed sequences at every position of two 128-byte steps, alone in ASCII and beside a 2-byte character, and that character alone, 1100 and 2100 bytes, every path: %lu mismatches",
		   bad);
	bad = lane_starts();
	tap_result(!bad, "%zu ill-formed sequences and 3 characters at every position near where the scalar path's lanes start and end and near the input's end, in ASCII and in euro signs of 512 to 4093 bytes, %s: %lu mismatches",
		   NSNIPPETS, quick_run() ? "at 2 offsets from a word" :
					    "at every offset from a word", bad);
	bad = past_a_section();
	tap_result(!bad, "strict text ending just past a 16 KiB vector section, every path: %lu mismatches",
		   bad);
	bad = across_a_section();
	tap_result(!bad, "%zu ill-formed sequences planted in ASCII across the end of a 16 KiB vector section, every path: %lu mismatches",
		   NSNIPPETS, bad);
	bad = for_all_flags(uniform, NULL);
	tap_result(!bad, "64 KiB runs of 1- to 6-byte characters, %s: %lu mismatches",
		   all_flags_said(), bad);
	report_paths("the reference");
	return tap_finish();
}
