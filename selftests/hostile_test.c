// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/utf8val against a hostile local user, in the guest: user memory
 * that blocks inside the module's copy_from_user() for as long as user
 * space likes (a userfaultfd page that nobody serves), with close(), exit,
 * SIGKILL and other ioctls from other tasks; periodic signals during every
 * long call; the counters' meaning and who may read them. Each scenario
 * asserts that every task finishes, or dies, within a bound.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "dev_model.h"

/* How long a call that must not wait may take, under emulation. */
#define BOUND_SECONDS	5
#define PAGE		4096
#define MAX_RW_COUNT	0x7ffff000UL

/* Pages nobody serves: any access blocks until blocker_release(). */
struct blocker {
	int uffd;
	u8 *area;
	size_t len;
};

static int blocker_init_pages(struct blocker *b, size_t pages)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	b->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (b->uffd < 0 || ioctl(b->uffd, UFFDIO_API, &api))
		return -1;
	b->len = pages * PAGE;
	b->area = mmap(NULL, b->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->area == MAP_FAILED)
		return -1;
	reg.range.start = (unsigned long)b->area;
	reg.range.len = b->len;
	return ioctl(b->uffd, UFFDIO_REGISTER, &reg);
}

static int blocker_init(struct blocker *b)
{
	return blocker_init_pages(b, 1);
}

/* Whether some task faulted on the page within BOUND_SECONDS. */
static bool blocker_hit(struct blocker *b)
{
	struct pollfd pfd = { .fd = b->uffd, .events = POLLIN };
	struct uffd_msg msg;

	return poll(&pfd, 1, BOUND_SECONDS * 1000) == 1 &&
	       read(b->uffd, &msg, sizeof(msg)) == sizeof(msg) &&
	       msg.event == UFFD_EVENT_PAGEFAULT;
}

/* Serve the pages, as zero bytes (valid UTF-8): blocked tasks go on. */
static void blocker_release(struct blocker *b)
{
	struct uffdio_zeropage zp = {
		.range = { (unsigned long)b->area, b->len },
	};

	ioctl(b->uffd, UFFDIO_ZEROPAGE, &zp);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Reap @pid if it ends within BOUND_SECONDS; its status, or -1. */
static int reap_within_bound(pid_t pid)
{
	double until = now() + BOUND_SECONDS;
	int status;

	do {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		usleep(10000);
	} while (now() < until);
	return -1;
}

/* A system call made on a thread of its own, to time it from outside. */
#define CALL_WRITE	0
#define CALL_CLOSE	1

struct call {
	pthread_t thread;
	int fd;
	unsigned long cmd;	/* an ioctl, CALL_WRITE or CALL_CLOSE */
	void *arg;
	size_t len;
	long ret;
	int err;
	atomic_bool done;
};

static void *call_thread(void *arg)
{
	struct call *c = arg;

	if (c->cmd == CALL_WRITE)
		c->ret = write(c->fd, c->arg, c->len);
	else if (c->cmd == CALL_CLOSE)
		c->ret = close(c->fd);
	else
		c->ret = ioctl(c->fd, c->cmd, c->arg);
	c->err = errno;
	atomic_store(&c->done, true);
	return NULL;
}

static void call_start(struct call *c)
{
	atomic_store(&c->done, false);
	pthread_create(&c->thread, NULL, call_thread, c);
}

/* Whether the call returned within BOUND_SECONDS. */
static bool call_returns(struct call *c)
{
	double until = now() + BOUND_SECONDS;

	while (!atomic_load(&c->done) && now() < until)
		usleep(5000);
	return atomic_load(&c->done);
}

/* A counter's value; 64-bit on every CPU (a 32-bit long would saturate). */
static long long sysfs_number(const char *name)
{
	char path[128], buf[32] = "";
	int fd;

	snprintf(path, sizeof(path), SYSFS_DIR "%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1000;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return strtoll(buf, NULL, 10);
}

FIXTURE(blocked) {
	struct blocker b;
	struct call writer;
	int fd;
};

/* A write() on the file, blocked in the module's copy from user memory. */
FIXTURE_SETUP(blocked)
{
	self->fd = open(DEV, O_RDWR);
	ASSERT_LE(0, self->fd);
	if (blocker_init(&self->b)) {
		self->b.uffd = -1;
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	}
	self->writer = (struct call){ .fd = self->fd, .arg = self->b.area,
				      .len = PAGE };
	call_start(&self->writer);
	ASSERT_TRUE(blocker_hit(&self->b));
}

FIXTURE_TEARDOWN(blocked)
{
	if (self->b.uffd < 0 || !self->writer.thread)
		return;
	blocker_release(&self->b);
	pthread_join(self->writer.thread, NULL);
	EXPECT_EQ(PAGE, self->writer.ret);
	close(self->fd);
}

/* close() in another process, and that process's exit, do not wait. */
TEST_F(blocked, close_and_exit_of_another_process_do_not_wait)
{
	pid_t closer = fork(), leaver;

	if (!closer) {
		close(self->fd);
		_exit(0);
	}
	leaver = fork();
	if (!leaver)
		_exit(0);	/* exit closes the inherited file */
	EXPECT_EQ(0, reap_within_bound(closer));
	EXPECT_EQ(0, reap_within_bound(leaver));
	/* If they hang, they sit in close() until the page is served. */
	blocker_release(&self->b);
	waitpid(closer, NULL, 0);
	waitpid(leaver, NULL, 0);
}

/* close() of a duplicate on another thread of the same process. */
TEST_F(blocked, close_on_another_thread_does_not_wait)
{
	struct call closer = { .fd = dup(self->fd), .cmd = CALL_CLOSE };

	ASSERT_LE(0, closer.fd);
	call_start(&closer);
	EXPECT_TRUE(call_returns(&closer));
	blocker_release(&self->b);
	pthread_join(closer.thread, NULL);
	EXPECT_EQ(0, closer.ret);
}

/* Other calls on the file answer, or wait interruptibly; none waits for ever. */
TEST_F(blocked, ioctls_that_need_no_stream_do_not_wait)
{
	static const char text[] = "caf\xc3\xa9";
	struct utf8val_ioc_validate req = {
		.buf = (unsigned long)text, .len = sizeof(text) - 1,
	};
	struct utf8val_ioc_flags bad = { .reserved = 1 };
	struct call validate = { .fd = self->fd, .cmd = UTF8VAL_IOC_VALIDATE,
				 .arg = &req };
	struct call unknown = { .fd = self->fd,
				.cmd = _IO(UTF8VAL_IOC_MAGIC, 0x7f) };
	struct call bad_flags = { .fd = self->fd,
				  .cmd = UTF8VAL_IOC_SET_FLAGS, .arg = &bad };

	call_start(&validate);
	call_start(&unknown);
	call_start(&bad_flags);
	EXPECT_TRUE(call_returns(&validate));
	EXPECT_TRUE(call_returns(&unknown));
	EXPECT_TRUE(call_returns(&bad_flags));
	blocker_release(&self->b);
	pthread_join(validate.thread, NULL);
	pthread_join(unknown.thread, NULL);
	pthread_join(bad_flags.thread, NULL);
	EXPECT_EQ(0, validate.ret);
	EXPECT_EQ(5, req.valid_up_to);
	EXPECT_EQ(4, req.chars);
	EXPECT_EQ(-1, unknown.ret);
	EXPECT_EQ(ENOTTY, unknown.err);
	EXPECT_EQ(-1, bad_flags.ret);
	EXPECT_EQ(EINVAL, bad_flags.err);
}

/* GET_VERDICT while a VALIDATE of the same file waits for its memory. */
TEST(verdict_does_not_wait_for_validate)
{
	struct utf8val_ioc_validate req = { .len = PAGE };
	struct utf8val_ioc_verdict v;
	struct call validate, verdict;
	struct blocker b;
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	if (blocker_init(&b))
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	req.buf = (unsigned long)b.area;
	validate = (struct call){ .fd = fd, .cmd = UTF8VAL_IOC_VALIDATE,
				  .arg = &req };
	verdict = (struct call){ .fd = fd, .cmd = UTF8VAL_IOC_GET_VERDICT,
				 .arg = &v };
	call_start(&validate);
	ASSERT_TRUE(blocker_hit(&b));
	call_start(&verdict);
	EXPECT_TRUE(call_returns(&verdict));
	blocker_release(&b);
	pthread_join(validate.thread, NULL);
	pthread_join(verdict.thread, NULL);
	EXPECT_EQ(0, verdict.ret);
	EXPECT_EQ(0, validate.ret);
	EXPECT_EQ(PAGE, req.valid_up_to);
	close(fd);
}

static atomic_int signals_seen;

static void count_signal(int sig)
{
	atomic_fetch_add(&signals_seen, 1);
}

/*
 * A child blocks in @cmd (an ioctl, or CALL_WRITE) on a page nobody serves, with a
 * second thread that tells the parent once the fault is seen: the parent
 * then SIGKILLs it, which must end it within the bound.
 */
static void kill_blocked_child(struct __test_metadata *_metadata,
			       unsigned long cmd)
{
	struct blocker probe;
	int pipefd[2];
	pid_t pid;
	char c;

	if (blocker_init(&probe))
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	close(probe.uffd);
	munmap(probe.area, probe.len);
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct utf8val_ioc_validate req = { .len = PAGE };
		struct call call = { .cmd = cmd, .arg = &req, .len = PAGE };
		struct blocker b;

		call.fd = open(DEV, O_RDWR);
		if (call.fd < 0 || blocker_init(&b))
			_exit(2);
		req.buf = (unsigned long)b.area;
		if (cmd == CALL_WRITE)
			call.arg = b.area;
		call_start(&call);
		if (!blocker_hit(&b))
			_exit(3);
		write(pipefd[1], "b", 1);
		pause();
		_exit(4);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1)) {
		TH_LOG("the child did not block");
	}
	kill(pid, SIGKILL);
	EXPECT_EQ(SIGKILL, WTERMSIG(reap_within_bound(pid)));
	close(pipefd[0]);
}

TEST(sigkill_ends_a_blocked_write)
{
	kill_blocked_child(_metadata, CALL_WRITE);
}

TEST(sigkill_ends_a_blocked_validate)
{
	kill_blocked_child(_metadata, UTF8VAL_IOC_VALIDATE);
}

/*
 * A signal that arrives while VALIDATE waits for the first of two pages is
 * handled once the page comes (the kernel retries a fault from kernel mode
 * until then), and the call goes on past the next page boundary and
 * answers, even without SA_RESTART: only a fatal signal stops it.
 */
TEST(signal_during_a_blocked_validate)
{
	struct sigaction sa = { .sa_handler = count_signal };
	struct utf8val_ioc_validate req = { .len = 2 * PAGE };
	struct call validate;
	struct blocker b;
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	if (blocker_init_pages(&b, 2))
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	req.buf = (unsigned long)b.area;
	validate = (struct call){ .fd = fd, .cmd = UTF8VAL_IOC_VALIDATE,
				  .arg = &req };
	atomic_store(&signals_seen, 0);
	call_start(&validate);
	ASSERT_TRUE(blocker_hit(&b));
	pthread_kill(validate.thread, SIGUSR1);
	usleep(100 * 1000);
	blocker_release(&b);
	pthread_join(validate.thread, NULL);
	EXPECT_EQ(0, validate.ret) {
		TH_LOG("VALIDATE: %s", strerror(validate.err));
	}
	EXPECT_EQ(2 * PAGE, req.valid_up_to);
	EXPECT_EQ(2 * PAGE, req.chars);
	EXPECT_EQ(1, atomic_load(&signals_seen));
	close(fd);
}

/*
 * A timer that fires every 5 ms (SA_RESTART, as a profiler's is) during a
 * 256 MiB VALIDATE and a 256 MiB write() (or LONG_CALL_MIB): both finish, and the bytes are
 * counted once. The buffer is the shared zero page: no memory is used.
 */
static size_t long_call_bytes(void)
{
	/* LONG_CALL_MIB: smaller where the kernel is slow (KCSAN) */
	const char *mib = getenv("LONG_CALL_MIB");

	return (mib ? strtoul(mib, NULL, 10) : 256) << 20;
}

#define LONG_CALL	long_call_bytes()

FIXTURE(timed) {
	u8 *zeros;
};

FIXTURE_SETUP(timed)
{
	self->zeros = mmap(NULL, LONG_CALL, PROT_READ,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(self->zeros != MAP_FAILED);
}

FIXTURE_TEARDOWN(timed)
{
	munmap(self->zeros, LONG_CALL);
}

TEST_F_TIMEOUT(timed, long_calls_finish_under_a_periodic_signal, 120)
{
	struct sigaction sa = { .sa_handler = count_signal,
				.sa_flags = SA_RESTART };
	struct itimerval every_5ms = {
		.it_interval.tv_usec = 5000, .it_value.tv_usec = 5000,
	};
	struct utf8val_ioc_validate req = {
		.buf = (unsigned long)self->zeros, .len = LONG_CALL,
	};
	struct utf8val_ioc_verdict v;
	long long before = sysfs_number("bytes");
	size_t done = 0;
	double t0;
	int fd;

	fd = open(DEV, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	atomic_store(&signals_seen, 0);
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &every_5ms, NULL));
	t0 = now();
	EXPECT_EQ(0, ioctl(fd, UTF8VAL_IOC_VALIDATE, &req));
	EXPECT_EQ(LONG_CALL, req.valid_up_to);
	TH_LOG("VALIDATE: %.2f s, %d signals", now() - t0,
	       atomic_load(&signals_seen));
	EXPECT_EQ(LONG_CALL, sysfs_number("bytes") - before);

	t0 = now();
	while (done < LONG_CALL) {
		ssize_t n = write(fd, self->zeros + done, LONG_CALL - done);

		ASSERT_LT(0, n) {
			TH_LOG("write: %s", strerror(errno));
		}
		done += n;
	}
	setitimer(ITIMER_REAL, &(struct itimerval){}, NULL);
	TH_LOG("write(): %.2f s, %d signals in all", now() - t0,
	       atomic_load(&signals_seen));
	ASSERT_EQ(0, ioctl(fd, UTF8VAL_IOC_GET_VERDICT, &v));
	EXPECT_EQ(LONG_CALL, v.bytes);
	EXPECT_EQ(2 * (long long)LONG_CALL, sysfs_number("bytes") - before);
	close(fd);
}

TEST(validate_is_capped_as_write_is)
{
	struct utf8val_ioc_validate req = { .len = MAX_RW_COUNT + 1 };
	int fd = open(DEV, O_RDWR);
	u8 *area;

	ASSERT_LE(0, fd);
	/* the cap itself is taken: a bad first byte ends it at once */
	area = mmap(NULL, MAX_RW_COUNT, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_TRUE(area != MAP_FAILED);
	area[0] = 0xff;
	req.buf = (unsigned long)area;
	EXPECT_EQ(-1, ioctl(fd, UTF8VAL_IOC_VALIDATE, &req));
	EXPECT_EQ(EINVAL, errno);
	req.len = MAX_RW_COUNT;
	EXPECT_EQ(0, ioctl(fd, UTF8VAL_IOC_VALIDATE, &req));
	EXPECT_EQ(UTF8VAL_EBADBYTE, req.error);
	EXPECT_EQ(0, req.valid_up_to);
	munmap(area, MAX_RW_COUNT);
	close(fd);
}

/* "bytes" counts what was found valid, never what follows an error. */
TEST(bytes_counts_valid_bytes_only)
{
	static const char bad[] = "ab\xc0xyz";
	struct utf8val_ioc_validate req = {
		.buf = (unsigned long)bad, .len = sizeof(bad) - 1,
	};
	long long before = sysfs_number("bytes");
	int fd = open(DEV, O_RDWR);

	ASSERT_LE(0, fd);
	EXPECT_EQ(2, write(fd, bad, sizeof(bad) - 1));
	EXPECT_EQ(-1, write(fd, "more", 4));
	EXPECT_EQ(EILSEQ, errno);
	EXPECT_EQ(2, sysfs_number("bytes") - before);
	EXPECT_EQ(0, ioctl(fd, UTF8VAL_IOC_VALIDATE, &req));
	EXPECT_EQ(4, sysfs_number("bytes") - before);
	close(fd);

	/* a character counts when it is complete, and not if it never is */
	fd = open(DEV, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(2, write(fd, "\xe2\x82", 2));
	EXPECT_EQ(4, sysfs_number("bytes") - before);
	EXPECT_EQ(1, write(fd, "\xac", 1));
	EXPECT_EQ(7, sysfs_number("bytes") - before);
	EXPECT_EQ(2, write(fd, "\xe2\x82", 2));
	EXPECT_EQ(-1, write(fd, "A", 1));
	EXPECT_EQ(EILSEQ, errno);
	EXPECT_EQ(7, sysfs_number("bytes") - before);
	close(fd);
}

/* The counts tell what others validate: root only. The device is for all. */
TEST(only_root_reads_the_counters)
{
	static const char *const names[] = {
		"bytes", "open_streams", "verdicts/valid", "verdicts/overlong",
	};
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		int fd, bad = 0;

		if (setgid(65534) || setuid(65534))
			_exit(100);
		for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
			char path[128];

			snprintf(path, sizeof(path), SYSFS_DIR "%s", names[i]);
			fd = open(path, O_RDONLY);
			if (fd >= 0 || errno != EACCES)
				bad |= 1 << i;
		}
		fd = open(DEV, O_RDWR);
		if (fd < 0 || write(fd, "ok", 2) != 2)
			bad |= 1 << 6;
		_exit(bad);
	}
	EXPECT_EQ(0, WEXITSTATUS(reap_within_bound(pid)));
}

/*
 * open_streams is one count, never a sum caught mid-update: opens on one
 * CPU and closes on another must never let a reader see it below zero.
 */
static void *open_close_on_cpu(void *arg)
{
	double until = now() + 1;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET((long)arg, &cpus);
	while (now() < until) {
		int fd;

		sched_setaffinity(0, sizeof(cpus), &cpus);
		fd = open(DEV, O_RDONLY);
		CPU_ZERO(&cpus);
		CPU_SET(!(long)arg, &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
		close(fd);
		CPU_ZERO(&cpus);
		CPU_SET((long)arg, &cpus);
	}
	return NULL;
}

TEST(open_streams_never_reads_negative)
{
	long long before = sysfs_number("open_streams"), lowest = before;
	pthread_t threads[2];
	double until;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU");
	for (long i = 0; i < 2; i++)
		pthread_create(&threads[i], NULL, open_close_on_cpu, (void *)i);
	until = now() + 1;
	while (now() < until) {
		long long n = sysfs_number("open_streams");

		if (n < lowest)
			lowest = n;
	}
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	EXPECT_LE(0, lowest);
	EXPECT_EQ(before, sysfs_number("open_streams"));
}

/*
 * bytes is a sum of per-CPU 64-bit counters; on a 32-bit kernel each is
 * two words, and a reader that caught one half of an update would see the
 * count drop, or leap, by 2^32. Writers pinned to each CPU validate as
 * fast as they can while a reader checks that the count never goes down
 * and never grows by more than the writers asked for. (Whether a CPU's
 * own counter crosses a 2^32 boundary in the time depends on the speed of
 * the machine: the test says how many boundaries the sum crossed.)
 */
#define TORN_BUF	(1024 * 1024)

struct torn_writer {
	long cpu;
	atomic_ullong *asked;
	atomic_bool *stop;
};

static void *validate_on_cpu(void *arg)
{
	struct torn_writer *w = arg;
	static u8 text[TORN_BUF];
	struct utf8val_ioc_validate req = {
		.buf = (unsigned long)text, .len = sizeof(text),
	};
	cpu_set_t cpus;
	int fd = open(DEV, O_RDONLY);

	memset(text, 'a', sizeof(text));
	CPU_ZERO(&cpus);
	CPU_SET(w->cpu, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	while (fd >= 0 && !atomic_load(w->stop)) {
		/* asked before the call: the count never runs ahead of it */
		atomic_fetch_add(w->asked, sizeof(text));
		if (ioctl(fd, UTF8VAL_IOC_VALIDATE, &req))
			break;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

TEST(bytes_never_reads_torn)
{
	atomic_ullong asked = 0;
	atomic_bool stop = false;
	struct torn_writer w[2];
	pthread_t threads[2];
	long long first = sysfs_number("bytes"), last = first;
	unsigned long long reads = 0, drops = 0, leaps = 0;
	double until = now() + BOUND_SECONDS;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU");
	for (long i = 0; i < 2; i++) {
		w[i] = (struct torn_writer){ i, &asked, &stop };
		pthread_create(&threads[i], NULL, validate_on_cpu, &w[i]);
	}
	while (now() < until) {
		long long n = sysfs_number("bytes");

		reads++;
		if (n < last)
			drops++;
		if (n - first > (long long)atomic_load(&asked))
			leaps++;
		last = n;
	}
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	TH_LOG("%llu reads, %llu MiB validated on 2 CPUs, %lld 2^32 boundaries crossed",
	       reads, (unsigned long long)atomic_load(&asked) >> 20,
	       (last >> 32) - (first >> 32));
	EXPECT_EQ(0, drops);
	EXPECT_EQ(0, leaps);
	EXPECT_LT(first, last);
}

TEST_HARNESS_MAIN
