// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The fuzz target (fuzz_core.c) without libFuzzer, for CPUs that libFuzzer
 * does not build for here (cross-compiled, run under qemu-user): replays a
 * corpus, such as the one the x86-64 fuzzer grew, then mutates its inputs
 * at random until the time is up. It finds less than coverage guidance
 * does, but it puts the same differential check on this CPU's own paths.
 * Usage: fuzz_replay SECONDS [CORPUS_DIR]
 * Prints how many inputs it ran and how many came from the corpus; a
 * mismatch aborts (fuzz_core.c). A corpus that cannot be read, or has no
 * input, is an error.
 */
/* 64-bit directory offsets: ext4's hashed ones overflow 32-bit readdir() */
#define _FILE_OFFSET_BITS 64

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#define MAX_INPUTS	4096
#define MAX_LEN		4096

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

struct input {
	u8 *data;
	size_t len;
};

static struct input inputs[MAX_INPUTS];
static size_t ninputs;

static bool load_corpus(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	char path[4096];

	if (!d)
		return false;
	while ((e = readdir(d)) && ninputs < MAX_INPUTS) {
		struct input *in = &inputs[ninputs];
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "rb");
		if (!f)
			continue;
		in->data = malloc(MAX_LEN);
		if (!in->data)
			abort();
		in->len = fread(in->data, 1, MAX_LEN, f);
		fclose(f);
		ninputs++;
	}
	closedir(d);
	return ninputs > 0;
}

/* Pieces that make and break UTF-8, for the mutator to insert. */
static const char *const pieces[] = {
	"a", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf",
	"\xed\xa0\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf",
	"\xf4\x90\x80\x80", "\xc0\xaf", "\xe0\x80\xaf", "\xf8\x88\x80\x80\x80",
	"\x80", "\xbf", "\xfe", "\xff", "\xef\xbb\xbf", "\0",
};

/* One random edit of @buf (of @len bytes, room for MAX_LEN). */
static size_t mutate(struct rng *r, u8 *buf, size_t len)
{
	size_t at = rng_below(r, len + 1);

	switch (rng_below(r, 4)) {
	case 0:		/* flip a bit */
		if (len)
			buf[rng_below(r, len)] ^= 1u << rng_below(r, 8);
		break;
	case 1: {	/* insert a piece */
		const char *p = pieces[rng_below(r, ARRAY_SIZE(pieces))];
		size_t n = *p ? strlen(p) : 1;

		if (len + n > MAX_LEN)
			break;
		memmove(buf + at + n, buf + at, len - at);
		memcpy(buf + at, p, n);
		len += n;
		break;
	}
	case 2:		/* cut the tail */
		len = at;
		break;
	default: {	/* splice in part of another input */
		const struct input *o = &inputs[rng_below(r, ninputs)];
		size_t from = rng_below(r, o->len + 1);
		size_t n = rng_below(r, o->len - from + 1);

		if (at + n > MAX_LEN)
			n = MAX_LEN - at;
		memmove(buf + at, o->data + from, n);
		if (at + n > len)
			len = at + n;
		break;
	}
	}
	return len;
}

int main(int argc, char **argv)
{
	static u8 buf[MAX_LEN];
	struct rng r = { 0x7265706c6179 };
	unsigned long runs = 0;
	size_t corpus;
	time_t stop;

	if (argc < 2) {
		fprintf(stderr, "usage: fuzz_replay SECONDS [CORPUS_DIR]\n");
		return 2;
	}
	stop = time(NULL) + atoi(argv[1]);
	if (argc > 2 && !load_corpus(argv[2])) {
		fprintf(stderr, "fuzz_replay: no input in %s\n", argv[2]);
		return 2;
	}
	corpus = ninputs;
	for (size_t i = 0; i < ninputs; i++, runs++)
		LLVMFuzzerTestOneInput(inputs[i].data, inputs[i].len);
	/* and random text of the pieces, corpus or not */
	for (unsigned int i = 0; i < 64 && ninputs < MAX_INPUTS; i++) {
		struct input *in = &inputs[ninputs++];

		in->data = malloc(MAX_LEN);
		if (!in->data)
			abort();
		for (in->len = 0; in->len < 9; in->len++)
			in->data[in->len] = rng_next(&r);
		while (in->len < 9 + 16 * i)
			in->len = mutate(&r, in->data, in->len);
	}
	while (time(NULL) < stop) {
		const struct input *in = &inputs[rng_below(&r, ninputs)];
		size_t len = in->len;
		unsigned int edits = 1 + rng_below(&r, 8);

		memcpy(buf, in->data, len);
		while (edits--)
			len = mutate(&r, buf, len);
		LLVMFuzzerTestOneInput(buf, len);
		runs++;
	}
	printf("%lu inputs (%zu from the corpus%s, then random edits)\n", runs,
	       corpus, corpus == MAX_INPUTS ? ", its first ones" : "");
	return 0;
}
