// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What kernel callers get: the core built with the kernel's code
 * generation flags and its vector threshold (UTF8VAL_SIMD_MIN_LEN 4096;
 * the FPU save it pays for is bench/fpu_cost.c's subject), on each path.
 *
 *   stream/one-shot  1 MiB fed to the stream API in 4 KiB chunks, as
 *                    /dev/utf8val's write() feeds its bounce page, beside
 *                    one utf8val_validate() call: throughput ratio
 *   blocks/one-shot  the bound of a feed in 4 KiB: the path's vector
 *                    code alone, called as the stream calls it (from a
 *                    chunk's start, as the end of the input) on chunks
 *                    of the same bytes cut back to a character boundary
 *                    near 4 KiB, beside one call; on the scalar path, a
 *                    utf8val_validate() of each such chunk (its lanes
 *                    with no stream around them)
 *   device/one-shot  the same with the rest of what write() does a page:
 *                    the copy into the bounce page (copy_from_user() is
 *                    a memcpy() once the page is there) and the lines of
 *                    the verdict followed (utf8val_lines_follow()); and
 *                    the bound the copy alone sets, one-shot beside
 *                    one-shot and the copies
 *   error/valid      utf8val_validate() of 1 MiB whose last character is
 *                    ill-formed, beside the same 1 MiB valid: time ratio
 *   scalar ASCII     utf8val_check() on the scalar path, as an outside
 *                    caller sees it (a function pointer, eight 64 KiB
 *                    buffers cut from ASCII text at varied offsets), beside
 *                    a plain word loop built the same way
 *
 *   thresholds       every dataset of bench/bench.c at 4 KiB, 64 KiB and
 *                    1 MiB: utf8val_check() (scalar below 4 KiB, as in
 *                    the kernel) and the stream fed 4 KiB at a time (as
 *                    /dev/utf8val feeds it), beside the best simdjson
 *                    kernel and the read ceiling, measured the same way
 *
 * Best of --rounds interleaved rounds, ratios taken within one run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "utf8val.h"
#include "utf8val_lines.h"
#include "utf8val_simd.h"
#include "bench/datasets.h"
#include "bench/peers.h"
#include "bench/read_ceiling.h"
#include "bench/word_loop.h"

#define LEN		(1u << 20)
#define CHUNK		4096
#define REPS		8

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static u64 rng_state = 0x6b726e6c;

static u32 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state >> 16;
}

/*
 * A text's buffer: page-aligned, as the device's bounce page is, so that
 * the stream's 4 KiB chunks of it start where the device's do (a chunk
 * 16 bytes past a cache line paid the vector paths' head to the next
 * one, and a tail, that no chunk of the device pays).
 */
static u8 *text_buffer(void)
{
	return aligned_alloc(CHUNK, LEN + CHUNK);
}

/* LEN bytes of the corpus, repeated, cut at a character boundary. */
static u8 *corpus(const char *name, size_t *len)
{
	char path[256];
	u8 *t = text_buffer();
	size_t n, have = 0;
	FILE *f;

	snprintf(path, sizeof(path), "../shared/corpus/%s", name);
	f = fopen(path, "rb");
	if (!f) {
		free(t);
		return NULL;
	}
	n = fread(t, 1, LEN, f);
	fclose(f);
	for (have = n; have + n <= LEN; have += n)
		memcpy(t + have, t, n);
	*len = have;
	return t;
}

/* Random text: 1-byte printable ASCII only (@ascii), or 1..4-byte. */
static u8 *random_text(bool ascii, size_t *len)
{
	u8 *t = text_buffer();
	size_t n = 0;

	while (n + 4 <= LEN) {
		u32 cp = ascii ? 0x20 + rng() % 0x5f :
			 (u32[]){ 0x41, 0x100, 0x4e00, 0x1f600 }[rng() % 4] +
			 rng() % 0x80;

		n += utf8val_encode(cp, 0, t + n);
	}
	*len = n;
	return t;
}

static u64 sink;

static double time_validate(const u8 *t, size_t len)
{
	struct utf8val_result res;
	double t0 = now();

	for (int r = 0; r < REPS; r++) {
		utf8val_validate(t, len, 0, &res);
		sink += res.valid_up_to + res.chars;
	}
	return (now() - t0) / REPS;
}

static double time_stream(const u8 *t, size_t len)
{
	struct utf8val_result res;
	double t0 = now();

	for (int r = 0; r < REPS; r++) {
		struct utf8val_stream st;

		utf8val_stream_init(&st, 0);
		for (size_t at = 0; at < len; at += CHUNK)
			utf8val_stream_feed(&st, t + at,
					    len - at < CHUNK ? len - at : CHUNK);
		utf8val_stream_result(&st, &res);
		sink += res.valid_up_to + res.chars;
	}
	return (now() - t0) / REPS;
}

/* The paths' vector code, as the core has it. */
static const struct utf8val_simd_impl impls[NR_UTF8VAL_PATHS] = {
	[UTF8VAL_PATH_SCALAR] = { "scalar" },
	UTF8VAL_ARCH_IMPLS
};

/*
 * @path's blocks() alone, a call per CHUNK or so; where it has none (the
 * scalar path, selected), a utf8val_validate() of each such chunk: the
 * DFA's lanes with no stream around them.
 */
static double time_blocks(int path, const u8 *t, size_t len)
{
	utf8val_blocks_fn blocks = impls[path].blocks;
	struct utf8val_result res;
	double t0 = now();
	UTF8VAL_SIMD_SAVE_AREA;

	for (int r = 0; r < REPS; r++) {
		u64 chars = 0;

		for (size_t at = 0, to; at < len; at = to) {
			to = len - at < CHUNK ? len : at + CHUNK;
			while (to < len && (t[to] & 0xc0) == 0x80)
				to--;
			if (!blocks) {
				utf8val_validate(t + at, to - at, 0, &res);
				chars += res.chars;
				continue;
			}
			utf8val_simd_begin();
			sink += blocks(t + at, 0, to - at, true, &chars);
			utf8val_simd_end();
		}
		sink += chars;
	}
	return (now() - t0) / REPS;
}

static u8 bounce[CHUNK] __attribute__((aligned(CHUNK)));

/* The device's copies alone: @len bytes into the bounce page. */
static double time_copy(const u8 *t, size_t len)
{
	double t0 = now();

	for (int r = 0; r < REPS; r++) {
		for (size_t at = 0; at < len; at += CHUNK) {
			memcpy(bounce, t + at, len - at < CHUNK ? len - at : CHUNK);
			__asm__ volatile("" : : "r"(bounce) : "memory");
		}
	}
	return (now() - t0) / REPS;
}

/* What /dev/utf8val's write() does with @len bytes, a page at a time. */
static double time_device(const u8 *t, size_t len)
{
	struct utf8val_result res;
	double t0 = now();

	for (int r = 0; r < REPS; r++) {
		struct utf8val_stream st;
		struct utf8val_lines l;

		utf8val_stream_init(&st, 0);
		utf8val_lines_init(&l);
		for (size_t at = 0; at < len; at += CHUNK) {
			size_t n = len - at < CHUNK ? len - at : CHUNK;

			memcpy(bounce, t + at, n);
			utf8val_stream_feed(&st, bounce, n);
			utf8val_lines_follow(&l, &st, bounce, n, at);
		}
		utf8val_stream_result(&st, &res);
		sink += res.valid_up_to + l.line + l.line_chars;
	}
	return (now() - t0) / REPS;
}

typedef bool (*check_fn)(const void *buf, size_t len);

/* Best GB/s of @fn over the buffers, called through a pointer. */
static double pointer_gbps(check_fn volatile fn, u8 *const *bufs, int n,
			   size_t len, int rounds)
{
	double best = 1e9;

	for (int r = 0; r < rounds; r++) {
		double t0 = now();

		for (int rep = 0; rep < 64; rep++)
			for (int i = 0; i < n; i++)
				sink += fn(bufs[i], len);
		t0 = (now() - t0) / (64.0 * n);
		best = t0 < best ? t0 : best;
	}
	return len / best / 1e9;
}

static void scalar_ascii(const u8 *ascii, size_t ascii_len, int rounds)
{
	enum { NBUF = 8, SIZE = 64 << 10 };
	u8 *bufs[NBUF];
	double check, words;

	for (int i = 0; i < NBUF; i++) {
		/* an odd offset into a page-aligned copy: any alignment */
		bufs[i] = malloc(SIZE + 64);
		memcpy(bufs[i], ascii + rng() % (ascii_len - SIZE), SIZE + 64);
		bufs[i] += 1 + rng() % 63;
	}
	utf8val_simd_select(UTF8VAL_PATH_SCALAR);
	check = pointer_gbps(utf8val_check, bufs, NBUF, SIZE, rounds);
	words = pointer_gbps(word_loop_ascii, bufs, NBUF, SIZE, rounds);
	printf("\n%-27s %9s %9s %8s\n", "scalar ASCII, 64 KiB", "check",
	       "word loop", "ratio");
	printf("%-27s %9s %9s %8s\n", "(function pointer, 8 bufs)", "GB/s",
	       "GB/s", ">=0.95");
	printf("%-27s %9.2f %9.2f %7.2f%s\n", "", check, words, check / words,
	       check / words >= 0.95 ? " " : "!");
}

static int check_any(const unsigned char *s, size_t len)
{
	return utf8val_check(s, len);
}

/* What /dev/utf8val does with a write(): the stream, a page at a time. */
static int stream_fn(const unsigned char *s, size_t len)
{
	struct utf8val_result res;
	struct utf8val_stream st;

	utf8val_stream_init(&st, 0);
	for (size_t at = 0; at < len; at += CHUNK)
		utf8val_stream_feed(&st, s + at,
				    len - at < CHUNK ? len - at : CHUNK);
	return utf8val_stream_result(&st, &res) == UTF8VAL_OK;
}

/* The best of simdjson's kernels over @pool, or a negative number. */
static double simdjson_seconds(const struct piece *pool, size_t count,
			       size_t reps)
{
	static const char *const names[] = { "fallback", "haswell", "icelake" };
	double best = 1e30;

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		validator_fn fn = peer_simdjson(names[k]);
		double t = fn ? pool_seconds(fn, pool, count, reps) : 1e30;

		if (t < 0)
			return t;
		best = t < best ? t : best;
	}
	return best;
}

/*
 * The thresholds table: the automatic path as kernel callers get it,
 * but for the FPU state the first vector section of a system call saves
 * (the "save and restore" row of bench/fpu_cost.c), which user space
 * does not pay.
 */
static int thresholds(int rounds)
{
	static const size_t sizes[] = { 4096, 65536, 1 << 20 };
	struct { const char *name; validator_fn fn; } cols[] = {
		{ "check", check_any }, { "stream-4K", stream_fn },
		{ "sj_best", NULL }, { "ceiling", read_ceiling() },
	};
	struct dataset data[MAX_DATASETS];
	size_t ndata = datasets_load(data, "../shared");

	utf8val_simd_select(-1);
	printf("\n%-15s %8s %9s %9s %9s %9s %9s %9s\n", "thresholds",
	       "size", cols[0].name, cols[1].name, cols[2].name, cols[3].name,
	       "check/sj", "stream/sj");
	printf("%-15s %8s %9s %9s %9s %9s   (no FPU save: see fpu_cost)\n",
	       "(kernel build)", "", "GB/s", "GB/s", "GB/s", "GB/s");
	for (size_t d = 0; d < ndata; d++) {
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			size_t count, bytes;
			struct piece *pool = dataset_pool(&data[d], sizes[z],
							  &count, &bytes);
			size_t reps = (2u << 20) / bytes + 1;
			double best[4] = { 1e30, 1e30, 1e30, 1e30 };

			for (int r = 0; r < rounds; r++) {
				for (size_t c = 0; c < 4; c++) {
					double t = c == 2 ?
						simdjson_seconds(pool, count, reps) :
						pool_seconds(cols[c].fn, pool,
							     count, reps);

					if (t < 0) {
						printf("%s rejects valid %s text\n",
						       cols[c].name, data[d].name);
						return 1;
					}
					best[c] = t < best[c] ? t : best[c];
				}
			}
			printf("%-15s %8zu", data[d].name, sizes[z]);
			for (size_t c = 0; c < 4; c++)
				printf(" %9.2f", reps * bytes / best[c] / 1e9);
			printf(" %8.2fx %8.2fx\n", best[2] / best[0],
			       best[2] / best[1]);
			free(pool);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"rfc3629-en-ja.txt", "web-zh-rfc3629.txt",
		"linux-6.12-MAINTAINERS.txt", "iso-codes-3166-2.json",
	};
	struct { const char *name; u8 *t; size_t len; } sets[8];
	int nsets = 0, rounds = argc > 2 ? atoi(argv[2]) : 15;

	sets[nsets].name = "ascii";
	sets[nsets].t = random_text(true, &sets[nsets].len);
	nsets++;
	sets[nsets].name = "random-1-4";
	sets[nsets].t = random_text(false, &sets[nsets].len);
	nsets++;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		sets[nsets].t = corpus(names[i], &sets[nsets].len);
		if (!sets[nsets].t) {
			printf("# ../shared/corpus/%s missing: row skipped\n",
			       names[i]);
			continue;
		}
		sets[nsets++].name = names[i];
	}
	printf("%-27s %-7s %9s %9s %8s %7s %9s %8s %6s   %9s %9s %8s\n",
	       "dataset (1 MiB)", "path", "one-shot", "4K-chunks", "ratio",
	       "bound", "device", "ratio", "bound", "valid", "error", "ratio");
	printf("%-27s %-7s %9s %9s %8s %7s %9s %8s %6s   %9s %9s %8s\n", "", "",
	       "GB/s", "GB/s", ">=0.90", "blocks", "GB/s", ">=0.90", "copy",
	       "us", "us", "<=1.15");
	for (int d = 0; d < nsets; d++) {
		for (int path = 0; path < NR_UTF8VAL_PATHS; path++) {
			double one = 1e9, chunks = 1e9, dev = 1e9, copy = 1e9;
			double blk = 1e9;
			char bound[16];
			double ok = 1e9, bad = 1e9;
			size_t len = sets[d].len;

			if ((int)utf8val_simd_select(path) != path)
				continue;
			for (int r = 0; r < rounds; r++) {
				double x;
				u8 last;

				x = time_validate(sets[d].t, len);
				one = x < one ? x : one;
				x = time_stream(sets[d].t, len);
				chunks = x < chunks ? x : chunks;
				x = time_blocks(path, sets[d].t, len);
				blk = x < blk ? x : blk;
				x = time_device(sets[d].t, len);
				dev = x < dev ? x : dev;
				x = time_copy(sets[d].t, len);
				copy = x < copy ? x : copy;
				x = time_validate(sets[d].t, len);
				ok = x < ok ? x : ok;
				/*
				 * The same bytes, as warm, with the last
				 * character made ill-formed (its last byte FF):
				 * a copy elsewhere came from farther in the
				 * cache, 1.2 times as slow on ASCII.
				 */
				last = sets[d].t[len - 1];
				sets[d].t[len - 1] = 0xff;
				x = time_validate(sets[d].t, len);
				sets[d].t[len - 1] = last;
				bad = x < bad ? x : bad;
			}
			snprintf(bound, sizeof(bound), "%.2f", one / blk);
			printf("%-27s %-7s %9.2f %9.2f %7.2f%s %7s %9.2f %7.2f%s %6.2f   %9.1f %9.1f %7.2f%s\n",
			       sets[d].name, utf8val_path_name(path),
			       len / one / 1e9, len / chunks / 1e9,
			       one / chunks, one / chunks >= 0.9 ? " " : "!",
			       bound,
			       len / dev / 1e9, one / dev,
			       one / dev >= 0.9 ? " " : "!",
			       one / (one + copy),
			       ok * 1e6, bad * 1e6, bad / ok,
			       bad / ok <= 1.15 ? " " : "!");
		}
	}
	scalar_ascii(sets[0].t, sets[0].len, rounds);
	if (thresholds(rounds))
		return 1;
	utf8val_simd_select(-1);
	return sink == 42;	/* keeps the calls */
}
