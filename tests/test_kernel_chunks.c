// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The device's traffic under the kernel's thresholds: the core built with
 * the module's UTF8VAL_SIMD_MIN_LEN, fed 4 KiB at a time as write() feeds
 * it from its bounce page. Every full chunk of strict input must reach the
 * vector path, also when it starts inside a character that the previous
 * chunk left open. The linker wraps the vector entry points
 * (-Wl,--wrap=utf8val_neon_blocks ..., and the newline counters) so that
 * the test counts the calls.
 * On every path, the scalar one too, the verdict must be the reference's,
 * also with a byte made wrong where a chunk's lanes meet. And the line and
 * column the device's verdict gives, followed chunk by chunk from chunks
 * that end at a guard page, must be the reference's.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "utf8val.h"
#include "utf8val_lines.h"
#include "utf8val_simd.h"

#define CHUNK		4096
#define TEXT_LEN	(1u << 20)

static unsigned long vector_calls;

#define WRAP(name)							\
size_t __real_##name(const u8 *s, size_t from, size_t to, bool end,	\
		     u64 *chars);					\
size_t __wrap_##name(const u8 *s, size_t from, size_t to, bool end,	\
		     u64 *chars);					\
size_t __wrap_##name(const u8 *s, size_t from, size_t to, bool end,	\
		     u64 *chars)					\
{									\
	vector_calls++;							\
	return __real_##name(s, from, to, end, chars);			\
}
static unsigned long newline_calls;

#define WRAP_NEWLINES(name)						\
u64 __real_##name(const u8 *s, size_t len, size_t *last_end);		\
u64 __wrap_##name(const u8 *s, size_t len, size_t *last_end);		\
u64 __wrap_##name(const u8 *s, size_t len, size_t *last_end)		\
{									\
	newline_calls++;						\
	return __real_##name(s, len, last_end);				\
}
/*
 * the Makefile wraps the target's vector paths (VEC): WRAP(f) and
 * WRAP_NEWLINES(f) each
 */
#ifndef UTF8VAL_WRAPPED
#error "build with the Makefile, which wraps the vector paths"
#endif
UTF8VAL_WRAPPED

/* Valid text of @bytes-byte characters only (0: a random mix of 1..4). */
static u8 *make_text(struct rng *r, unsigned int bytes, size_t *len)
{
	static const u32 first[] = { 0, 0x80, 0x800, 0x10000 };
	static const u32 count[] = { 0x80, 0x780, 0xf800, 0x100000 };
	u8 *t = malloc(TEXT_LEN);
	size_t i = 0;

	while (i + 4 <= TEXT_LEN) {
		unsigned int b = bytes ? bytes - 1 : rng_below(r, 4);
		u32 cp = first[b] + rng_below(r, count[b]);

		if (cp >= 0xd800 && cp <= 0xdfff)
			cp -= 0x800;
		i += ref_encode(cp, t + i);
	}
	*len = i;
	return t;
}

static u8 *read_corpus(const char *name, size_t *len)
{
	const char *dir = shared_dir();
	char path[512];
	FILE *f;
	u8 *t;

	if (!dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/corpus/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	t = malloc(4 << 20);
	*len = fread(t, 1, 4 << 20, f);
	fclose(f);
	return t;
}

/* Feed @t in chunks as the device does: is the verdict the reference's? */
static bool feed_chunks(const u8 *t, size_t len, unsigned long *chunks,
			unsigned long *scalar_chunks)
{
	struct utf8val_result want, got;
	struct utf8val_stream st;

	utf8val_stream_init(&st, 0);
	for (size_t at = 0; at < len; at += CHUNK) {
		size_t n = len - at < CHUNK ? len - at : CHUNK;
		unsigned long before = vector_calls;

		utf8val_stream_feed(&st, t + at, n);
		if (n == CHUNK) {
			++*chunks;
			*scalar_chunks += vector_calls == before;
		}
	}
	utf8val_stream_result(&st, &got);
	ref_validate(t, len, 0, &want);
	return !memcmp(&want, &got, sizeof(want));
}

/*
 * @t with one byte made wrong, 10 times: four anywhere, four within 4
 * bytes of where a chunk's lanes meet (a quarter of a chunk in), where
 * the scalar path finishes one lane and checks the next, and two in the
 * last 64 bytes of a full chunk and of @t. The vector paths check those
 * apart from their steps where a chunk does not start at a 64-byte
 * boundary (malloc()'s text here starts 16 bytes past one): a last block
 * over the one before, or the DFA. How many verdicts differ.
 */
static unsigned long planted(struct rng *r, u8 *t, size_t len)
{
	static const u8 wrong[] = {
		0x80, 0xbf, 0xc0, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0xff, 'a',
	};
	unsigned long chunks = 0, scalar_chunks = 0, bad = 0;

	for (int i = 0; i < 10 && len >= CHUNK; i++) {
		size_t at = i == 8 ? rng_below(r, len / CHUNK) * CHUNK +
				     CHUNK - 1 - rng_below(r, 64) :
			    i == 9 ? len - 1 - rng_below(r, 64) :
			    i % 2 ? rng_below(r, len) :
			    rng_below(r, len / CHUNK) * CHUNK +
			    (1 + rng_below(r, 3)) * (CHUNK / 4) +
			    rng_below(r, 9) - 4;
		u8 was = t[at];

		t[at] = wrong[rng_below(r, sizeof(wrong))];
		bad += !feed_chunks(t, len, &chunks, &scalar_chunks);
		t[at] = was;
	}
	return bad;
}

/*
 * Feed @t in chunks as the device does; on a vector path every full
 * chunk must call it at least once. The verdict must be the reference's,
 * and with a byte made wrong too.
 */
static void one_text(struct rng *r, const char *name, u8 *t, size_t len)
{
	const char *path = utf8val_path_name(utf8val_simd_path());
	unsigned long scalar_chunks = 0, chunks = 0, bad;
	bool same = feed_chunks(t, len, &chunks, &scalar_chunks);

	if (utf8val_simd_path() == UTF8VAL_PATH_SCALAR)
		tap_result(same, "%s, %s: the verdict of %lu full chunks",
			   path, name, chunks);
	else
		tap_result(!scalar_chunks && chunks && same,
			   "%s, %s: all %lu full chunks take the vector path (%lu do not)",
			   path, name, chunks, scalar_chunks);
	bad = planted(r, t, len);
	tap_result(!bad, "%s, %s: a byte made wrong, 10 times: %lu verdicts differ",
		   path, name, bad);
}

/*
 * Text for the device's lines: newlines none, dense, sparse or nothing
 * else, between characters of 1 to 4 bytes and, in some, a byte that is
 * never valid or a character cut short.
 */
static size_t lines_text(struct rng *r, u8 *t, size_t max)
{
	static const char *const pieces[] = {
		"\n", "a", "\t", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
	};
	const unsigned int density = rng_below(r, 4);
	/* most within three pages; some past where a vector counter wraps */
	const size_t len = rng_below(r, rng_below(r, 8) ? 3 * CHUNK : max - 4);
	size_t i = 0;

	while (i < len) {
		const char *p = pieces[1 + rng_below(r, 5)];

		if (density == 3 || (density == 1 && !rng_below(r, 3)) ||
		    (density == 2 && !rng_below(r, 100)))
			p = "\n";
		memcpy(t + i, p, strlen(p));
		i += strlen(p);
	}
	if (i && !rng_below(r, 4))
		t[rng_below(r, i)] = rng_below(r, 2) ? 0xff : 0xe2;
	return i;
}

/* The line and column of @t's verdict, as utf8val(4) defines them. */
static void lines_want(const u8 *t, size_t len, u64 *line, u64 *column)
{
	struct utf8val_result res, line_start;
	size_t point = len, bol = 0;

	ref_validate(t, len, 0, &res);
	if (res.error && res.error != UTF8VAL_EINCOMPLETE)
		point = res.valid_up_to;
	*line = 1;
	for (size_t i = 0; i < point; i++) {
		if (t[i] == '\n') {
			++*line;
			bol = i + 1;
		}
	}
	ref_validate(t, bol, 0, &line_start);
	*column = res.chars - line_start.chars + 1;
}

/*
 * Feed random text as write() does, in chunks of a page, or of any size
 * (characters cut between them), or whole, each chunk at the end of a
 * guard page as the bounce page is, stopping at the first error; follow
 * its lines.
 */
static void device_lines(struct rng *r)
{
	const bool vector = utf8val_simd_path() != UTF8VAL_PATH_SCALAR;
	const unsigned long calls = newline_calls;
	static u8 t[20 * CHUNK];
	unsigned long bad = 0;

	for (int i = 0; i < 3000; i++) {
		const size_t len = lines_text(r, t, sizeof(t));
		const unsigned int how = rng_below(r, 3);
		struct utf8val_result res;
		struct utf8val_lines l;
		struct utf8val_stream st;
		u64 line, column;

		utf8val_stream_init(&st, 0);
		utf8val_lines_init(&l);
		for (size_t at = 0, n; at < len && !st.error; at += n) {
			const u8 *p;

			n = how == 0 ? CHUNK : how == 1 ? 1 + rng_below(r, 300) :
			    len;
			n = n < len - at ? n : len - at;
			p = guarded_copy(t + at, n, true);
			utf8val_stream_feed(&st, p, n);
			utf8val_lines_follow(&l, &st, p, n, at);
		}
		utf8val_stream_result(&st, &res);
		lines_want(t, len, &line, &column);
		bad += l.line != line || res.chars - l.line_chars + 1 != column;
	}
	tap_result(!bad, "%s: the verdict's line and column, 3000 texts fed in chunks: %lu wrong",
		   utf8val_path_name(utf8val_simd_path()), bad);
	/* pages and whole texts are long enough for the vector counter */
	tap_result(vector == (newline_calls > calls),
		   "%s: the newlines counted by the vector code %lu times",
		   utf8val_path_name(utf8val_simd_path()), newline_calls - calls);
}

int main(void)
{
	static const char *const corpora[] = {
		"rfc3629-en-ja.txt", "web-zh-rfc3629.txt",
		"linux-6.12-MAINTAINERS.txt", "iso-codes-3166-2.json",
	};
	static const unsigned int widths[] = { 0, 2, 3, 4 };
	struct rng r = { 0x6368756e6b73 };
	bool any = false;

	for (int path = UTF8VAL_PATH_SCALAR; path < NR_UTF8VAL_PATHS; path++) {
		if (utf8val_simd_select(path) != (enum utf8val_path)path)
			continue;
		any |= path != UTF8VAL_PATH_SCALAR;
		device_lines(&r);
		for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
			char name[64];
			size_t len;
			u8 *t = make_text(&r, widths[w], &len);

			snprintf(name, sizeof(name), "%s characters",
				 widths[w] ? (const char *[]){ "", "1-byte",
				 "2-byte", "3-byte", "4-byte" }[widths[w]] :
				 "random 1..4-byte");
			one_text(&r, name, t, len);
			free(t);
		}
		for (size_t c = 0; c < sizeof(corpora) / sizeof(corpora[0]); c++) {
			size_t len;
			u8 *t = read_corpus(corpora[c], &len);

			if (!t) {
				shared_missing(corpora[c], false);
				continue;
			}
			one_text(&r, corpora[c], t, len);
			free(t);
		}
	}
	if (!any)
		tap_result(true, "the vector paths # SKIP this CPU has none");
	return tap_finish();
}
