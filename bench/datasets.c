// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The benchmarks' inputs (see datasets.h). Everything is derived at run
 * time from a fixed seed, the files of ../shared and those that
 * scripts/bench-corpora made (from Debian's packages: MADE_CORPORA's .from
 * files say which), so two runs measure the same bytes.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "utf8val.h"
#include "bench/datasets.h"

static u64 rng_state = 0x5eed;

static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static u32 random_cp(int kind)
{
	switch (kind == 4 ? 3 : kind ? kind - 1 : (int)(rng() % 4)) {
	case 0:
		return 0x20 + rng() % 0x5f;
	case 1:
		return 0x80 + rng() % 0x780;
	case 2:
		for (;;) {
			u32 cp = 0x800 + rng() % 0xf800;

			if (cp < 0xd800 || cp > 0xdfff)
				return cp;
		}
	default:
		return 0x10000 + rng() % 0x100000;
	}
}

/* Random text: kind 0 mixes 1- to 4-byte characters, 1 is ASCII, 4 is
 * all 4-byte.
 */
static void make_random(struct dataset *d, const char *name, const char *what,
			int kind)
{
	size_t n = 0;

	d->name = name;
	d->what = what;
	d->text = malloc(DATASET_LEN);
	while (n + 4 <= DATASET_LEN)
		n += utf8val_encode(random_cp(kind), 0, d->text + n);
	d->len = n;
	d->period = n;
}

/* A whole file, valid UTF-8, or NULL. */
static u8 *read_file(const char *shared, const char *name, size_t *len)
{
	char path[512];
	u8 *t = NULL;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", shared, name);
	f = fopen(path, "rb");
	if (!f)
		goto missing;
	if (fseek(f, 0, SEEK_END))
		goto close;
	n = ftell(f);
	if (n <= 0 || fseek(f, 0, SEEK_SET))
		goto close;
	t = malloc(n);
	if (fread(t, 1, n, f) != (size_t)n || !utf8val_check(t, n)) {
		free(t);
		t = NULL;
		goto close;
	}
	*len = n;
close:
	fclose(f);
missing:
	if (!t)
		printf("# %s: missing or not valid UTF-8, its rows skipped\n",
		       path);
	return t;
}

/* @len bytes of @src repeated up to DATASET_LEN. */
static void make_repeated(struct dataset *d, const char *name,
			  const char *what, const u8 *src, size_t len)
{
	d->name = name;
	d->what = what;
	d->text = malloc(DATASET_LEN);
	d->len = 0;
	if (len > DATASET_LEN) {	/* a longer file: its start */
		len = DATASET_LEN;
		while ((src[len] & 0xc0) == 0x80)
			len--;
	}
	while (d->len + len <= DATASET_LEN) {
		memcpy(d->text + d->len, src, len);
		d->len += len;
	}
	d->period = len;
}

static bool make_corpus(struct dataset *d, const char *name, const char *what,
			const char *shared, const char *file)
{
	size_t len;
	u8 *t = read_file(shared, file, &len);

	if (!t)
		return false;
	make_repeated(d, name, what, t, len);
	free(t);
	return true;
}

/* The next line of @t from *@at, with its newline; its length. */
static size_t next_line(const u8 *t, size_t len, size_t *at)
{
	const u8 *nl = memchr(t + *at, '\n', len - *at);
	size_t n = nl ? (size_t)(nl - (t + *at)) + 1 : len - *at;

	*at += n;
	return n;
}

/* Lines of two files in turn: text whose non-ASCII comes and goes. */
static bool make_interleaved(struct dataset *d, const char *shared)
{
	size_t alen, blen, a = 0, b = 0, n = 0;
	u8 *at = read_file(shared, "corpus/linux-6.12-MAINTAINERS.txt", &alen);
	u8 *bt = read_file(shared, "corpus/iso-codes-3166-2.json", &blen);
	u8 *mix;

	if (!at || !bt) {
		free(at);
		free(bt);
		return false;
	}
	mix = malloc(alen + blen);
	while (a < alen || b < blen) {
		size_t start = a, k = next_line(at, alen, &a);

		memcpy(mix + n, at + start, k);
		n += k;
		start = b;
		k = next_line(bt, blen, &b);
		memcpy(mix + n, bt + start, k);
		n += k;
	}
	make_repeated(d, "lines-mixed",
		      "lines of MAINTAINERS and the JSON file in turn",
		      mix, n);
	free(mix);
	free(at);
	free(bt);
	return true;
}

/* Every text of ../shared, one after another. */
static bool make_everything(struct dataset *d, const char *shared)
{
	static const char *const files[] = {
		"spec/rfc3629.txt", "spec/rfc2279.txt",
		"spec/draft-yergeau-rfc2279bis-04.idnits.txt",
		"corpus/rfc3629-en-ja.txt", "corpus/web-zh-rfc3629.txt",
		"corpus/linux-6.12-MAINTAINERS.txt",
		"corpus/iso-codes-3166-2.json",
	};
	u8 *all = NULL;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t len;
		u8 *t = read_file(shared, files[i], &len);

		if (!t) {
			free(all);
			return false;
		}
		all = realloc(all, n + len);
		memcpy(all + n, t, len);
		n += len;
		free(t);
	}
	make_repeated(d, "shared-all", "every RFC text and corpus, in a row",
		      all, n);
	free(all);
	return true;
}

/*
 * The corpora, each repeated to DATASET_LEN: name, what, file, and whether
 * scripts/bench-corpora made it (in MADE_CORPORA) or it is ../shared's.
 */
static const struct {
	const char *name, *what, *file;
	bool made;
} corpora[] = {
	{ "rfc3629-en-ja", "RFC 3629 and its Japanese translation",
	  "corpus/rfc3629-en-ja.txt" },
	{ "web-zh-rfc3629", "a Chinese web page", "corpus/web-zh-rfc3629.txt" },
	{ "maintainers", "Linux 6.12 MAINTAINERS, 0.04 % non-ASCII",
	  "corpus/linux-6.12-MAINTAINERS.txt" },
	{ "iso-codes-json", "ISO 3166-2 names in JSON, 0.8 % non-ASCII",
	  "corpus/iso-codes-3166-2.json" },
	{ "kernel-docs", "Linux 6.12 Documentation/, 0.04 % non-ASCII",
	  "kernel-docs.txt", true },
	{ "names-json", "ISO 3166-2 with names in 6 scripts, JSON, 2.4 % non-ASCII",
	  "names-json.json", true },
};

/* ascii, the corpora, lines-mixed, shared-all and two random sets */
static_assert(1 + sizeof(corpora) / sizeof(corpora[0]) + 4 <= MAX_DATASETS,
	      "room for every dataset");

size_t datasets_load(struct dataset *sets, const char *shared)
{
	size_t n = 0;

	make_random(&sets[n++], "ascii", "random printable ASCII", 1);
	for (size_t i = 0; i < sizeof(corpora) / sizeof(corpora[0]); i++)
		n += make_corpus(&sets[n], corpora[i].name, corpora[i].what,
				 corpora[i].made ? MADE_CORPORA : shared,
				 corpora[i].file);
	n += make_interleaved(&sets[n], shared);
	n += make_everything(&sets[n], shared);
	make_random(&sets[n++], "random-1-4",
		    "random 1- to 4-byte characters", 0);
	make_random(&sets[n++], "all-4-byte", "random 4-byte characters", 4);
	return n;
}

struct piece *dataset_pool(const struct dataset *d, size_t size,
			   size_t *count, size_t *bytes)
{
	size_t n = POOL_BYTES / size, total = 0;
	u64 saved = rng_state;
	struct piece *pool;

	/* the same pieces in every program, whatever it drew before */
	rng_state = 0x9e3779b97f4a7c15ull * (size + d->len) ^ d->name[0];
	if (n < 2)
		n = 2;
	if (n > 32768)
		n = 32768;
	pool = malloc(n * sizeof(*pool));
	for (size_t i = 0; i < n; i++) {
		/* room for the 3 bytes each end may move to a boundary */
		size_t start = rng() % (d->len - size - 6), end;

		while ((d->text[start] & 0xc0) == 0x80)
			start++;
		end = start + size;
		while ((d->text[end] & 0xc0) == 0x80)
			end++;
		pool[i] = (struct piece){ d->text + start, end - start };
		total += end - start;
	}
	rng_state = saved;
	*count = n;
	*bytes = total;
	return pool;
}

size_t dataset_fresh(const struct dataset *d, u8 *buf, size_t room)
{
	size_t at = 0;

	assert(d->len > FRESH_RUN + 4096);

	while (at + FRESH_RUN + 1024 <= room) {
		size_t start = rng() % (d->len - FRESH_RUN - 2048), end, n;

		/* from the next line start, if one is near, else a character */
		for (n = start; n < start + 1024 && d->text[n] != '\n'; n++)
			;
		start = n < start + 1024 ? n + 1 : start;
		while ((d->text[start] & 0xc0) == 0x80)
			start++;
		end = start + FRESH_RUN;
		for (n = end; n < end + 1024 && d->text[n - 1] != '\n'; n++)
			;
		end = n < end + 1024 ? n : end;
		while ((d->text[end] & 0xc0) == 0x80)
			end++;
		memcpy(buf + at, d->text + start, end - start);
		at += end - start;
	}
	return at;
}

struct piece *dataset_pool_at(const struct dataset *d, size_t size,
			      size_t offset, size_t *count, size_t *bytes)
{
	struct piece *from = dataset_pool(d, size, count, bytes), *pool;
	/* each piece, its offset and up to 63 bytes to the next boundary */
	size_t room = *bytes + *count * 128 + 64;
	u8 *at;

	assert(offset < 64);

	/* the pieces' table, then their copies, each from a boundary */
	pool = aligned_alloc(64, (*count * sizeof(*pool) + room + 63) & ~63ul);
	if (!pool)
		abort();
	at = (u8 *)(pool + *count);
	for (size_t i = 0; i < *count; i++) {
		at = (u8 *)(((uintptr_t)at + 63) & ~(uintptr_t)63) + offset;
		memcpy(at, from[i].p, from[i].len);
		pool[i] = (struct piece){ at, from[i].len };
		at += from[i].len;
	}
	free(from);
	return pool;
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Seconds one pass over @pool takes @fn, or -1 if it rejects a piece. */
static double one_pass(validator_fn fn, const struct piece *pool, size_t count)
{
	size_t ok = 0;
	double t = bench_now();

	for (size_t i = 0; i < count; i++)
		ok += fn(pool[i].p, pool[i].len);
	t = bench_now() - t;
	return ok == count ? t : -1;
}

double pool_seconds(validator_fn fn, const struct piece *pool, size_t count,
		    size_t reps)
{
	double t, last = 0;

	/* untimed passes until two agree within 2 % (at most WARM_PASSES) */
	for (int pass = 0; pass < WARM_PASSES; pass++) {
		t = one_pass(fn, pool, count);
		if (t < 0)
			return -1;
		if (t > 0.98 * last && t < 1.02 * last)
			break;
		last = t;
	}
	t = 0;
	for (size_t rep = 0; rep < reps; rep++) {
		double pass = one_pass(fn, pool, count);

		if (pass < 0)
			return -1;
		t += pass;
	}
	return t;
}

/* --- short strings ------------------------------------------------------ */

#define SHORT_MIN	8
#define SHORT_MAX	64
#define SHORT_PER_SET	8192

struct fields {
	struct piece *f;
	size_t n, cap;
};

static void add_field(struct fields *fs, const u8 *p, size_t len)
{
	if (len < SHORT_MIN || len > SHORT_MAX)
		return;
	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? 2 * fs->cap : 1024;
		fs->f = realloc(fs->f, fs->cap * sizeof(*fs->f));
	}
	fs->f[fs->n++] = (struct piece){ p, len };
}

/* Every JSON string: keys, codes, names, types. */
static void json_fields(struct fields *fs, const u8 *t, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		size_t start;

		if (t[i] != '"')
			continue;
		start = ++i;
		while (i < len && t[i] != '"')
			i += t[i] == '\\' ? 2 : 1;
		add_field(fs, t + start, (i < len ? i : len) - start);
	}
}

/* MAINTAINERS: each "X:\tvalue" field, and each component of a path. */
static void maintainers_fields(struct fields *fs, const u8 *t, size_t len)
{
	size_t at = 0;

	while (at < len) {
		const u8 *line = t + at;
		size_t n = next_line(t, len, &at), v;

		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		if (n < 3 || line[1] != ':' || line[2] != '\t')
			continue;
		add_field(fs, line + 3, n - 3);
		if (line[0] != 'F')
			continue;
		for (v = 3; v < n;) {	/* drivers/, net/, foo.c */
			const u8 *slash = memchr(line + v, '/', n - v);
			size_t end = slash ? (size_t)(slash - line) : n;

			add_field(fs, line + v, end - v);
			v = end + 1;
		}
	}
}

static bool has_non_ascii(const struct piece *p)
{
	for (size_t i = 0; i < p->len; i++)
		if (p->p[i] & 0x80)
			return true;
	return false;
}

static void short_set(struct short_set *s, const char *name, const char *what,
		      const struct fields *fs, size_t lo, size_t hi,
		      bool non_ascii_only)
{
	s->name = name;
	s->what = what;
	s->strings = malloc(SHORT_PER_SET * sizeof(*s->strings));
	s->count = s->bytes = s->non_ascii = 0;
	for (size_t i = 0; i < fs->n && s->count < SHORT_PER_SET; i++) {
		const struct piece *p = &fs->f[i];
		bool wide = has_non_ascii(p);

		if (p->len < lo || p->len > hi || (non_ascii_only && !wide))
			continue;
		s->strings[s->count++] = *p;
		s->bytes += p->len;
		s->non_ascii += wide;
	}
}

size_t short_sets_load(struct short_set *sets, const char *shared)
{
	static struct fields fs;	/* the pieces point into its files */
	static u8 ascii[SHORT_PER_SET * 64];
	size_t mlen, jlen, n = 0;
	u8 *m = read_file(shared, "corpus/linux-6.12-MAINTAINERS.txt", &mlen);
	u8 *j = read_file(shared, "corpus/iso-codes-3166-2.json", &jlen);

	if (!m || !j) {
		free(m);
		free(j);
		return 0;
	}
	maintainers_fields(&fs, m, mlen);
	json_fields(&fs, j, jlen);
	/* a fixed random order: no two neighbours from the same line */
	for (size_t i = fs.n - 1; i > 0; i--) {
		size_t k = rng() % (i + 1);
		struct piece p = fs.f[i];

		fs.f[i] = fs.f[k];
		fs.f[k] = p;
	}
	short_set(&sets[n++], "fields-8-16", "names, codes, path components",
		  &fs, 8, 16, false);
	short_set(&sets[n++], "fields-17-32", "names, paths, e-mail addresses",
		  &fs, 17, 32, false);
	short_set(&sets[n++], "fields-33-64", "paths, names with addresses",
		  &fs, 33, 64, false);
	short_set(&sets[n++], "non-ascii-8-64",
		  "the fields above with a multi-byte character", &fs, 8, 64,
		  true);
	/* 64 bytes of random printable ASCII, a string each */
	sets[n] = (struct short_set){ "ascii-64", "random printable ASCII",
				      malloc(SHORT_PER_SET *
					     sizeof(struct piece)),
				      SHORT_PER_SET, SHORT_PER_SET * 64, 0 };
	for (size_t i = 0; i < sizeof(ascii); i++)
		ascii[i] = 0x20 + rng() % 0x5f;
	for (size_t i = 0; i < SHORT_PER_SET; i++)
		sets[n].strings[i] = (struct piece){ ascii + 64 * i, 64 };
	return n + 1;
}
