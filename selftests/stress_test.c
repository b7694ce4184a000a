// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/utf8val against hostile user space, in the guest (the debug kernel
 * runs it with KASAN, lockdep and kmemleak watching): a fault injected at
 * every fault site of every system call path, of the sysfs files and of
 * the module's load, threads racing on one file,
 * processes with files of their own, open/close storms, thousands of files
 * charged to the opener's memory cgroup, and the largest write the VFS
 * allows, whole and interrupted. Every answer is checked against the
 * reference's model of the stream (dev_model.c).
 *
 * STRESS_SECONDS (default 3) bounds each timed test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "dev_model.h"

#define THREADS		4
#define PROCESSES	4

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static double stress_seconds(void)
{
	const char *s = getenv("STRESS_SECONDS");

	return s ? atof(s) : 3;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static unsigned long long read_number(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return strtoull(buf, NULL, 10);
}

/* The device's verdict against the model's; logs the first difference. */
static bool verdict_matches(struct __test_metadata *_metadata, int fd,
			    const struct stream_model *m, const char *when)
{
	struct utf8val_ioc_verdict want, got;
	const char *diff;

	memset(&got, 0xa5, sizeof(got));
	if (ioctl(fd, UTF8VAL_IOC_GET_VERDICT, &got)) {
		TH_LOG("%s: GET_VERDICT failed: %s", when, strerror(errno));
		return false;
	}
	model_verdict(m, &want);
	diff = verdict_mismatch(&want, &got);
	if (diff)
		TH_LOG("%s: %s", when, diff);
	return !diff;
}

/* The read() line, from its start, against the model's. */
static bool line_matches(struct __test_metadata *_metadata, int fd,
			 const struct stream_model *m, const char *when)
{
	char want[256], got[256] = "";
	ssize_t n = read(fd, got, sizeof(got) - 1);

	model_line(m, want, sizeof(want));
	if (n < 0) {
		TH_LOG("%s: read: %s", when, strerror(errno));
		return false;
	}
	got[n] = '\0';
	if (strcmp(want, got))
		TH_LOG("%s: read %s, want %s", when, got, want);
	return !strcmp(want, got);
}

/*
 * Fault injection with /proc/thread-self/fail-nth: the Nth fault site the
 * thread reaches fails (failslab for allocations, fail_usercopy for user
 * copies). Each path runs with N = 1, 2, ... until a run reaches no more
 * sites; after every injected failure the file must still be exactly what
 * the model says, and kmemleak (at the end of the guest run) sees no leak.
 */
static int fail_nth = -1;

static void fail_nth_arm(unsigned int n)
{
	char buf[16];

	pwrite(fail_nth, buf, snprintf(buf, sizeof(buf), "%u", n), 0);
}

/*
 * Whether the armed fault was injected, and disarm. Reading or writing
 * the file is itself a user copy that a still-pending count can fail.
 */
static bool fail_nth_injected(void)
{
	char buf[16] = "";
	ssize_t n = pread(fail_nth, buf, sizeof(buf) - 1, 0);

	while (pwrite(fail_nth, "0", 1, 0) != 1)
		;
	return n > 0 && atoi(buf) == 0;
}

/*
 * Valid text, newlines included: a write of its first few bytes, of 3
 * pages and more across page boundaries, and of all of it (many of the
 * module's copies and chunks).
 */
static u8 text[64 * 4096 + 100];
#define SMALL_LEN	5
#define PAGES_LEN	(3 * 4096 + 100)

static void fill_text(void)
{
	static const char *const words[] = { "caf\xc3\xa9 ", "\xe2\x82\xac",
					     "\xf0\x9f\x98\x80", "\n", "abc " };

	for (size_t i = 0; i < sizeof(text); ) {
		const char *w = words[i % 7 % 5];
		size_t n = strlen(w);

		/* whole characters in each write's length */
		if (i + n > sizeof(text) ||
		    (i < SMALL_LEN && i + n > SMALL_LEN) ||
		    (i < PAGES_LEN && i + n > PAGES_LEN))
			n = 1, w = "x";
		memcpy(text + i, w, n);
		i += n;
	}
}

enum path { P_OPEN, P_WRITE_SMALL, P_WRITE, P_WRITE_HUGE, P_READ,
	    P_GET_VERDICT, P_SET_FLAGS, P_RESET, P_VALIDATE, P_CLOSE, NR_PATHS };

static const char *const path_names[] = { "open", "small write",
	"pages write", "huge write", "read",
	"GET_VERDICT", "SET_FLAGS", "RESET", "VALIDATE", "close" };

static size_t write_len(enum path path)
{
	return path == P_WRITE_SMALL ? SMALL_LEN :
	       path == P_WRITE ? PAGES_LEN : sizeof(text);
}

struct fault_run {
	int fd;
	struct stream_model m;
	long streams;		/* open_streams before */
};

/* A file with a few bytes in it, the model beside it. */
static void fault_setup(struct __test_metadata *_metadata,
			struct fault_run *r)
{
	*r = (struct fault_run){ .fd = -1 };	/* the model owns no buffer yet */
	r->streams = sysfs_value("open_streams");
	r->fd = open(DEV, O_RDWR);
	ASSERT_LE(0, r->fd);
	model_restart(&r->m, 0);
	ASSERT_EQ(5, write(r->fd, "ab\n\xc3\xa9", 5));
	model_write(&r->m, (const u8 *)"ab\n\xc3\xa9", 5, 5);
}

/*
 * One call of @path with the Nth fault armed; checks the result and the
 * file afterwards. Returns whether a fault was injected, *@failed whether
 * the call failed.
 */
static bool fault_step(struct __test_metadata *_metadata, enum path path,
		       unsigned int n, bool *failed)
{
	struct utf8val_ioc_validate req = { .buf = (unsigned long)text,
					    .len = PAGES_LEN };
	struct utf8val_ioc_flags fl = { .flags = UTF8VAL_REJECT_NUL };
	struct utf8val_ioc_verdict v;
	struct fault_run r;
	char line[256];
	bool injected;
	long ret = 0;
	int err;

	fault_setup(_metadata, &r);
	if (path == P_CLOSE) {	/* a truncated tail for flush to report */
		ASSERT_EQ(1, write(r.fd, "\xe2", 1));
	}
	fail_nth_arm(n);
	switch (path) {
	case P_OPEN:
		ret = open(DEV, O_RDWR);
		break;
	case P_WRITE_SMALL:
	case P_WRITE:
	case P_WRITE_HUGE:
		ret = write(r.fd, text, write_len(path));
		break;
	case P_READ:
		ret = read(r.fd, line, sizeof(line));
		break;
	case P_GET_VERDICT:
		ret = ioctl(r.fd, UTF8VAL_IOC_GET_VERDICT, &v);
		break;
	case P_SET_FLAGS:
		ret = ioctl(r.fd, UTF8VAL_IOC_SET_FLAGS, &fl);
		break;
	case P_RESET:
		ret = ioctl(r.fd, UTF8VAL_IOC_RESET);
		break;
	case P_VALIDATE:
		ret = ioctl(r.fd, UTF8VAL_IOC_VALIDATE, &req);
		break;
	case P_CLOSE:
		ret = close(r.fd);
		break;
	default:
		break;
	}
	err = errno;
	injected = fail_nth_injected();
	*failed = ret < 0 && !(path == P_CLOSE && err == EILSEQ);
	if (*failed && err != ENOMEM && err != EFAULT)
		TH_LOG("%s, fault %u: unexpected %s", path_names[path], n,
		       strerror(err));
	if (*failed)
		EXPECT_TRUE(err == ENOMEM || err == EFAULT);
	if (!injected)
		EXPECT_FALSE(*failed);

	/* What the call must have done to the file. */
	switch (path) {
	case P_OPEN:
		if (ret >= 0)
			close(ret);
		break;
	case P_WRITE_SMALL:
	case P_WRITE:
	case P_WRITE_HUGE:
		/* Whole pages went in before the failed copy, none after. */
		EXPECT_EQ(ret < 0 ? -err : ret,
			  model_write(&r.m, text, ret < 0 ? 0 : ret,
				      write_len(path)));
		if (ret >= 0 && ret < (long)write_len(path))
			EXPECT_EQ(0, ret % 4096);
		break;
	case P_READ:
		if (ret < 0)
			r.m.read_pos = 0;
		break;
	case P_SET_FLAGS:
	case P_RESET:
		if (ret == 0)
			model_restart(&r.m, path == P_SET_FLAGS ? fl.flags :
					    r.m.flags);
		break;
	case P_VALIDATE:
		if (ret == 0) {
			EXPECT_EQ(PAGES_LEN, req.valid_up_to);
			EXPECT_EQ(UTF8VAL_OK, req.error);
		}
		break;
	case P_CLOSE:
		/* The file is gone, whatever flush said. */
		EXPECT_EQ(r.streams, sysfs_value("open_streams"));
		return injected;
	default:
		break;
	}
	EXPECT_TRUE(verdict_matches(_metadata, r.fd, &r.m, path_names[path]));
	if (path != P_READ || ret < 0)
		EXPECT_TRUE(line_matches(_metadata, r.fd, &r.m,
					 path_names[path]));
	close(r.fd);
	EXPECT_EQ(r.streams, sysfs_value("open_streams"));
	model_free(&r.m);
	return injected;
}

/*
 * Arms fail-nth for this thread, with every fault type it drives failing
 * GFP_KERNEL requests and order-0 pages too, quietly. False if the kernel
 * has no fault injection (Debian's): the caller skips.
 */
static bool fault_injection_ready(struct __test_metadata *_metadata)
{
	static const char *const knobs[][2] = {
		{ "failslab/ignore-gfp-wait", "N" },
		{ "failslab/verbose", "0" },
		{ "fail_page_alloc/ignore-gfp-wait", "N" },
		{ "fail_page_alloc/min-order", "0" },
		{ "fail_page_alloc/verbose", "0" },
		{ "fail_usercopy/verbose", "0" },
	};
	char path[128];

	if (access("/sys/kernel/debug/failslab", F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (fail_nth < 0)
		fail_nth = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fail_nth < 0 || access("/sys/kernel/debug/fail_usercopy", F_OK) ||
	    access("/sys/kernel/debug/fail_page_alloc", F_OK))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s", knobs[i][0]);
		EXPECT_EQ(0, write_file(path, knobs[i][1]));
	}
	return true;
}

#define NO_FAULT_INJECTION \
	"no fail-nth, failslab, fail_page_alloc or fail_usercopy (CONFIG_FAULT_INJECTION)"

TEST(a_fault_at_every_site_of_every_path)
{
	if (!fault_injection_ready(_metadata))
		SKIP(return, NO_FAULT_INJECTION);
	fill_text();

	for (enum path p = 0; p < NR_PATHS; p++) {
		unsigned int n, failures = 0;
		bool failed;

		for (n = 1; n < 1000; n++) {
			if (!fault_step(_metadata, p, n, &failed))
				break;
			failures += failed;
		}
		TH_LOG("%-11s %3u fault sites, %3u failed the call",
		       path_names[p], n - 1, failures);
		EXPECT_GT(1000, n);
		/* RESET and close copy and allocate nothing; the rest do */
		if (p != P_RESET && p != P_CLOSE)
			EXPECT_LT(0, failures);
	}
}

/*
 * One read of a sysfs file, or one write of what it holds, with the Nth
 * fault armed: it fails with ENOMEM or EFAULT, or gives what it gave with
 * no fault. Returns whether a fault was injected; counts failures.
 */
static bool sysfs_fault_step(struct __test_metadata *_metadata,
			     const char *path, const char *want, bool write,
			     unsigned int n, unsigned int *failures)
{
	char got[4096] = "";
	ssize_t ret = -1;
	bool injected;
	int fd, err;

	fail_nth_arm(n);
	fd = open(path, write ? O_WRONLY : O_RDONLY);
	if (fd >= 0) {
		ret = write ? pwrite(fd, want, strlen(want), 0) :
			      pread(fd, got, sizeof(got) - 1, 0);
		err = errno;
		close(fd);
	} else {
		err = errno;
	}
	injected = fail_nth_injected();
	if (ret < 0) {
		++*failures;
		if (err != ENOMEM && err != EFAULT)
			TH_LOG("%s, fault %u: unexpected %s", path, n, strerror(err));
		EXPECT_TRUE(err == ENOMEM || err == EFAULT);
		EXPECT_TRUE(injected);
	} else if (!write) {
		if (strcmp(want, got))
			TH_LOG("%s, fault %u: read \"%s\", want \"%s\"", path, n, got, want);
		EXPECT_STREQ(want, got);
	}
	return injected;
}

/*
 * The sysfs files: each counter and list read, and the path parameter
 * written with the value it holds, failed at every site; the content is
 * what it was (nothing validates meanwhile).
 */
TEST(a_fault_at_every_site_of_the_sysfs_files)
{
	static const char *const files[] = {
		"/sys/class/misc/utf8val/bytes",
		"/sys/class/misc/utf8val/open_streams",
		"/sys/class/misc/utf8val/simd_paths",
		"/sys/class/misc/utf8val/verdicts/valid",
		"/sys/class/misc/utf8val/verdicts/overlong",
		"/sys/module/utf8val/parameters/simd",
	};

	if (!fault_injection_ready(_metadata))
		SKIP(return, NO_FAULT_INJECTION);
	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		/* the parameter also written, with its own value */
		for (int write = 0; write <= (f == 5); write++) {
			char want[4096] = "";
			unsigned int n, failures = 0;
			int fd = open(files[f], O_RDONLY);

			ASSERT_LE(0, fd);
			ASSERT_LT(0, read(fd, want, sizeof(want) - 1));
			close(fd);
			for (n = 1; n < 1000; n++)
				if (!sysfs_fault_step(_metadata, files[f], want,
						      write, n, &failures))
					break;
			TH_LOG("%s %s: %u fault sites, %u failed the call",
			       write ? "write" : "read", files[f], n - 1, failures);
			EXPECT_GT(1000, n);
		}
	}
}

/*
 * The module's load, failed at every fault site it reaches (the loader's
 * allocations and copies, the misc device, its sysfs groups, the kfuncs'
 * registration where there is BPF): each failed load leaves nothing
 * behind, no module, no device, no sysfs directory, and the load with no
 * fault left works. kmemleak (at the end of the guest run) sees no leak.
 */
FIXTURE(module_load) {
};

FIXTURE_SETUP(module_load)
{
}

/* whatever the test did, the module is loaded again for the suites after */
FIXTURE_TEARDOWN(module_load)
{
	int ko = open("/lib/modules/utf8val.ko", O_RDONLY);

	if (access("/sys/module/utf8val", F_OK) && ko >= 0)
		syscall(SYS_finit_module, ko, "", 0);
	if (ko >= 0)
		close(ko);
}

/* every load under KASAN, emulated: minutes, not the harness's 30 s */
TEST_F_TIMEOUT(module_load, a_fault_at_every_site, 900)
{
	unsigned int n, failures = 0, ok_with_fault = 0;
	int ko = open("/lib/modules/utf8val.ko", O_RDONLY);
	double t0 = now();
	int fd;

	if (!fault_injection_ready(_metadata))
		SKIP(return, NO_FAULT_INJECTION);
	ASSERT_LE(0, ko);
	/* (nothing holds the module between suites) */
	ASSERT_EQ(0, syscall(SYS_delete_module, "utf8val", O_NONBLOCK));
	for (n = 1; n < 5000; n++) {
		long ret;
		bool injected;
		int err;

		fail_nth_arm(n);
		ret = syscall(SYS_finit_module, ko, "", 0);
		err = errno;
		injected = fail_nth_injected();
		if (!ret && !injected)
			break;
		if (!ret) {
			/* a fault the load got around (a fallback) */
			ok_with_fault++;
			ASSERT_EQ(0, syscall(SYS_delete_module, "utf8val", O_NONBLOCK));
			continue;
		}
		failures++;
		if (err != ENOMEM && err != EFAULT)
			TH_LOG("load, fault %u: unexpected %s", n, strerror(err));
		EXPECT_TRUE(err == ENOMEM || err == EFAULT);
		EXPECT_TRUE(injected);
		EXPECT_NE(0, access("/sys/module/utf8val", F_OK));
		EXPECT_NE(0, access("/sys/class/misc/utf8val", F_OK));
		EXPECT_NE(0, access(DEV, F_OK));
		if (!access("/sys/module/utf8val", F_OK)) {
			TH_LOG("load, fault %u: the module stayed", n);
			syscall(SYS_delete_module, "utf8val", O_NONBLOCK);
		}
		if (n % 100 == 0)
			TH_LOG("load: %u fault sites so far, %.0f s", n, now() - t0);
	}
	close(ko);
	TH_LOG("load: %u fault sites, %u failed it, %u got around", n - 1,
	       failures, ok_with_fault);
	EXPECT_GT(5000, n);
	EXPECT_LT(0, failures);
	/* loaded, and at work */
	fd = open(DEV, O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(4, write(fd, "\xc3\xa9ok", 4));
	close(fd);
}

/*
 * Threads racing on one file. Writes are whole valid characters that no
 * flag rejects, so whatever the interleaving with resets and flag changes,
 * every write is taken whole and every verdict says valid; the one-call
 * validation, which does not touch the stream, must match the reference,
 * also while another thread switches the validation path (utf8val.simd=)
 * and others close duplicates of the file or fork children that write
 * to it and exit. The debug kernels (KCSAN, lockdep) watch this storm.
 */
struct racer {
	int fd;
	u64 rng;
	double until;
	unsigned long ops, bad;
	char why[128];
};

static void race_fail(struct racer *r, const char *what, long got)
{
	if (!r->bad++)
		snprintf(r->why, sizeof(r->why), "%s: %ld (%s)", what, got,
			 strerror(errno));
}

/* The module's paths (simd_paths), and "auto", read once. */
static char paths[9][16];
static int nr_paths;
static pthread_once_t paths_once = PTHREAD_ONCE_INIT;

static void read_paths(void)
{
	nr_paths = simd_paths(paths, 8);
	snprintf(paths[nr_paths++], sizeof(paths[0]), "auto");
}

static void race_once(struct racer *r)
{
	static const char *const chars[] = { "a", "\n", "\xc3\xa9",
					     "\xe2\x82\xac", "\xf0\x9f\x98\x80" };
	static const unsigned int flags[] = { 0, UTF8VAL_REJECT_NUL,
		UTF8VAL_SURROGATES, UTF8VAL_RFC2279, UTF8VAL_REJECT_NONCHAR };
	static __thread u8 big[12 * 1024];	/* the vector paths' lengths */
	struct utf8val_ioc_flags fl = { 0 };
	struct utf8val_ioc_validate req = { 0 };
	struct utf8val_ioc_verdict v;
	struct utf8val_result want;
	u8 buf[512];
	size_t len = 0;
	char line[256];
	int status = 0;
	pid_t pid;
	long ret;

	switch (xorshift(&r->rng) % 10) {
	case 0:
	case 1:
	case 2:
		while (len < sizeof(buf) - 4 && xorshift(&r->rng) % 64) {
			const char *c = chars[xorshift(&r->rng) % 5];

			memcpy(buf + len, c, strlen(c));
			len += strlen(c);
		}
		ret = write(r->fd, buf, len);
		if (ret != (long)len)
			race_fail(r, "write", ret);
		break;
	case 3:
		ret = read(r->fd, line, sizeof(line) - 1);
		if (ret > 0 && !r->bad && strncmp(line, "valid bytes=", ret < 12 ? ret : 12))
			race_fail(r, "read says not valid", ret);
		else if (ret < 0)
			race_fail(r, "read", ret);
		break;
	case 4:
		ret = ioctl(r->fd, UTF8VAL_IOC_RESET);
		if (ret)
			race_fail(r, "RESET", ret);
		break;
	case 5:
		fl.flags = flags[xorshift(&r->rng) % 5];
		ret = ioctl(r->fd, UTF8VAL_IOC_SET_FLAGS, &fl);
		if (ret)
			race_fail(r, "SET_FLAGS", ret);
		break;
	case 6:
		ret = ioctl(r->fd, UTF8VAL_IOC_GET_VERDICT, &v);
		if (ret || v.error != UTF8VAL_OK || v.bytes != v.valid_up_to ||
		    v.chars > v.bytes)
			race_fail(r, "GET_VERDICT error", v.error);
		break;
	case 7:
		/* strict only, sometimes long: the vector paths' case */
		req.flags = xorshift(&r->rng) % 2 ? 0 :
			    xorshift(&r->rng) % (UTF8VAL_FLAGS_ALL + 1);
		req.len = random_input(&r->rng, big, xorshift(&r->rng) % 2 ?
				       sizeof(big) : sizeof(buf));
		req.buf = (unsigned long)big;
		ret = ioctl(r->fd, UTF8VAL_IOC_VALIDATE, &req);
		ref_validate(big, req.len, req.flags, &want);
		if (ret || req.error != want.error ||
		    req.valid_up_to != want.valid_up_to ||
		    req.chars != want.chars || req.error_len != want.error_len)
			race_fail(r, "VALIDATE differs from the reference", ret);
		break;
	case 8:
		if (xorshift(&r->rng) % 16) {
			ret = close(dup(r->fd));
			if (ret)
				race_fail(r, "close(dup())", ret);
			break;
		}
		pid = fork();
		if (!pid)
			_exit(write(r->fd, "\xc3\xa9", 2) != 2);
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
			race_fail(r, "a child's write", status);
		break;
	default:
		pthread_once(&paths_once, read_paths);
		if (write_file("/sys/module/utf8val/parameters/simd",
			       paths[xorshift(&r->rng) % nr_paths]))
			race_fail(r, "switch the path", -1);
		break;
	}
	r->ops++;
}

static void *racer_thread(void *arg)
{
	struct racer *r = arg;

	while (now() < r->until)
		race_once(r);
	return NULL;
}

TEST(threads_race_on_one_file)
{
	struct racer r[THREADS];
	pthread_t t[THREADS];
	unsigned long ops = 0;
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	for (int i = 0; i < THREADS; i++) {
		r[i] = (struct racer){ .fd = fd, .rng = 0x7ace + i,
				       .until = now() + stress_seconds() };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, racer_thread, &r[i]));
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		ops += r[i].ops;
		if (r[i].bad)
			TH_LOG("thread %d: %lu bad, first %s", i, r[i].bad,
			       r[i].why);
		EXPECT_EQ(0, r[i].bad);
	}
	TH_LOG("%d threads, %.0f s: %lu operations on one file", THREADS,
	       stress_seconds(), ops);
	EXPECT_LT(0, ops);
	EXPECT_EQ(0, write_file("/sys/module/utf8val/parameters/simd", "auto"));
	close(fd);
}

/*
 * Processes, each with its own file: random writes (errors included)
 * through the model, each answer and verdict checked, for a bounded time.
 */
static int own_file_worker(u64 seed, double until, unsigned long *ops)
{
	struct stream_model m = { 0 };
	struct utf8val_ioc_verdict want, got;
	int fd = open(DEV, O_RDWR), bad = 0;
	u64 rng = seed;
	static u8 buf[8192];

	if (fd < 0)
		return 1;
	model_restart(&m, 0);
	for (*ops = 0; now() < until; ++*ops) {
		size_t len = random_input(&rng, buf, sizeof(buf));
		ssize_t want_ret, ret;

		if (xorshift(&rng) % 16 == 0 || m.len > (1 << 16)) {
			struct utf8val_ioc_flags fl = {
				.flags = xorshift(&rng) % (UTF8VAL_FLAGS_ALL + 1)
			};

			if (ioctl(fd, UTF8VAL_IOC_SET_FLAGS, &fl))
				bad++;
			model_restart(&m, fl.flags);
		}
		want_ret = model_write(&m, buf, len, len);
		ret = write(fd, buf, len);
		if (want_ret < 0 ? ret != -1 || errno != -want_ret :
				   ret != want_ret)
			bad++;
		model_verdict(&m, &want);
		if (ioctl(fd, UTF8VAL_IOC_GET_VERDICT, &got) ||
		    verdict_mismatch(&want, &got))
			bad++;
	}
	close(fd);
	model_free(&m);
	return bad != 0;
}

TEST(processes_with_files_of_their_own)
{
	double until = now() + stress_seconds();
	unsigned long *ops = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned long total = 0;
	pid_t pid[PROCESSES];

	ASSERT_TRUE(ops != MAP_FAILED);
	for (int i = 0; i < PROCESSES; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0)
			_exit(own_file_worker(0xf11e + i, until, &ops[i]));
	}
	for (int i = 0; i < PROCESSES; i++) {
		int status;

		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		total += ops[i];
	}
	TH_LOG("%d processes, %.0f s: %lu writes, each checked", PROCESSES,
	       stress_seconds(), total);
	EXPECT_LT(0, total);
	munmap(ops, 4096);
}

/* Threads opening, using and closing files as fast as they can. */
struct storm {
	double until;
	unsigned long opens, bad;
};

static void *storm_thread(void *arg)
{
	struct storm *s = arg;

	while (now() < s->until) {
		int fd = open(DEV, O_RDWR), dup_fd;

		if (fd < 0) {
			s->bad++;
			continue;
		}
		s->opens++;
		dup_fd = dup(fd);
		if (write(fd, "\xc3", 1) != 1)
			s->bad++;
		close(fd);
		/* the last close of a stream ending inside a character */
		if (close(dup_fd) != -1 || errno != EILSEQ)
			s->bad++;
	}
	return NULL;
}

TEST(open_close_storm)
{
	struct storm s[THREADS];
	pthread_t t[THREADS];
	long before = sysfs_value("open_streams");
	unsigned long opens = 0;

	for (int i = 0; i < THREADS; i++) {
		s[i] = (struct storm){ .until = now() + stress_seconds() };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, storm_thread, &s[i]));
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, s[i].bad);
		opens += s[i].opens;
	}
	TH_LOG("%d threads, %.0f s: %lu opens and closes", THREADS,
	       stress_seconds(), opens);
	EXPECT_LT(0, opens);
	EXPECT_EQ(before, sysfs_value("open_streams"));
}

/*
 * Thousands of open files are charged to the opener's memory cgroup
 * (GFP_KERNEL_ACCOUNT), a bounded amount each however much is written
 * through them, and all of it is returned on close.
 */
#define CGROUP "/sys/fs/cgroup"

TEST(thousands_of_files_are_charged_to_the_opener)
{
	enum { FILES = 4000, WRITTEN = 16 << 10 };
	static int fds[FILES];
	static u8 chunk[WRITTEN];
	struct rlimit lim = { FILES + 64, FILES + 64 };
	unsigned long long before, opened, written, closed;
	char group[64], path[96], pid[16];
	long page = sysconf(_SC_PAGESIZE);

	mkdir(CGROUP, 0755);
	if (access(CGROUP "/cgroup.controllers", F_OK))
		mount("cgroup2", CGROUP, "cgroup2", 0, NULL);
	if (write_file(CGROUP "/cgroup.subtree_control", "+memory"))
		SKIP(return, "no cgroup2 memory controller (CONFIG_MEMCG)");
	snprintf(group, sizeof(group), CGROUP "/utf8val-%d", getpid());
	ASSERT_EQ(0, mkdir(group, 0755));
	snprintf(pid, sizeof(pid), "%d", getpid());
	snprintf(path, sizeof(path), "%s/cgroup.procs", group);
	ASSERT_EQ(0, write_file(path, pid));
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &lim));
	memset(chunk, 'a', sizeof(chunk));

	snprintf(path, sizeof(path), "%s/memory.current", group);
	before = read_number(path);
	for (int i = 0; i < FILES; i++) {
		fds[i] = open(DEV, O_RDWR);
		ASSERT_LE(0, fds[i]);
	}
	opened = read_number(path);
	for (int i = 0; i < FILES; i++)
		ASSERT_EQ(WRITTEN, write(fds[i], chunk, WRITTEN));
	written = read_number(path);
	for (int i = 0; i < FILES; i++)
		close(fds[i]);
	closed = read_number(path);
	TH_LOG("%d files, bytes charged each: %lld open, +%lld for %d KiB written, %lld closed",
	       FILES, (long long)(opened - before) / FILES,
	       (long long)(written - opened) / FILES, WRITTEN >> 10,
	       (long long)(closed - before) / FILES);
	/* at least the bounce page, at most three pages a file */
	EXPECT_LE(before + FILES * page, opened);
	EXPECT_GE(before + 3 * FILES * page, opened);
	/* writing allocates nothing (2 KiB/file of slack for charge batching) */
	EXPECT_GE(opened + FILES * 2048, written);
	/* closing returns the bounce pages */
	EXPECT_LE(closed + FILES * page, opened);

	write_file(CGROUP "/cgroup.procs", pid);
	rmdir(group);
}

/*
 * The largest write the VFS passes to a driver (MAX_RW_COUNT, INT_MAX
 * rounded down to a page), of zero pages. Interrupted by a timer signal,
 * it ends early with exactly the bytes fed, and the stream goes on from
 * there. Whole, it completes, where the kernel is fast enough to do so
 * in two minutes (not the debug kernel under emulation).
 */
#define MAX_RW_COUNT	0x7ffff000L
#define WHOLE_WRITE_SECONDS	120

static void on_alarm(int sig)
{
}

FIXTURE(largest_write) {
	char *zeros;
	size_t len;
};

FIXTURE_SETUP(largest_write)
{
	if (sizeof(long) < 8)
		SKIP(return, "needs a 64-bit address space");
	self->len = (size_t)MAX_RW_COUNT + (2u << 20);	/* more than it takes */
	self->zeros = mmap(NULL, self->len, PROT_READ,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(self->zeros != MAP_FAILED);
}

FIXTURE_TEARDOWN(largest_write)
{
	if (self->zeros && self->zeros != MAP_FAILED)
		munmap(self->zeros, self->len);
}

TEST_F_TIMEOUT(largest_write, completes_or_is_interrupted_cleanly,
	       2 * WHOLE_WRITE_SECONDS)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval half_second = { .it_value.tv_usec = 500 * 1000 };
	struct utf8val_ioc_verdict v;
	double t0, rate;
	ssize_t n;
	int fd;

	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	fd = open(DEV, O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &half_second, NULL));
	t0 = now();
	n = write(fd, self->zeros, self->len);
	rate = n / (now() - t0);
	TH_LOG("interrupted after %zd bytes (%.0f MB/s)", n, rate / 1e6);
	EXPECT_LT(0, n);
	EXPECT_GT(MAX_RW_COUNT, n);
	EXPECT_EQ(0, n % 4096);
	ASSERT_EQ(0, ioctl(fd, UTF8VAL_IOC_GET_VERDICT, &v));
	EXPECT_EQ(n, v.bytes);
	/* the rest, and nothing was lost */
	EXPECT_EQ(1 << 20, write(fd, self->zeros + n, 1 << 20));
	ASSERT_EQ(0, ioctl(fd, UTF8VAL_IOC_GET_VERDICT, &v));
	EXPECT_EQ(n + (1 << 20), v.bytes);
	EXPECT_EQ(n + (1 << 20), v.chars);
	close(fd);

	if (MAX_RW_COUNT / rate > WHOLE_WRITE_SECONDS)
		SKIP(return, "the whole write would take %.0f s here",
		     MAX_RW_COUNT / rate);
	fd = open(DEV, O_WRONLY);
	ASSERT_LE(0, fd);
	t0 = now();
	EXPECT_EQ(MAX_RW_COUNT, write(fd, self->zeros, self->len));
	TH_LOG("%ld bytes in one write: %.1f s", MAX_RW_COUNT, now() - t0);
	ASSERT_EQ(0, ioctl(fd, UTF8VAL_IOC_GET_VERDICT, &v));
	EXPECT_EQ(MAX_RW_COUNT, v.bytes);
	EXPECT_EQ(MAX_RW_COUNT, v.chars);
	close(fd);
}

TEST_HARNESS_MAIN
