// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What the kernel pays to use vector registers, measured in user space on
 * this CPU, and the input length where the vector path starts to win.
 *
 * x86's kernel_fpu_begin() (arch/x86/kernel/fpu/core.c), in a task that
 * entered the kernel from user space, saves the task's registers with
 * XSAVES the first time in a system call; the return to user space
 * restores them with XRSTORS. Each begin also loads MXCSR (64-bit x86).
 * XSAVES and XRSTORS are privileged; XSAVEC and XRSTOR are their user
 * space twins (same compacted format, same features), so their cost with
 * live AVX-512 state stands in for the first section of a system call.
 * Both skip components in their initial state, so the cost depends on
 * what the task used: live AVX-512 state is the worst case, SSE/AVX only
 * the common one. A later section in the same call pays only LDMXCSR.
 * (Qemu's TCG and UML time none of this: TCG emulates, UML saves nothing.)
 *
 * The break-even is the shortest length where scalar time exceeds vector
 * time plus that cost, on ASCII and on random 1- to 4-byte text, for
 * either state.
 */
#include <cpuid.h>
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "utf8val.h"
#include "utf8val_simd.h"

#define ROUNDS	7

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Make the upper halves of the vector registers live, as a user's are. */
static inline void dirty_vector_state(bool avx512)
{
	if (avx512)
		__asm__ volatile("vpternlogd $0xff, %%zmm16, %%zmm16, %%zmm16\n\t"
				 "vpternlogd $0xff, %%zmm31, %%zmm31, %%zmm31\n\t"
				 "vpternlogd $0xff, %%zmm1, %%zmm1, %%zmm1\n\t"
				 "kxnorq %%k1, %%k1, %%k1"
				 ::: "xmm1", "xmm16", "xmm31", "k1");
	else
		__asm__ volatile("vpcmpeqb %%ymm1, %%ymm1, %%ymm1" ::: "xmm1");
}

__attribute__((target("xsave,xsavec,avx512f")))
static double save_restore_ns(bool avx512, u64 mask, void *area, int reps)
{
	double best = 1e30;

	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now(), t1, t2;

		for (int i = 0; i < reps; i++)
			dirty_vector_state(avx512);
		t1 = now();
		for (int i = 0; i < reps; i++) {
			dirty_vector_state(avx512);
			_xsavec64(area, mask);
			_xrstor64(area, mask);
		}
		t2 = now();
		if ((t2 - t1) - (t1 - t0) < best)
			best = (t2 - t1) - (t1 - t0);
	}
	return best / reps * 1e9;
}

static double begin_ns(int reps)
{
	unsigned int mxcsr = _mm_getcsr();
	double best = 1e30;

	for (int r = 0; r < ROUNDS; r++) {
		double t = now();

		for (int i = 0; i < reps; i++) {
			_mm_setcsr(mxcsr);
			__asm__ volatile("" ::: "memory");
		}
		t = now() - t;
		if (t < best)
			best = t;
	}
	return best / reps * 1e9;
}

/* Best time of utf8val_check() on @len bytes of @text, in ns. */
static double check_ns(const u8 *text, size_t len, int path)
{
	double best = 1e30;
	size_t reps = 2000000 / (len + 32) + 1, ok = 0;

	utf8val_simd_select(path);
	for (int r = 0; r < ROUNDS; r++) {
		double t = now();

		for (size_t i = 0; i < reps; i++)
			ok += utf8val_check(text + (i % 64) * 4, len);
		t = now() - t;
		if (t < best)
			best = t;
	}
	if (ok != ROUNDS * reps) {
		fprintf(stderr, "fpu_cost: valid text rejected\n");
		exit(1);
	}
	return best / reps * 1e9;
}

/*
 * ASCII, or random 1- to 4-byte characters each padded with ASCII to 4
 * bytes, so that every multiple of 4 is a character boundary.
 */
static u8 *make_text(bool ascii, size_t len)
{
	static const u32 cps[] = { 'a', 0xe9, 0x4e2d, 0x1f600 };
	u8 *t = malloc(len);
	u64 x = 0x5eed;

	for (size_t n = 0; n + 4 <= len; n += 4) {
		u32 k;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = utf8val_encode(cps[ascii ? 0 : x % 4], 0, t + n);
		while (k < 4)
			t[n + k++] = ' ';
	}
	return t;
}

int main(void)
{
	static const size_t lens[] = {
		64, 128, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
		6144, 8192, 12288, 16384,
	};
	unsigned int a, b, c, d, size;
	bool avx512 = utf8val_simd_select(UTF8VAL_PATH_AVX512) ==
		      UTF8VAL_PATH_AVX512;
	int vec = avx512 ? UTF8VAL_PATH_AVX512 : UTF8VAL_PATH_AVX2;
	u64 xcr0;
	void *area;
	double save[2], begin;

	if ((int)utf8val_simd_select(vec) != vec) {
		printf("# no vector path on this CPU\n");
		return 0;
	}
	__cpuid_count(0xd, 1, a, b, c, d);
	if (!(a & 2)) {
		printf("# no XSAVEC on this CPU\n");
		return 0;
	}
	__cpuid_count(0xd, 0, a, b, c, d);
	size = c;	/* enough for every feature, standard format */
	__asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(0));
	xcr0 = (u64)d << 32 | a;
	area = aligned_alloc(64, (size + 63) / 64 * 64);
	memset(area, 0, size);

	save[0] = save_restore_ns(false, xcr0, area, 200000);
	save[1] = avx512 ? save_restore_ns(true, xcr0, area, 200000) : save[0];
	begin = begin_ns(200000);
	printf("XSAVEC+XRSTOR of XCR0 %#llx (%u-byte area), AVX state live: %.1f ns, AVX-512 state live: %.1f ns\n",
	       (unsigned long long)xcr0, size, save[0], save[1]);
	printf("LDMXCSR (every kernel_fpu_begin()): %.1f ns\n", begin);
	printf("%-8s %12s %12s %12s %12s\n", "length", "ascii:scalar",
	       utf8val_path_name(vec), "random:scalar", utf8val_path_name(vec));
	for (int k = 0; k < 2; k++) {
		size_t even[2] = { 0, 0 };
		u8 *text = make_text(!k, 16384 + 256);

		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			double s = check_ns(text, lens[i], UTF8VAL_PATH_SCALAR);
			double v = check_ns(text, lens[i], vec);

			if (k == 0)
				printf("%-8zu %12.1f %12.1f\n", lens[i], s, v);
			else
				printf("%-8zu %12s %12s %12.1f %12.1f\n",
				       lens[i], "", "", s, v);
			for (int st = 0; st < 2; st++)
				if (!even[st] && s > v + save[st] + begin)
					even[st] = lens[i];
		}
		printf("# break-even, %s text, first section of a system call: %zu bytes (AVX state), %zu bytes (AVX-512 state; 0: over %zu)\n",
		       k ? "random" : "ASCII", even[0], even[1],
		       lens[sizeof(lens) / sizeof(lens[0]) - 1]);
		free(text);
	}
	utf8val_simd_select(-1);
	return 0;
}
