/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef UTF8VAL_BENCH_WORD_LOOP_H
#define UTF8VAL_BENCH_WORD_LOOP_H

#include "utf8val_types.h"

/* Whether @s is all ASCII, one 8-byte word an iteration. */
bool word_loop_ascii(const void *buf, size_t len);

#endif
