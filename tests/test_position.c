// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The command's line and column arithmetic (tools/utf8val/position.c),
 * against answers known by construction: random text built of pieces
 * whose bytes, newlines and GCC widths are written here by hand, and the
 * same text cut inside its last character, the bytes left open known.
 * TAP.
 */
#include "../tools/utf8val/position.c"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "tap.h"

/* A piece of valid text and its width on a terminal, as GCC counts it. */
static const struct piece {
	const char *bytes;
	int width;		/* -1: a tab */
} pieces[] = {
	{ "a", 1 }, { "~", 1 }, { "\x7f", 1 }, { "\t", -1 },
	{ "\xc3\xa9", 1 },		/* U+00E9, é */
	{ "\xcc\x81", 0 },		/* U+0301, a combining acute accent */
	{ "\xe2\x82\xac", 1 },		/* U+20AC, € */
	{ "\xe4\xb8\xad", 2 },		/* U+4E2D, 中 */
	{ "\xef\xbd\x81", 2 },		/* U+FF41, a fullwidth a */
	{ "\xf0\x9f\x98\x80", 2 },	/* U+1F600, 😀 */
	{ "\xf0\x90\x8c\xb0", 1 },	/* U+10330, Gothic ahsa */
};

#define TEXT_MAX	4096

/*
 * Random text of whole pieces, no newline: its length, and in *@col the
 * column after it, from the column *@col.
 */
static size_t make_text(struct rng *r, unsigned char *t, size_t max,
			unsigned long long *col)
{
	size_t len = 0, n = rng_below(r, 200);

	while (n--) {
		const struct piece *p = &pieces[rng_below(r, ARRAY_SIZE(pieces))];
		size_t k = strlen(p->bytes);

		if (len + k > max)
			break;
		memcpy(t + len, p->bytes, k);
		len += k;
		*col = p->width < 0 ? (*col / 8 + 1) * 8 : *col + p->width;
	}
	return len;
}

static void columns(struct rng *r)
{
	unsigned char t[TEXT_MAX];
	unsigned long long from, want;
	unsigned long bad = 0, i;

	for (i = 0; i < 20000; i++) {
		size_t len;

		/* from a column that tabs and wide characters meet */
		from = rng_below(r, 20);
		want = from;
		len = make_text(r, t, sizeof(t), &want);
		if (display_column(t, len, from) != want)
			bad++;
	}
	tap_result(!bad, "display_column: 20000 texts of known width: %lu wrong", bad);
}

/* count_newlines()'s copies: each the CPU has, and the baseline */
static struct {
	const char *name;
	unsigned long long (*count)(const unsigned char *s, size_t n);
	bool here;
} counters[] = {
	{ "16 bytes a step", newlines16, true },
#ifdef __x86_64__
	{ "AVX2", newlines_avx2, false },
	{ "AVX-512BW", newlines_avx512, false },
#endif
};

/* (past 255 steps of 128 bytes: a byte counter would wrap) */
#define NEWLINES_MAX	(80 << 10)

/* Whether @count counts @want newlines at @s, and against guard pages. */
static bool counts(unsigned long long (*count)(const unsigned char *s,
					       size_t n),
		   const unsigned char *s, size_t len, unsigned long long want)
{
	return count(s, len) == want &&
	       count(guarded_copy(s, len, true), len) == want &&
	       count(guarded_copy(s, len, false), len) == want;
}

static void newlines(struct rng *r)
{
	static unsigned char t[NEWLINES_MAX + 64];
	unsigned long bad[ARRAY_SIZE(counters)] = { 0 }, wrong = 0, i;
	size_t j, k;

#ifdef __x86_64__
	counters[1].here = __builtin_cpu_supports("avx2");
	counters[2].here = __builtin_cpu_supports("avx512bw");
#endif
	/*
	 * any bytes, at any alignment, ending at a guard page and after
	 * one; some all newlines, some long
	 */
	for (i = 0; i < 5000; i++) {
		size_t at = rng_below(r, 64);
		size_t len = rng_below(r, i % 50 ? 5 * TEXT_MAX : NEWLINES_MAX);
		unsigned long long want = 0;
		int density = rng_below(r, 4);

		for (j = 0; j < len; j++) {
			t[at + j] = density == 3 ? '\n' : rng_next(r);
			if (density == 0 && rng_below(r, 4))
				t[at + j] = '\n';
			want += t[at + j] == '\n';
		}
		/* the copy the CPU chooses, and every one it has */
		wrong += !counts(count_newlines, t + at, len, want);
		for (k = 0; k < ARRAY_SIZE(counters); k++)
			if (counters[k].here)
				bad[k] += !counts(counters[k].count, t + at,
						  len, want);
	}
	tap_result(!wrong, "count_newlines: 5000 random buffers: %lu wrong",
		   wrong);
	for (k = 0; k < ARRAY_SIZE(counters); k++)
		if (counters[k].here)
			tap_result(!bad[k], "count_newlines, %s: the same buffers: %lu wrong",
				   counters[k].name, bad[k]);
		else
			tap_result(true, "count_newlines, %s # SKIP not on this CPU",
				   counters[k].name);
}

static void open_tails(struct rng *r)
{
	unsigned char t[TEXT_MAX + 8];
	unsigned long long col = 0;
	unsigned long bad = 0, i;

	for (i = 0; i < 20000; i++) {
		size_t len = make_text(r, t, TEXT_MAX, &col);
		const struct piece *p = &pieces[rng_below(r, ARRAY_SIZE(pieces))];
		size_t k = strlen(p->bytes), cut = rng_below(r, k);

		/* whole: nothing open; cut inside its last piece: @cut bytes */
		if (open_tail(t, len))
			bad++;
		memcpy(t + len, p->bytes, cut);
		if (open_tail(t, len + cut) != cut)
			bad++;
	}
	/* RFC 2279's 5- and 6-byte forms, cut */
	if (open_tail((const unsigned char *)"a\xf8\x88\x80\x80", 5) != 4 ||
	    open_tail((const unsigned char *)"\xfc\x84\x80", 3) != 3)
		bad++;
	tap_result(!bad, "open_tail: 20000 texts, whole and cut: %lu wrong", bad);
}

int main(void)
{
	struct rng r = { 0x706f736974696f6e };
	locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);

	/* (the command counts every character 1 wide without it) */
	if (utf8) {
		freelocale(utf8);
		columns(&r);
	} else {
		tap_result(true, "display_column # SKIP no C.UTF-8 locale here");
	}
	newlines(&r);
	open_tails(&r);
	return tap_finish();
}
