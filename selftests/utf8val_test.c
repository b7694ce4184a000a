// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/utf8val through its system calls, in the guest, with the kernel's
 * kselftest harness: ioctls (output poisoned so an unwritten field shows)
 * and their rejects, policy flags, bad pointers, flush, many files, two
 * threads on one file, a huge write killed mid-way, and the module's
 * validator against the user-space reference on random inputs.
 *
 * Built static twice, 64- and 32-bit: the second goes through compat_ioctl.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "dev_model.h"

#define POISON 0xa5

static void get_verdict(struct __test_metadata *_metadata, int fd,
			struct utf8val_ioc_verdict *v)
{
	memset(v, POISON, sizeof(*v));
	ASSERT_EQ(0, ioctl(fd, UTF8VAL_IOC_GET_VERDICT, v));
	EXPECT_EQ(0, v->reserved);
}

/* Every field of the verdict, against what the test worked out. */
static void expect_verdict(struct __test_metadata *_metadata, int fd,
			   const struct utf8val_ioc_verdict *want)
{
	struct utf8val_ioc_verdict v;

	get_verdict(_metadata, fd, &v);
	EXPECT_EQ(want->bytes, v.bytes);
	EXPECT_EQ(want->valid_up_to, v.valid_up_to);
	EXPECT_EQ(want->chars, v.chars);
	EXPECT_EQ(want->error, v.error);
	EXPECT_EQ(want->error_len, v.error_len);
	EXPECT_EQ(want->flags, v.flags);
	EXPECT_EQ(want->line, v.line);
	EXPECT_EQ(want->column, v.column);
}

/* Force a validation path by name; returns the one now in use. */
static const char *set_path(const char *name)
{
	static const char *param = "/sys/module/utf8val/parameters/simd";
	static char live[32];
	FILE *f = fopen(param, "w");

	live[0] = '\0';
	if (!f)
		return live;
	fputs(name, f);
	fclose(f);
	f = fopen(param, "r");
	if (f) {
		if (!fgets(live, sizeof(live), f))
			live[0] = '\0';
		fclose(f);
	}
	live[strcspn(live, "\n")] = '\0';
	return live;
}

FIXTURE(dev) {
	int fd;
	bool forced_paths;	/* utf8val.simd= set by the test */
};

FIXTURE_SETUP(dev)
{
	self->fd = open(DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
	/*
	 * A test that forced paths ends on the automatic one, whatever ends
	 * it (the choice before it cannot be read back: the parameter reads
	 * as the path in use); the others leave the choice as they found it.
	 */
	if (self->forced_paths)
		set_path("auto");
}

TEST_F(dev, verdict_of_valid_text)
{
	/* a b \n c d é: 6 characters, the end at line 2 column 4 */
	const struct utf8val_ioc_verdict want = {
		.bytes = 7, .valid_up_to = 7, .chars = 6, .line = 2,
		.column = 4,
	};

	ASSERT_EQ(6, write(self->fd, "ab\ncd\xc3", 6));
	ASSERT_EQ(1, write(self->fd, "\xa9", 1));
	expect_verdict(_metadata, self->fd, &want);
}

TEST_F(dev, verdict_of_an_error)
{
	/* x \n y E2 82 A: a short sequence at byte 3, line 2 column 2 */
	const struct utf8val_ioc_verdict want = {
		.bytes = 3, .valid_up_to = 3, .chars = 3,
		.error = UTF8VAL_ESHORT, .error_len = 2, .line = 2, .column = 2,
	};

	ASSERT_EQ(3, write(self->fd, "x\ny\xe2\x82\x41", 6));
	ASSERT_EQ(-1, write(self->fd, "ok", 2));
	EXPECT_EQ(EILSEQ, errno);
	expect_verdict(_metadata, self->fd, &want);
}

struct policy_case {
	unsigned int flags;
	const char *bytes;
	size_t len;
	ssize_t first_write;	/* what write() returns */
	unsigned int error;
};

TEST_F(dev, flags_change_what_is_valid)
{
	static const struct policy_case cases[] = {
		{ UTF8VAL_REJECT_NUL, "a\0b", 3, 1, UTF8VAL_ENUL },
		{ UTF8VAL_REJECT_NONCHAR, "ab\xef\xbf\xbe", 5, 2,
		  UTF8VAL_ENONCHAR },
		{ UTF8VAL_REJECT_BOM, "\xef\xbb\xbfx", 4, -1, UTF8VAL_EBOM },
		{ UTF8VAL_RFC2279, "\xf8\x88\x80\x80\x80", 5, 5, UTF8VAL_OK },
		{ UTF8VAL_SURROGATES, "\xed\xa0\x80", 3, 3, UTF8VAL_OK },
		{ 0, "\xed\xa0\x80", 3, -1, UTF8VAL_ESURROGATE },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct policy_case *c = &cases[i];
		struct utf8val_ioc_flags fl = { .flags = c->flags };
		struct utf8val_ioc_verdict v;

		ASSERT_EQ(0, ioctl(self->fd, UTF8VAL_IOC_SET_FLAGS, &fl));
		EXPECT_EQ(c->first_write, write(self->fd, c->bytes, c->len));
		get_verdict(_metadata, self->fd, &v);
		EXPECT_EQ(c->error, v.error);
		EXPECT_EQ(c->flags, v.flags);
	}
}

TEST_F(dev, ioctl_rejects)
{
	struct utf8val_ioc_flags fl = { .flags = UTF8VAL_REJECT_NUL };
	struct utf8val_ioc_verdict v;

	ASSERT_EQ(0, ioctl(self->fd, UTF8VAL_IOC_SET_FLAGS, &fl));
	fl = (struct utf8val_ioc_flags){ .flags = 0x20 };
	EXPECT_EQ(-1, ioctl(self->fd, UTF8VAL_IOC_SET_FLAGS, &fl));
	EXPECT_EQ(EINVAL, errno);
	fl = (struct utf8val_ioc_flags){ .flags = 0, .reserved = 1 };
	EXPECT_EQ(-1, ioctl(self->fd, UTF8VAL_IOC_SET_FLAGS, &fl));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, UTF8VAL_IOC_SET_FLAGS, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, UTF8VAL_IOC_GET_VERDICT, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO(UTF8VAL_IOC_MAGIC, 0x7f)));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IOR('x', 0x01, struct utf8val_ioc_verdict), &v));
	EXPECT_EQ(ENOTTY, errno);
	/* The rejected calls changed nothing. */
	get_verdict(_metadata, self->fd, &v);
	EXPECT_EQ(UTF8VAL_REJECT_NUL, v.flags);
}

TEST_F(dev, reset_starts_again)
{
	struct utf8val_ioc_verdict v;

	ASSERT_EQ(-1, write(self->fd, "\xff", 1));
	ASSERT_EQ(0, ioctl(self->fd, UTF8VAL_IOC_RESET));
	ASSERT_EQ(3, write(self->fd, "abc", 3));
	get_verdict(_metadata, self->fd, &v);
	EXPECT_EQ(UTF8VAL_OK, v.error);
	EXPECT_EQ(3, v.bytes);
}

TEST_F(dev, bad_pointers)
{
	struct utf8val_ioc_verdict v;
	long page = sysconf(_SC_PAGESIZE);
	ssize_t n;
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_TRUE(map != MAP_FAILED);
	ASSERT_EQ(0, munmap(map + page, page));
	/* an unmapped page */
	EXPECT_EQ(-1, write(self->fd, map + page, 16));
	EXPECT_EQ(EFAULT, errno);
	/*
	 * 10 readable bytes, then the unmapped page: the write takes them,
	 * or fewer, since copy_from_user() need not copy up to the fault
	 * (x86-64's does, i386's stops a word short); what it took is what
	 * the verdict counts.
	 */
	memset(map + page - 10, 'a', 10);
	n = write(self->fd, map + page - 10, 20);
	EXPECT_LE(1, n);
	EXPECT_GE(10, n);
	get_verdict(_metadata, self->fd, &v);
	EXPECT_EQ(n, v.bytes);
	EXPECT_EQ(UTF8VAL_OK, v.error);
	munmap(map, page);
}

TEST(flush_reports_a_truncated_tail)
{
	int fd = open(DEV, O_WRONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(2, write(fd, "a\xe2", 2));
	EXPECT_EQ(-1, close(fd));
	EXPECT_EQ(EILSEQ, errno);
	fd = open(DEV, O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(4, write(fd, "a\xe2\x82\xac", 4));
	EXPECT_EQ(0, close(fd));
}

TEST(read_is_one_line_then_eof)
{
	char buf[256], one;
	int fd = open(DEV, O_RDWR);
	ssize_t n;
	size_t got = 0;

	ASSERT_LE(0, fd);
	ASSERT_EQ(3, write(fd, "abc", 3));
	while ((n = read(fd, &one, 1)) == 1 && got < sizeof(buf) - 1)
		buf[got++] = one;
	buf[got] = '\0';
	EXPECT_EQ(0, n);
	EXPECT_STREQ("valid bytes=3 chars=3\n", buf);
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	close(fd);
}

TEST(many_files_are_independent)
{
	enum { N = 256 };
	static int fds[N];
	long before = sysfs_value("open_streams");

	for (int i = 0; i < N; i++) {
		fds[i] = open(DEV, O_RDWR);
		ASSERT_LE(0, fds[i]);
		/* odd files: an overlong; even ones: U+00E9 */
		ASSERT_EQ(i % 2 ? -1 : 2, write(fds[i], i % 2 ? "\xc0" : "\xc3\xa9",
						i % 2 ? 1 : 2));
	}
	EXPECT_EQ(before + N, sysfs_value("open_streams"));
	for (int i = 0; i < N; i++) {
		struct utf8val_ioc_verdict v;

		get_verdict(_metadata, fds[i], &v);
		EXPECT_EQ(i % 2 ? UTF8VAL_EOVERLONG : UTF8VAL_OK, v.error);
		close(fds[i]);
	}
	EXPECT_EQ(before, sysfs_value("open_streams"));
}

struct writer {
	int fd;
	int writes;
	int failures;
};

static void *write_euros(void *arg)
{
	struct writer *w = arg;

	for (int i = 0; i < w->writes; i++)
		if (write(w->fd, "\xe2\x82\xac", 3) != 3)
			w->failures++;
	return NULL;
}

/* Writes of whole characters from two threads interleave, never split. */
TEST(two_threads_one_file)
{
	struct writer w[2];
	pthread_t t[2];
	struct utf8val_ioc_verdict v;
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	for (int i = 0; i < 2; i++) {
		w[i] = (struct writer){ .fd = fd, .writes = 20000 };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, write_euros, &w[i]));
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, w[i].failures);
	}
	get_verdict(_metadata, fd, &v);
	EXPECT_EQ(UTF8VAL_OK, v.error);
	EXPECT_EQ(120000, v.bytes);
	EXPECT_EQ(40000, v.chars);
	close(fd);
}

/*
 * Hundreds of MiB in one write (zero pages: U+0000 is valid), then the
 * same write killed mid-way: the writer dies promptly, nothing hangs.
 * LONG_CALL_MIB makes it smaller where the kernel is slow (KASAN, KCSAN,
 * emulated arm64 and riscv64).
 */
FIXTURE(long_call) {
	char *zeros;
	size_t len;
};

FIXTURE_SETUP(long_call)
{
	const char *env = getenv("LONG_CALL_MIB");
	unsigned long mib = env ? strtoul(env, NULL, 10) : 768;
	int err;

	/* one write() takes at most MAX_RW_COUNT, just under 2 GiB */
	ASSERT_TRUE(mib >= 1 && mib <= 2047) {
		TH_LOG("LONG_CALL_MIB=%s: 1 to 2047", env);
	}
	self->len = (size_t)mib << 20;
	self->zeros = mmap(NULL, self->len, PROT_READ,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	err = errno;
	ASSERT_TRUE(self->zeros != MAP_FAILED) {
		TH_LOG("mmap of %lu MiB: %s", mib, strerror(err));
	}
}

FIXTURE_TEARDOWN(long_call)
{
	munmap(self->zeros, self->len);
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * The whole write's time is the CPU's, not the module's: emulated riscv64
 * took past the harness's default 30 s for 256 MiB beside other guests
 * (10 s alone). The timeout bounds a hang of the first write, well within
 * the guest's own; the kill's promptness is what is timed, and a writer
 * that outlives SIGKILL is waited for only so long.
 */
TEST_F_TIMEOUT(long_call, huge_writes, 180)
{
	struct timespec t0;
	double killed;
	int fd, status, err;
	pid_t pid, reaped;

	fd = open(DEV, O_WRONLY);
	ASSERT_LE(0, fd);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ((ssize_t)self->len, write(fd, self->zeros, self->len));
	TH_LOG("one write of %zu MiB: %.2f s", self->len >> 20,
	       seconds_since(&t0));
	close(fd);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		fd = open(DEV, O_WRONLY);
		for (;;)
			write(fd, self->zeros, self->len);
	}
	usleep(300 * 1000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(pid, SIGKILL);
	while (!(reaped = waitpid(pid, &status, WNOHANG)) &&
	       seconds_since(&t0) < 30)
		usleep(1000);
	err = errno;
	killed = seconds_since(&t0);
	ASSERT_NE(-1, reaped) {
		TH_LOG("waitpid: %s", strerror(err));
	}
	ASSERT_EQ(pid, reaped) {
		TH_LOG("the writer outlived SIGKILL by %.0f s", killed);
	}
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* A write checks for fatal signals every page. */
	EXPECT_GT(2.0, killed) {
		TH_LOG("the killed writer took %.2f s to go", killed);
	}
}

static u64 rng_state = 0x5eedfeed;

/*
 * A 32-bit program on a 64-bit kernel (utf8val_test32) goes through
 * compat_ioctl: what it adds is the request's conversion, not the core,
 * which the 64-bit program compares on the same kernel.
 */
static bool compat_task(void)
{
	struct utsname u;

	return sizeof(long) == 4 && !uname(&u) && strstr(u.machine, "64");
}

/*
 * The kernel-compiled core against the user-space reference. A
 * correctness test, not a timed one: KASAN under emulation is slow, and
 * slower still beside other emulated machines (over 180 s seen), so its
 * timeout only bounds a hang (the guest's own bounds the whole run).
 */
TEST_F_TIMEOUT(dev, module_agrees_with_reference, 900)
{
	static u8 buf[4096];
	unsigned long mismatches = 0;
	const int inputs = compat_task() ? 30000 : 300000;

	for (int i = 0; i < inputs; i++) {
		struct utf8val_ioc_validate req;
		struct utf8val_result want;
		unsigned int flags = xorshift(&rng_state) %
				     (UTF8VAL_FLAGS_ALL + 1);
		size_t len = random_input(&rng_state, buf, sizeof(buf));

		memset(&req, POISON, sizeof(req));
		req.buf = (unsigned long)buf;
		req.len = len;
		req.flags = flags;
		req.reserved = 0;
		ASSERT_EQ(0, ioctl(self->fd, UTF8VAL_IOC_VALIDATE, &req));
		ref_validate(buf, len, flags, &want);
		if (req.valid_up_to != want.valid_up_to ||
		    req.chars != want.chars || req.error != want.error ||
		    req.error_len != want.error_len) {
			if (mismatches++ < 5)
				TH_LOG("input %d (%zu B, flags %#x): kernel %u@%llu, ref %u@%llu",
				       i, len, flags, req.error,
				       (unsigned long long)req.valid_up_to,
				       want.error, want.valid_up_to);
		}
	}
	EXPECT_EQ(0, mismatches);
}

/* Long valid text, then maybe one byte replaced: errors at any offset. */
static size_t long_input(u8 *buf, size_t max)
{
	size_t len = 4096 + xorshift(&rng_state) % (max - 4096 - 4), i = 0;

	while (i < len) {
		u32 cp = xorshift(&rng_state) % (xorshift(&rng_state) % 2 ?
						 0x80 : 0x110000);

		if (cp >= 0xd800 && cp <= 0xdfff)
			cp = 'x';
		i += ref_encode(cp, buf + i);
	}
	if (xorshift(&rng_state) % 2)
		buf[xorshift(&rng_state) % i] = xorshift(&rng_state);
	return i;
}

/*
 * Every validation path the module has (utf8val.simd=), forced in turn,
 * against the reference on inputs long enough for the vector paths.
 */
TEST_F_TIMEOUT(dev, every_path_agrees_with_reference, 900)	/* (as above) */
{
	static u8 buf[16384];
	char paths[8][16];
	int n = simd_paths(paths, 8);

	ASSERT_LT(0, n) TH_LOG("simd_paths names no path");
	EXPECT_STREQ("scalar", paths[0]);
	self->forced_paths = true;
	for (int p = 0; p < n; p++) {
		const char *live = set_path(paths[p]);
		unsigned long mismatches = 0;

		if (strcmp(live, paths[p])) {
			TH_LOG("%s: not on this CPU (%s instead)", paths[p], live);
			continue;
		}
		for (int i = 0; i < 3000; i++) {
			struct utf8val_ioc_validate req = { 0 };
			struct utf8val_result want;

			req.len = long_input(buf, sizeof(buf));
			req.buf = (unsigned long)buf;
			ASSERT_EQ(0, ioctl(self->fd, UTF8VAL_IOC_VALIDATE, &req));
			ref_validate(buf, req.len, 0, &want);
			if (req.valid_up_to != want.valid_up_to ||
			    req.chars != want.chars || req.error != want.error ||
			    req.error_len != want.error_len)
				mismatches++;
		}
		TH_LOG("%s: 3000 inputs of 4 to 16 KiB, %lu mismatches", live,
		       mismatches);
		EXPECT_EQ(0, mismatches);
	}
	EXPECT_STRNE("", set_path("auto"));
}

TEST_F(dev, validate_ioctl_rejects)
{
	struct utf8val_ioc_validate req = {
		.buf = (unsigned long)"abc", .len = 3,
	};

	req.reserved = 1;
	EXPECT_EQ(-1, ioctl(self->fd, UTF8VAL_IOC_VALIDATE, &req));
	EXPECT_EQ(EINVAL, errno);
	req.reserved = 0;
	req.flags = 0x40;
	EXPECT_EQ(-1, ioctl(self->fd, UTF8VAL_IOC_VALIDATE, &req));
	EXPECT_EQ(EINVAL, errno);
	req.flags = 0;
	req.buf = 8;
	EXPECT_EQ(-1, ioctl(self->fd, UTF8VAL_IOC_VALIDATE, &req));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, UTF8VAL_IOC_VALIDATE, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

TEST_HARNESS_MAIN
