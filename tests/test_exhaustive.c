// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Every input of 1 and 2 bytes under every combination of flags, and
 * every input of 3 bytes and structured 4- to 6-byte inputs with all but
 * one of the flags set every way, against the reference.
 *
 * In a quick run (UTF8VAL_QUICK: under an emulator, where the whole run
 * would take an hour, and where another build runs it whole), the 3- to
 * 6-byte inputs and those inside words
 * run without flags and with all of them, and inputs of 3 or 4 bytes
 * whose first byte is ASCII only after 00, 41 and 7F (any other ASCII
 * byte leaves the same state behind).
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "../utf8val_simd.h"

/*
 * The heavy tests' flags: every combination with an even number of flags
 * on, and all of them. Any flag but one then comes out every way it can
 * be set, the last one following by parity: every interaction of four
 * of the five flags (the core picks its DFA by two of them and its
 * policy scan by two others) in 17 runs where every combination would
 * be 32. In a quick run, no flag and all.
 */
static unsigned long for_heavy_flags(unsigned long (*fn)(unsigned int flags,
							 void *arg),
				     void *arg)
{
	static const unsigned int quick[] = { 0, UTF8VAL_FLAGS_ALL };
	unsigned int even[UTF8VAL_FLAGS_ALL + 2], n = 0;

	if (quick_run())
		return for_flags_in(quick, ARRAY_SIZE(quick), fn, arg);
	for (unsigned int flags = 0; flags <= UTF8VAL_FLAGS_ALL; flags++)
		if ((flags & ~UTF8VAL_FLAGS_ALL) == 0 &&
		    __builtin_popcount(flags) % 2 == 0)
			even[n++] = flags;
	if (__builtin_popcount(UTF8VAL_FLAGS_ALL) % 2)
		even[n++] = UTF8VAL_FLAGS_ALL;
	return for_flags_in(even, n, fn, arg);
}

/* Whether the heavy tests try @lead as their first byte. */
static bool lead_tried(unsigned int lead)
{
	return !quick_run() || lead >= 0x80 || lead == 0x00 || lead == 0x41 ||
	       lead == 0x7f;
}

static unsigned long all_of_length(unsigned int flags, void *arg)
{
	const unsigned int n = *(unsigned int *)arg;
	const u64 total = 1ull << (8 * n);
	unsigned long bad = 0;
	u8 buf[4];

	for (u64 v = 0; v < total; v++) {
		if (n >= 3 && !lead_tried(v >> (8 * (n - 1))))
			continue;
		for (unsigned int k = 0; k < n; k++)
			buf[k] = v >> (8 * (n - 1 - k));
		bad += !compare_all(buf, n, flags,
				    CMP_STREAM_BYTES | CMP_DECODE, NULL);
	}
	return bad;
}

/* Every byte value at the positions that decide, boundary values after. */
static const u8 edges[] = {
	0x00, 0x41, 0x7f, 0x80, 0x83, 0x84, 0x87, 0x88, 0x8f, 0x90, 0x9f,
	0xa0, 0xbf, 0xc0, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xf8, 0xfc, 0xfe,
};
#define NEDGES (sizeof(edges) / sizeof(edges[0]))

/* Continuation bytes at the boundaries of the ranges, and two non-ones. */
static const u8 tails[] = { 0x41, 0x80, 0x8f, 0x90, 0xbf, 0xc2 };
#define NTAILS (sizeof(tails) / sizeof(tails[0]))

struct shape {
	unsigned int len;	/* 4..6 */
	u8 lead_lo, lead_hi;	/* range of the first byte */
	const u8 *third;	/* values for byte 3 */
	unsigned int nthird;
	const u8 *rest;		/* values for bytes 4.. */
	unsigned int nrest;
};

/* First byte from the shape's range, second any, the rest from sh's sets. */
static unsigned long structured(unsigned int flags, void *arg)
{
	const struct shape *sh = arg;
	unsigned int rest = sh->len - 2;
	u64 combos = 1;
	unsigned long bad = 0;
	u8 buf[8];

	for (unsigned int k = 0; k < rest; k++)
		combos *= k ? sh->nrest : sh->nthird;
	for (unsigned int lead = sh->lead_lo; lead <= sh->lead_hi; lead++) {
		if (!lead_tried(lead))
			continue;
		for (unsigned int second = 0; second < 256; second++) {
			for (u64 c = 0; c < combos; c++) {
				u64 v = c;

				buf[0] = lead;
				buf[1] = second;
				buf[2] = sh->third[v % sh->nthird];
				v /= sh->nthird;
				for (unsigned int k = 1; k < rest; k++) {
					buf[2 + k] = sh->rest[v % sh->nrest];
					v /= sh->nrest;
				}
				bad += !compare_all(buf, sh->len, flags,
						    CMP_STREAM_BYTES |
						    CMP_DECODE, NULL);
			}
		}
	}
	return bad;
}

/*
 * The scalar path reads ASCII 8 bytes at a time, in words whose byte order
 * is the CPU's: every 1- and 2-byte input inside ASCII at each offset of
 * the first word and across into the second, in a buffer that ends with
 * the input, is 24 bytes (the short-input words) or 80 (the word loop),
 * against the reference. A word trick that assumed little-endian order
 * fails here on a big-endian CPU.
 */
static unsigned long inside_words(unsigned int flags, void *arg)
{
	static const unsigned int sizes[] = { 0, 24, 80 };
	unsigned long bad = 0;
	u8 text[80];

	(void)arg;
	for (unsigned int n = 1; n <= 2; n++) {
		for (unsigned int at = 0; at <= 9; at++) {
			for (size_t z = 0; z < ARRAY_SIZE(sizes); z++) {
				size_t len = sizes[z] ? sizes[z] : at + n;

				memset(text, 'a', sizeof(text));
				for (u64 v = 0; v < 1ull << (8 * n); v++) {
					for (unsigned int k = 0; k < n; k++)
						text[at + k] = v >> (8 * k);
					bad += !compare_all(text, len, flags, 0,
							    NULL);
				}
			}
		}
	}
	return bad;
}

/*
 * Every input of up to 3 bytes (2 in some places) inside ASCII, placed
 * where the vector paths change gear: across their first block boundary
 * (offsets 61 to 64 of 128 bytes), across the boundary of AVX-512's
 * 256-byte groups, across the blocks of a last group shorter than 256
 * bytes, and ending the input at a guard page, alone after a block or
 * straddling into the tail shorter than a block; across the 16-byte
 * registers inside a NEON block, and in the last block that NEON checks
 * overlapping the one before; and across the two 32-byte registers of
 * an AVX2 block past the first, whose bytes before them are loaded from
 * the input again. Each vector path the CPU has agrees with the scalar
 * path, which the tests above hold to the reference.
 */
#define BUF_MAX		512
static const struct placement {
	unsigned int at;	/* where the input starts */
	unsigned int len;	/* the buffer's length; 0: the input ends it */
	unsigned int max_n;	/* the longest input placed there */
} placements[] = {
	{ 61, 128, 3 }, { 62, 128, 3 }, { 63, 128, 3 }, { 64, 128, 3 },
	{ 64, 0, 3 }, { 63, 0, 3 },
	{ 253, 512, 2 }, { 254, 512, 2 }, { 255, 512, 3 }, { 256, 512, 2 },
	{ 254, 0, 2 }, { 255, 0, 2 },
	{ 318, 456, 2 }, { 319, 456, 3 }, { 383, 456, 2 }, { 447, 456, 2 },
	{ 400, 0, 2 },
	{ 15, 128, 2 }, { 31, 128, 2 }, { 47, 128, 2 },
	{ 285, 512, 3 }, { 286, 512, 3 }, { 287, 512, 2 },
	{ 35, 100, 2 }, { 63, 100, 2 }, { 98, 100, 2 },
};

/* Each path's functions, to call its block loop directly. */
static const struct utf8val_simd_impl impls[NR_UTF8VAL_PATHS] = {
	UTF8VAL_ARCH_IMPLS
};

/*
 * Whether @path gives the scalar path's answers, and its block loop, on
 * an input long enough for the core to call it, takes valid text whole:
 * a loop that stops short of it (a rule that fires on valid bytes) gives
 * the right answer all the same, at the DFA's speed, as the DFA takes
 * over from there.
 */
static bool path_agrees(int path, const u8 *buf, size_t len)
{
	struct utf8val_result vec, scalar;
	bool vec_ok;
	u64 chars = 0;

	path_compared(path);
	utf8val_simd_select(path);
	utf8val_validate(buf, len, 0, &vec);
	vec_ok = utf8val_check(buf, len);
	utf8val_simd_select(UTF8VAL_PATH_SCALAR);
	utf8val_validate(buf, len, 0, &scalar);
	if (vec.error != scalar.error || vec.valid_up_to != scalar.valid_up_to ||
	    vec.chars != scalar.chars || vec.error_len != scalar.error_len ||
	    vec_ok != !scalar.error)
		return false;
	return scalar.error || len < impls[path].min_len ||
	       (impls[path].blocks(buf, 0, len, true, &chars) == len &&
		chars == scalar.chars &&
		impls[path].blocks(buf, 0, len, true, NULL) == len);
}

/*
 * Three bytes under an emulator, where all 2^24 of them at every placement
 * take most of an hour on RISC-V: each byte in turn over all its values,
 * the other two over the edges of the ranges.
 */
static unsigned long placed_quick(int path, u8 *buf, size_t len,
				  unsigned int at)
{
	unsigned long bad = 0;

	for (unsigned int full = 0; full < 3; full++)
		for (unsigned int a = 0; a < 256; a++)
			for (size_t b = 0; b < NEDGES; b++)
				for (size_t c = 0; c < NEDGES; c++) {
					buf[at + full] = a;
					buf[at + (full + 1) % 3] = edges[b];
					buf[at + (full + 2) % 3] = edges[c];
					if (!path_agrees(path, buf, len) &&
					    ++bad <= 3)
						print_bytes(buf + at, 3);
				}
	return bad;
}

static unsigned long placed(int path, unsigned int n,
			    const struct placement *pl)
{
	const size_t len = pl->len ? pl->len : pl->at + n;
	unsigned long bad = 0;
	u8 text[BUF_MAX], *buf;

	memset(text, 'a', sizeof(text));
	buf = (u8 *)guarded_copy(text, len, true);
	if (n == 3 && quick_run())
		return placed_quick(path, buf, len, pl->at);
	for (u64 v = 0; v < 1ull << (8 * n); v++) {
		for (unsigned int k = 0; k < n; k++)
			buf[pl->at + k] = v >> (8 * k);
		if (!path_agrees(path, buf, len) && ++bad <= 3)
			print_bytes(buf + pl->at, n);
	}
	return bad;
}

static unsigned long block_boundaries(int path)
{
	unsigned long bad = 0;

	for (size_t i = 0; i < ARRAY_SIZE(placements); i++)
		for (unsigned int n = 1; n <= placements[i].max_n; n++)
			bad += placed(path, n, &placements[i]);
	return bad;
}

/* @fn's mismatches on each vector path the CPU runs, counted in *@paths */
static unsigned long on_vector_paths(unsigned long (*fn)(int path),
				     unsigned int *paths)
{
	unsigned long bad = 0;

	*paths = 0;
	for (int p = UTF8VAL_PATH_SCALAR + 1; p < NR_UTF8VAL_PATHS; p++) {
		if ((int)utf8val_simd_select(p) != p)
			continue;
		++*paths;
		bad += fn(p);
	}
	utf8val_simd_select(-1);
	return bad;
}

/*
 * Inputs long enough for a vector path to align its reads (AVX-512 from
 * 768 bytes: the bytes up to the first 64-byte boundary as a block, the rest
 * from the boundary on), starting at each offset from a boundary: each
 * byte value and each pair of the ranges' edges, and whole and cut
 * characters, placed across the start, the first boundary, the end of
 * the core's first vector section (16 KiB, where a section that does not
 * end the input ends with a block overlapping the one before) and its
 * overlapping block's start, the next section's first boundary, and the
 * end. ASCII around them, and a lead byte before the input, which no
 * path may read. Then the same across the start, the first boundary and
 * the group after it, and the end of an input of one section, just over
 * AVX-512's ALIGN_FROM. Quick: six of the offsets.
 */
#define ALIGNED_LEN	(16384 + 2048 + 37)
#define ALIGNED_SHORT	1000	/* one section, AVX-512 aligning it */
#define VALID_SEQUENCES	4	/* the first ones; the others are not */
static const char *const sequences[] = {
	"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xed\x9f\xbf",
	"\xe2\x82", "\xf0\x9f\x98", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	"\xe0\x80\xaf", "\xc3\xa9\xa9",
};

/*
 * Whether @path's block loop takes the valid input at @buf whole, as the
 * core calls it: a section that does not end the input, then the rest.
 * (path_agrees() makes one call over the whole input.)
 */
static bool taken_whole(int path, const u8 *buf, size_t len)
{
	u64 chars = 0;

	if (len <= 16384)
		return impls[path].blocks(buf, 0, len, true, &chars) == len;
	return impls[path].blocks(buf, 0, 16384, false, &chars) == 16384 &&
	       impls[path].blocks(buf, 16384, len, true, &chars) == len;
}

static unsigned long placed_near(int path, u8 *buf, size_t len, size_t at)
{
	unsigned long bad = 0;

	for (unsigned int v = 0; v < 256; v++) {
		buf[at] = v;
		bad += !path_agrees(path, buf, len);
	}
	for (size_t a = 0; a < NEDGES; a++)
		for (size_t b = 0; b < NEDGES && at + 1 < len; b++) {
			buf[at] = edges[a];
			buf[at + 1] = edges[b];
			bad += !path_agrees(path, buf, len);
		}
	buf[at] = 'a';
	if (at + 1 < len)
		buf[at + 1] = 'a';
	for (size_t q = 0; q < ARRAY_SIZE(sequences); q++) {
		size_t n = strlen(sequences[q]);

		if (at + n > len)
			continue;
		memcpy(buf + at, sequences[q], n);
		bad += !path_agrees(path, buf, len);
		if (q < VALID_SEQUENCES && !taken_whole(path, buf, len) &&
		    ++bad <= 3)
			printf("# %s's blocks stop short of valid text, a character at %zu\n",
			       utf8val_path_name(path), at);
		memset(buf + at, 'a', n);
	}
	return bad;
}

/* placed_near() from 4 bytes before each of @anchors to 1 after it */
static unsigned long placed_around(int path, u8 *buf, size_t len,
				   const size_t *anchors, size_t n)
{
	unsigned long bad = 0;

	memset(buf, 'a', len);
	for (size_t a = 0; a < n; a++)
		for (size_t at = anchors[a] < 4 ? 0 : anchors[a] - 4;
		     at <= anchors[a] + 1 && at < len; at++)
			bad += placed_near(path, buf, len, at);
	return bad;
}

static unsigned long aligned_starts(int path)
{
	static const unsigned int quick_offsets[] = { 1, 3, 33, 61, 62, 63 };
	static u8 area[ALIGNED_LEN + 64] __attribute__((aligned(64)));
	unsigned long bad = 0;

	for (unsigned int off = 0; off < 64; off++) {
		u8 *buf = area + off;
		/*
		 * The first boundary, the overlapping block and the end of
		 * the first section, the second one's first boundary, the
		 * end.
		 */
		const size_t anchors[] = { 0, 64 - off, 16384 - 64, 16384,
					   16384 + 64 - off, ALIGNED_LEN };
		/* one section: its start, first boundary, next group, end */
		const size_t short_anchors[] = { 0, 64 - off, 64 - off + 256,
						 ALIGNED_SHORT };
		bool tried = !quick_run();

		for (size_t i = 0; i < ARRAY_SIZE(quick_offsets); i++)
			tried |= quick_offsets[i] == off;
		if (!tried)
			continue;
		/* before the input, what no valid text may follow */
		memset(area, 0xf0, off);
		bad += placed_around(path, buf, ALIGNED_LEN, anchors,
				     ARRAY_SIZE(anchors));
		bad += placed_around(path, buf, ALIGNED_SHORT, short_anchors,
				     ARRAY_SIZE(short_anchors));
	}
	return bad;
}

/*
 * Each of the sequences above at every offset, where the placements take
 * a few: at the input's start, and from 4 bytes before the end of
 * AVX-512's first 256-byte group to 4 past the end of its second (every
 * block boundary of the second between); in ASCII, beside a character
 * near either end of each block of the second group (non-ASCII either
 * side of a block boundary, a block that ends a character before an
 * ASCII one), and after a second group of 2-byte characters. Three
 * lengths end the input each way AVX-512 can: after whole groups, with
 * a tail of two blocks or more (one more group, masked) and with less.
 * The input starts after a guard page, then ends at one: a look back
 * before the input faults. Ending at one, 928 and 805 bytes start off a
 * 64-byte boundary, so AVX-512 aligns its reads (ALIGN_FROM) and ends in
 * whole blocks: the three tails are tried from a page's start here, and
 * at a guard page by block_boundaries() (up to 512 bytes). Valid text
 * must be taken whole, counted or not.
 */
#define GROUP		256
#define SEQUENCE_MAX	4	/* the longest of sequences[] */
static const size_t across_lens[] = {
	3 * GROUP, 3 * GROUP + 160, 3 * GROUP + 37,
};

static void sequences_at(int path, u8 *text, size_t len, size_t at,
			 const char *where, unsigned long *bad)
{
	u8 saved[SEQUENCE_MAX];

	memcpy(saved, text + at, sizeof(saved));
	for (size_t q = 0; q < ARRAY_SIZE(sequences); q++) {
		memcpy(text + at, sequences[q], strlen(sequences[q]));
		for (int at_end = 0; at_end <= 1; at_end++) {
			const u8 *buf = guarded_copy(text, len, at_end);

			if (!path_agrees(path, buf, len) && ++*bad <= 3)
				printf("# %s disagrees with the scalar path or stops short of valid text: sequence %zu at %zu of %zu bytes, %s, %s a guard page\n",
				       utf8val_path_name(path), q, at,
				       len, where, at_end ? "ending at" : "after");
		}
		memcpy(text + at, saved, sizeof(saved));
	}
}

static unsigned long across_groups(int path)
{
	/* é, @count of them from @at: none; one; a group of them */
	static const struct {
		unsigned int at, count;
	} backgrounds[] = {
		{ 0, 0 }, { GROUP + 2, 1 }, { GROUP + 62, 1 }, { GROUP + 66, 1 },
		{ GROUP + 126, 1 }, { GROUP + 130, 1 }, { GROUP + 190, 1 },
		{ GROUP + 194, 1 }, { GROUP + 254, 1 }, { GROUP, GROUP / 2 },
	};
	u8 text[3 * GROUP + 160];
	unsigned long bad = 0;
	char where[40];

	for (size_t n = 0; n < ARRAY_SIZE(across_lens); n++) {
		for (size_t b = 0; b < ARRAY_SIZE(backgrounds); b++) {
			memset(text, 'a', sizeof(text));
			for (unsigned int k = 0; k < backgrounds[b].count; k++)
				memcpy(text + backgrounds[b].at + 2 * k,
				       "\xc3\xa9", 2);
			snprintf(where, sizeof(where), "%u é from byte %u",
				 backgrounds[b].count, backgrounds[b].at);
			for (size_t at = 0; at <= 2 * GROUP + 4; at++)
				if (at <= 4 || at >= GROUP - 4)
					sequences_at(path, text, across_lens[n],
						     at, where, &bad);
		}
	}
	return bad;
}

int main(void)
{
	unsigned int paths;
	unsigned long bad;
	static const struct shape shapes[] = {
		{ 4, 0x00, 0xff, edges, NEDGES, tails, NTAILS },
		{ 5, 0xf0, 0xff, edges, NEDGES, tails, NTAILS },
		{ 6, 0xf8, 0xff, edges, NEDGES, tails, NTAILS },
	};

	const char *which = quick_run() ? "no flag and all flags (quick)" :
			    "every four flags set every way";
	const char *every = quick_run() ? "no flag, each flag alone and all (quick)" :
			    "every flag combination";

	/*
	 * UTF8VAL_VECTOR_ONLY (scripts/cross-tests, aarch64 and riscv64):
	 * the scalar code's run is another 64-bit little-endian target's
	 * (the x86-64 host's, and for RISC-V's aligned words its aligned
	 * build's, quick), the same code; under emulation it takes minutes
	 * more.
	 */
	const char *vector_only = getenv("UTF8VAL_VECTOR_ONLY");

	if (vector_only && *vector_only) {
		tap_result(true, "the scalar path's inputs # SKIP UTF8VAL_VECTOR_ONLY: another target of the same word size and byte order runs them");
		goto vector;
	}
	for (unsigned int n = 1; n <= 3; n++) {
		bad = n < 3 ? for_all_flags(all_of_length, &n) :
			      for_heavy_flags(all_of_length, &n);

		tap_result(!bad, "all %u-byte inputs%s, %s: %lu mismatches",
			   n, n < 3 || !quick_run() ? "" : " (ASCII leads 00, 41, 7F)",
			   n < 3 ? every : which, bad);
	}
	for (unsigned int i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *sh = &shapes[i];
		bad = for_heavy_flags(structured, (void *)sh);

		tap_result(!bad, "structured %u-byte inputs, leads %02x..%02x, %s: %lu mismatches",
			   sh->len, sh->lead_lo, sh->lead_hi, which, bad);
	}
	bad = for_heavy_flags(inside_words, NULL);
	tap_result(!bad, "all 1- and 2-byte inputs inside ASCII at each offset of a word, %s: %lu mismatches",
		   which, bad);
vector:
	bad = on_vector_paths(block_boundaries, &paths);
	if (!paths) {
		tap_result(true, "inputs across vector blocks # SKIP this CPU runs no vector path");
		return tap_finish();
	}
	report_paths("the scalar path");
	tap_result(!bad, "all inputs of up to 2 or 3 bytes%s across block and group boundaries and in the tail at a guard page, %u vector paths against the scalar path: %lu mismatches",
		   quick_run() ? " (quick: of 3, one byte over all values, the others at the ranges' edges)" : "",
		   paths, bad);
	bad = on_vector_paths(aligned_starts, &paths);
	tap_result(!bad, "inputs of %u and %u bytes at %s offsets from a 64-byte boundary, bytes and characters across the start, the first boundary, a section's end and the end, %u vector paths against the scalar path: %lu mismatches",
		   ALIGNED_LEN, ALIGNED_SHORT, quick_run() ? "six" : "all 64",
		   paths, bad);
	bad = on_vector_paths(across_groups, &paths);
	tap_result(!bad, "each sequence at every offset across AVX-512's second group, in ASCII, beside a character in each block and after a group of 2-byte characters, three lengths, after and at a guard page, %u vector paths against the scalar path: %lu mismatches",
		   paths, bad);
	return tap_finish();
}
