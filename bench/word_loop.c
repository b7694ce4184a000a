// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The ceiling for scalar ASCII: a plain loop over 8-byte words, one an
 * iteration, built with the kernel's code generation flags like the core.
 * bench/kernel_rows.c measures utf8val_check() on the scalar path against
 * it the way a caller sees both: through a function pointer, on buffers
 * that start at varied offsets.
 */
#include "utf8val_types.h"
#include "bench/word_loop.h"

bool word_loop_ascii(const void *buf, size_t len)
{
	const u8 *s = buf;
	size_t i = 0;

	for (; len - i >= 8; i += 8) {
		u64 w;

		__builtin_memcpy(&w, s + i, sizeof(w));
		if (w & 0x8080808080808080ull)
			return false;
	}
	for (; i < len; i++)
		if (s[i] & 0x80)
			return false;
	return true;
}
