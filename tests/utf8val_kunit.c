// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for utf8val's exported API, against the same independent
 * reference the host tests use (tests/reference.c).
 *
 * Inputs are seeded random bytes biased to short lengths and to the
 * edges of UTF-8's ranges, in a vmalloc() buffer whose page-aligned end is
 * followed by a guard page: an input placed to end there faults on any
 * over-read. Every alignment is tried, the stream API at every split,
 * each vector path on inputs of several FPU sections (with the device's
 * lines followed), and validation from an NMI. The suite restores the
 * path the administrator chose. The benchmark case skips unless
 * utf8val_kunit_tests.benchmark=1.
 */
#include <kunit/test.h>
#include <linux/kcsan-checks.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/prandom.h>
#include <linux/sched/task.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#if defined(CONFIG_X86_LOCAL_APIC) && !defined(CONFIG_UML)
#include <asm/apic.h>
#include <asm/nmi.h>
#define KUNIT_NMI	1
#endif

#include "reference.h"
#include "../utf8val.h"
#include "../compat/utf8val_compat.h"
#include "../utf8val_lines.h"
#include "../utf8val_simd.h"

#define KUNIT_SEED	0x75746638
#define MAX_LEN		(12 * 1024)
/* Three FPU sections of 16 KiB and a tail: the multi-section loop runs. */
#define LONG_LEN	(3 * 16 * 1024 + 1024)
/* shorter inputs stay scalar */
#define VECTOR_MIN_LEN	(NR_UTF8VAL_PATHS > 1 ? UTF8VAL_SIMD_MIN_LEN : 0)
#define ITERATIONS	3000
/*
 * The two longest cases give KCSAN nothing to see (every path's is one
 * thread; the changing bytes' race is the point, the rewriter's writes
 * marked and the reader's checks off): in its kernel they run a tenth of
 * their rounds, to show they pass there; whole elsewhere (the debug
 * kernel's KASAN checks every access).
 */
#define KCSAN_TENTH(n)	((n) / (IS_ENABLED(CONFIG_KCSAN) ? 10 : 1))
#define PATH_ITERATIONS	KCSAN_TENTH(600)
#define CHANGE_ROUNDS	KCSAN_TENTH(40)

static bool benchmark;
module_param(benchmark, bool, 0444);
MODULE_PARM_DESC(benchmark, "run the benchmark case");

static struct rnd_state rng;
static u8 *buffer;		/* vmalloc()ed, a guard page after its end */
static size_t buflen;
static enum utf8val_path admin_path;	/* utf8val.simd= before the suite */

/* Every path of the build (utf8val_arch.h), filled in by the suite's init. */
static enum utf8val_path kunit_paths[NR_UTF8VAL_PATHS];

static u32 rand32(void)
{
	return prandom_u32_state(&rng);
}

static int utf8val_kunit_init(struct kunit_suite *suite)
{
	int path;

	for (path = 0; path < NR_UTF8VAL_PATHS; path++)
		kunit_paths[path] = path;
	admin_path = utf8val_simd_path();
	buflen = round_up(LONG_LEN, PAGE_SIZE);
	buffer = vmalloc(buflen);
	if (!buffer)
		return -ENOMEM;
	prandom_seed_state(&rng, KUNIT_SEED);
	return 0;
}

static void utf8val_kunit_exit(struct kunit_suite *suite)
{
	vfree(buffer);
	buffer = NULL;
	utf8val_simd_select(admin_path);
}

/* A length biased to the short ones, where the edge cases crowd. */
static size_t random_length(void)
{
	switch (rand32() % 4) {
	case 0:
	case 1:
		return rand32() % 32;
	case 2:
		return rand32() % 600;
	default:
		return rand32() % (MAX_LEN + 1);
	}
}

/* Fill @len bytes at @p with text that is mostly, not always, UTF-8. */
static const u8 edges[] = { 0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0,
			    0xbf, 0xc0, 0xc2, 0xe0, 0xed, 0xef, 0xf0, 0xf4,
			    0xf5, 0xf8, 0xfc, 0xfe };

static void random_text(u8 *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		u32 r = rand32();

		if (r % 16 == 0) {
			p[i++] = edges[rand32() % ARRAY_SIZE(edges)];
		} else if (r % 16 < 4 || len - i < UTF8VAL_MAX_SEQ) {
			p[i++] = rand32() % 0x80;
		} else {
			u32 cp = r % 2 ? rand32() % 0x110000 : rand32() % 0x800;

			i += ref_encode(cp, p + i);
		}
	}
}

/* Valid UTF-8 in runs of 1-, 2-, 3- or 4-byte characters. */
static void valid_text(u8 *p, size_t len)
{
	static const u32 first[] = { 0, 0x80, 0x800, 0x10000 };
	static const u32 count[] = { 0x80, 0x780, 0xf800, 0x100000 };
	size_t i = 0;

	while (len - i >= 4) {
		u32 bytes = rand32() % 4, run = 1 + rand32() % 200, cp;

		for (; run && len - i >= 4; run--) {
			cp = first[bytes] + rand32() % count[bytes];
			if (cp >= 0xd800 && cp <= 0xdfff)	/* surrogates */
				cp -= 0x800;
			i += ref_encode(cp, p + i);
		}
	}
	while (i < len)
		p[i++] = 'x';
}

/* Where the input starts: a random alignment, or ending at the guard page. */
static u8 *place(size_t len)
{
	if (rand32() % 2)
		return buffer + buflen - len;
	return buffer + min_t(size_t, rand32() % 64, buflen - len);
}

static void expect_result(struct kunit *test, const struct utf8val_result *want,
			  const struct utf8val_result *got, const char *what,
			  size_t len, unsigned int flags)
{
	KUNIT_EXPECT_EQ_MSG(test, want->error, got->error,
			    "%s: len=%zu flags=%#x", what, len, flags);
	KUNIT_EXPECT_EQ_MSG(test, want->valid_up_to, got->valid_up_to,
			    "%s: len=%zu flags=%#x", what, len, flags);
	KUNIT_EXPECT_EQ_MSG(test, want->chars, got->chars,
			    "%s: len=%zu flags=%#x", what, len, flags);
	KUNIT_EXPECT_EQ_MSG(test, want->error_len, got->error_len,
			    "%s: len=%zu flags=%#x", what, len, flags);
}

static void utf8val_validate_vs_reference(struct kunit *test)
{
	for (int i = 0; i < ITERATIONS; i++) {
		size_t len = random_length();
		u8 *p = place(len);
		unsigned int flags = rand32() % (UTF8VAL_FLAGS_ALL + 1);
		struct utf8val_result want, got;

		random_text(p, len);
		ref_validate(p, len, flags, &want);
		KUNIT_EXPECT_EQ(test, want.error,
				utf8val_validate(p, len, flags, &got));
		expect_result(test, &want, &got, "validate", len, flags);
		ref_validate(p, len, 0, &want);
		KUNIT_EXPECT_EQ_MSG(test, !want.error, utf8val_check(p, len),
				    "check: len=%zu", len);
		KUNIT_EXPECT_EQ(test, utf8val_count(p, want.valid_up_to),
				want.chars);
	}
}

/* Every alignment of one long text, ending at the guard page or not. */
static void utf8val_every_alignment(struct kunit *test)
{
	const size_t len = 1500;

	for (size_t a = 0; a < 64; a++) {
		u8 *p = buffer + (a % 2 ? buflen - len - a / 2 : a);
		struct utf8val_result want, got;

		random_text(p, len);
		ref_validate(p, len, 0, &want);
		utf8val_validate(p, len, 0, &got);
		expect_result(test, &want, &got, "alignment", len, 0);
	}
}

static void path_desc(enum utf8val_path *path, char *desc)
{
	strscpy(desc, utf8val_path_name(*path), KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(path, kunit_paths, path_desc);

/*
 * The line and column of /dev/utf8val's verdict, followed by @l over the
 * @len bytes at @p that gave @want, against a count made here a byte at
 * a time.
 */
static void expect_lines(struct kunit *test, const u8 *p, size_t len,
			 const struct utf8val_result *want,
			 const struct utf8val_lines *l)
{
	size_t point = len, bol = 0, i;
	struct utf8val_result line_start;
	u64 line = 1;

	if (want->error && want->error != UTF8VAL_EINCOMPLETE)
		point = want->valid_up_to;
	for (i = 0; i < point; i++) {
		if (p[i] == '\n') {
			line++;
			bol = i + 1;
		}
	}
	ref_validate(p, bol, 0, &line_start);
	KUNIT_EXPECT_EQ_MSG(test, line, l->line, "line: len=%zu", len);
	KUNIT_EXPECT_EQ_MSG(test, want->chars - line_start.chars + 1,
			    want->chars - l->line_chars + 1, "column: len=%zu",
			    len);
}

/*
 * Each validation path, forced, on inputs long enough for the vector
 * paths: valid text, or valid text with one byte changed, that may end at
 * the guard page. A path the CPU lacks skips, by name.
 */
static void utf8val_every_path(struct kunit *test)
{
	const enum utf8val_path *path = test->param_value;

	if (utf8val_simd_select(*path) != *path) {
		utf8val_simd_select(admin_path);
		kunit_skip(test, "no %s path on this CPU",
			   utf8val_path_name(*path));
	}
	for (int i = 0; i < PATH_ITERATIONS; i++) {
		size_t len = VECTOR_MIN_LEN +
			     rand32() % (LONG_LEN - VECTOR_MIN_LEN + 1);
		size_t cut = rand32() % (len + 1);
		u8 *p = place(len);
		struct utf8val_result want, got;
		struct utf8val_stream st;
		struct utf8val_lines lines;

		valid_text(p, len);
		if (rand32() % 2)
			p[rand32() % len] = edges[rand32() % ARRAY_SIZE(edges)];
		ref_validate(p, len, 0, &want);
		utf8val_validate(p, len, 0, &got);
		expect_result(test, &want, &got, "validate", len, 0);
		KUNIT_EXPECT_EQ_MSG(test, !want.error, utf8val_check(p, len),
				    "check: len=%zu", len);
		utf8val_stream_init(&st, 0);
		utf8val_lines_init(&lines);
		utf8val_stream_feed(&st, p, cut);
		utf8val_lines_follow(&lines, &st, p, cut, 0);
		utf8val_stream_feed(&st, p + cut, len - cut);
		utf8val_lines_follow(&lines, &st, p + cut, len - cut, cut);
		utf8val_stream_result(&st, &got);
		expect_result(test, &want, &got, "stream", len, 0);
		expect_lines(test, p, len, &want, &lines);
	}
	kunit_info(test, "path %s: %d inputs of %d to %d bytes\n",
		   utf8val_path_name(*path), PATH_ITERATIONS, VECTOR_MIN_LEN,
		   LONG_LEN);
	utf8val_simd_select(admin_path);
}

#ifdef KUNIT_NMI
/* One validation asked of the NMI handler, and its answer. */
static struct {
	const u8 *p;
	size_t len;
	atomic_t armed;
	bool done;
	bool valid;
} nmi_call;

static int utf8val_kunit_nmi(unsigned int type, struct pt_regs *regs)
{
	if (!atomic_xchg(&nmi_call.armed, 0))
		return NMI_DONE;	/* not ours */
	nmi_call.valid = utf8val_check(nmi_call.p, nmi_call.len);
	/* publishes valid; pairs with the acquire in utf8val_in_nmi() */
	smp_store_release(&nmi_call.done, true);
	return NMI_HANDLED;
}

/*
 * utf8val_check() from an NMI that this CPU sends itself, on each path,
 * with inputs long enough for the vector paths: the answer must be right,
 * and nothing may warn (irq_fpu_usable() warns in NMI).
 */
static void utf8val_in_nmi(struct kunit *test)
{
	const size_t len = 2 * VECTOR_MIN_LEN + 100;
	bool warned = test_taint(TAINT_WARN);
	int path, ret;

	ret = register_nmi_handler(NMI_LOCAL, utf8val_kunit_nmi, 0,
				   "utf8val_kunit");
	KUNIT_ASSERT_EQ(test, 0, ret);
	for (path = 0; path < NR_UTF8VAL_PATHS; path++) {
		u8 *p = buffer + buflen - len;
		bool want = rand32() % 2;
		unsigned long timeout;

		if (utf8val_simd_select(path) != path)
			continue;
		valid_text(p, len);
		if (!want)
			p[len / 2 + rand32() % (len / 2)] = 0xff;
		nmi_call.p = p;
		nmi_call.len = len;
		nmi_call.done = false;
		atomic_set(&nmi_call.armed, 1);
		preempt_disable();
		apic->send_IPI_mask(cpumask_of(smp_processor_id()), NMI_VECTOR);
		timeout = jiffies + HZ;
		/* pairs with the release in utf8val_kunit_nmi() */
		while (!smp_load_acquire(&nmi_call.done) &&
		       time_before(jiffies, timeout))
			cpu_relax();
		preempt_enable();
		atomic_set(&nmi_call.armed, 0);
		KUNIT_EXPECT_TRUE_MSG(test, nmi_call.done, "no NMI arrived");
		KUNIT_EXPECT_EQ_MSG(test, want, nmi_call.valid, "path %s",
				    utf8val_path_name(path));
	}
	unregister_nmi_handler(NMI_LOCAL, "utf8val_kunit");
	utf8val_simd_select(admin_path);
	if (!warned)
		KUNIT_EXPECT_FALSE_MSG(test, test_taint(TAINT_WARN),
				       "the kernel warned during the NMIs");
}
#else
static void utf8val_in_nmi(struct kunit *test)
{
	kunit_skip(test, "no local APIC to send an NMI with");
}
#endif

/*
 * Bytes that change during the call: a kernel thread rewrites the bytes
 * that steer the decoder, at the end of an input that ends at the guard
 * page and anywhere in it, while every entry point runs on it. Nothing
 * may be read past the input (KASAN, or the guard page's fault) and
 * every answer must be well formed (utf8val.rst).
 */
struct rewrite {
	u8 *end;		/* the input's end, at the guard page */
	size_t len;		/* 0 while no input is there */
};

static int rewriter(void *arg)
{
	static const u8 steer[] = { 'a', '\n', 0x00, 0x80, 0xbf, 0xc2, 0xe0,
				    0xed, 0xef, 0xf0, 0xf4, 0xf8, 0xfe, 0xbe,
				    0x8f };
	struct rewrite *rw = arg;
	u32 n = 0;

	while (!kthread_should_stop()) {
		size_t len = READ_ONCE(rw->len);
		u32 r = get_random_u32();

		if (len) {
			size_t back = r % 2 ? 1 + (r >> 8) % min_t(size_t, len, 8)
					    : 1 + (r >> 8) % len;

			WRITE_ONCE(rw->end[-back],
				   steer[(r >> 24) % ARRAY_SIZE(steer)]);
		}
		if (!(++n % 256))
			cond_resched();
	}
	return 0;
}

/* Stops the rewriter however the test ends, before its memory goes. */
static void stop_rewriter(void *task)
{
	kthread_stop(task);
	put_task_struct(task);
}

static bool well_formed(const struct utf8val_result *r, size_t len)
{
	if (r->error == UTF8VAL_OK)
		return r->valid_up_to == len && r->chars <= len && !r->error_len;
	return r->error < UTF8VAL_EFLAGS && r->error_len >= 1 &&
	       r->error_len <= UTF8VAL_MAX_SEQ &&
	       r->valid_up_to + r->error_len <= len &&
	       r->chars <= r->valid_up_to;
}

/*
 * Every entry point once on the @len changing bytes at @s; replace()'s
 * output ends at @out_end, a guard page.
 */
static void changing_call(struct kunit *test, const u8 *s, size_t len,
			  unsigned int flags, u8 *out_end)
{
	size_t size = rand32() % 2 ? UTF8VAL_REPLACE_MAX(len) :
				     rand32() % (UTF8VAL_REPLACE_MAX(len) + 1);
	struct utf8val_errors it;
	struct utf8val_stream st;
	struct utf8val_lines lines;
	struct utf8val_result r;
	unsigned long long n;
	unsigned int cp, seq;
	bool ok = true;

	utf8val_validate(s, len, flags, &r);
	KUNIT_EXPECT_TRUE_MSG(test, well_formed(&r, len),
			      "validate %zu bytes, flags %#x: error %u at %llu",
			      len, flags, r.error, r.valid_up_to);
	utf8val_stream_init(&st, flags);
	utf8val_lines_init(&lines);
	utf8val_stream_feed(&st, s, len / 3);
	utf8val_lines_follow(&lines, &st, s, len / 3, 0);
	utf8val_stream_feed(&st, s + len / 3, len - len / 3);
	utf8val_lines_follow(&lines, &st, s + len / 3, len - len / 3, len / 3);
	utf8val_stream_result(&st, &r);
	KUNIT_EXPECT_TRUE_MSG(test, well_formed(&r, len),
			      "stream %zu bytes, flags %#x", len, flags);
	KUNIT_EXPECT_LE_MSG(test, lines.line, 1 + len,
			    "lines of %zu bytes, flags %#x", len, flags);
	utf8val_errors_init(&it, s, len, flags);
	while (ok && utf8val_errors_next(&it, &r))
		ok = well_formed(&r, len);
	KUNIT_EXPECT_TRUE_MSG(test, ok, "errors of %zu bytes, flags %#x", len, flags);
	n = utf8val_replace(s, len, flags, out_end - size, size);
	KUNIT_EXPECT_LE(test, n, UTF8VAL_REPLACE_MAX(len));
	if (!utf8val_decode(s, len, flags, &cp, &seq))
		KUNIT_EXPECT_LE(test, seq, len);
}

static void free_out(void *out)
{
	vfree(out);
}

static void utf8val_changing_bytes(struct kunit *test)
{
	static const size_t lens[] = { 1, 3, 7, 33, 64, 200, 513, 4096 + 61,
				       3 * 16 * 1024 + 5 };
	static const unsigned int modes[] = {
		0, UTF8VAL_REJECT_NONCHAR,
		UTF8VAL_REJECT_NUL | UTF8VAL_REJECT_NONCHAR | UTF8VAL_REJECT_BOM,
		UTF8VAL_SURROGATES, UTF8VAL_RFC2279 | UTF8VAL_REJECT_NONCHAR,
	};
	const size_t out_size = round_up(UTF8VAL_REPLACE_MAX(LONG_LEN), PAGE_SIZE);
	struct task_struct *task;
	struct rewrite *rw;
	int path, m, k, i;
	u8 *out;

	if (num_online_cpus() < 2)
		kunit_skip(test, "the rewriter needs a CPU of its own");
	rw = kunit_kzalloc(test, sizeof(*rw), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rw);
	rw->end = buffer + buflen;
	/* vmalloc()ed: a guard page after the end */
	out = vmalloc(out_size);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, free_out, out));
	task = kthread_run(rewriter, rw, "utf8val_rewrite");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	/* (actions run in reverse order: the rewriter stops first) */
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, stop_rewriter, task));
	/*
	 * The race with the rewriter is the point (its writes are marked,
	 * the core's reads and the refills are not): KCSAN is not to report
	 * it, in this thread only.
	 */
	kcsan_disable_current();
	for (path = 0; path < NR_UTF8VAL_PATHS; path++) {
		if (utf8val_simd_select(path) != path)
			continue;
		for (m = 0; m < ARRAY_SIZE(modes); m++)
			for (k = 0; k < ARRAY_SIZE(lens); k++)
				for (i = 0; i < CHANGE_ROUNDS; i++) {
					/* afresh, and then rewritten */
					WRITE_ONCE(rw->len, 0);
					valid_text(rw->end - lens[k], lens[k]);
					WRITE_ONCE(rw->len, lens[k]);
					changing_call(test, rw->end - lens[k],
						      lens[k], modes[m],
						      out + out_size);
					cond_resched();
				}
		WRITE_ONCE(rw->len, 0);
	}
	kcsan_enable_current();
	utf8val_simd_select(admin_path);
}

/* The stream cut in two at every point reaches the one-call verdict. */
static void utf8val_stream_every_split(struct kunit *test)
{
	for (int i = 0; i < 100; i++) {
		size_t len = rand32() % 200;
		u8 *p = place(len);
		unsigned int flags = rand32() % (UTF8VAL_FLAGS_ALL + 1);
		struct utf8val_result want, got;

		random_text(p, len);
		ref_validate(p, len, flags, &want);
		for (size_t cut = 0; cut <= len; cut++) {
			struct utf8val_stream st;

			utf8val_stream_init(&st, flags);
			utf8val_stream_feed(&st, p, cut);
			utf8val_stream_feed(&st, p + cut, len - cut);
			utf8val_stream_result(&st, &got);
			expect_result(test, &want, &got, "stream", len, flags);
		}
	}
}

static void utf8val_codec_round_trip(struct kunit *test)
{
	static const unsigned int modes[] = {
		0, UTF8VAL_SURROGATES, UTF8VAL_RFC2279,
	};

	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		for (u32 cp = 0; cp < 0x110000; cp += 1 + rand32() % 64) {
			u8 out[UTF8VAL_MAX_SEQ], ref[UTF8VAL_MAX_SEQ];
			u32 n = utf8val_encode(cp, modes[m], out), got, k;
			bool surrogate = cp >= 0xd800 && cp <= 0xdfff;

			if (surrogate && !(modes[m] & UTF8VAL_SURROGATES)) {
				KUNIT_EXPECT_EQ(test, 0, n);
				continue;
			}
			KUNIT_ASSERT_EQ(test, ref_encode(cp, ref), n);
			KUNIT_EXPECT_MEMEQ(test, ref, out, n);
			KUNIT_EXPECT_EQ(test, UTF8VAL_OK,
					utf8val_decode(out, n, modes[m], &got, &k));
			KUNIT_EXPECT_EQ(test, cp, got);
			KUNIT_EXPECT_EQ(test, n, k);
		}
	}
	KUNIT_EXPECT_EQ(test, 0, utf8val_encode(0x110000, 0, buffer));
	KUNIT_EXPECT_EQ(test, 6, utf8val_encode(0x7fffffff, UTF8VAL_RFC2279,
						buffer));
}

static void utf8val_benchmark(struct kunit *test)
{
	static const size_t lens[] = { 16, 256, 4096 };

	if (!benchmark)
		kunit_skip(test, "not asked for (benchmark=1)");
	random_text(buffer, buflen);
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		size_t iters = 20000000 / (lens[i] + 64), valid = 0;
		u64 t;

		preempt_disable();
		t = ktime_get_ns();
		for (size_t j = 0; j < iters; j++)
			valid += utf8val_check(buffer, lens[i]);
		t = ktime_get_ns() - t;
		preempt_enable();
		/* printing the count keeps the calls from being optimized out */
		kunit_info(test, "utf8val_check len=%zu: %llu MB/s (%zu valid)\n",
			   lens[i], div64_u64((u64)lens[i] * iters * 1000, t ?: 1),
			   valid);
	}
}

static struct kunit_case utf8val_kunit_cases[] = {
	KUNIT_CASE(utf8val_validate_vs_reference),
	KUNIT_CASE(utf8val_every_alignment),
	KUNIT_CASE(utf8val_stream_every_split),
	KUNIT_CASE_PARAM(utf8val_every_path, path_gen_params),
	KUNIT_CASE(utf8val_in_nmi),
	KUNIT_CASE(utf8val_changing_bytes),
	KUNIT_CASE(utf8val_codec_round_trip),
	KUNIT_CASE(utf8val_benchmark),
	{},
};

static struct kunit_suite utf8val_kunit_suite = {
	.name = "utf8val",
	.test_cases = utf8val_kunit_cases,
	.suite_init = utf8val_kunit_init,
	.suite_exit = utf8val_kunit_exit,
};

kunit_test_suite(utf8val_kunit_suite);

MODULE_DESCRIPTION("KUnit tests for utf8val against an independent reference");
UTF8VAL_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
