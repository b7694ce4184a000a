// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzzer for /dev/utf8val: random sequences of open, dup, write, read,
 * ioctl (known and random commands, random and boundary arguments, bad
 * pointers), lseek, mmap, fork and close, for a bounded time. Each answer
 * is checked against the reference's model of every open stream
 * (dev_model.c), and so is the verdict after every operation; the debug
 * guest kernel adds KASAN, lockdep and kmemleak.
 *
 * Usage: devfuzz [SECONDS [SEED]]   (DEVFUZZ_SECONDS, default 10)
 * Prints TAP; the seed in its output replays a run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dev_model.h"

#define SLOTS		8
#define MODEL_MAX	(32 << 10)	/* longer streams are reset */
/* where the kernel's text is: above the user's address space */
#if __SIZEOF_POINTER__ == 8
#define KERNEL_PTR	((void *)0xffffffff81000000ul)
#else
#define KERNEL_PTR	((void *)0xc1000000ul)	/* i386's 3G/1G split */
#endif

/* An open file description: what the model says, shared by its dups. */
struct file {
	struct stream_model m;
	int refs;
	bool can_read, can_write;
};

struct slot {
	int fd;			/* -1: empty */
	struct file *f;
};

static struct slot slots[SLOTS];
static u64 rng;
static unsigned long ops, mismatches;
static u8 *edge_page;		/* readable, followed by an unmapped page */
static size_t page;

enum op { OP_OPEN, OP_CLOSE, OP_DUP, OP_WRITE, OP_READ, OP_GET_VERDICT,
	  OP_SET_FLAGS, OP_RESET, OP_VALIDATE, OP_BAD_IOCTL, OP_SEEK,
	  OP_FORK, NR_OPS };

static const char *const op_names[] = { "open", "close", "dup", "write",
	"read", "GET_VERDICT", "SET_FLAGS", "RESET", "VALIDATE", "bad ioctl",
	"lseek/mmap/pread", "fork" };

static unsigned long op_counts[NR_OPS];
static bool in_child;		/* a forked child forks no further */

static u64 rnd(void)
{
	return xorshift(&rng);
}

static void mismatch(const char *fmt, ...)
{
	va_list ap;

	if (mismatches++ >= 20)
		return;
	printf("# op %lu: ", ops);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/*
 * A call's result (-1 and errno, or a count) against the expected one;
 * errno is read here, after the call that is an argument has returned.
 */
static void expect(const char *what, long ret, long want)
{
	int err = errno;

	if (want < 0 ? ret != -1 || err != -want : ret != want)
		mismatch("%s: got %ld (%s), want %ld (%s)", what, ret,
			 ret < 0 ? strerror(err) : "", want,
			 want < 0 ? strerror(-want) : "");
}

static void check_verdict(struct slot *s)
{
	struct utf8val_ioc_verdict want, got;
	const char *diff;

	memset(&got, 0xa5, sizeof(got));
	if (ioctl(s->fd, UTF8VAL_IOC_GET_VERDICT, &got)) {
		mismatch("GET_VERDICT: %s", strerror(errno));
		return;
	}
	model_verdict(&s->f->m, &want);
	diff = verdict_mismatch(&want, &got);
	if (diff)
		mismatch("verdict: %s", diff);
}

static struct slot *random_slot(bool open)
{
	for (int tries = 0; tries < 4 * SLOTS; tries++) {
		struct slot *s = &slots[rnd() % SLOTS];
		bool is_open = s->fd >= 0;

		if (is_open == open)
			return s;
	}
	return NULL;
}

static void drop(struct slot *s)
{
	if (--s->f->refs == 0) {
		model_free(&s->f->m);
		free(s->f);
	}
	s->fd = -1;
	s->f = NULL;
}

static void do_open(struct slot *s)
{
	static const int modes[] = { O_RDONLY, O_WRONLY, O_RDWR };
	int mode = modes[rnd() % 3];
	int extra = (rnd() % 2 ? O_NONBLOCK : 0) | (rnd() % 2 ? O_CLOEXEC : 0);

	s->fd = open(DEV, mode | extra);
	if (s->fd < 0) {
		mismatch("open: %s", strerror(errno));
		return;
	}
	s->f = calloc(1, sizeof(*s->f));
	if (!s->f)
		abort();
	s->f->refs = 1;
	s->f->can_read = mode != O_WRONLY;
	s->f->can_write = mode != O_RDONLY;
	model_restart(&s->f->m, 0);
}

/* Every close flushes: a stream ending inside a character says so. */
static void do_close(struct slot *s)
{
	struct utf8val_ioc_verdict v;
	long ret = close(s->fd);

	model_verdict(&s->f->m, &v);
	expect("close", ret,
	       v.error == UTF8VAL_EINCOMPLETE ? -EILSEQ : 0);
	drop(s);
}

static void do_dup(struct slot *s)
{
	struct slot *to = random_slot(false);

	if (!to)
		return;
	to->fd = dup(s->fd);
	if (to->fd < 0) {
		mismatch("dup: %s", strerror(errno));
		return;
	}
	to->f = s->f;
	s->f->refs++;
}

/*
 * A write whose bytes run into an unmapped page. copy_from_user() need not
 * copy every readable byte (x86-64's stops at the fault, i386's and
 * arm64's may stop a word or more before it, or take nothing of a few
 * bytes), and the write ends where the copy did: take the prefix of the
 * readable bytes that the model answers @ret for and whose verdict is the
 * kernel's, the whole readable part first, none of it last. @ret is the
 * write's result, or -errno.
 */
static long model_short_write(struct slot *s, const u8 *p, size_t readable,
			      size_t len, long ret)
{
	struct stream_model *m = &s->f->m;
	struct utf8val_ioc_verdict want, got;

	if ((ret <= 0 && ret != -EFAULT) || readable == 0 ||
	    ioctl(s->fd, UTF8VAL_IOC_GET_VERDICT, &got))
		return model_write(m, p, readable, len);
	for (size_t k = readable + 1; k-- > 0;) {
		struct stream_model try = *m;

		try.data = malloc(m->cap + 1);
		if (!try.data)
			abort();
		memcpy(try.data, m->data, m->len);
		if (model_write(&try, p, k, len) == ret) {
			model_verdict(&try, &want);
			if (!verdict_mismatch(&want, &got)) {
				model_free(m);
				*m = try;
				return ret;
			}
		}
		model_free(&try);
	}
	return model_write(m, p, readable, len);
}

static void do_write(struct slot *s)
{
	static u8 buf[8192];
	struct stream_model *m = &s->f->m;
	size_t len = random_input(&rng, buf, sizeof(buf)), readable = len;
	const u8 *p = buf;
	long ret;

	switch (rnd() % 8) {
	case 0:		/* NULL: the copy faults */
		p = NULL;
		readable = 0;
		break;
	case 1:		/* a kernel address: the VFS refuses it */
		ret = write(s->fd, KERNEL_PTR, len);
		expect("write from a kernel address", ret,
		       s->f->can_write ? -EFAULT : -EBADF);
		return;
	case 2:		/* the bytes run into an unmapped page */
		readable = rnd() % ((len < page ? len : page) + 1);
		p = edge_page + page - readable;
		memcpy((u8 *)p, buf, readable);
		break;
	}
	ret = write(s->fd, p, len);
	if (!s->f->can_write) {
		expect("write to a read-only file", ret, -EBADF);
		return;
	}
	if (p && readable < len) {
		int err = errno;
		long want = model_short_write(s, p, readable, len,
					      ret < 0 ? -err : ret);

		errno = err;
		expect("write into an unmapped page", ret, want);
	} else {
		expect("write", ret, model_write(m, p ? p : buf, readable, len));
	}
}

static void do_read(struct slot *s)
{
	char want[256], got[256];
	size_t count = rnd() % 4 ? rnd() % 200 : 0;
	struct stream_model *m = &s->f->m;
	size_t len = model_line(m, want, sizeof(want));
	size_t left = m->read_pos < len ? len - m->read_pos : 0;
	long ret, n = count < left ? count : left;

	if (rnd() % 8 == 0) {	/* NULL: the copy faults, nothing is read */
		ret = read(s->fd, NULL, count);
		expect("read to NULL", ret, !s->f->can_read ? -EBADF :
		       n ? -EFAULT : 0);
		return;
	}
	ret = read(s->fd, got, count);
	if (!s->f->can_read) {
		expect("read from a write-only file", ret, -EBADF);
		return;
	}
	expect("read", ret, n);
	if (ret == n && memcmp(got, want + m->read_pos, n))
		mismatch("read: %.*s, want %.*s", (int)n, got, (int)n,
			 want + m->read_pos);
	m->read_pos += n;
}

/* Flags, now and then with an unknown bit or a reserved field set. */
static unsigned int random_flags(u32 *reserved)
{
	unsigned int flags = rnd() % (UTF8VAL_FLAGS_ALL + 1);

	*reserved = 0;
	switch (rnd() % 8) {
	case 0:
		flags |= 1u << (5 + rnd() % 27);
		break;
	case 1:
		*reserved = rnd() | 1;
		break;
	}
	return flags;
}

static void do_set_flags(struct slot *s)
{
	struct utf8val_ioc_flags fl;
	bool bad;
	long ret;

	fl.flags = random_flags(&fl.reserved);
	bad = fl.reserved || (fl.flags & ~UTF8VAL_FLAGS_ALL);
	if (rnd() % 8 == 0) {
		ret = ioctl(s->fd, UTF8VAL_IOC_SET_FLAGS, NULL);
		expect("SET_FLAGS from NULL", ret, -EFAULT);
		return;
	}
	ret = ioctl(s->fd, UTF8VAL_IOC_SET_FLAGS, &fl);
	expect("SET_FLAGS", ret, bad ? -EINVAL : 0);
	if (!bad)
		model_restart(&s->f->m, fl.flags);
}

static void do_validate(struct slot *s)
{
	static u8 buf[8192];
	struct utf8val_ioc_validate req;
	struct utf8val_result want;
	bool bad;
	long ret;

	memset(&req, 0xa5, sizeof(req));
	req.len = random_input(&rng, buf, sizeof(buf));
	req.buf = (unsigned long)buf;
	req.flags = random_flags(&req.reserved);
	bad = req.reserved || (req.flags & ~UTF8VAL_FLAGS_ALL);
	switch (rnd() % 8) {
	case 0:
		req.buf = 0;
		break;
	case 1:
		req.buf = (unsigned long)KERNEL_PTR;
		break;
	case 2:
		req.len = rnd() | (1ull << 63);	/* more than SSIZE_MAX */
		bad = true;
		break;
	}
	ret = ioctl(s->fd, UTF8VAL_IOC_VALIDATE, &req);
	if (bad) {
		expect("VALIDATE with bad arguments", ret, -EINVAL);
		return;
	}
	if (req.buf != (unsigned long)buf) {
		expect("VALIDATE from a bad pointer", ret,
		       req.len ? -EFAULT : 0);
		return;
	}
	expect("VALIDATE", ret, 0);
	ref_validate(buf, req.len, req.flags, &want);
	if (!ret && (req.error != want.error ||
		     req.valid_up_to != want.valid_up_to ||
		     req.chars != want.chars || req.error_len != want.error_len))
		mismatch("VALIDATE: error %u at %llu, want %u at %llu",
			 req.error, (unsigned long long)req.valid_up_to,
			 want.error, (unsigned long long)want.valid_up_to);
}

/* Commands the driver does not know, with any direction and size. */
static void do_bad_ioctl(struct slot *s)
{
	static const unsigned int known[] = { UTF8VAL_IOC_GET_VERDICT,
		UTF8VAL_IOC_RESET, UTF8VAL_IOC_SET_FLAGS, UTF8VAL_IOC_VALIDATE };
	unsigned int cmd = rnd() % 2 ? rnd() :
		_IOC(rnd() % 4, UTF8VAL_IOC_MAGIC, rnd() % 256, rnd() % 128);
	long ret;

	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (cmd == known[i])
			return;
	/*
	 * The VFS's own command types (FIONREAD, FIFREEZE...); strchr()
	 * also finds type 0 (FIBMAP, FIGETBSZ), the string's terminator.
	 */
	if (strchr("Tf\x94\x15\x12X", _IOC_TYPE(cmd)))
		return;
	ret = ioctl(s->fd, cmd, rnd() % 2 ? NULL : (void *)(unsigned long)rnd());
	expect("unknown ioctl", ret, -ENOTTY);
}

static void do_seek(struct slot *s)
{
	void *map;
	long ret;
	char c;

	ret = lseek(s->fd, 0, SEEK_SET);
	expect("lseek", ret, -ESPIPE);
	ret = pread(s->fd, &c, 1, 0);
	expect("pread", ret, -ESPIPE);
	map = mmap(NULL, page, PROT_READ, MAP_SHARED, s->fd, 0);
	/* no .mmap: ENODEV, once the VFS has checked the access mode */
	expect("mmap", map == MAP_FAILED ? -1 : 0,
	       s->f->can_read ? -ENODEV : -EACCES);
}

static void fuzz_one(void);

/*
 * The child closes what it inherited (each close flushes: same answers
 * as the parent's model) and fuzzes files of its own for a while.
 */
static void do_fork(void)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		mismatch("fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		in_child = true;
		for (int i = 0; i < SLOTS; i++)
			if (slots[i].fd >= 0)
				do_close(&slots[i]);
		rng ^= 0xc41d;
		for (int i = 0; i < 200; i++)
			fuzz_one();
		for (int i = 0; i < SLOTS; i++)
			if (slots[i].fd >= 0)
				do_close(&slots[i]);
		fflush(stdout);
		_exit(mismatches ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		mismatch("fork: the child found mismatches (status %#x)", status);
}

static void fuzz_one(void)
{
	enum op op = rnd() % NR_OPS;
	struct slot *s;

	if (op == OP_FORK && (in_child || rnd() % 16))	/* slow: fewer */
		op = OP_GET_VERDICT;
	s = random_slot(op != OP_OPEN);
	if (!s && op != OP_OPEN) {	/* nothing open yet */
		op = OP_OPEN;
		s = random_slot(false);
	}
	if (!s)
		return;
	ops++;
	op_counts[op]++;
	switch (op) {
	case OP_OPEN:
		do_open(s);
		break;
	case OP_CLOSE:
		do_close(s);
		return;
	case OP_DUP:
		do_dup(s);
		break;
	case OP_WRITE:
		do_write(s);
		break;
	case OP_READ:
		do_read(s);
		break;
	case OP_GET_VERDICT:
		if (rnd() % 8 == 0)
			expect("GET_VERDICT to NULL",
			       ioctl(s->fd, UTF8VAL_IOC_GET_VERDICT, NULL),
			       -EFAULT);
		break;
	case OP_SET_FLAGS:
		do_set_flags(s);
		break;
	case OP_RESET:
		expect("RESET", ioctl(s->fd, UTF8VAL_IOC_RESET), 0);
		model_restart(&s->f->m, s->f->m.flags);
		break;
	case OP_VALIDATE:
		do_validate(s);
		break;
	case OP_BAD_IOCTL:
		do_bad_ioctl(s);
		break;
	case OP_SEEK:
		do_seek(s);
		break;
	case OP_FORK:
		do_fork();
		break;
	default:
		break;
	}
	if (s->fd < 0)
		return;
	check_verdict(s);
	if (s->f->m.len > MODEL_MAX) {
		ioctl(s->fd, UTF8VAL_IOC_RESET);
		model_restart(&s->f->m, s->f->m.flags);
	}
}

int main(int argc, char **argv)
{
	const char *env = getenv("DEVFUZZ_SECONDS");
	double seconds = argc > 1 ? atof(argv[1]) : env ? atof(env) : 10;
	u64 seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (u64)time(NULL);
	struct timespec t0, t;
	double elapsed = 0;
	int idle = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	rng = seed | 1;
	page = sysconf(_SC_PAGESIZE);
	edge_page = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (edge_page == MAP_FAILED || munmap(edge_page + page, page)) {
		tap_result(false, "devfuzz: map a page before a hole");
		return tap_finish();
	}
	for (int i = 0; i < SLOTS; i++)
		slots[i].fd = -1;
	if (access(DEV, R_OK | W_OK)) {
		tap_result(false, "devfuzz: %s: %s", DEV, strerror(errno));
		return tap_finish();
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (elapsed < seconds) {
		for (int i = 0; i < 100; i++)
			fuzz_one();
		clock_gettime(CLOCK_MONOTONIC, &t);
		elapsed = t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9;
	}
	for (int i = 0; i < SLOTS; i++)
		if (slots[i].fd >= 0)
			do_close(&slots[i]);

	for (int i = 0; i < NR_OPS; i++) {
		printf("# %-16s %lu\n", op_names[i], op_counts[i]);
		idle += !op_counts[i];
	}
	/* a timed loop that ran short (or not at all) tested nothing */
	tap_result(!idle, "devfuzz: every kind of operation ran (%d never did)", idle);
	tap_result(!mismatches && ops,
		   "devfuzz: %lu operations in %.0f s (seed %#llx), %lu wrong answers",
		   ops, elapsed, (unsigned long long)seed, mismatches);
	return tap_finish();
}
