// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Throughput of utf8val beside its peers, in one run, on the same buffers.
 *
 *   bench [--rounds N] [--size S]
 *                          the GB/s table (best of N interleaved rounds,
 *                          every size or only S bytes), with each row's
 *                          goal, then the short-string table (ns a call)
 *   bench --short          the short-string table alone
 *   bench --fresh [--size S]
 *                          the GB/s table on text never seen before, 4 KiB
 *                          and more, with the same goals (fresh_table())
 *   bench --shuffled [--rounds N] [--size S]
 *                          the GB/s table's sizes under 4 KiB, each pass
 *                          over the pool in another order
 *                          (shuffled_pool())
 *   bench --offsets [--size S]
 *                          check beside simdutf's AVX-512 kernels, each
 *                          buffer 0, 1 and 33 bytes past a 64-byte
 *                          boundary (offset_table())
 *   bench --callgrind      one pass per cell between callgrind dumps, for
 *                          scripts/run-bench to turn into instructions/byte
 *
 * Every size rotates through distinct buffers cut at character
 * boundaries from different offsets (bench/datasets.c), each timed after
 * untimed passes, until its timing settles (pool_seconds(): the branch
 * predictor learns a pool). The utf8val core is compiled with
 * the kernel's code generation flags (see Makefile); the peers are
 * Debian's builds; "ceiling" is a plain vector load loop over the same
 * buffers (bench/read_ceiling.c).
 *
 * The goals of a row, each a ratio of speeds in this run (check is the
 * automatic path, through a function pointer as any caller; "peer" the
 * fastest simdutf or simdjson kernel, simdutf's package (su_) or its
 * current source (sn_); "haswell" the faster of simdutf's two AVX2
 * kernels):
 *   16 bytes to 1 KiB   check/peer >= 1.00
 *   4 KiB and more      text with multi-byte characters: check/peer and
 *                       check_avx2/haswell >= 1.15;
 *                       mostly ASCII (MAINTAINERS, ISO 3166-2 JSON, the
 *                       kernel's Documentation/, the names JSON):
 *                       check/peer >= 1.15, check_avx2/haswell >= 1.05
 *                       and check/ceiling >= 0.9 (prose, text_kind()) or
 *                       0.75 (the JSON files, a non-ASCII byte in 41 and
 *                       50 % of their 256-byte groups);
 *                       ASCII: check/ceiling >= 0.85 and
 *                       check_avx2/haswell >= 1.05.
 * Of a short-string set: no slower a call than the fastest peer. A goal
 * whose peer is missing (not installed, or a path the CPU lacks) is "n/a".
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

#include "utf8val.h"
#include "utf8val_simd.h"
#include "bench/datasets.h"
#include "bench/peers.h"
#include "bench/read_ceiling.h"

#define PASS_BYTES	(2u << 20)	/* bytes validated per timed sample */
#define PASS_CALLS	8192		/* calls per sample of short strings */
#define CALLGRIND_BYTES	(256u << 10)	/* bytes per cell under callgrind */
#define NONE		1e30		/* the time of an implementation not there */
#define CUT_SLACK	(1 / 1e9)	/* of a ratio cut to two decimals */

static int utf8val_check_fn(const unsigned char *s, size_t len)
{
	return utf8val_check(s, len);
}

static int utf8val_validate_fn(const unsigned char *s, size_t len)
{
	struct utf8val_result res;

	return utf8val_validate(s, len, 0, &res) == UTF8VAL_OK;
}

enum kind { OURS, SCALAR_PEER, SIMD_PEER, CEILING };

struct impl {
	const char *name;
	validator_fn fn;
	enum kind kind;
	int path;	/* ours: the path forced while it runs, AUTO the best */
};

#define AUTO -1
/* CHECK, the first column, is what the goals are about */
enum {
	CHECK,
	FORCED,		/* then each vector path, forced (named at start) */
	SJ_FALLBACK = FORCED + NR_UTF8VAL_PATHS - 1 + 4,
	SJ_HASWELL,
	SJ_ICELAKE,
	SU_FALLBACK,	/* simdutf's kernels, by name (peer_simdutf_named()) */
	SU_WESTMERE,
	SU_HASWELL,
	SU_ICELAKE,
	SN_HASWELL,	/* simdutf's current source (peer_simdutf_now()) */
	SN_ICELAKE,
	READ_CEILING
};
static struct impl impls[] = {
	[CHECK] = { "check", utf8val_check_fn, OURS, AUTO },
	[FORCED ... FORCED + NR_UTF8VAL_PATHS - 2] = { NULL, utf8val_check_fn, OURS },
	{ "check_scalar", utf8val_check_fn, OURS, UTF8VAL_PATH_SCALAR },
	{ "validate", utf8val_validate_fn, OURS, AUTO },
	{ "glib", peer_glib, SCALAR_PEER },
	{ "icu_U8_NEXT", peer_icu, SCALAR_PEER },
	[SJ_FALLBACK] = { "sj_fallback", NULL, SIMD_PEER },
	[SJ_HASWELL] = { "sj_haswell", NULL, SIMD_PEER },
	[SJ_ICELAKE] = { "sj_icelake", NULL, SIMD_PEER },
	[SU_FALLBACK] = { "su_fallback", NULL, SIMD_PEER },
	[SU_WESTMERE] = { "su_westmere", NULL, SIMD_PEER },
	[SU_HASWELL] = { "su_haswell", NULL, SIMD_PEER },
	[SU_ICELAKE] = { "su_icelake", NULL, SIMD_PEER },
	[SN_HASWELL] = { "sn_haswell", NULL, SIMD_PEER },
	[SN_ICELAKE] = { "sn_icelake", NULL, SIMD_PEER },
	[READ_CEILING] = { "ceiling", NULL, CEILING },
};
#define NIMPLS (sizeof(impls) / sizeof(impls[0]))

static const size_t sizes[] = { 16, 64, 256, 512, 1024, 4096, 65536, 1 << 20 };
/* the fresh and offset tables' (simdutf's aligns its reads from 2 KiB) */
static const size_t large_sizes[] = { 4096, 65536, 1 << 20 };
#define LONG_SIZE	4096	/* from here, the goals of long inputs */
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* The AVX2 path forced, the column beside simdutf's AVX2 kernel. */
static int avx2_column = -1;

/* Where ../shared/peers/simdutf is missing the Makefile links none: NULL */
__attribute__((weak)) const char *peer_simdutf_now(unsigned int i,
						   validator_fn *fn);

/* simdutf's kernel called @name in a build of it, if this CPU runs it. */
static validator_fn peer_simdutf_named(const char *(*build)(unsigned int,
							     validator_fn *),
				       const char *name)
{
	validator_fn fn;
	const char *n;

	for (unsigned int i = 0; (n = build(i, &fn)); i++)
		if (!strcmp(n, name))
			return fn;
	return NULL;
}

static void select_path(const struct impl *im)
{
	if (im->kind == OURS)
		utf8val_simd_select(im->path);
}

static int width(const struct impl *im)
{
	return strlen(im->name) > 9 ? strlen(im->name) : 9;
}

static void header(const char *first, const char *second, const char *tail)
{
	printf("%-15s %8s", first, second);
	for (size_t k = 0; k < NIMPLS; k++)
		if (impls[k].fn)
			printf(" %*s", width(&impls[k]), impls[k].name);
	printf("  %s\n", tail);
}

/*
 * Seconds per byte (or per call) of each implementation over @pool, best
 * of @rounds; implementations interleave round by round, so that noise
 * hits them alike. False if one rejects the valid text.
 */
static bool measure(const struct piece *pool, size_t count, size_t reps,
		    int rounds, double per, double *best, const char *name)
{
	for (size_t k = 0; k < NIMPLS; k++)
		best[k] = NONE;
	for (int r = 0; r < rounds; r++) {
		for (size_t k = 0; k < NIMPLS; k++) {
			double t;

			if (!impls[k].fn)
				continue;
			select_path(&impls[k]);
			t = pool_seconds(impls[k].fn, pool, count, reps);
			if (t < 0) {
				printf("%s rejects valid %s text\n",
				       impls[k].name, name);
				return false;
			}
			t /= reps * per;
			if (t < best[k])
				best[k] = t;
		}
	}
	return true;
}

/* The fastest time of a kind of implementation, or NONE. */
static double fastest(const double *best, enum kind kind)
{
	double t = NONE;

	for (size_t k = 0; k < NIMPLS; k++)
		if (impls[k].fn && impls[k].kind == kind && best[k] < t)
			t = best[k];
	return t;
}

/* One pass per cell, between callgrind's dumps. */
static void callgrind_cell(const char *set, size_t size,
			   const struct piece *pool, size_t n)
{
	for (size_t k = 0; k < NIMPLS; k++) {
		u64 b = 0;

		if (!impls[k].fn || impls[k].kind == CEILING)
			continue;
		select_path(&impls[k]);
		for (size_t i = 0; i < n; i++)
			b += pool[i].len;
		CALLGRIND_ZERO_STATS;
		for (size_t i = 0; i < n; i++)
			impls[k].fn(pool[i].p, pool[i].len);
		CALLGRIND_DUMP_STATS_AT(impls[k].name);
		printf("cell %s %zu %s %llu\n", set, size, impls[k].name, b);
	}
}

/* How a dataset is judged: by how much of it is ASCII. */
enum text_kind { MULTI_BYTE, MOSTLY_ASCII, ASCII };

static const struct {
	const char *name;
	enum text_kind kind;
	double ceiling;		/* the goal of check/ceiling */
} kinds[] = {
	{ "ascii", ASCII, 0.85 },
	{ "maintainers", MOSTLY_ASCII, 0.90 },
	{ "kernel-docs", MOSTLY_ASCII, 0.90 },
	{ "iso-codes-json", MOSTLY_ASCII, 0.75 },
	{ "names-json", MOSTLY_ASCII, 0.75 },
};

/* The kind of dataset @name; in *@ceiling (unless NULL) its ceiling goal. */
static enum text_kind text_kind(const char *name, double *ceiling)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!strcmp(name, kinds[i].name)) {
			if (ceiling)
				*ceiling = kinds[i].ceiling;
			return kinds[i].kind;
		}
	}
	return MULTI_BYTE;
}

/* Goals missed, and of those how many the read ceiling rules out. */
struct tally {
	int missed, bounded;
};

/* @theirs / @ours cut to the two decimals printed */
static double cut_ratio(double ours, double theirs)
{
	/* (a ratio is positive; the slack keeps 1.15 from 1.1499...) */
	return (long long)(theirs / ours * 100 + CUT_SLACK) / 100.0;
}

/*
 * Prints one goal, "name>=min" after the ratio, and counts it missed;
 * "n/a" where a time is missing. The ratio is cut to the two decimals
 * printed, and judged as printed: 1.149 is 1.14, short of 1.15. A goal
 * above what the read ceiling (@ceil, or NONE) allows, @theirs against
 * a plain load loop over the same bytes, no validator can meet in this
 * run: its miss says so, with that bound. (Only from LONG_SIZE: shorter
 * inputs are where a load loop's own head and tail cost, and a check
 * may beat it; and only where @ours is no faster than the ceiling.)
 */
static void goal(const char *name, double ours, double theirs, double min,
		 double ceil, struct tally *t)
{
	double ratio, bound;

	if (ours == NONE || theirs == NONE) {
		printf("  %s n/a", name);
		return;
	}
	ratio = cut_ratio(ours, theirs);
	printf("  %s %.2f>=%.2f %s", name, ratio, min,
	       ratio >= min - CUT_SLACK ? "met" : "MISSED");
	if (ratio >= min - CUT_SLACK)
		return;
	t->missed++;
	bound = ceil == NONE || ours < ceil ? NONE : cut_ratio(ceil, theirs);
	if (bound < min - CUT_SLACK) {
		printf(" (ceiling %.2f)", bound);
		t->bounded++;
	}
}

/* "# goals missed WHERE: N", and how many the read ceiling rules out */
static void print_tally(const char *where, const struct tally *t)
{
	printf("\n# goals missed %s: %d", where, t->missed);
	if (t->bounded)
		printf(" (%d of them above the read ceiling)", t->bounded);
	printf("\n");
}

/* The goals of a row of the GB/s table (see the top of this file). */
static void row_goals(const char *set, size_t size, const double *best,
		      struct tally *missed)
{
	double peer = fastest(best, SIMD_PEER), ceil = fastest(best, CEILING);
	double avx2 = avx2_column < 0 ? NONE : best[avx2_column];
	double ceil_goal = 0;
	enum text_kind kind = text_kind(set, &ceil_goal);

	if (size < LONG_SIZE) {
		goal("check/peer", best[CHECK], peer, 1.00, NONE, missed);
		return;
	}
	if (kind != ASCII)
		goal("check/peer", best[CHECK], peer, 1.15, ceil, missed);
	if (kind != MULTI_BYTE)
		goal("check/ceil", best[CHECK], ceil, ceil_goal, NONE, missed);
	goal("avx2/haswell", avx2, best[SU_HASWELL] < best[SN_HASWELL] ?
	     best[SU_HASWELL] : best[SN_HASWELL],
	     kind == MULTI_BYTE ? 1.15 : 1.05, ceil, missed);
}

/*
 * --shuffled: @pool's pieces SHUFFLES times over, each time in another
 * order (the same orders in every run). The GB/s table's passes go over
 * a pool in one order, which a recent CPU's branch predictor learns: on
 * an AMD EPYC Zen 5, 512-byte pieces of the ISO 3166-2 JSON ran at 1.8
 * times the speed they ran at in these orders, and how much of a pool
 * it learns changed with code that the pool never runs
 * (Documentation/utf8val.rst). Here each call meets its piece as a
 * validator's first look at it does, the text still in the caches; the
 * list of pieces is 32 times as long, read in order, which the hardware
 * prefetches (16 bytes of it a piece: at 16 bytes, as many as the text).
 * Frees @pool; *@count and *@bytes grow to match.
 */
#define SHUFFLES	32

/* The same orders in every run: a xorshift generator, its state *@x */
#define SHUFFLE_SEED	0x9e3779b97f4a7c15ull

static size_t draw_below(u64 *x, size_t n)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x % n;
}

/* The @n elements of @size bytes at @base in a new order */
static void shuffle(void *base, size_t n, size_t size, u64 *x)
{
	unsigned char *b = base, t[32];

	assert(size <= sizeof(t));
	for (size_t i = n - 1; n > 1 && i > 0; i--) {
		size_t j = draw_below(x, i + 1);

		memcpy(t, b + i * size, size);
		memcpy(b + i * size, b + j * size, size);
		memcpy(b + j * size, t, size);
	}
}

static struct piece *shuffled_pool(struct piece *pool, size_t *count,
				   size_t *bytes)
{
	struct piece *all = malloc(SHUFFLES * *count * sizeof(*all));
	u64 x = SHUFFLE_SEED;

	if (!all) {
		perror("bench --shuffled");
		exit(1);
	}
	for (size_t s = 0; s < SHUFFLES; s++) {
		struct piece *p = all + s * *count;

		memcpy(p, pool, *count * sizeof(*p));
		shuffle(p, *count, sizeof(*p), &x);
	}
	free(pool);
	*count *= SHUFFLES;
	*bytes *= SHUFFLES;
	return all;
}

static int gb_table(const struct dataset *data, size_t ndata, int rounds,
		    size_t only_size, bool callgrind, bool shuffled,
		    struct tally *missed)
{
	if (shuffled && !callgrind)
		printf("\n== GB/s, each pass over the pool in another order (%d orders)\n",
		       SHUFFLES);
	if (!callgrind)
		header("dataset", "size", "goals: speed ratio>=goal");
	for (size_t di = 0; di < ndata; di++) {
		for (size_t si = 0; si < NSIZES; si++) {
			size_t count, bytes, n;
			struct piece *pool;
			double best[NIMPLS];

			if ((only_size && sizes[si] != only_size) ||
			    (shuffled && sizes[si] >= LONG_SIZE))
				continue;
			pool = dataset_pool(&data[di], sizes[si], &count,
					    &bytes);
			if (shuffled)
				pool = shuffled_pool(pool, &count, &bytes);
			if (callgrind) {
				n = CALLGRIND_BYTES / sizes[si];
				n = n > count ? count : n ? n : 1;
				callgrind_cell(data[di].name, sizes[si], pool, n);
				free(pool);
				continue;
			}
			if (!measure(pool, count, PASS_BYTES / bytes + 1,
				     rounds, bytes, best, data[di].name))
				return 1;
			printf("%-15s %8zu", data[di].name, sizes[si]);
			for (size_t k = 0; k < NIMPLS; k++)
				if (impls[k].fn)
					printf(" %*.2f", width(&impls[k]),
					       1e-9 / best[k]);
			row_goals(data[di].name, sizes[si], best, missed);
			printf("\n");
			fflush(stdout);
			free(pool);
		}
	}
	return 0;
}

/*
 * GB/s on text in a sequence no pass has met (dataset_fresh()): every
 * pass of every implementation over text drawn anew, as much as the GB/s
 * table's pool (so the same caches: POOL_BYTES, two pieces at least), cut
 * into pieces of a size, after one such pass untimed (the code warm, not
 * the predictor); the median of FRESH_PASSES passes, which a preempted
 * pass cannot move. What a validator's first look at a file costs, where
 * the GB/s table's pool lets the branch predictor learn its pieces; each
 * row has the GB/s table's goals, judged on those medians. Each pass runs
 * the implementations in another order: on an AMD EPYC Zen 4, in one
 * order every pass, check (the first) ran 1 to 16 % slower than the same
 * path forced, the next one; in the reverse order, up to 7 % faster.
 */
#define FRESH_PASSES	31

/*
 * The GB/s of one pass of implementation @k over fresh text of @d in
 * pieces of @size, or a negative number if it rejects a piece.
 */
static double fresh_pass(size_t k, const struct dataset *d, size_t size,
			 u8 *buf, size_t room, struct piece *pieces)
{
	size_t len = dataset_fresh(d, buf, room), n = 0, at = 0, ok = 0;
	double start;

	for (; len - at >= size; at += pieces[n++].len) {
		size_t end = size;

		while (at + end < len && (buf[at + end] & 0xc0) == 0x80)
			end--;
		pieces[n] = (struct piece){ buf + at, end };
	}
	select_path(&impls[k]);
	start = bench_now();
	for (size_t i = 0; i < n; i++)
		ok += impls[k].fn(pieces[i].p, pieces[i].len);
	start = bench_now() - start;
	if (ok != n) {
		printf("%s rejects valid %s text\n", impls[k].name, d->name);
		return -1;
	}
	return at / start * 1e-9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int fresh_table(const struct dataset *data, size_t ndata,
		       size_t only_size, struct tally *missed)
{
	/* (a run's slack past @room: dataset_fresh()) */
	const size_t slack = FRESH_RUN + 1024, most = 2 * (1 << 20) + 2 * slack;
	u8 *buf = aligned_alloc(64, most);
	struct piece *pieces = malloc(most / 4093 * sizeof(*pieces));
	u64 x = SHUFFLE_SEED;	/* the orders, row after row */

	if (!buf || !pieces) {
		perror("bench --fresh");
		return 1;
	}
	printf("\n== GB/s on text in a sequence no pass has met (each pass drawn anew; median of %d)\n",
	       FRESH_PASSES);
	header("dataset", "size", "goals: speed ratio>=goal");
	for (size_t di = 0; di < ndata; di++) {
		for (size_t si = 0; si < ARRAY_SIZE(large_sizes); si++) {
			size_t size = large_sizes[si];
			size_t room = (size * 2 > POOL_BYTES ? size * 2 :
							       POOL_BYTES) + slack;
			double rate[NIMPLS][FRESH_PASSES], best[NIMPLS];
			size_t order[NIMPLS];

			for (size_t k = 0; k < NIMPLS; k++)
				order[k] = k;

			if (only_size && size != only_size)
				continue;
			for (int pass = -1; pass < FRESH_PASSES; pass++) {
				shuffle(order, NIMPLS, sizeof(*order), &x);
				for (size_t n = 0; n < NIMPLS; n++) {
					size_t k = order[n];
					double r;

					if (!impls[k].fn)
						continue;
					r = fresh_pass(k, &data[di], size, buf,
						       room, pieces);
					if (r < 0)
						return 1;
					if (pass >= 0)
						rate[k][pass] = r;
				}
			}
			printf("%-15s %8zu", data[di].name, size);
			for (size_t k = 0; k < NIMPLS; k++) {
				best[k] = NONE;
				if (!impls[k].fn)
					continue;
				qsort(rate[k], FRESH_PASSES, sizeof(double),
				      by_value);
				printf(" %*.2f", width(&impls[k]),
				       rate[k][FRESH_PASSES / 2]);
				/* (row_goals() takes seconds a byte) */
				best[k] = 1 / (rate[k][FRESH_PASSES / 2] * 1e9);
			}
			row_goals(data[di].name, size, best, missed);
			printf("\n");
			fflush(stdout);
		}
	}
	free(pieces);
	free(buf);
	return 0;
}

/*
 * Where a buffer starts matters to a kernel that aligns its reads
 * (simdutf's AVX-512 validator, from 2 KiB): check beside simdutf's
 * AVX-512 kernels with every piece 0, 1 and 33 bytes past a 64-byte
 * boundary, 4 KiB to 1 MiB. Goal: check/icelake (the faster of the two)
 * >= 1.15 on text with multi-byte characters, >= 1.00 on the rest.
 */
static int offset_table(const struct dataset *data, size_t ndata, int rounds,
			size_t only_size, struct tally *missed)
{
	static const size_t offsets[] = { 0, 1, 33 };
	validator_fn saved[NIMPLS];

	printf("\n== GB/s by where each buffer starts: offset bytes past a 64-byte boundary\n");
	if (!impls[SU_ICELAKE].fn && !impls[SN_ICELAKE].fn) {
		printf("# no simdutf AVX-512 kernel runs on this CPU\n");
		return 0;
	}
	for (size_t k = 0; k < NIMPLS; k++) {
		saved[k] = impls[k].fn;
		if (k != CHECK && k != SU_ICELAKE && k != SN_ICELAKE)
			impls[k].fn = NULL;
	}
	header("dataset", "size", "offset  goal: speed ratio>=goal");
	for (size_t di = 0; di < ndata; di++) {
		for (size_t si = 0; si < ARRAY_SIZE(large_sizes); si++) {
			if (only_size && large_sizes[si] != only_size)
				continue;
			for (size_t oi = 0; oi < ARRAY_SIZE(offsets); oi++) {
				size_t count, bytes;
				struct piece *pool;
				double best[NIMPLS];

				pool = dataset_pool_at(&data[di], large_sizes[si],
						       offsets[oi], &count,
						       &bytes);
				if (!measure(pool, count, PASS_BYTES / bytes + 1,
					     rounds, bytes, best, data[di].name))
					return 1;
				free(pool);
				printf("%-15s %8zu", data[di].name, large_sizes[si]);
				for (size_t k = 0; k < NIMPLS; k++)
					if (impls[k].fn)
						printf(" %*.2f", width(&impls[k]),
						       1e-9 / best[k]);
				printf(" %6zu", offsets[oi]);
				goal("check/icelake", best[CHECK],
				     fastest(best, SIMD_PEER),
				     text_kind(data[di].name, NULL) == MULTI_BYTE ?
				     1.15 : 1.00, NONE, missed);
				printf("\n");
				fflush(stdout);
			}
		}
	}
	for (size_t k = 0; k < NIMPLS; k++)
		impls[k].fn = saved[k];
	return 0;
}

static int short_table(const struct short_set *sets, size_t nsets, int rounds,
		       bool callgrind, struct tally *missed)
{
	if (!callgrind) {
		printf("\n== short strings, one call each: ns per call\n");
		header("set", "mean len", "goal: speed ratio>=goal");
	}
	for (size_t si = 0; si < nsets; si++) {
		const struct short_set *s = &sets[si];
		double best[NIMPLS];

		if (callgrind) {
			callgrind_cell(s->name, s->bytes / s->count,
				       s->strings, s->count);
			continue;
		}
		if (!measure(s->strings, s->count, PASS_CALLS / s->count + 1,
			     rounds, s->count, best, s->name))
			return 1;
		printf("%-15s %8.1f", s->name, (double)s->bytes / s->count);
		for (size_t k = 0; k < NIMPLS; k++)
			if (impls[k].fn)
				printf(" %*.2f", width(&impls[k]), best[k] * 1e9);
		goal("check/peer", best[CHECK], fastest(best, SIMD_PEER), 1.00,
		     NONE, missed);
		printf("\n");
		fflush(stdout);
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: bench [--rounds N] [--size S] [--short | --fresh | --shuffled | --offsets]\n"
		"             [--callgrind]\n"
		"(bench/bench.c's opening comment says what each prints)\n");
	return 2;
}

/* A whole decimal number from 1 to @max, or 0 */
static unsigned long parse_count(const char *arg, unsigned long max)
{
	unsigned long n;
	char *end;

	if (*arg < '0' || *arg > '9')
		return 0;
	errno = 0;
	n = strtoul(arg, &end, 10);
	return errno || *end || n > max ? 0 : n;
}

int main(int argc, char **argv)
{
	struct dataset data[MAX_DATASETS];
	struct short_set shorts[MAX_SHORT_SETS];
	size_t ndata, nshort;
	int rounds = 9;
	struct tally missed = { 0 };
	bool callgrind = false, only_short = false, offsets = false;
	bool fresh = false, shuffled = false;
	size_t only_size = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--callgrind")) {
			callgrind = true;
		} else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = parse_count(argv[++i], 1000);
			if (!rounds)
				return usage();
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			only_size = parse_count(argv[++i], 1UL << 30);
			if (!only_size)
				return usage();
		} else if (!strcmp(argv[i], "--short")) {
			only_short = true;
		} else if (!strcmp(argv[i], "--offsets")) {
			offsets = true;
		} else if (!strcmp(argv[i], "--fresh")) {
			fresh = true;
		} else if (!strcmp(argv[i], "--shuffled")) {
			shuffled = true;
		} else {
			return usage();
		}
	}
	/* one table at a time: --short, --fresh, --shuffled, --offsets */
	if (only_short + fresh + shuffled + offsets > 1 ||
	    (callgrind && (fresh || offsets)) || (only_short && only_size))
		return usage();
	if (only_size) {
		const size_t *list = fresh || offsets ? large_sizes : sizes;
		size_t n = fresh || offsets ? ARRAY_SIZE(large_sizes) :
					      ARRAY_SIZE(sizes), i = 0;

		while (shuffled && n && list[n - 1] >= LONG_SIZE)
			n--;

		while (i < n && list[i] != only_size)
			i++;
		if (i == n) {
			fprintf(stderr, "bench: --size %zu: not a size of the table (",
				only_size);
			for (i = 0; i < n; i++)
				fprintf(stderr, "%s%zu", i ? ", " : "", list[i]);
			fprintf(stderr, ")\n");
			return 2;
		}
	}
	for (int p = 1; p < NR_UTF8VAL_PATHS; p++) {
		static char names[NR_UTF8VAL_PATHS][24];

		snprintf(names[p], sizeof(names[p]), "check_%s",
			 utf8val_path_name(p));
		impls[FORCED + p - 1].name = names[p];
		impls[FORCED + p - 1].path = p;
		if (!strcmp(utf8val_path_name(p), "avx2"))
			avx2_column = FORCED + p - 1;
	}
	impls[SJ_FALLBACK].fn = peer_simdjson("fallback");
	impls[SJ_HASWELL].fn = peer_simdjson("haswell");
	impls[SJ_ICELAKE].fn = peer_simdjson("icelake");
	impls[SU_FALLBACK].fn = peer_simdutf_named(peer_simdutf, "fallback");
	impls[SU_WESTMERE].fn = peer_simdutf_named(peer_simdutf, "westmere");
	impls[SU_HASWELL].fn = peer_simdutf_named(peer_simdutf, "haswell");
	impls[SU_ICELAKE].fn = peer_simdutf_named(peer_simdutf, "icelake");
	if (peer_simdutf_now) {
		impls[SN_HASWELL].fn = peer_simdutf_named(peer_simdutf_now,
							   "haswell");
		impls[SN_ICELAKE].fn = peer_simdutf_named(peer_simdutf_now,
							   "icelake");
	} else {
		printf("# no sn_ columns: simdutf's current source is not in ../shared/peers/simdutf\n");
	}
	impls[READ_CEILING].fn = read_ceiling();
	/* a forced path the CPU lacks would only repeat another column */
	for (size_t k = 0; k < NIMPLS; k++)
		if (impls[k].kind == OURS && impls[k].path != AUTO &&
		    (int)utf8val_simd_select(impls[k].path) != impls[k].path) {
			impls[k].fn = NULL;
			if ((int)k == avx2_column)
				avx2_column = -1;
		}
	printf("# check runs the %s path\n",
	       utf8val_path_name(utf8val_simd_select(AUTO)));

	ndata = datasets_load(data, "../shared");
	nshort = short_sets_load(shorts, "../shared");
	if (!callgrind) {
		for (size_t i = 0; i < ndata; i++)
			printf("# %-15s %s\n", data[i].name, data[i].what);
		for (size_t i = 0; i < nshort; i++)
			printf("# %-15s %zu strings, %.0f %% with a multi-byte character: %s\n",
			       shorts[i].name, shorts[i].count,
			       100.0 * shorts[i].non_ascii / shorts[i].count,
			       shorts[i].what);
	}
	if (fresh || offsets) {
		if (fresh ? fresh_table(data, ndata, only_size, &missed) :
			    offset_table(data, ndata, rounds, only_size,
					 &missed))
			return 1;
		print_tally(fresh ? "on fresh text" : "by offset", &missed);
		return 0;
	}
	if ((!only_short &&
	     gb_table(data, ndata, rounds, only_size, callgrind, shuffled,
		      &missed)) ||
	    (!only_size && !shuffled &&
	     short_table(shorts, nshort, rounds, callgrind, &missed)))
		return 1;
	if (!callgrind)
		print_tally(shuffled ? "in shuffled orders" :
			    only_short ? "by short strings" : "on the table",
			    &missed);
	return 0;
}
