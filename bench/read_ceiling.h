/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The read ceiling: a plain vector load loop, the fastest any validator
 * could go over the same buffers. Always returns 1 (the bytes it ORs
 * together go to a sink, so that the loads stay).
 */
#ifndef UTF8VAL_BENCH_READ_CEILING_H
#define UTF8VAL_BENCH_READ_CEILING_H

#include <stddef.h>

/* The widest loop this CPU runs (AVX-512, AVX2 or 8-byte words). */
int (*read_ceiling(void))(const unsigned char *s, size_t len);

#endif
