// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Throughput of utf8val beside its peers, in one run, on the same buffers.
 *
 *   bench [--rounds N] [--size S]
 *                          GB/s table, best of N interleaved rounds, of
 *                          every size or only of S bytes
 *   bench --callgrind      one pass per cell between callgrind dumps, for
 *                          scripts/run-bench to turn into instructions/byte
 *
 * Every size rotates through many distinct buffers cut at character
 * boundaries from different offsets, so the branch predictor cannot learn
 * one buffer. The utf8val core is compiled with the kernel's code
 * generation flags (see Makefile); the peers are Debian's builds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <valgrind/callgrind.h>

#include "utf8val.h"
#include "utf8val_simd.h"
#include "bench/peers.h"

#define SOURCE_LEN	(8u << 20)	/* text each dataset is cut from */
#define POOL_BYTES	(512u << 10)	/* distinct buffers per size: L2-sized */
#define PASS_BYTES	(2u << 20)	/* bytes validated per timed sample */
#define CALLGRIND_BYTES	(256u << 10)	/* bytes per cell under callgrind */

static int utf8val_check_fn(const unsigned char *s, size_t len)
{
	return utf8val_check(s, len);
}

static int utf8val_validate_fn(const unsigned char *s, size_t len)
{
	struct utf8val_result res;

	return utf8val_validate(s, len, 0, &res) == UTF8VAL_OK;
}

enum kind { OURS, SCALAR_PEER, SIMD_PEER };

struct impl {
	const char *name;
	validator_fn fn;
	enum kind kind;
	int path;	/* ours: the path forced while it runs, -1 the best */
};

#define AUTO -1
static struct impl impls[] = {
	{ "check", utf8val_check_fn, OURS, AUTO },
	{ "check_avx2", utf8val_check_fn, OURS, UTF8VAL_PATH_AVX2 },
	{ "check_scalar", utf8val_check_fn, OURS, UTF8VAL_PATH_SCALAR },
	{ "validate", utf8val_validate_fn, OURS, AUTO },
	{ "glib", peer_glib, SCALAR_PEER },
	{ "icu_U8_NEXT", peer_icu, SCALAR_PEER },
	{ "sj_fallback", NULL, SIMD_PEER },
	{ "sj_haswell", NULL, SIMD_PEER },
	{ "sj_icelake", NULL, SIMD_PEER },
};
#define NIMPLS (sizeof(impls) / sizeof(impls[0]))

static const size_t sizes[] = { 16, 64, 256, 4096, 65536, 1 << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

struct dataset {
	const char *name;
	u8 *text;
	size_t len;
};

static u64 rng_state = 0x5eed;

static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static u32 random_cp(int kind)
{
	switch (kind == 4 ? 3 : kind ? kind - 1 : (int)(rng() % 4)) {
	case 0:
		return 0x20 + rng() % 0x5f;
	case 1:
		return 0x80 + rng() % 0x780;
	case 2:
		for (;;) {
			u32 cp = 0x800 + rng() % 0xf800;

			if (cp < 0xd800 || cp > 0xdfff)
				return cp;
		}
	default:
		return 0x10000 + rng() % 0x100000;
	}
}

/* Random text: kind 0 mixes 1- to 4-byte characters, 4 is all 4-byte. */
static void make_random(struct dataset *d, const char *name, int kind)
{
	size_t n = 0;

	d->name = name;
	d->text = malloc(SOURCE_LEN);
	while (n + 4 <= SOURCE_LEN)
		n += utf8val_encode(random_cp(kind), 0, d->text + n);
	d->len = n;
}

/* A file of ../shared/corpus repeated up to SOURCE_LEN. */
static bool make_corpus(struct dataset *d, const char *name, const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t n, len = 0;

	if (!f)
		return false;
	d->name = name;
	d->text = malloc(SOURCE_LEN);
	n = fread(d->text, 1, SOURCE_LEN, f);
	fclose(f);
	if (!n || !utf8val_check(d->text, n))
		return false;
	while (len + n <= SOURCE_LEN) {
		memmove(d->text + len, d->text, n);
		len += n;
	}
	d->len = len;
	return true;
}

struct piece {
	const u8 *p;
	size_t len;
};

/* Distinct buffers of about @size bytes, each cut at character boundaries. */
static struct piece *make_pool(const struct dataset *d, size_t size,
			       size_t *count, size_t *bytes)
{
	size_t n = POOL_BYTES / size, total = 0;
	struct piece *pool;

	/* Enough buffers that no branch history repeats, few enough to stay
	 * in L2: the table measures the validator, not DRAM.
	 */
	if (n < 2)
		n = 2;
	if (n > 32768)
		n = 32768;
	pool = malloc(n * sizeof(*pool));
	for (size_t i = 0; i < n; i++) {
		size_t start = rng() % (d->len - size), end;

		while ((d->text[start] & 0xc0) == 0x80)
			start++;
		end = start + size;
		while (end > start && (d->text[end] & 0xc0) == 0x80)
			end--;
		pool[i] = (struct piece){ d->text + start, end - start };
		total += end - start;
	}
	*count = n;
	*bytes = total;
	return pool;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void select_path(const struct impl *im)
{
	if (im->kind == OURS)
		utf8val_simd_select(im->path);
}

/* Validate PASS_BYTES worth of the pool; returns the valid count. */
static size_t pass(validator_fn fn, const struct piece *pool, size_t count,
		   size_t bytes, size_t *done)
{
	size_t reps = PASS_BYTES / bytes + 1, ok = 0;

	for (size_t r = 0; r < reps; r++)
		for (size_t i = 0; i < count; i++)
			ok += fn(pool[i].p, pool[i].len);
	*done = reps * bytes;
	return ok;
}

int main(int argc, char **argv)
{
	struct dataset data[5];
	size_t ndata = 0;
	int rounds = 9;
	bool callgrind = false;
	size_t only_size = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--callgrind"))
			callgrind = true;
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			only_size = strtoul(argv[++i], NULL, 0);
	}
	impls[6].fn = peer_simdjson("fallback");
	impls[7].fn = peer_simdjson("haswell");
	impls[8].fn = peer_simdjson("icelake");
	/* a forced path the CPU lacks would only repeat another column */
	for (size_t k = 0; k < NIMPLS; k++)
		if (impls[k].kind == OURS && impls[k].path != AUTO &&
		    (int)utf8val_simd_select(impls[k].path) != impls[k].path)
			impls[k].fn = NULL;
	printf("# check runs the %s path\n",
	       utf8val_path_name(utf8val_simd_select(AUTO)));

	make_random(&data[ndata++], "ascii", 1);
	if (make_corpus(&data[ndata], "rfc3629-en-ja",
			"../shared/corpus/rfc3629-en-ja.txt"))
		ndata++;
	if (make_corpus(&data[ndata], "web-zh-rfc3629",
			"../shared/corpus/web-zh-rfc3629.txt"))
		ndata++;
	if (ndata < 3)
		printf("# ../shared/corpus missing: corpus rows skipped\n");
	make_random(&data[ndata++], "random-1-4", 0);
	make_random(&data[ndata++], "all-4-byte", 4);

	if (!callgrind) {
		printf("%-15s %8s", "dataset", "size");
		for (size_t k = 0; k < NIMPLS; k++)
			if (impls[k].fn)
				printf(" %*s", (int)strlen(impls[k].name) > 9 ?
				       (int)strlen(impls[k].name) : 9,
				       impls[k].name);
		printf("  %s  %s\n", "check/scalar-peer", "ours/simd-peer");
	}
	for (size_t di = 0; di < ndata; di++) {
		for (size_t si = 0; si < NSIZES; si++) {
			size_t count, bytes, done;
			struct piece *pool = make_pool(&data[di], sizes[si],
						       &count, &bytes);
			double best[NIMPLS];

			if (only_size && sizes[si] != only_size) {
				free(pool);
				continue;
			}
			for (size_t k = 0; k < NIMPLS; k++)
				best[k] = 1e30;
			if (callgrind) {
				for (size_t k = 0; k < NIMPLS; k++) {
					size_t n = CALLGRIND_BYTES / sizes[si];
					u64 b = 0;

					if (!impls[k].fn)
						continue;
					select_path(&impls[k]);
					n = n > count ? count : n ? n : 1;
					for (size_t i = 0; i < n; i++)
						b += pool[i].len;
					CALLGRIND_ZERO_STATS;
					for (size_t i = 0; i < n; i++)
						impls[k].fn(pool[i].p,
							    pool[i].len);
					CALLGRIND_DUMP_STATS_AT(impls[k].name);
					printf("cell %s %zu %s %llu\n",
					       data[di].name, sizes[si],
					       impls[k].name, b);
				}
				free(pool);
				continue;
			}
			/* Interleave implementations round by round, so
			 * that noise hits them alike; keep each one's best.
			 */
			for (int r = 0; r < rounds; r++) {
				for (size_t k = 0; k < NIMPLS; k++) {
					double t;

					if (!impls[k].fn)
						continue;
					select_path(&impls[k]);
					t = now();
					if (pass(impls[k].fn, pool, count, bytes,
						 &done) != count *
						(PASS_BYTES / bytes + 1)) {
						printf("%s rejects valid %s text\n",
						       impls[k].name,
						       data[di].name);
						return 1;
					}
					t = (now() - t) / done;
					if (t < best[k])
						best[k] = t;
				}
			}
			printf("%-15s %8zu", data[di].name, sizes[si]);
			/* best times: scalar peers, SIMD peers, our paths */
			double fastest[3] = { 1e30, 1e30, 1e30 };

			for (size_t k = 0; k < NIMPLS; k++) {
				int w = strlen(impls[k].name) > 9 ?
					strlen(impls[k].name) : 9;

				if (!impls[k].fn)
					continue;
				printf(" %*.2f", w, 1e-9 / best[k]);
				if (best[k] < fastest[impls[k].kind])
					fastest[impls[k].kind] = best[k];
			}
			printf("  %16.2fx  %13.2fx\n",
			       fastest[SCALAR_PEER] / best[0],
			       fastest[SIMD_PEER] / fastest[OURS]);
			fflush(stdout);
			free(pool);
		}
	}
	return 0;
}
