// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The read ceiling (see read_ceiling.h): each loop loads every byte, once
 * but for an overlapping head or tail, into four accumulators so that no
 * dependency chain limits it, aligned after its head, and ORs it all into
 * one register.
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "bench/read_ceiling.h"

static volatile uint64_t sink;

/*
 * The bench's pieces start anywhere, and an unaligned 64-byte load that
 * splits two cache lines costs two reads of the cache: a loop of them ran
 * at 0.6 of the aligned AVX-512 check on an Intel Xeon (model 207) at
 * 4 and 64 KiB. So the head, up to the first 64-byte boundary, is one
 * masked load (which may split), and every load after it is aligned.
 */
__attribute__((target("avx512f,avx512bw")))
static int loads_avx512(const unsigned char *s, size_t len)
{
	size_t i = -(uintptr_t)s & 63;
	__m512i a, b = _mm512_setzero_si512(), c = b, d = b;

	if (i > len)
		i = len;
	a = _mm512_maskz_loadu_epi8(i ? ~0ull >> (64 - i) : 0, s);
	for (; len - i >= 256; i += 256) {
		a = _mm512_or_si512(a, _mm512_load_si512(s + i));
		b = _mm512_or_si512(b, _mm512_load_si512(s + i + 64));
		c = _mm512_or_si512(c, _mm512_load_si512(s + i + 128));
		d = _mm512_or_si512(d, _mm512_load_si512(s + i + 192));
	}
	for (; len - i >= 64; i += 64)
		a = _mm512_or_si512(a, _mm512_load_si512(s + i));
	if (i < len)
		b = _mm512_or_si512(b, _mm512_maskz_loadu_epi8(
				~0ull >> (64 - (len - i)), s + i));
	a = _mm512_ternarylogic_epi64(a, b, _mm512_or_si512(c, d), 0xfe);
	sink = _mm512_movepi8_mask(a);
	return 1;
}

/*
 * The same with 32-byte loads: the first 32 bytes, which hold the head, and
 * the last 32 may split (and read again what others read), no other.
 */
__attribute__((target("avx2")))
static int loads_avx2(const unsigned char *s, size_t len)
{
	size_t i = -(uintptr_t)s & 31;
	__m256i a, b = _mm256_setzero_si256(), c = b, d = b;

	if (len < 32) {
		uint64_t acc = 0;

		for (i = 0; i < len; i++)
			acc |= s[i];
		sink = acc;
		return 1;
	}
	/* the first 32 bytes, which hold the head up to a boundary */
	a = _mm256_loadu_si256((const void *)s);
	for (; len - i >= 128; i += 128) {
		a = _mm256_or_si256(a, _mm256_load_si256((const void *)(s + i)));
		b = _mm256_or_si256(b, _mm256_load_si256((const void *)(s + i + 32)));
		c = _mm256_or_si256(c, _mm256_load_si256((const void *)(s + i + 64)));
		d = _mm256_or_si256(d, _mm256_load_si256((const void *)(s + i + 96)));
	}
	for (; len - i >= 32; i += 32)
		a = _mm256_or_si256(a, _mm256_load_si256((const void *)(s + i)));
	if (i < len)	/* the last 32 bytes, overlapping */
		b = _mm256_or_si256(b, _mm256_loadu_si256(
				(const void *)(s + len - 32)));
	a = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
	sink = (uint32_t)_mm256_movemask_epi8(a);
	return 1;
}

static int loads_words(const unsigned char *s, size_t len)
{
	uint64_t acc = 0, w;
	size_t i = 0;

	for (; len - i >= 8; i += 8) {
		memcpy(&w, s + i, 8);
		acc |= w;
	}
	for (; i < len; i++)
		acc |= s[i];
	sink = acc;
	return 1;
}

int (*read_ceiling(void))(const unsigned char *s, size_t len)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512bw"))
		return loads_avx512;
	if (__builtin_cpu_supports("avx2"))
		return loads_avx2;
	return loads_words;
}
