/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Shared pieces of the host tests: RNG, core-vs-reference (and TAP). */
#ifndef UTF8VAL_TEST_COMMON_H
#define UTF8VAL_TEST_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "reference.h"
#include "tap.h"

/* splitmix64: small, seedable, good enough for test inputs. */
struct rng {
	u64 s;
};
u64 rng_next(struct rng *r);
static inline u64 rng_below(struct rng *r, u64 n)
{
	return n ? rng_next(r) % n : 0;
}

/* Which entry points compare_all() exercises besides utf8val_validate(). */
#define CMP_STREAM_BYTES	0x1	/* stream fed one byte at a time */
#define CMP_STREAM_RANDOM	0x2	/* stream fed in random pieces */
#define CMP_STREAM_EVERY_SPLIT	0x4	/* stream cut in two at every point */
#define CMP_DECODE		0x8	/* utf8val_decode() of the first char */
#define CMP_ALL			0xf

/* Every compare_all() input up to this length also ends at a guard page. */
#define GUARDED_MAX	(256u << 10)
const u8 *guarded_copy(const u8 *buf, size_t len, bool at_end);

/*
 * Compare the core with ref_validate() on one input, on every path the
 * CPU has: validate (with and without a result), check (strict only),
 * both again against guard pages, the stream API as @what asks, and
 * decode. Prints a diagnostic for the first few mismatches.
 */
bool compare_all(const u8 *buf, size_t len, unsigned int flags,
		 unsigned int what, struct rng *rng);
/*
 * utf8val_check() alone against ref_validate() on one strict input, on
 * every path the CPU has, and again against guard pages.
 */
bool compare_check(const u8 *buf, size_t len);
/*
 * The error iterator and utf8val_replace() (whole, sized first, and cut
 * at 40 output sizes, 8 past 4 KiB) against ref_replace() on one input,
 * which must have known flags, on every path its mode runs in.
 */
bool compare_replace(const u8 *buf, size_t len, unsigned int flags,
		     struct rng *rng);
/*
 * The stream fed @buf (strict) in two pieces, cut at @cut, against
 * ref_validate() on the whole, on the path set now.
 */
bool compare_stream_cut(const u8 *buf, size_t len, size_t cut);
/* Mismatches reported so far (diagnostics stop after a few). */
extern unsigned long compare_failures;

/* Whether two verdicts agree in every member. */
bool same_result(const struct utf8val_result *a, const struct utf8val_result *b);
void print_result(const char *who, const struct utf8val_result *r);
void print_bytes(const u8 *buf, size_t len);

/* Counts an input compared on @path (an enum utf8val_path); report_paths()
 * says, for each vector path of the build, whether it was compared (with
 * @against), and skips those the CPU cannot run.
 */
void path_compared(int path);
void report_paths(const char *against);

/* "../shared" beside the project, or NULL if it is absent. */
const char *shared_dir(void);
int shared_missing(const char *what, bool whole);

/*
 * Where the scalar path's lane @k (0 to 3) is aimed in an input of @len
 * bytes, 512 or more (utf8val_core.c's dfa_lanes()): each lane takes
 * scalar_lane_span() bytes of blocks, the middle two a third of the rest
 * apart and the last ending at the end. Off RISC-V a lane starts at the
 * character that holds its aim (up to 3 bytes back). On RISC-V the blocks
 * of lanes 1 to 3 start at the 8-byte boundary at or before the aim, and
 * the lane at the character that holds that boundary (up to 10 bytes
 * back); lane 0's blocks start at the first boundary in the input.
 */
static inline size_t scalar_lane_span(size_t len)
{
	return (len + 127) / 128 * 32;
}

static inline size_t scalar_lane_aim(size_t len, unsigned int k)
{
	const size_t span = scalar_lane_span(len);

	return k < 3 ? k * ((len - span) / 3) : len - span;
}

/*
 * UTF8VAL_QUICK=1: a run that does less, under an emulator, and where
 * another build runs the whole (the sanitizers', the kernel flags', make
 * check's: scripts/run-host-tests).
 */
bool quick_run(void);

/*
 * Run @fn(flags, arg) for every combination of the defined flags (in a
 * quick run: none, each alone, all), spread over the CPUs in child
 * processes; returns the total of what @fn returned (its mismatch count).
 */
unsigned long for_all_flags(unsigned long (*fn)(unsigned int flags, void *arg),
			    void *arg);
/* What for_all_flags() runs, for a result's text. */
const char *all_flags_said(void);
/* The same for the @n flag values of @list (NULL: the values 0 to n - 1). */
unsigned long for_flags_in(const unsigned int *list, unsigned int n,
			   unsigned long (*fn)(unsigned int flags, void *arg),
			   void *arg);
#endif
