// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The public API as a user sees it: built against utf8val.h and
 * build/libutf8val.a only (plus the reference for the codec round trips).
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "../utf8val_simd.h"

struct example {
	const char *bytes;
	size_t len;
	unsigned int flags;
	enum utf8val_error err;
	u64 at, chars;
	u32 err_len;
};

#define EX(s, f, e, a, c, l) { s, sizeof(s) - 1, f, e, a, c, l }

/* The contract's own examples, and one per error kind. */
static const struct example examples[] = {
	EX("\xe0\x80", 0, UTF8VAL_EOVERLONG, 0, 0, 1),
	EX("\xe2\x82\x41", 0, UTF8VAL_ESHORT, 0, 0, 2),
	EX("\xf4\x90\x80\x80", 0, UTF8VAL_ETOOLARGE, 0, 0, 1),
	EX("\xc0\xaf", 0, UTF8VAL_EOVERLONG, 0, 0, 1),
	EX("", 0, UTF8VAL_OK, 0, 0, 0),
	EX("a\xe2\x82\xac", 0, UTF8VAL_OK, 4, 2, 0),
	EX("a\xf0\x9f\x92", 0, UTF8VAL_EINCOMPLETE, 1, 1, 3),
	EX("ab\x80", 0, UTF8VAL_ECONTINUATION, 2, 2, 1),
	EX("\xf8\x88\x80\x80\x80", 0, UTF8VAL_EBADBYTE, 0, 0, 1),
	EX("\xf8\x88\x80\x80\x80", UTF8VAL_RFC2279, UTF8VAL_OK, 5, 1, 0),
	EX("\xfe", UTF8VAL_RFC2279, UTF8VAL_EBADBYTE, 0, 0, 1),
	EX("\xfc\x83\xbf\xbf\xbf\xbf", UTF8VAL_RFC2279, UTF8VAL_EOVERLONG,
	   0, 0, 1),
	EX("\xfd\xbf\xbf\xbf\xbf", UTF8VAL_RFC2279, UTF8VAL_EINCOMPLETE,
	   0, 0, 5),
	EX("\xed\xa0\x80", 0, UTF8VAL_ESURROGATE, 0, 0, 1),
	EX("\xed\xa0\x80", UTF8VAL_SURROGATES, UTF8VAL_OK, 3, 1, 0),
	EX("\xf5\x80\x80\x80", 0, UTF8VAL_ETOOLARGE, 0, 0, 1),
	EX("a\0b", 0, UTF8VAL_OK, 3, 3, 0),
	EX("a\0b", UTF8VAL_REJECT_NUL, UTF8VAL_ENUL, 1, 1, 1),
	EX("x\xef\xbf\xbe", UTF8VAL_REJECT_NONCHAR, UTF8VAL_ENONCHAR, 1, 1, 3),
	EX("\xf4\x8f\xbf\xbf", UTF8VAL_REJECT_NONCHAR, UTF8VAL_ENONCHAR,
	   0, 0, 4),
	EX("\xef\xbb\xbfx", UTF8VAL_REJECT_BOM, UTF8VAL_EBOM, 0, 0, 3),
	EX("x\xef\xbb\xbf", UTF8VAL_REJECT_BOM, UTF8VAL_OK, 4, 2, 0),
	EX("x", 0x20, UTF8VAL_EFLAGS, 0, 0, 0),
	EX("x", ~0u, UTF8VAL_EFLAGS, 0, 0, 0),
};

static void test_examples(void)
{
	unsigned int bad = 0;

	for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		const struct example *ex = &examples[i];
		struct utf8val_result r;

		memset(&r, 0xa5, sizeof(r));	/* an unwritten field shows */
		if (utf8val_validate(ex->bytes, ex->len, ex->flags, &r) !=
		    ex->err || r.error != ex->err || r.valid_up_to != ex->at ||
		    r.chars != ex->chars || r.error_len != ex->err_len) {
			printf("# example %zu:\n", i);
			print_bytes((const u8 *)ex->bytes, ex->len);
			print_result("got", &r);
			bad++;
		}
	}
	tap_result(!bad, "%zu documented examples: %u wrong",
		   sizeof(examples) / sizeof(examples[0]), bad);
}

static const unsigned int modes[] = {
	0, UTF8VAL_SURROGATES, UTF8VAL_RFC2279,
	UTF8VAL_RFC2279 | UTF8VAL_SURROGATES,
	UTF8VAL_REJECT_NUL | UTF8VAL_REJECT_NONCHAR | UTF8VAL_REJECT_BOM,
};

/*
 * Every code point below U+110000 and a sample above: encode agrees with
 * the reference encoder, refuses exactly what validate rejects, and decode
 * gives the code point back.
 */
static void test_codec_round_trip(void)
{
	unsigned long bad = 0, checked = 0;

	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		const unsigned int flags = modes[m];

		for (u64 v = 0; v <= 0xffffffffull; v = v < 0x110000 ? v + 1 :
		     v * 1.0001 + 1) {
			u32 cp = v, got, n, k;
			u8 out[8], ref[8];
			unsigned int rn = ref_encode(cp, ref);
			/* REJECT_BOM is positional: encode ignores it */
			bool valid = cp <= 0x7fffffff &&
				     !ref_validate(ref, rn,
						   flags & ~UTF8VAL_REJECT_BOM,
						   NULL);

			checked++;
			n = utf8val_encode(cp, flags, out);
			if (!valid) {
				if (n && bad++ < 5)
					printf("# U+%04X flags %#x: encoded, should be refused\n",
					       cp, flags);
				continue;
			}
			if (n != rn || memcmp(out, ref, n) ||
			    utf8val_decode(out, n, flags & ~UTF8VAL_REJECT_BOM,
					   &got, &k) ||
			    got != cp || k != n) {
				if (bad++ < 5)
					printf("# U+%04X flags %#x: encode %u\n",
					       cp, flags, n);
			}
		}
	}
	tap_result(!bad, "encode/decode round trip of %lu code points in 5 modes: %lu wrong",
		   checked, bad);
}

static void test_decode_edges(void)
{
	u32 cp = 0, n = 99;
	bool ok = true;

	ok &= utf8val_decode("", 0, 0, &cp, &n) == UTF8VAL_EINCOMPLETE &&
	      n == 0 && cp == 0xfffd;
	ok &= utf8val_decode("\xe2\x82", 2, 0, &cp, &n) ==
	      UTF8VAL_EINCOMPLETE && n == 2;
	ok &= utf8val_decode("\xc0\xaf", 2, 0, &cp, &n) == UTF8VAL_EOVERLONG &&
	      n == 1 && cp == 0xfffd;
	ok &= utf8val_decode("A\x80", 2, 0, &cp, &n) == UTF8VAL_OK &&
	      n == 1 && cp == 'A';
	ok &= utf8val_decode("A", 1, 0x40, &cp, &n) == UTF8VAL_EFLAGS;
	ok &= utf8val_decode("\xef\xbb\xbf", 3, UTF8VAL_REJECT_BOM, &cp, &n) ==
	      UTF8VAL_EBOM && n == 3;
	tap_result(ok, "decode: empty, truncated, invalid, unknown flags, BOM");
}

static void test_encode_refusals(void)
{
	u8 out[8];
	bool ok = true;

	ok &= utf8val_encode(0xd800, 0, out) == 0;
	ok &= utf8val_encode(0xdfff, UTF8VAL_SURROGATES, out) == 3;
	ok &= utf8val_encode(0x110000, 0, out) == 0;
	ok &= utf8val_encode(0x7fffffff, UTF8VAL_RFC2279, out) == 6;
	ok &= utf8val_encode(0x80000000u, UTF8VAL_RFC2279, out) == 0;
	ok &= utf8val_encode(0, UTF8VAL_REJECT_NUL, out) == 0;
	ok &= utf8val_encode(0xfffe, UTF8VAL_REJECT_NONCHAR, out) == 0;
	ok &= utf8val_encode(0xfeff, UTF8VAL_REJECT_BOM, out) == 3;
	ok &= utf8val_encode('a', 0x80, out) == 0;
	tap_result(ok, "encode refuses surrogates, out-of-range values, policy hits and unknown flags");
}

static void test_error_names(void)
{
	static const char *const want[] = {
		"ok", "incomplete", "continuation", "bad-byte", "short",
		"overlong", "surrogate", "too-large", "nul", "noncharacter",
		"bom", "flags",
	};
	bool ok = true;

	for (unsigned int e = 0; e < sizeof(want) / sizeof(want[0]); e++)
		ok &= !strcmp(utf8val_error_name(e), want[e]);
	ok &= !strcmp(utf8val_error_name(UTF8VAL_NR_ERRORS), "unknown");
	ok &= !strcmp(utf8val_error_name((enum utf8val_error)-1), "unknown");
	tap_result(ok, "error names are the documented ones");
}

static void test_stream_semantics(void)
{
	struct utf8val_stream st;
	struct utf8val_result r, again;
	bool ok = true;

	/* A verdict mid-way does not end the stream. */
	utf8val_stream_init(&st, 0);
	ok &= utf8val_stream_feed(&st, "ab\xe2\x82", 4) == UTF8VAL_OK;
	ok &= utf8val_stream_result(&st, &r) == UTF8VAL_EINCOMPLETE &&
	      r.valid_up_to == 2 && r.error_len == 2 && r.chars == 2;
	ok &= utf8val_stream_feed(&st, "\xac", 1) == UTF8VAL_OK;
	ok &= utf8val_stream_result(&st, &r) == UTF8VAL_OK &&
	      r.valid_up_to == 5 && r.chars == 3;

	/* The first error is sticky: valid bytes after it change nothing. */
	ok &= utf8val_stream_feed(&st, "x\xc0", 2) == UTF8VAL_EOVERLONG;
	utf8val_stream_result(&st, &r);
	ok &= utf8val_stream_feed(&st, "valid", 5) == UTF8VAL_EOVERLONG;
	ok &= utf8val_stream_result(&st, &again) == UTF8VAL_EOVERLONG &&
	      !memcmp(&r, &again, sizeof(r)) && r.valid_up_to == 6;

	/* Unknown flags: nothing is validated, ever. */
	utf8val_stream_init(&st, 0x100);
	ok &= utf8val_stream_feed(&st, "a", 1) == UTF8VAL_EFLAGS;
	ok &= utf8val_stream_result(&st, NULL) == UTF8VAL_EFLAGS;
	ok &= utf8val_stream_result(&st, &r) == UTF8VAL_EFLAGS &&
	      r.valid_up_to == 0 && r.chars == 0;
	tap_result(ok, "stream: verdict mid-way, sticky error, unknown flags");
}

/*
 * A long chunk that ends in ASCII is taken by the vector blocks at once,
 * unless a character is open before it; the general feed takes over
 * where the blocks stop at an error. Lengths about the paths' thresholds
 * (256 bytes: AVX2's ASCII words first; 4 KiB: the kernel's vector
 * paths; 16 KiB: a vector section), on every path the CPU has.
 */
static void test_stream_long_chunks(void)
{
	static const size_t lens[] = { 255, 256, 257, 4095, 4096, 4097,
				       16384, 16385, 20000 };
	const size_t max = 20000 + 8;
	u8 *buf = malloc(max);
	unsigned long wrong = 0, fed = 0;

	for (int path = 0; path < NR_UTF8VAL_PATHS; path++) {
		if ((int)utf8val_simd_select(path) != path)
			continue;
		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			const size_t n = lens[i];
			const size_t at[] = { 0, 1, n / 2, n - 2 };

			/* a character left open, then ASCII */
			memcpy(buf, "ab\xe2", 3);
			memset(buf + 3, 'a', n);
			wrong += !compare_stream_cut(buf, n + 3, 3);
			/* its last byte after the ASCII, then more */
			memcpy(buf + 3, "\x82\xac", 2);
			wrong += !compare_stream_cut(buf, n + 3, 4);
			/* valid with a character inside, counted */
			memset(buf, 'a', n);
			memcpy(buf + n / 2, "\xf0\x9f\x98\x80", 4);
			wrong += !compare_stream_cut(buf, n, n);
			wrong += !compare_stream_cut(buf, n, n / 3);
			/* an error, at the start, inside, near the end */
			for (size_t k = 0; k < 4; k++) {
				memset(buf, 'a', n);
				buf[at[k]] = at[k] & 1 ? 0xff : 0x82;
				wrong += !compare_stream_cut(buf, n, n);
				memset(buf + n, 'b', 8);
				wrong += !compare_stream_cut(buf, n + 8, n);
			}
			fed += 12;
		}
	}
	utf8val_simd_select(-1);
	free(buf);
	tap_result(!wrong && fed,
		   "stream: long chunks after an open character, valid, with an error, every path (%lu fed, %lu wrong)",
		   fed, wrong);
}

#define PAST_4GIB_CHUNK	(3u << 20)

/*
 * ASCII in chunks of PAST_4GIB_CHUNK, each starting with @head and ending
 * with @tail, until @total bytes or up to a chunk more: what was fed.
 */
static u64 feed_ascii_chunks(struct utf8val_stream *st, u8 *buf,
			     const char *head, const char *tail, u64 total)
{
	const size_t tail_len = strlen(tail);
	u64 fed = 0;

	memset(buf, 'a', PAST_4GIB_CHUNK);
	memcpy(buf, head, strlen(head));
	memcpy(buf + PAST_4GIB_CHUNK - tail_len, tail, tail_len);
	for (; fed < total; fed += PAST_4GIB_CHUNK)
		utf8val_stream_feed(st, buf, PAST_4GIB_CHUNK);
	return fed;
}

/* Whether @r is the verdict wanted; if not, both as diagnostics. */
static bool verdict_is(const struct utf8val_result *r, enum utf8val_error error,
		       unsigned int error_len, u64 valid_up_to, u64 chars)
{
	const struct utf8val_result want = {
		.valid_up_to = valid_up_to, .chars = chars,
		.error = error, .error_len = error_len,
	};

	if (same_result(r, &want))
		return true;
	print_result("wanted", &want);
	print_result("got", r);
	return false;
}

/*
 * Offsets and counts are 64-bit everywhere, also on 32-bit builds: more
 * than 4 GiB of bytes and of characters, in a verdict with an error and
 * in one without. Each chunk finishes the character the one before left
 * open, then is ASCII (the cheapest input to feed, under an emulator
 * too), and leaves another open.
 */
static void test_stream_past_4gib(void)
{
	const size_t chunk = PAST_4GIB_CHUNK;
	u8 *buf = malloc(chunk);
	struct utf8val_stream st;
	struct utf8val_result r;
	u64 fed, chars;
	bool ok;

	/*
	 * The counters are the stream's, whatever the path: under an
	 * emulator, the scalar one, as RISC-V's vector instructions emulated
	 * one element at a time took three minutes for the 5 GiB.
	 */
	if (quick_run())
		utf8val_simd_select(UTF8VAL_PATH_SCALAR);
	utf8val_stream_init(&st, 0);
	utf8val_stream_feed(&st, "\xe2", 1);
	fed = feed_ascii_chunks(&st, buf, "\x82\xac", "\xe2", 5ull << 30);
	chars = fed / chunk * (chunk - 2);
	/* a character open, nothing wrong: the verdict so far */
	utf8val_stream_result(&st, &r);
	ok = verdict_is(&r, UTF8VAL_EINCOMPLETE, 1, fed, chars);
	utf8val_stream_feed(&st, "\x82\xac\xff", 3);
	utf8val_stream_result(&st, &r);
	ok &= verdict_is(&r, UTF8VAL_EBADBYTE, 1, fed + 3, chars + 1);
	tap_result(ok && chars + 1 > 0xffffffffull,
		   "stream of %llu bytes in %zu-byte chunks, each splitting a character: open at its end, then a bad byte at %llu, %llu chars",
		   fed + 4, chunk, fed + 3, chars + 1);
	utf8val_simd_select(-1);
	free(buf);
}

/*
 * The same past 4 GiB where a stream takes whole chunks in vector blocks
 * (no character open, no flag), on each vector path of the build. Not in
 * a quick run: emulated, a vector path takes minutes for it.
 */
static void test_stream_blocks_past_4gib(void)
{
	const u64 total = (4ull << 30) + 2 * PAST_4GIB_CHUNK;
	struct utf8val_stream st;
	struct utf8val_result r;
	u8 *buf = malloc(PAST_4GIB_CHUNK);
	u64 fed;

	for (int path = UTF8VAL_PATH_SCALAR + 1; path < NR_UTF8VAL_PATHS; path++) {
		const char *name = utf8val_path_name(path);
		bool ok;

		if ((int)utf8val_simd_select(path) != path) {
			tap_result(true, "%s: stream in whole chunks past 4 GiB # SKIP this CPU cannot run it",
				   name);
			continue;
		}
		if (quick_run()) {
			tap_result(true,
				   "%s: stream in whole chunks past 4 GiB # SKIP quick run: 5 GiB, minutes emulated or under ASan",
				   name);
			continue;
		}
		utf8val_stream_init(&st, 0);
		fed = feed_ascii_chunks(&st, buf, "", "", total);
		utf8val_stream_result(&st, &r);
		ok = verdict_is(&r, UTF8VAL_OK, 0, fed, fed);
		utf8val_stream_feed(&st, "\xff", 1);
		utf8val_stream_result(&st, &r);
		ok &= verdict_is(&r, UTF8VAL_EBADBYTE, 1, fed, fed);
		tap_result(ok, "%s: stream of %llu bytes in whole %u-byte chunks: valid, then a bad byte at its end",
			   name, fed + 1, PAST_4GIB_CHUNK);
	}
	utf8val_simd_select(-1);
	free(buf);
}

/*
 * Offsets past 4 GiB under the policy flags: at 4 GiB exactly, where an
 * offset cut to 32 bits is 0, a U+FEFF split across two feeds is no
 * signature; then U+FFFE is an error there. On the scalar path in a quick
 * run, so that 32-bit builds check it too.
 */
static void test_stream_policy_past_4gib(void)
{
	const u64 at = 4ull << 30;
	u8 *buf = malloc(PAST_4GIB_CHUNK);
	struct utf8val_stream st;
	struct utf8val_result r;
	u64 fed;

	if (quick_run())
		utf8val_simd_select(UTF8VAL_PATH_SCALAR);
	utf8val_stream_init(&st, UTF8VAL_REJECT_BOM | UTF8VAL_REJECT_NONCHAR);
	fed = feed_ascii_chunks(&st, buf, "", "", at - PAST_4GIB_CHUNK);
	utf8val_stream_feed(&st, buf, at - fed);
	utf8val_stream_feed(&st, "\xef\xbb", 2);
	utf8val_stream_feed(&st, "\xbf\xef\xbf\xbe", 4);
	utf8val_stream_result(&st, &r);
	tap_result(verdict_is(&r, UTF8VAL_ENONCHAR, 3, at + 3, at + 1),
		   "stream with REJECT_BOM and REJECT_NONCHAR: U+FEFF at 4 GiB is no signature, U+FFFE after it is a noncharacter at %llu",
		   at + 3);
	utf8val_simd_select(-1);
	free(buf);
}

int main(void)
{
	test_examples();
	test_codec_round_trip();
	test_decode_edges();
	test_encode_refusals();
	test_error_names();
	test_stream_semantics();
	test_stream_long_chunks();
	test_stream_past_4gib();
	test_stream_blocks_past_4gib();
	test_stream_policy_past_4gib();
	return tap_finish();
}
