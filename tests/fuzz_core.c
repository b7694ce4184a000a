// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: the first byte picks the flags (unknown bits
 * included), the next eight seed the stream's random cut points, the rest
 * is the input. utf8val_validate(), utf8val_check(), the stream API and
 * utf8val_decode() must all agree with the reference, on every validation
 * path the CPU has (compare_all()), also against guard pages; so must the
 * error iterator and utf8val_replace() (compare_replace()).
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct rng rng = { 0 };
	unsigned int flags;

	if (size < 9)
		return 0;
	/* mostly defined flags, sometimes an unknown bit */
	flags = data[0] & (data[0] & 0x80 ? 0xff : UTF8VAL_FLAGS_ALL);
	memcpy(&rng.s, data + 1, sizeof(rng.s));
	if (!compare_all(data + 9, size - 9, flags,
			 CMP_STREAM_RANDOM | CMP_DECODE, &rng) ||
	    !compare_all(data + 9, size - 9, 0, CMP_STREAM_BYTES, &rng) ||
	    (!(flags & ~UTF8VAL_FLAGS_ALL) &&
	     !compare_replace(data + 9, size - 9, flags, &rng)))
		abort();
	return 0;
}
