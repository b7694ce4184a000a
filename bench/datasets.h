/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The inputs every speed table measures: random text, the corpora of
 * ../shared, and short strings cut from them. bench/bench.c and
 * bench/kernel_rows.c build the same ones, so that their rows compare.
 */
#ifndef UTF8VAL_BENCH_DATASETS_H
#define UTF8VAL_BENCH_DATASETS_H

#include "utf8val_types.h"
#include "bench/peers.h"

#define DATASET_LEN	(8u << 20)	/* text each dataset is cut from */
#define POOL_BYTES	(512u << 10)	/* distinct buffers per size, cache-sized */

struct dataset {
	const char *name;
	const char *what;	/* one line for the table's legend */
	u8 *text;
	size_t len;
	size_t period;		/* the text repeats after this many bytes */
};

/* A buffer to validate: a pointer into a dataset's text. */
struct piece {
	const u8 *p;
	size_t len;
};

/*
 * Fill @sets (room for MAX_DATASETS) with every dataset this machine can
 * build: random ASCII, each corpus of @shared (the path of ../shared)
 * and of MADE_CORPORA that is there, lines of two of ../shared's in
 * turn, all of them in a row, then random multi-byte text; a missing
 * corpus is reported on stdout with a leading '#'. Returns how many.
 */
#ifndef MADE_CORPORA	/* scripts/bench-corpora's folder (the Makefile's) */
#define MADE_CORPORA	"build/bench/corpus"
#endif
#define MAX_DATASETS	12
size_t datasets_load(struct dataset *sets, const char *shared);

/*
 * Distinct buffers of @size bytes to @size + 3 (cut at character
 * boundaries, so that a kernel threshold of @size applies to each) from
 * @d, POOL_BYTES in all but at least 2 (so 2 MiB at 1 MiB): few enough
 * to stay in the caches, so that the tables measure the validator, not
 * DRAM. The same pieces for the same @d and @size in every program.
 * *@count receives how many, *@bytes their sum. A pool repeats, and a
 * short corpus repeats within a piece too (pool_seconds() says what the
 * branch predictor makes of that).
 */
struct piece *dataset_pool(const struct dataset *d, size_t size,
			   size_t *count, size_t *bytes);

/*
 * dataset_pool()'s pieces, each copied to start @offset bytes (0 to 63)
 * past a 64-byte boundary: where a kernel's aligned reads begin matters
 * (simdutf's AVX-512 validator aligns its reads from 2 KiB on). One
 * allocation: free() the pool frees the copies.
 */
struct piece *dataset_pool_at(const struct dataset *d, size_t size,
			      size_t offset, size_t *count, size_t *bytes);

/* A monotonic clock, in seconds. */
double bench_now(void);

/*
 * Text in a sequence no pass has met before: about @room bytes of runs of
 * FRESH_RUN bytes (to the next line end) from random places of @d, into
 * @buf, each from a line start where @d has lines, else from a character
 * boundary. A pool's pieces repeat, and a recent CPU's branch predictor
 * learns them (pool_seconds()), which a validator's first look at a file
 * never meets. Returns the bytes written.
 */
#define FRESH_RUN	4096
size_t dataset_fresh(const struct dataset *d, u8 *buf, size_t room);

/*
 * Seconds @reps passes over @pool take @fn, or a negative number if @fn
 * rejects a piece (all of them are valid). Untimed passes go first, until
 * two agree within 2 % (WARM_PASSES at most): the pool repeats, and a
 * recent CPU's branch predictor learns much of it in a pass or two, so
 * every implementation is timed as warm as it gets. With none, one that
 * ran after the same code over the same pool (the automatic path's
 * column, then that path's forced one) met a predictor trained for it,
 * and the others a colder one: on an AMD EPYC Zen 5 at 1 MiB the same
 * code measured 20-40 % apart on mixed text; one pass narrowed that,
 * without closing it.
 * Text validated once is colder than this.
 */
#define WARM_PASSES	6
double pool_seconds(validator_fn fn, const struct piece *pool, size_t count,
		    size_t reps);

/* Short strings, one call each: a set of pieces and what they are. */
struct short_set {
	const char *name;
	const char *what;
	struct piece *strings;
	size_t count;
	size_t bytes;
	size_t non_ascii;	/* strings with a multi-byte character */
};

/*
 * Fill @sets (room for MAX_SHORT_SETS) with strings of 8 to 64 bytes
 * like the names and keys programs pass one at a time: the fields of
 * ../shared's MAINTAINERS file (paths, path components, names) and
 * JSON file (codes, names, types), by length, in a fixed random order.
 * Returns how many sets (0 without ../shared).
 */
#define MAX_SHORT_SETS	5
size_t short_sets_load(struct short_set *sets, const char *shared);

#endif /* UTF8VAL_BENCH_DATASETS_H */
