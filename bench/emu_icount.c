// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Instructions per byte on a CPU this machine only emulates (arm64,
 * riscv64): each validator runs once on each text between two calls of
 * marker functions, under qemu-user's one-instruction-per-block trace
 * (-singlestep or -one-insn-per-tb, -d exec), which logs every instruction
 * the emulated CPU executes; scripts/emu-icount counts the log's lines
 * between the markers. Timing an emulator says nothing; its instruction
 * counts are the CPU's own.
 *
 * The peers, each family in the build's list (the Makefile's EMU_PEER):
 * with EMU_PEER_SIMDJSON, simdjson's NEON kernel and its fallback (arm64);
 * with EMU_PEER_SIMDUTF, each of simdutf's kernels that the CPU runs
 * (arm64; riscv64, where Debian has no simdjson with a vector kernel).
 *
 * Prints one line per measured call, in the order of the marks:
 *   cell TEXT VALIDATOR BYTES
 * and comments (#) on what was measured.
 * Usage: emu_icount SHARED_DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "utf8val.h"
#include "utf8val_simd.h"
#include "bench/peers.h"

#define TEXT_LEN	(64u << 10)	/* a few hundred thousand trace lines */

/* The trace's landmarks: not inlined, and each with a body of its own. */
noinline void icount_begin(void);
noinline void icount_end(void);
void icount_begin(void)
{
	__asm__ volatile("" ::: "memory");
}

void icount_end(void)
{
	__asm__ volatile("nop" ::: "memory");
}

static int run_utf8val(const unsigned char *s, size_t len)
{
	return utf8val_check(s, len);
}

/* The table's columns, in order. */
static struct run {
	const char *name;
	validator_fn fn;	/* NULL: this CPU cannot run it */
	int path;		/* utf8val's, -1 for auto; a peer: -2 */
} runs[8];
static unsigned int nruns;

static void add_run(const char *name, validator_fn fn, int path)
{
	if (nruns < sizeof(runs) / sizeof(runs[0]))
		runs[nruns++] = (struct run){ name, fn, path };
}

#ifdef EMU_PEER_SIMDJSON
static void add_simdjson(void)
{
	add_run("sj_fallback", peer_simdjson("fallback"), -2);
	add_run("sj_arm64", peer_simdjson("arm64"), -2);
}
#else
static void add_simdjson(void)
{
}
#endif

#ifdef EMU_PEER_SIMDUTF
/* Each of simdutf's kernels this CPU runs, as su_NAME; the build's list
 * is printed whole, so that a kernel the build lacks is seen to be lacking.
 */
static void add_simdutf(void)
{
	static char names[4][32];
	validator_fn fn;
	const char *name;
	unsigned int i;

	printf("# simdutf's implementations in this build:");
	for (i = 0; (name = peer_simdutf(i, &fn)); i++) {
		printf(" %s%s", name, fn ? "" : " (not on this CPU)");
		if (!fn || i >= sizeof(names) / sizeof(names[0]))
			continue;
		snprintf(names[i], sizeof(names[i]), "su_%s", name);
		add_run(names[i], fn, -2);
	}
	printf("\n");
}
#else
static void add_simdutf(void)
{
}
#endif

static unsigned long long rng_state = 0x656d7563;

static unsigned int rng(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return rng_state >> 33;
}

/* Random text: @mixed, 1- to 4-byte characters; else printable ASCII. */
static size_t make_random(unsigned char *t, bool mixed)
{
	size_t n = 0;

	while (n + 4 <= TEXT_LEN) {
		unsigned int cp, k = mixed ? rng() % 4 : 0;

		if (k == 0)
			cp = 0x20 + rng() % 0x5f;
		else if (k == 1)
			cp = 0x80 + rng() % 0x780;
		else if (k == 2)
			cp = 0xe000 + rng() % 0x1ffe;	/* no surrogates */
		else
			cp = 0x10000 + rng() % 0x100000;
		n += utf8val_encode(cp, 0, t + n);
	}
	return n;
}

/* The first TEXT_LEN bytes of a corpus, cut at a character boundary. */
static size_t load(unsigned char *t, const char *shared, const char *file)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/corpus/%s", shared, file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, t, TEXT_LEN);
	close(fd);
	if (n <= 0)
		return 0;
	while (n > 0 && (t[n - 1] & 0xc0) == 0x80)
		n--;
	if (n > 0 && t[n - 1] >= 0xc0)
		n--;
	return n;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name, *file;	/* no file: random */
		bool mixed;
	} texts[] = {
		{ "ascii", NULL, false },
		{ "random-1-4", NULL, true },
		{ "rfc3629-en-ja", "rfc3629-en-ja.txt" },
		{ "web-zh", "web-zh-rfc3629.txt" },
		{ "maintainers", "linux-6.12-MAINTAINERS.txt" },
		{ "iso-json", "iso-codes-3166-2.json" },
	};
	static unsigned char text[TEXT_LEN];
	const char *shared = argc > 1 ? argv[1] : "../shared";
	const char *vector;

	utf8val_simd_select(-1);
	vector = utf8val_path_name(utf8val_simd_path());
	printf("# vector path: %s\n", vector);
	add_run("scalar", run_utf8val, UTF8VAL_PATH_SCALAR);
	add_run(vector, run_utf8val, -1);	/* "neon", "rvv" */
	add_simdjson();
	add_simdutf();
	for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
		size_t len = texts[t].file ? load(text, shared, texts[t].file) :
					     make_random(text, texts[t].mixed);

		if (!len || !utf8val_check(text, len)) {
			printf("# %s: not there or not valid\n", texts[t].name);
			continue;
		}
		for (unsigned int r = 0; r < nruns; r++) {
			volatile int ok;

			if (!runs[r].fn)
				continue;
			if (runs[r].path >= -1)
				utf8val_simd_select(runs[r].path);
			/* set-up on first use (simdjson's, simdutf's) stays out */
			runs[r].fn(text, 1);
			printf("cell %s %s %zu\n", texts[t].name, runs[r].name,
			       len);
			fflush(stdout);
			icount_begin();
			ok = runs[r].fn(text, len);
			icount_end();
			if (!ok)
				printf("# %s rejected %s\n", runs[r].name,
				       texts[t].name);
		}
	}
	return 0;
}
