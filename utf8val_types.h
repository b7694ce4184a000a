/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The one place where the freestanding core meets its environment: the
 * kernel's types under __KERNEL__, the compiler's freestanding headers
 * (no libc) everywhere else.
 */
#ifndef UTF8VAL_TYPES_H
#define UTF8VAL_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef unsigned long long u64;	/* the kernel's u64 on every architecture */
#endif

#endif /* UTF8VAL_TYPES_H */
