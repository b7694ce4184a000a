// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val_replace() and the error iterator against a replacement built
 * from the reference validator alone, for every flag combination, with
 * inputs at guard pages and outputs cut at 40 sizes; the substitution
 * examples of the Unicode Standard and of the WHATWG Encoding Standard;
 * and an input of nothing but errors, which must cost linear time.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define MAX_LEN		2048
#define FFFD		"\xef\xbf\xbd"

/* Random valid characters of every length, broken here and there. */
static size_t random_input(struct rng *r, u8 *buf, size_t len)
{
	static const u32 edges[] = {
		0, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdfff, 0xe000,
		0xfdd0, 0xfdef, 0xfeff, 0xfffe, 0xffff, 0x10000, 0x1fffe,
		0x10ffff, 0x110000, 0x7fffffff,
	};
	unsigned int density = 1 + rng_below(r, 16);
	size_t n = 0;

	while (n + 6 <= len) {
		u32 cp;

		switch (rng_below(r, 4)) {
		case 0:
			cp = rng_below(r, 0x80);
			break;
		case 1:
			cp = edges[rng_below(r, ARRAY_SIZE(edges))];
			break;
		default:
			cp = rng_below(r, 0x110000);
		}
		n += ref_encode(cp, buf + n);
		if (!rng_below(r, density)) {
			/* drop, change or insert a byte */
			switch (rng_below(r, 3)) {
			case 0:
				n--;
				break;
			case 1:
				buf[n - 1] = rng_next(r);
				break;
			default:
				buf[n++] = 0x80 + rng_below(r, 0x80);
			}
		}
	}
	return n;
}

struct random_args {
	unsigned int rounds;
};

static unsigned long random_round(unsigned int flags, void *arg)
{
	const struct random_args *a = arg;
	struct rng r = { 0x7265706c616365ull ^ flags };	/* "replace" */
	static u8 buf[MAX_LEN];
	unsigned long bad = 0;

	for (unsigned int i = 0; i < a->rounds; i++) {
		size_t len = random_input(&r, buf, 6 + rng_below(&r, MAX_LEN - 6));
		const u8 *p = guarded_copy(buf, len, i & 1);

		if (!compare_replace(p, len, flags, &r))
			bad++;
	}
	return bad;
}

static void test_random(void)
{
	/* a tenth in a quick run */
	struct random_args a = { quick_run() ? 30 : 300 };
	unsigned long bad = for_all_flags(random_round, &a);

	tap_result(!bad, "iterator and replace against the reference: %u random inputs up to %d bytes, at guard pages, %s, 40 output sizes each: %lu wrong",
		   a.rounds, MAX_LEN, all_flags_said(), bad);
}

/*
 * Unicode 15, section 3.9, table 3-8 ("U+FFFD for non-shortest form
 * sequences" and its neighbours), and the WHATWG Encoding Standard's
 * decoder, which Python's decode('utf-8', 'replace') also follows.
 */
static const struct {
	const char *in, *out;
} examples[] = {
	{ "\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64",
	  "a" FFFD FFFD FFFD "b" FFFD "c" FFFD FFFD "d" },
	{ "\xc0\xaf\xe0\x80\xbf\xf0\x81\x82\x41",
	  FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD "A" },
	{ "\xed\xa0\x80\xed\xbf\xbf\xed\xaf\x41",
	  FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD "A" },
	{ "\xf4\x91\x92\x93\xff\x41\x80\xbf\x42",
	  FFFD FFFD FFFD FFFD FFFD "A" FFFD FFFD "B" },
	{ "\xe1\x80\xe2\xf0\x91\x92\xf1\xbf\x41",
	  FFFD FFFD FFFD FFFD "A" },
	{ "caf\xc3\xa9", "caf\xc3\xa9" },
	{ "end \xf0\x9f\x98", "end " FFFD },
	{ "", "" },
};

static void test_examples(void)
{
	static u8 out[64];
	unsigned int bad = 0;

	for (size_t i = 0; i < ARRAY_SIZE(examples); i++) {
		size_t len = strlen(examples[i].in);
		unsigned long long n = utf8val_replace(examples[i].in, len, 0,
							out, sizeof(out));

		if (n != strlen(examples[i].out) ||
		    memcmp(out, examples[i].out, n)) {
			printf("# example %zu differs\n", i);
			bad++;
		}
	}
	tap_result(!bad, "%zu examples of the Unicode Standard (table 3-8) and the WHATWG decoder: %u wrong",
		   ARRAY_SIZE(examples), bad);
}

static void test_flags(void)
{
	struct utf8val_errors it;
	struct utf8val_result r;
	bool ok;

	ok = utf8val_replace("a", 1, 0x80000000u, NULL, 0) ==
	     UTF8VAL_REPLACE_EFLAGS;
	utf8val_errors_init(&it, "a", 1, 0x80000000u);
	ok = ok && utf8val_errors_next(&it, &r) && r.error == UTF8VAL_EFLAGS &&
	     !utf8val_errors_next(&it, &r) && !utf8val_errors_next(&it, NULL);
	/* only a leading BOM is refused */
	ok = ok && utf8val_replace("\xef\xbb\xbf\xef\xbb\xbf", 6,
				   UTF8VAL_REJECT_BOM, NULL, 0) == 6;
	tap_result(ok, "unknown flags: replace refuses, the iterator reports once; a BOM counts only at the start");
}

/*
 * Every byte an error: linear time in all, not a pass over the rest per
 * error.
 * A quadratic iterator takes many minutes here; this one, milliseconds.
 */
static void test_linear(void)
{
	static const struct {
		unsigned int flags;
		u8 byte;
		const char *what;
	} cases[] = {
		{ UTF8VAL_REJECT_NUL, 0x00, "U+0000 with reject-nul" },
		{ 0, 0x80, "continuation bytes" },
		{ 0, 0xff, "FF bytes" },
	};
	const size_t len = 2 << 20;
	u8 *buf = malloc(len);

	if (!buf)
		exit(2);
	alarm(120);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct utf8val_errors it;
		struct utf8val_result r;
		size_t n = 0;

		memset(buf, cases[i].byte, len);
		buf[len / 2] = 'x';	/* one valid character amid the rest */
		utf8val_errors_init(&it, buf, len, cases[i].flags);
		while (utf8val_errors_next(&it, &r))
			n++;
		tap_result(n == len - 1 && r.chars == len,
			   "2 MiB of %s: %zu errors, in linear time", cases[i].what, n);
	}
	alarm(0);
	free(buf);
}

/*
 * Long valid text with an error or a refused character planted just
 * before, at and after the edges of the windows the fast path and the
 * iterator work in (64 bytes doubling to 64 KiB, then 64 KiB steps), on
 * every path: where a cut at a window's end can go wrong.
 */
struct window_args {
	bool quick;
};

static const struct {
	const char *bytes;
	size_t len;
} planted[] = {
	{ "\x00", 1 },			/* U+0000 */
	{ "\xef\xbb\xbf", 3 },		/* U+FEFF */
	{ "\xef\xb7\x90", 3 },		/* U+FDD0 */
	{ "\xf0\x9f\xbf\xbe", 4 },	/* U+1FFFE */
	{ "\xe2\x82", 2 },		/* truncated */
	{ "\x80", 1 },			/* lone continuation */
	{ "\xc0\xaf", 2 },		/* overlong */
	{ "\xed\xa0\x80", 3 },		/* surrogate */
};

static size_t window_text(struct rng *r, unsigned int flags, u8 *buf,
			  size_t len)
{
	size_t n = 0;

	while (n + 6 <= len) {
		u32 cp;

		switch (rng_below(r, 5)) {
		case 0:
		case 1:
			cp = 0x20 + rng_below(r, 0x5f);
			break;
		case 2:
			cp = 0x80 + rng_below(r, 0x780);
			break;
		case 3:
			cp = 0x4e00 + rng_below(r, 0x5000);
			break;
		default:
			cp = flags & UTF8VAL_RFC2279 && rng_below(r, 2) ?
			     0x200000 + rng_below(r, 0x1000000) :
			     0x10000 + rng_below(r, 0x10000);
		}
		n += ref_encode(cp, buf + n);
	}
	return n;
}

/* Which of the planted kinds a round tries: every one, or a quick run's third */
static size_t kinds_step(bool quick)
{
	return quick ? 3 : 1;
}

static unsigned long window_round(unsigned int flags, void *arg)
{
	const struct window_args *a = arg;
	static u8 buf[136 << 10];	/* past the first 64 KiB window */
	struct rng r = { 0x77696e646f77ull ^ flags };	/* "window" */
	unsigned long bad = 0;
	size_t edge, sum = 0;

	/* the edges of 64, 128, ... 32768-byte windows, then 64 KiB ones */
	for (edge = 64; edge < sizeof(buf); edge = sum) {
		sum += edge < (64 << 10) / 2 ? edge : 64 << 10;
		for (int d = -1; d <= 1; d++) {
			size_t at = sum + d, len = sum + 4096, e;

			if (a->quick && d)
				continue;
			if (len > sizeof(buf))
				break;
			for (e = 0; e < ARRAY_SIZE(planted); e += kinds_step(a->quick)) {
				window_text(&r, flags, buf, len);
				memcpy(buf + at, planted[e].bytes, planted[e].len);
				if (!compare_all(buf, len, flags, 0, &r) ||
				    !compare_replace(buf, len, flags, &r))
					bad++;
			}
		}
		if (sum < 64)
			sum = 64;
	}
	return bad;
}

static void test_windows(bool quick)
{
	struct window_args a = { quick };
	unsigned long bad = for_all_flags(window_round, &a);

	tap_result(!bad, "%zu kinds of error planted %s each window edge up to 136 KiB, every path, %s: %lu wrong",
		   (ARRAY_SIZE(planted) + kinds_step(quick) - 1) / kinds_step(quick),
		   quick ? "at" : "around", all_flags_said(), bad);
}

int main(void)
{
	test_examples();
	test_flags();
	test_random();
	test_windows(quick_run());
	test_linear();
	return tap_finish();
}
