// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Bytes that change during the call: a second thread rewrites bytes of
 * the input (and of a stream's chunks) while every entry point runs on
 * it, on every path the CPU has, under every flag combination (a quick
 * run: none, each alone, all), with the input ending
 * where an inaccessible page begins or starting where one ends. Whatever the bytes do, nothing may
 * be read outside the input (a read past it faults) nor written outside
 * the output, and every answer must be well formed: offsets and lengths
 * inside the input, an error kind that exists, characters no more than
 * the bytes before the error (utf8val.h, "Bytes that change").
 *
 * The rewrites are the bytes that steer the decoder: leads of every
 * length, continuation bytes, U+0000, and the bytes of noncharacters,
 * written at the end (where a sequence can be cut), where the fast path
 * splits its lanes, where the vector paths' overlapping tail loads read,
 * and at random places; the input is filled afresh for each round.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"
#include "../utf8val_simd.h"

#define AREA		(80u << 10)

static const size_t lengths[] = {
	1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 95, 96,
	97, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024, 4095,
	4096, 4097, 16384, 65536 + 7,
};

/* The bytes a rewrite writes: each turns the decoder somewhere else. */
static const u8 steer[] = {
	'a', 0x00, 0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4,
	0xf5, 0xf8, 0xfc, 0xfe, 0xff, 0xbe, 0xb7, 0x8f, 0x90,
};

/*
 * Where dfa_lanes() aims lane @k (1..3) of the @len bytes at @s
 * (scalar_lane_aim()), or with @word the word boundary at or before
 * that, where RISC-V starts the lane's blocks. (Below 512 bytes there
 * is one lane: any place will do.)
 */
static size_t lane_start(const u8 *s, size_t len, unsigned int k, bool word)
{
	size_t at;

	if (len < 512)
		return k * (len / 4);
	at = scalar_lane_aim(len, k);
	return word ? at - ((uintptr_t)(s + at) & 7) : at;
}

static u8 *area, *area_end;	/* between two inaccessible pages */
static int stop;

/*
 * The input the rewriter aims at: its offset in the area (high half) and
 * its length (low half; 0 while there is none), in one word so that the
 * rewriter never pairs one input's length with the next one's start,
 * which would write past the area.
 */
static u64 target;

static void aim(const u8 *s, size_t len)
{
	__atomic_store_n(&target, (u64)(s - area) << 32 | len,
			 __ATOMIC_RELAXED);
}

static void *rewriter(void *arg)
{
	struct rng r = { .s = (uintptr_t)arg };

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		u64 t = __atomic_load_n(&target, __ATOMIC_RELAXED);
		size_t len = (u32)t;
		u8 *in = area + (t >> 32);
		u64 x = rng_next(&r);
		size_t back;

		if (!len)
			continue;
		switch (x & 3) {
		case 0:		/* one of the last 8 bytes */
			back = 1 + (x >> 8) % 8;
			break;
		case 1:		/* where dfa_lanes() may start a lane */
			back = len - lane_start(in, len, 1 + (x >> 8) % 3,
						(x >> 20) & 1) +
			       (x >> 16) % 4;
			break;
		case 2:		/* the vector paths' overlapping tail loads */
			back = 32 + (x >> 8) % 64;
			break;
		default:
			back = 1 + (x >> 8) % len;
			break;
		}
		if (back < 1 || back > len)
			back = 1;
		__atomic_store_n(in + len - back, steer[(x >> 32) % sizeof(steer)],
				 __ATOMIC_RELAXED);
	}
	return NULL;
}

static unsigned long bad;

static bool fail(const char *what, size_t len, unsigned int flags,
		 const struct utf8val_result *r)
{
	if (++bad <= 10) {
		printf("# %s: len %zu flags %#x path %s:", what, len, flags,
		       utf8val_path_name(utf8val_simd_path()));
		if (r)
			printf(" error %u at %llu len %u chars %llu",
			       r->error, r->valid_up_to, r->error_len,
			       r->chars);
		printf("\n");
	}
	return false;
}

/* What any answer about @len bytes must satisfy. */
static bool well_formed(const struct utf8val_result *r, size_t len)
{
	if (r->error == UTF8VAL_OK)
		return r->valid_up_to == len && r->chars <= len &&
		       !r->error_len;
	return r->error < UTF8VAL_NR_ERRORS && r->error != UTF8VAL_EFLAGS &&
	       r->error_len >= 1 &&
	       r->error_len <= UTF8VAL_MAX_SEQ &&
	       r->valid_up_to + r->error_len <= len &&
	       r->chars <= r->valid_up_to;
}

static bool race_validate(const u8 *s, size_t len, unsigned int flags)
{
	struct utf8val_result r;
	enum utf8val_error e = utf8val_validate(s, len, flags, &r);

	if (e != r.error || !well_formed(&r, len))
		return fail("validate", len, flags, &r);
	if (!flags)
		(void)utf8val_check(s, len);
	return true;
}

/* Fed in pieces, each of which a rewrite may hit. */
static bool race_stream(const u8 *s, size_t len, unsigned int flags,
			struct rng *rng)
{
	struct utf8val_stream st;
	struct utf8val_result r;
	size_t at = 0;

	utf8val_stream_init(&st, flags);
	while (at < len) {
		size_t n = 1 + rng_below(rng, len - at);

		utf8val_stream_feed(&st, s + at, n);
		at += n;
	}
	utf8val_stream_result(&st, &r);
	if (!well_formed(&r, len))
		return fail("stream", len, flags, &r);
	return true;
}

static bool race_errors(const u8 *s, size_t len, unsigned int flags)
{
	struct utf8val_errors it;
	struct utf8val_result r;
	unsigned long long from = 0;
	size_t n = 0;

	utf8val_errors_init(&it, s, len, flags);
	while (utf8val_errors_next(&it, &r)) {
		if (r.valid_up_to < from || !well_formed(&r, len) ||
		    ++n > len)
			return fail("errors", len, flags, &r);
		from = r.valid_up_to + r.error_len;
	}
	if (r.error || r.valid_up_to != len || r.chars > len)
		return fail("errors' totals", len, flags, &r);
	return true;
}

/* The output ends at an inaccessible page too: no write past @size. */
static bool race_replace(const u8 *s, size_t len, unsigned int flags,
			 u8 *out_end, struct rng *rng)
{
	size_t size = UTF8VAL_REPLACE_MAX(len);
	unsigned long long n;

	if (rng_below(rng, 2))
		size = rng_below(rng, size + 1);
	n = utf8val_replace(s, len, flags, out_end - size, size);
	if (n > UTF8VAL_REPLACE_MAX(len) || (len && !n))
		return fail("replace", len, flags, NULL);
	return true;
}

static bool race_decode(const u8 *s, size_t len, unsigned int flags)
{
	unsigned int cp, seq;
	enum utf8val_error e = utf8val_decode(s, len, flags, &cp, &seq);

	if (seq > len || seq > UTF8VAL_MAX_SEQ || (!e && !seq) ||
	    (e && cp != 0xfffd) || (!e && seq == 1 && cp > 0x7f) ||
	    (!e && seq > 1 && cp < 0x80))
		return fail("decode", len, flags, NULL);
	if (utf8val_count(s, len) > len)
		return fail("count", len, flags, NULL);
	return true;
}

/* Valid text of every length, with noncharacters and U+0000 in it. */
static void fill(u8 *p, size_t len, struct rng *rng)
{
	static const char *const pieces[] = {
		"a", "z", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
		"\xef\xbf\xbe", "\xef\xb7\x90", "\xf4\x8f\xbf\xbf", "\x00",
		"\xed\x9f\xbf", "\xef\xbb\xbf",
	};
	size_t i = 0;

	while (i < len) {
		const char *c = pieces[rng_below(rng, ARRAY_SIZE(pieces))];
		size_t n = *c ? strlen(c) : 1;

		if (rng_below(rng, 4))
			c = "a", n = 1;
		if (n > len - i)
			n = len - i;
		memcpy(p + i, c, n);
		i += n;
	}
}

static unsigned int paths_run;	/* a bit for each path that ran */

/* Every entry point, @rounds times, on the @len bytes at @s. */
static void rounds_on(u8 *s, size_t len, unsigned int flags, u8 *out_end,
		      struct rng *rng, unsigned int rounds)
{
	for (unsigned int i = 0; i < rounds; i++) {
		/* afresh, or the rewrites leave nothing valid to cut */
		aim(area, 0);
		fill(s, len, rng);
		aim(s, len);
		race_validate(s, len, flags);
		race_stream(s, len, flags, rng);
		race_errors(s, len, flags);
		race_replace(s, len, flags, out_end, rng);
		race_decode(s, len, flags);
	}
	aim(area, 0);
}

static unsigned long run_flags(unsigned int flags, void *arg)
{
	unsigned long before = bad;
	u8 *out_end = arg;
	struct rng rng = { .s = 0x7ace + flags };

	for (int p = 0; p < NR_UTF8VAL_PATHS; p++) {
		if ((int)utf8val_simd_select(p) != p)
			continue;
		paths_run |= 1u << p;
		for (size_t k = 0; k < ARRAY_SIZE(lengths); k++) {
			size_t len = lengths[k];
			unsigned int rounds = len <= 4096 ? 12 : 2;

			if (quick_run())
				rounds = (rounds + 3) / 4;
			/* ending at the guard page after, starting at the one before */
			rounds_on(area_end - len, len, flags, out_end, &rng, rounds);
			rounds_on(area, len, flags, out_end, &rng, 1);
		}
	}
	utf8val_simd_select(-1);
	return bad - before;
}

int main(void)
{
	const size_t page = sysconf(_SC_PAGESIZE);
	const size_t out = UTF8VAL_REPLACE_MAX(AREA);
	pthread_t thread;
	u8 *in, *o;
	unsigned long failures;

	/* a guard page, the input's area, another; the output's, another */
	in = mmap(NULL, AREA + 2 * page, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	o = mmap(NULL, out + page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (in == MAP_FAILED || o == MAP_FAILED ||
	    mprotect(in, page, PROT_NONE) ||
	    mprotect(in + page + AREA, page, PROT_NONE) ||
	    mprotect(o + out, page, PROT_NONE)) {
		perror("guard pages");
		return 2;
	}
	area = in + page;
	area_end = area + AREA;
	if (pthread_create(&thread, NULL, rewriter, (void *)0x5eed)) {
		perror("pthread_create");
		return 2;
	}
	/* in this process: the rewriter is a thread of it */
	failures = 0;
	for (unsigned int flags = 0; flags <= UTF8VAL_FLAGS_ALL; flags++)
		if (!quick_run() || !flags || flags == UTF8VAL_FLAGS_ALL ||
		    !(flags & (flags - 1)))
			failures += run_flags(flags, o + out);
	printf("# paths raced:");
	for (int p = 0; p < NR_UTF8VAL_PATHS; p++)
		if (paths_run & (1u << p))
			printf(" %s", utf8val_path_name(p));
	printf("\n");
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	tap_result(!failures,
		   "every entry point and path, %s, reads only its input and answers well formed while a thread rewrites it (%lu bad answers)",
		   all_flags_said(), failures);
	return tap_finish();
}
