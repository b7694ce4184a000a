/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Internal to utf8val: the vector fast paths, each in its own translation
 * unit with its own compiler flags in its architecture's folder, and the
 * core's choice among them (utf8val_simd_select() in utf8val_core.c).
 */
#ifndef UTF8VAL_SIMD_H
#define UTF8VAL_SIMD_H

#include "utf8val_types.h"
#include "utf8val.h"

/* Outside the kernel, the kernel's inlining attributes. */
#ifndef __KERNEL__
#include "utf8val_user.h"
#endif

/*
 * Check the 64-byte blocks of @s from @from up to @to, strict RFC 3629.
 * @from is 0 or at least 64, and less than @to; the 64 bytes before it
 * are the context. All
 * of s[0..to) may be read, nothing before @s (a tail overlapping the last
 * block looks back up to 128 bytes from @to).
 * Returns the end of the blocks found clean: @to less (to - from) % 64,
 * or @to where the path moved its steps to a 64-byte boundary (where
 * @to - @from reaches the path's ALIGN_FROM or VEC_ALIGN_FROM and @s +
 * @from is not on one; for AVX-512 at @from 0, only if the boundary is
 * 3 bytes or more after @s: the last block overlaps the one before),
 * or a block start at or before the first
 * block where an error shows (AVX-512: the start of its 256-byte step,
 * or @from). A character may
 * straddle the returned point unchecked, unless @end says that @to ends
 * the input: then the tail shorter than a block is checked too, by the
 * paths that can (up to @to on success), and a block ending inside a
 * character is not clean. An error may show one block after the bytes at
 * fault. Adds the characters started in the clean blocks to *@chars
 * unless @chars is NULL. Called from 0 with @end and a @to of at least
 * the path's min_len (struct utf8val_simd_impl), it takes valid input
 * whole (test_exhaustive holds every path to that). Only between
 * utf8val_simd_begin() and utf8val_simd_end().
 */
typedef size_t (*utf8val_blocks_fn)(const u8 *s, size_t from, size_t to,
				    bool end, u64 *chars);

/*
 * The newlines in the @len bytes at @s, @len a multiple of 64 (for
 * /dev/utf8val's line numbers), and if there is one, in *@last_end the
 * end of the last 64-byte block that holds one. Only between
 * utf8val_simd_begin() and utf8val_simd_end().
 */
typedef u64 (*utf8val_newlines_fn)(const u8 *s, size_t len,
				   size_t *last_end);

/*
 * The end of every path's blocks() when @to ends the input and the last
 * clean block, at @i - 64, leaves a character open: that block is not
 * clean after all. Takes its characters (@last_chars) back from *@count;
 * returns where the clean blocks end.
 */
static __always_inline size_t
utf8val_drop_open_block(size_t i, size_t from, u64 *count, u64 last_chars)
{
	if (i - from >= 64) {
		*count -= last_chars;
		return i - 64;
	}
	*count = 0;
	return from;
}

/*
 * How many values enum utf8val_error has (utf8val.h): a new error is added
 * last, and this follows it. Not in utf8val.h, where it would be compiled
 * into programs and go stale; the core checks that every error has a name.
 */
#define UTF8VAL_NR_ERRORS	(UTF8VAL_EFLAGS + 1)

/* A vector path, as the core runs it. */
struct utf8val_simd_impl {
	const char *name;		/* for utf8val.simd= and the tests */
	utf8val_blocks_fn blocks;
	size_t min_len;			/* below it, the DFA alone is faster;
					 * from it, blocks() must take valid
					 * input whole (its tail too)
					 */
	size_t ascii_first;		/* below it, ASCII words go first */
	utf8val_newlines_fn newlines;	/* or NULL: the core's words */
};

/*
 * The target's architecture header, from its folder (x86/, arm64/, ...;
 * generic/ where there are no vector paths), which Kbuild and the
 * Makefile put on the include path. It says:
 *   enum utf8val_path      UTF8VAL_PATH_SCALAR, its paths, then
 *                          NR_UTF8VAL_PATHS
 *   UTF8VAL_ARCH_IMPLS     its paths, as struct utf8val_simd_impl
 *                          initialisers indexed by enum utf8val_path;
 *                          every list of paths (the module parameter,
 *                          KUnit, the tests, the benchmarks) is made
 *                          from these two
 *   utf8val_arch_paths()   which of them this CPU can run, a bit each
 *                          (bits above the paths are the architecture's
 *                          own, for utf8val_arch_auto()); asked once
 *   utf8val_arch_auto()    which of those "auto" takes
 *   UTF8VAL_WHOLE_MAX      optional: the longest input a path checks
 *                          whole in one call, where its fixed cost is
 *                          most of the work (none where the paths start
 *                          past it, at UTF8VAL_SIMD_MIN_LEN), and for
 *                          each path utf8val_arch_has_whole(path, len),
 *                          whether it takes @len bytes (at most that)
 *                          so, and utf8val_arch_whole(path, s, len),
 *                          whether those at s are valid, nothing counted
 *                          (a direct call: short strings are where an
 *                          indirect one's cost shows)
 * and in the kernel:
 *   utf8val_simd_usable(), utf8val_simd_begin(), utf8val_simd_end()
 *                          whether this context may use vector registers,
 *                          and the section that does
 *   UTF8VAL_SIMD_SAVE_AREA the declaration of the buffer that section
 *                          needs on the caller's stack, if it needs one,
 *                          named utf8val_fpsimd_save, and its size
 *                          (UTF8VAL_SIMD_SAVE_AREA_SIZE)
 *   UTF8VAL_SIMD_MIN_LEN   the shortest input worth that section
 */
#include "utf8val_arch.h"

/*
 * No path checks a whole input in one call: no length is short enough
 * (checks_whole()), and simd_whole() would take blocks().
 */
#ifndef UTF8VAL_WHOLE_MAX
#define UTF8VAL_WHOLE_MAX		0
#define utf8val_arch_has_whole(path, len)	((void)(path), (void)(len), false)
#define utf8val_arch_whole(path, s, len)	\
	((void)(path), (void)(s), (void)(len), false)
#endif

#ifndef UTF8VAL_SIMD_SAVE_AREA
#define UTF8VAL_SIMD_SAVE_AREA		do { } while (0)
#define UTF8VAL_SIMD_SAVE_AREA_SIZE	0
#endif

/* User space saves no state: its vector paths run anywhere, any length. */
#ifndef __KERNEL__
#define utf8val_simd_usable()	true
#define utf8val_simd_begin()	do { } while (0)
#define utf8val_simd_end()	do { } while (0)
/* Each path has its own; tests may build with the kernel's instead. */
#ifndef UTF8VAL_SIMD_MIN_LEN
#define UTF8VAL_SIMD_MIN_LEN	1
#endif
#endif

/**
 * utf8val_simd_select() - choose the validation path
 * @path: an &enum utf8val_path, or -1 for the best the CPU has
 *
 * A path the CPU lacks falls back to the scalar one. Safe against callers
 * validating at the same time: each call sees the old path or the new.
 *
 * Return: the path now in use.
 */
enum utf8val_path utf8val_simd_select(int path);

/* utf8val_check() and utf8val_validate() that never take a vector path */
bool utf8val_check_scalar(const void *buf, size_t len);
enum utf8val_error utf8val_validate_scalar(const void *buf, size_t len,
					   unsigned int flags,
					   struct utf8val_result *res);

/**
 * utf8val_simd_path() - the validation path in use
 *
 * Return: the path utf8val_simd_select() last chose.
 */
enum utf8val_path utf8val_simd_path(void);

/**
 * utf8val_path_name() - the name utf8val.simd= uses for a path
 * @path: an &enum utf8val_path
 *
 * Return: "scalar" or the name of one of this build's vector paths
 * (UTF8VAL_ARCH_IMPLS), or "unknown" for anything else.
 */
const char *utf8val_path_name(enum utf8val_path path);

#endif /* UTF8VAL_SIMD_H */
