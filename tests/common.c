// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "../utf8val_simd.h"

unsigned long compare_failures;

u64 rng_next(struct rng *r)
{
	u64 z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void print_bytes(const u8 *buf, size_t len)
{
	printf("#   bytes (%zu):", len);
	for (size_t i = 0; i < len && i < 48; i++)
		printf(" %02x", buf[i]);
	printf("%s\n", len > 48 ? " ..." : "");
}

void print_result(const char *who, const struct utf8val_result *r)
{
	printf("#   %-10s %-12s valid_up_to=%llu chars=%llu error_len=%u\n",
	       who, utf8val_error_name(r->error), r->valid_up_to, r->chars,
	       r->error_len);
}

bool same_result(const struct utf8val_result *a, const struct utf8val_result *b)
{
	return a->valid_up_to == b->valid_up_to && a->chars == b->chars &&
	       a->error == b->error && a->error_len == b->error_len;
}

/* The path compare_all() is trying. */
static enum utf8val_path path_tried;

static bool report(const char *what, const u8 *buf, size_t len,
		   unsigned int flags, const struct utf8val_result *want,
		   const struct utf8val_result *got)
{
	if (++compare_failures <= 5) {
		printf("# mismatch in %s, flags %#x, %s path\n", what, flags,
		       utf8val_path_name(path_tried));
		print_bytes(buf, len);
		print_result("reference", want);
		if (got)
			print_result("core", got);
	}
	return false;
}

/* Feed @buf in the pieces that end at @cuts (ascending, last == len). */
static bool stream_pieces(const u8 *buf, size_t len, unsigned int flags,
			  const size_t *cuts, size_t ncuts,
			  const struct utf8val_result *want, const char *what)
{
	struct utf8val_stream st;
	struct utf8val_result got;
	enum utf8val_error e = UTF8VAL_OK, prev = UTF8VAL_OK;
	size_t at = 0;

	utf8val_stream_init(&st, flags);
	for (size_t i = 0; i < ncuts; i++) {
		e = utf8val_stream_feed(&st, buf + at, cuts[i] - at);
		/* Nothing up to the error may fail; an error is sticky. */
		if ((cuts[i] <= want->valid_up_to && e &&
		     e != UTF8VAL_EFLAGS) || (prev && e != prev))
			return report(what, buf, len, flags, want, NULL);
		prev = e;
		at = cuts[i];
	}
	if (utf8val_stream_result(&st, &got) != got.error || !same_result(want, &got))
		return report(what, buf, len, flags, want, &got);
	/* The last feed has seen everything but an unfinished tail. */
	if (want->error != UTF8VAL_EINCOMPLETE && e != want->error)
		return report(what, buf, len, flags, want, &got);
	return true;
}

bool compare_stream_cut(const u8 *buf, size_t len, size_t cut)
{
	const size_t cuts[2] = { cut, len };
	struct utf8val_result want;

	ref_validate(buf, len, 0, &want);
	path_tried = utf8val_simd_path();
	return stream_pieces(buf, len, 0, cuts, 2, &want,
			     "stream, cut in two");
}

static bool compare_decode(const u8 *buf, size_t len, unsigned int flags,
			   const struct utf8val_result *want)
{
	struct utf8val_result first;
	u32 cp, n;
	enum utf8val_error e = utf8val_decode(buf, len, flags, &cp, &n);
	u8 enc[8];

	if (flags & ~UTF8VAL_FLAGS_ALL) {
		if (e != UTF8VAL_EFLAGS)
			return report("decode", buf, len, flags, want, NULL);
		return true;
	}
	if (!len) {
		if (e != UTF8VAL_EINCOMPLETE || n != 0)
			return report("decode", buf, len, flags, want, NULL);
		return true;
	}
	if (e) {
		/* The first character is the error the whole input reports. */
		if (want->valid_up_to != 0 || want->error != e ||
		    want->error_len != n || cp != 0xfffd)
			return report("decode", buf, len, flags, want, NULL);
		return true;
	}
	ref_validate(buf, n, flags, &first);
	if (first.error || first.chars != 1 || want->valid_up_to < n ||
	    ref_encode(cp, enc) != n || memcmp(enc, buf, n))
		return report("decode", buf, len, flags, want, &first);
	return true;
}

/*
 * A copy of @buf that ends where an inaccessible page begins (@at_end) or
 * starts where one ends: a read past either end of the input faults.
 * NULL if @len is over GUARDED_MAX.
 */
const u8 *guarded_copy(const u8 *buf, size_t len, bool at_end)
{
	static u8 *area;	/* guard page, GUARDED_MAX bytes, guard page */
	const size_t page = sysconf(_SC_PAGESIZE);
	u8 *dst;

	if (len > GUARDED_MAX)
		return NULL;
	if (!area) {
		area = mmap(NULL, GUARDED_MAX + 2 * page,
			    PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED ||
		    mprotect(area, page, PROT_NONE) ||
		    mprotect(area + page + GUARDED_MAX, page, PROT_NONE)) {
			perror("guard pages");
			exit(2);
		}
	}
	dst = area + page + (at_end ? GUARDED_MAX - len : 0);
	memcpy(dst, buf, len);
	return dst;
}

/*
 * Validate (unless only @check_only) and check @buf again against guard
 * pages at either end.
 */
static bool compare_guarded(const u8 *buf, size_t len, unsigned int flags,
			    const struct utf8val_result *want, bool check_only)
{
	struct utf8val_result got;

	for (int at_end = 0; at_end <= 1; at_end++) {
		const u8 *p = guarded_copy(buf, len, at_end);

		if (!p)
			break;
		if (!check_only &&
		    (utf8val_validate(p, len, flags, &got) != want->error ||
		     !same_result(want, &got)))
			return report(at_end ? "validate, at a guard page" :
					       "validate, after a guard page",
				      buf, len, flags, want, &got);
		if (!flags && utf8val_check(p, len) != !want->error)
			return report(at_end ? "check, at a guard page" :
					       "check, after a guard page",
				      buf, len, flags, want, NULL);
	}
	return true;
}

static bool compare_path(const u8 *buf, size_t len, unsigned int flags,
			 unsigned int what, struct rng *rng,
			 const struct utf8val_result *wanted)
{
	struct utf8val_result want = *wanted, got;
	size_t cuts[64] = { 0 };
	bool ok = true;

	if (utf8val_validate(buf, len, flags, &got) != want.error ||
	    !same_result(&want, &got))
		return report("validate", buf, len, flags, &want, &got);
	if (utf8val_validate(buf, len, flags, NULL) != want.error)
		return report("validate(NULL)", buf, len, flags, &want, NULL);
	if (!flags && utf8val_check(buf, len) != !want.error)
		return report("check", buf, len, flags, &want, NULL);
	/* the entries the BPF kfuncs take outside task context */
	if (utf8val_validate_scalar(buf, len, flags, &got) != want.error ||
	    !same_result(&want, &got))
		return report("validate_scalar", buf, len, flags, &want, &got);
	if (!flags && utf8val_check_scalar(buf, len) != !want.error)
		return report("check_scalar", buf, len, flags, &want, NULL);
	if (!compare_guarded(buf, len, flags, &want, false))
		return false;

	if ((what & CMP_STREAM_BYTES) && len <= 64) {
		for (size_t i = 0; i < len; i++)
			cuts[i] = i + 1;
		ok &= stream_pieces(buf, len, flags, cuts, len, &want,
				    "stream, 1-byte pieces");
	}
	if ((what & CMP_STREAM_RANDOM) && len) {
		size_t n = 0, at = 0;

		while (at < len && n < 63) {
			/* mostly short pieces, sometimes long ones */
			size_t step = rng_below(rng, 4) ?
				      1 + rng_below(rng, 8) :
				      1 + rng_below(rng, len);

			at = at + step < len ? at + step : len;
			cuts[n++] = at;
		}
		if (at < len)
			cuts[n++] = len;
		ok &= stream_pieces(buf, len, flags, cuts, n, &want,
				    "stream, random pieces");
	}
	if (what & CMP_STREAM_EVERY_SPLIT) {
		for (size_t i = 0; i <= len && ok; i++) {
			cuts[0] = i;
			cuts[1] = len;
			ok &= stream_pieces(buf, len, flags, cuts, 2, &want,
					    "stream, cut in two");
		}
	}
	if (what & CMP_DECODE)
		ok &= compare_decode(buf, len, flags, &want);
	return ok;
}

/* One input to compare on each path: what compare_all() was given. */
struct comparison {
	const u8 *buf;
	size_t len;
	unsigned int flags;
	unsigned int what;
	struct rng *rng;
	const struct utf8val_result *want;
};

/*
 * @fn on each path the CPU has for inputs of the vector modes (strict,
 * with or without policy flags; each path decides which lengths it
 * takes), on the scalar path for the other modes.
 */
static bool on_each_path(const struct comparison *c,
			 bool (*fn)(const struct comparison *c))
{
	if (NR_UTF8VAL_PATHS > 1 &&
	    !(c->flags & (UTF8VAL_RFC2279 | UTF8VAL_SURROGATES)) &&
	    c->len >= UTF8VAL_SIMD_MIN_LEN) {
		bool ok = true;

		for (int p = 0; p < NR_UTF8VAL_PATHS; p++) {
			path_tried = utf8val_simd_select(p);
			if ((int)path_tried == p) {
				path_compared(p);
				ok &= fn(c);
			}
		}
		utf8val_simd_select(-1);
		return ok;
	}
	path_tried = UTF8VAL_PATH_SCALAR;
	path_compared(UTF8VAL_PATH_SCALAR);
	return fn(c);
}

static bool compare_one_path(const struct comparison *c)
{
	return compare_path(c->buf, c->len, c->flags, c->what, c->rng,
			    c->want);
}

bool compare_all(const u8 *buf, size_t len, unsigned int flags,
		 unsigned int what, struct rng *rng)
{
	struct utf8val_result want;
	struct comparison c = { buf, len, flags, what, rng, &want };

	ref_validate(buf, len, flags, &want);
	return on_each_path(&c, compare_one_path);
}

static bool compare_check_one_path(const struct comparison *c)
{
	if (utf8val_check(c->buf, c->len) != !c->want->error)
		return report("check", c->buf, c->len, 0, c->want, NULL);
	return compare_guarded(c->buf, c->len, 0, c->want, true);
}

bool compare_check(const u8 *buf, size_t len)
{
	struct utf8val_result want;
	struct comparison c = { buf, len, 0, 0, NULL, &want };

	ref_validate(buf, len, 0, &want);
	return on_each_path(&c, compare_check_one_path);
}

static unsigned long compared_on[NR_UTF8VAL_PATHS];

void path_compared(int path)
{
	compared_on[path]++;
}

/*
 * One result for each vector path of the build: compared, or not though
 * the CPU can run it (a failure), or a skip where the CPU cannot run it.
 * A vector path is tested only where some CPU runs it, so each run says
 * which it tested. (The scalar path runs everywhere.)
 */
void report_paths(const char *against)
{
	for (int p = UTF8VAL_PATH_SCALAR + 1; p < NR_UTF8VAL_PATHS; p++) {
		const char *name = utf8val_path_name(p);
		bool runs = (int)utf8val_simd_select(p) == p;

		if (runs)
			tap_result(compared_on[p] > 0,
				   "the %s path, which this CPU runs, compared with %s: %lu inputs",
				   name, against, compared_on[p]);
		else
			tap_result(true, "the %s path # SKIP this CPU cannot run it", name);
	}
	utf8val_simd_select(-1);
}

#ifndef UTF8VAL_TREE_SHARED
#define UTF8VAL_TREE_SHARED "../shared"
#endif

/*
 * shared/ (the test vectors and corpora): where UTF8VAL_SHARED says, or
 * beside the source tree the test was built from, wherever it runs. NULL
 * if it is not there; shared_missing() then says so.
 */
const char *shared_dir(void)
{
	const char *env = getenv("UTF8VAL_SHARED");

	if (env)
		return access(env, R_OK) == 0 ? env : NULL;
	return access(UTF8VAL_TREE_SHARED, R_OK) == 0 ? UTF8VAL_TREE_SHARED : NULL;
}

/*
 * A test that needs shared/ and has none fails, unless its runner asked
 * for that with UTF8VAL_SHARED=none (a Debian build far from the tree):
 * a skip, which the runner names. As one TAP result, with its plan when
 * it is the whole test (@whole); returns the exit status.
 */
int shared_missing(const char *what, bool whole)
{
	const char *env = getenv("UTF8VAL_SHARED");
	bool skip = env && !strcmp(env, "none");

	if (skip)
		tap_result(true, "%s # SKIP UTF8VAL_SHARED=none", what);
	else
		tap_result(false, "%s: no shared/ at %s (UTF8VAL_SHARED names another, or none to skip)",
			   what, env ? env : UTF8VAL_TREE_SHARED);
	if (whole)
		return tap_finish();
	return skip ? 0 : 1;
}

bool quick_run(void)
{
	const char *q = getenv("UTF8VAL_QUICK");

	return q && *q;
}

/* A quick run: no flag, each flag alone, and all of them. */
static const unsigned int quick_flags[] = {
	0, UTF8VAL_RFC2279, UTF8VAL_SURROGATES, UTF8VAL_REJECT_NUL,
	UTF8VAL_REJECT_NONCHAR, UTF8VAL_REJECT_BOM, UTF8VAL_FLAGS_ALL,
};

const char *all_flags_said(void)
{
	return quick_run() ? "no flag, each alone and all" :
			     "every flag combination";
}

unsigned long for_all_flags(unsigned long (*fn)(unsigned int flags, void *arg),
			    void *arg)
{
	if (quick_run())
		return for_flags_in(quick_flags, ARRAY_SIZE(quick_flags), fn,
				    arg);
	return for_flags_in(NULL, UTF8VAL_FLAGS_ALL + 1, fn, arg);
}

unsigned long for_flags_in(const unsigned int *list, unsigned int n,
			   unsigned long (*fn)(unsigned int flags, void *arg),
			   void *arg)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int workers = ncpu > 1 ? (unsigned int)ncpu : 1;
	unsigned long total = 0;
	int fds[2];

	if (workers > 8)
		workers = 8;
	if (pipe(fds))
		abort();
	fflush(stdout);
	for (unsigned int w = 0; w < workers; w++) {
		if (fork() == 0) {
			unsigned long sum = 0;

			close(fds[0]);
			for (unsigned int i = w; i < n; i += workers)
				sum += fn(list ? list[i] : i, arg);
			fflush(stdout);
			if (write(fds[1], &sum, sizeof(sum)) != sizeof(sum))
				_exit(2);
			_exit(0);
		}
	}
	close(fds[1]);
	for (unsigned int w = 0; w < workers; w++) {
		unsigned long sum;

		if (read(fds[0], &sum, sizeof(sum)) != sizeof(sum))
			sum = 1;	/* a worker died: count it as a failure */
		total += sum;
	}
	close(fds[0]);
	while (wait(NULL) > 0)
		;
	return total;
}

static bool replace_mismatch(const char *what, const u8 *s, size_t len,
			     unsigned int flags)
{
	if (compare_failures++ < 5) {
		printf("# %s differs, flags 0x%x, input:\n", what, flags);
		print_bytes(s, len);
	}
	return false;
}

static bool same_error(const struct utf8val_result *a,
		       const struct utf8val_result *b)
{
	return a->valid_up_to == b->valid_up_to && a->chars == b->chars &&
	       a->error == b->error && a->error_len == b->error_len;
}

static bool compare_replace_path(const u8 *s, size_t len, unsigned int flags,
				 struct rng *rng)
{
	struct utf8val_result *want_err = malloc((len + 1) * sizeof(*want_err));
	u8 *want = malloc(3 * len + 1), *out = malloc(3 * len + 16);
	struct utf8val_errors it;
	struct utf8val_result got;
	size_t errors, want_len, k = 0, size, fits;
	unsigned long long n;
	bool ok = false;

	if (!want_err || !want || !out) {
		perror("compare_replace");
		exit(2);
	}
	errors = ref_replace(s, len, flags, want, &want_len, want_err);

	utf8val_errors_init(&it, s, len, flags);
	while (utf8val_errors_next(&it, &got)) {
		if (k >= errors || !same_error(&got, &want_err[k++])) {
			replace_mismatch("an error of the iterator", s, len, flags);
			goto out_free;
		}
	}
	if (k != errors || !same_error(&got, &want_err[k]) ||
	    utf8val_errors_next(&it, NULL)) {
		replace_mismatch("the iterator's end", s, len, flags);
		goto out_free;
	}
	if (utf8val_replace(s, len, flags, NULL, 0) != want_len) {
		replace_mismatch("replace's size", s, len, flags);
		goto out_free;
	}
	/* each size: the longest prefix of whole characters, no more */
	for (int i = 0, sizes = len > 4096 ? 8 : 40; i <= sizes; i++) {
		size = i < 16 ? (size_t)i : rng_below(rng, want_len + 1);
		if (i >= 4 && sizes == 8)	/* long: a few sizes */
			size = rng_below(rng, want_len + 1);
		if (i == sizes)
			size = 3 * len + 16;
		else if (size > want_len)
			continue;
		fits = size < want_len ? size : want_len;
		if (size < want_len)
			while (fits && (want[fits] & 0xc0) == 0x80)
				fits--;
		memset(out, 0xaa, 3 * len + 16);
		n = utf8val_replace(s, len, flags, out, size);
		if (n != want_len || memcmp(out, want, fits) ||
		    (fits < 3 * len + 16 && out[fits] != 0xaa)) {
			replace_mismatch("replace's text", s, len, flags);
			goto out_free;
		}
	}
	ok = true;
out_free:
	free(want_err);
	free(want);
	free(out);
	return ok;
}

static bool compare_replace_one_path(const struct comparison *c)
{
	return compare_replace_path(c->buf, c->len, c->flags, c->rng);
}

bool compare_replace(const u8 *s, size_t len, unsigned int flags,
		     struct rng *rng)
{
	struct comparison c = { s, len, flags, 0, rng, NULL };

	return on_each_path(&c, compare_replace_one_path);
}
