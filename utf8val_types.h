/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The one place where the freestanding core meets its environment: the
 * kernel's types and helpers under __KERNEL__, the compiler's freestanding
 * headers (no libc) everywhere else.
 */
#ifndef UTF8VAL_TYPES_H
#define UTF8VAL_TYPES_H

/* Nothing to export: an unused struct tag keeps "UTF8VAL_EXPORT(f);" valid. */
#define UTF8VAL_EXPORT_NONE(sym)	struct utf8val_export_##sym

#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/types.h>

/* A word other CPUs may change at any time (utf8val.simd=). */
#define utf8val_read_once(x)		READ_ONCE(x)
#define utf8val_write_once(x, val)	WRITE_ONCE(x, val)

/* Exported where it is defined, as kernel code does. */
#define UTF8VAL_EXPORT(sym)	EXPORT_SYMBOL_GPL(sym)
/* Internals the KUnit suite drives; only kernels with KUnit export them. */
#ifdef CONFIG_KUNIT
#include <kunit/visibility.h>
#define UTF8VAL_EXPORT_FOR_TESTS(sym)	EXPORT_SYMBOL_IF_KUNIT(sym)
#else
#define UTF8VAL_EXPORT_FOR_TESTS(sym)	UTF8VAL_EXPORT_NONE(sym)
#endif
#else
#include <stdbool.h>
#include <stddef.h>

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;	/* the kernel's u64 on every architecture */

#define UTF8VAL_EXPORT(sym)		UTF8VAL_EXPORT_NONE(sym)
#define UTF8VAL_EXPORT_FOR_TESTS(sym)	UTF8VAL_EXPORT_NONE(sym)
#define utf8val_read_once(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define utf8val_write_once(x, val)	__atomic_store_n(&(x), val, __ATOMIC_RELAXED)
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
/* the kernel's compile-time check (linux/build_bug.h) */
#ifndef BUILD_BUG_ON
#define BUILD_BUG_ON(cond)	((void)sizeof(char[1 - 2 * !!(cond)]))
#endif
#endif

#endif /* UTF8VAL_TYPES_H */
