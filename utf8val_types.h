/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The one place where the freestanding core meets its environment: the
 * kernel's types and helpers under __KERNEL__, the compiler's freestanding
 * headers (no libc) everywhere else.
 */
#ifndef UTF8VAL_TYPES_H
#define UTF8VAL_TYPES_H

#ifdef __KERNEL__
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/types.h>

/* Exported where it is defined, as kernel code does. */
#define UTF8VAL_EXPORT(sym)	EXPORT_SYMBOL_GPL(sym)
#else
#include <stdbool.h>
#include <stddef.h>

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;	/* the kernel's u64 on every architecture */

/* Nothing to export: an unused struct tag keeps "UTF8VAL_EXPORT(f);" valid. */
#define UTF8VAL_EXPORT(sym)	struct utf8val_export_##sym
/* The Makefile defines the real attribute; other builds get plain inline. */
#ifndef __always_inline
#define __always_inline	inline
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#endif

#endif /* UTF8VAL_TYPES_H */
