/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * utf8val on an architecture without vector paths (or a configuration of
 * one without them, such as 32-bit x86): the scalar path alone. What an
 * architecture's header must say is in utf8val_simd.h.
 *
 * Included by utf8val_simd.h only, through the include path the build
 * sets (Kbuild and Makefile pick the folder).
 */
#ifndef UTF8VAL_GENERIC_ARCH_H
#define UTF8VAL_GENERIC_ARCH_H

enum utf8val_path {
	UTF8VAL_PATH_SCALAR,
	NR_UTF8VAL_PATHS
};

#define UTF8VAL_ARCH_IMPLS

static inline unsigned int utf8val_arch_paths(void)
{
	return 0;
}

static inline enum utf8val_path utf8val_arch_auto(unsigned int has)
{
	(void)has;
	return UTF8VAL_PATH_SCALAR;
}

#ifdef __KERNEL__
#define utf8val_simd_usable()	false
#define utf8val_simd_begin()	do { } while (0)
#define utf8val_simd_end()	do { } while (0)
#define UTF8VAL_SIMD_MIN_LEN	((size_t)-1)
#endif

#endif /* UTF8VAL_GENERIC_ARCH_H */
