// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The valid text at the start of a regular file is checked a window at a
 * time, and a big file's two halves at once where there are two CPUs.
 * Each window's text is had one of two ways, whichever the machine shows
 * to be faster, each part weighing its own windows as it goes
 * (window_way()):
 *
 * - mapped where the page cache holds it, with no copy: on an Intel Xeon
 *   (2 vCPUs, a VM), mapped halves took 0.6 to 0.8 times as long as
 *   read() alone over 256 MiB files in the cache, one thread checking
 *   the mapping 1.0 to 1.15 times (page faults cost less than
 *   MAP_POPULATE);
 * - read with pread(), a chunk at a time: on an AMD EPYC (Zen 5, 2 vCPUs,
 *   a VM), the first touch of each newly mapped page cost about 1.5 us
 *   even with its page tables filled, so mapped windows ran at 1.5 to
 *   2 GB/s and took 3.5 times as long as read() alone, while halves read
 *   with pread() took 0.8 to 1.0 times as long (two threads in one
 *   process reading their halves, timed inside it: 0.5).
 *
 * read() takes over at the window that holds the first error, in the
 * state the reading would have had there, so that what is reported, and
 * where the file offset is left, stays the same. Where errors are
 * reported with their line, the lines are counted as the windows are
 * checked, a chunk at a time while it is in the cache: an error at the
 * end of a 256 MiB file took 1.8 to 2.1 times read() alone when they
 * were counted after, reading the text again, and 0.8 now.
 *
 * The only code of the command that maps files or catches SIGBUS; the
 * second half's thread, and the CPUs it runs on, are pool.c's. That
 * thread writes only its struct map_part, its own map_guard and its
 * buffer, and the process's choice of way and the windows' times that
 * choose it (atomic: window_chosen, window_seen, window_seen_count); it
 * reads the input's descriptor, offsets and flags, which stay as they are
 * until it is joined.
 */
#include <errno.h>
#include <linux/magic.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/*
 * A regular file's text checked at a time: whole chunks, so that read()
 * takes over at a chunk boundary. A mapping counts in the resident set
 * while it lasts (two of them, with a file's halves); larger windows
 * gained nothing measurable.
 */
#define MAP_WINDOW	(8 * CHUNK)
/* smaller files are read: a mapping's system calls cost as much */
#define MAP_MIN		(4 * CHUNK)
/* bigger ones are checked in two halves at once, where there are CPUs */
#define MAP_HALVES_MIN	(8 * MAP_WINDOW)
/* a part's last bytes kept: --context's before an open character, and it */
#define MAP_EDGE	(CONTEXT_MAX + UTF8VAL_MAX_SEQ)

/*
 * The window of a file this thread is checking through a mapping: a
 * SIGBUS there means the file was cut short under it, and the check
 * resumes at @env.
 */
static __thread struct map_guard {
	sigjmp_buf env;
	const unsigned char *map;	/* the window, or NULL */
	size_t len;
} map_guard;

static struct sigaction sigbus_before;	/* SIGBUS's action without us */
static size_t page_size;		/* 0: no mapping */
static bool windows_off;		/* no windows: read() only */
static cpu_set_t map_cpus;		/* the CPUs this process may run on */
static bool map_halves;			/* a CPU for a second half */

/* How windows are had: measured once per process, or as set (map_setup()). */
enum window_source { SOURCE_UNKNOWN, SOURCE_MAP, SOURCE_READ };
static enum window_source window_chosen;	/* (atomic) */
static bool window_forced;		/* by UTF8VAL_WINDOWS */

static void on_sigbus(int sig, siginfo_t *si, void *context)
{
	const unsigned char *at = si->si_addr;
	struct map_guard *g = &map_guard;

	(void)context;
	/* si_code > 0: raised by the kernel for an access, not sent */
	if (si->si_code > 0 && g->map && at >= g->map && at < g->map + g->len)
		siglongjmp(g->env, 1);
	/* sent (not a fault) while ignored before us: ignored still */
	if (si->si_code <= 0 && !(sigbus_before.sa_flags & SA_SIGINFO) &&
	    sigbus_before.sa_handler == SIG_IGN)
		return;
	/* not a mapped input's: as without this handler */
	sigaction(sig, &sigbus_before, NULL);
	raise(sig);
}

/*
 * SIGBUS's handler and what the machine offers, once, before any thread
 * starts (main()): the signal mask read is the process's.
 */
void map_setup(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	long size = sysconf(_SC_PAGESIZE);
	const char *how = getenv("UTF8VAL_WINDOWS");
	sigset_t now;

	/* for the tests and the benchmarks: one way, not measured */
	if (how && !strcmp(how, "map"))
		window_chosen = SOURCE_MAP;
	else if (how && !strcmp(how, "read"))
		window_chosen = SOURCE_READ;
	else if (how)
		fprintf(stderr, "%s: UTF8VAL_WINDOWS=%s: not map or read, ignored\n",
			progname, how);
	map_halves = !sched_getaffinity(0, sizeof(map_cpus), &map_cpus) &&
		     CPU_COUNT(&map_cpus) > 1;
	sigemptyset(&sa.sa_mask);
	/*
	 * Blocked, a SIGBUS from a file cut short would end the process.
	 * The action before first: on_sigbus() reads it once installed.
	 */
	if (!sigprocmask(SIG_BLOCK, NULL, &now) && !sigismember(&now, SIGBUS) &&
	    size > 0 && !sigaction(SIGBUS, NULL, &sigbus_before) &&
	    !sigaction(SIGBUS, &sa, NULL))
		page_size = size;
	if (!page_size) {	/* no mapping: windows read, unless told map */
		windows_off = window_chosen == SOURCE_MAP;
		window_chosen = SOURCE_READ;
	}
	window_forced = window_chosen != SOURCE_UNKNOWN;
}

/*
 * Whether @fd is on a file system whose mapped pages are the file's bytes
 * (disks, tmpfs, NFS): never on sysfs, procfs or the like, where a
 * regular file may map device memory (a PCI BAR's resourceN) that read()
 * would refuse.
 */
static bool file_system_mappable(int fd)
{
	static const unsigned int file_systems[] = {
		EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC,
		TMPFS_MAGIC, F2FS_SUPER_MAGIC, OVERLAYFS_SUPER_MAGIC,
		NFS_SUPER_MAGIC, SQUASHFS_MAGIC, EROFS_SUPER_MAGIC_V1,
		MSDOS_SUPER_MAGIC, EXFAT_SUPER_MAGIC,
		0x2fc12fc1,	/* ZFS */
	};
	struct statfs fs;
	size_t i;

	if (fstatfs(fd, &fs))
		return false;
	for (i = 0; i < ARRAY_SIZE(file_systems); i++)
		if ((unsigned int)fs.f_type == file_systems[i])
			return true;
	return false;
}

/* Whether @in is checked a window at a time first: see the top. */
bool mappable(const struct input *in)
{
	/* (--replace copies the text out: read() copies it once too) */
	if (!in->reread || in->end - in->start < (off_t)MAP_MIN ||
	    in->opt->replace || !file_system_mappable(in->fd))
		return false;
	return !windows_off;
}

/*
 * The lines of a part's text, counted as it is checked where errors get
 * a line and column: each byte once, a character where its first byte
 * is, so that a window may end inside one. Not for --format=gnu, whose
 * display column needs each character whole: its lines are counted when
 * an error needs them, reading the text again. A part's struct position
 * starts at line 0: its line is the newlines it holds.
 */
static bool counts_lines(const struct options *opt)
{
	return reports(opt) && opt->format != FORMAT_GNU;
}

/* The lines of @more, the text right after @l's, added to @l. */
static void add_lines(struct position *l, const struct position *more)
{
	l->column = more->line ? more->column : l->column + more->column;
	l->line += more->line;
}

/*
 * What a window's text gave, as it is taken: its lines (counted where
 * errors get a line and column) and its last bytes.
 */
struct window {
	struct position lines;
	unsigned char tail[MAP_EDGE];
	size_t tail_len;
};

/* Each way's last two whole windows, in ns (0: none). */
typedef unsigned long long window_times[SOURCE_READ + 1][2];

/* How a part has had its windows (window_way()). */
struct window_ways {
	unsigned int windows;		/* taken so far */
	enum window_source settled;	/* or SOURCE_UNKNOWN */
	window_times ns;		/* the part's own, the last first */
};

/*
 * How far a part of a file is known to be valid, offsets counted from
 * the input's start: at a window's end, where read() would have been.
 */
struct map_part {
	const struct input *in;
	unsigned long long from;	/* where a character left open starts */
	unsigned long long done;	/* checked up to here, a chunk boundary */
	unsigned long long chars;	/* in the text before @from */
	/* the text's last bytes, up to @done: --context's, then @from on */
	unsigned char edge[MAP_EDGE];
	size_t edge_len;
	struct position lines;		/* of the text up to @done */
	unsigned long long end;		/* the part's end */
	/* the second half: its first character's start, from @done */
	bool second;
	unsigned char head[UTF8VAL_MAX_SEQ];	/* the bytes before it */
	size_t head_len;
	bool stop;			/* (atomic) the first half is done */
	unsigned char *buf;		/* CHUNK bytes, for read_window() */
	/* (the second's, when the first goes on past a valid window of it) */
	struct window_ways ways;
};

/* The bytes of the character @p left open: @from to @done. */
static const unsigned char *open_bytes(const struct map_part *p)
{
	return p->edge + p->edge_len - (p->done - p->from);
}

/*
 * Take the @n bytes at @s, the next of a window's text, a chunk at a time
 * while it is in the cache: feed them to @st, count their lines into @w
 * (unless @lines is false) and keep their last bytes. The second half's
 * first window starts at the first character after its start instead.
 * Returns false at an error, whose chunk the window does not count.
 */
static bool take_text(struct map_part *p, unsigned long long *base,
		      struct utf8val_stream *st, struct window *w, bool lines,
		      const unsigned char *s, size_t n)
{
	const unsigned char *text = s;
	size_t at, k, len = n;

	if (p->second) {
		/* a valid text has a character's start in reach */
		for (at = 0; at < n && p->head_len < UTF8VAL_MAX_SEQ &&
		     continuation(s[at]); at++)
			p->head[p->head_len++] = s[at];
		s += at;
		n -= at;
		p->from = p->done + p->head_len;
		*base = p->from;
		p->second = false;
	}
	for (at = 0; at < n; at += k) {
		k = n - at < CHUNK ? n - at : CHUNK;
		if (utf8val_stream_feed(st, s + at, k))
			return false;
		if (lines)
			move_position(&w->lines, s + at, k);
	}
	/* (the half's text, its first bytes included, follows the first's) */
	w->tail_len = keep_last(w->tail, MAP_EDGE, w->tail_len, text, len);
	return true;
}

/*
 * The window of @p's text from @p->done to @to, mapped where it is in the
 * page cache, taken by take_text(). False where no mapping could be had;
 * a SIGBUS there (the file cut short) goes to map_scan().
 */
static bool map_window(struct map_part *p, unsigned long long *base,
		       struct utf8val_stream *st, struct window *w,
		       unsigned long long to)
{
	const struct input *in = p->in;
	off_t at = (in->start + p->done) & ~(off_t)(page_size - 1);
	size_t skip = in->start + p->done - at, len = in->start + to - at;
	const unsigned char *map;

	map = mmap(NULL, len, PROT_READ, MAP_SHARED, in->fd, at);
	/* (MADV_SEQUENTIAL: a file not in the cache read slower) */
	if (map == MAP_FAILED)
		return false;	/* (a file system without mmap()) */
	map_guard.len = len;
	map_guard.map = map;
	take_text(p, base, st, w, counts_lines(in->opt), map + skip,
		  len - skip);
	map_guard.map = NULL;
	munmap((void *)map, len);
	return true;
}

/*
 * The window of @p's text from @p->done to @to, read with pread() a
 * chunk at a time into @p->buf, taken by take_text(). False where the
 * file ends before @to or cannot be read: read() takes over, and finds
 * why. (At an error, the rest of the window is not read.)
 */
static bool read_window(struct map_part *p, unsigned long long *base,
			struct utf8val_stream *st, struct window *w,
			unsigned long long to)
{
	const struct input *in = p->in;
	unsigned long long at = p->done;
	ssize_t n;

	while (at < to) {
		size_t want = to - at < CHUNK ? to - at : CHUNK;

		n = pread(in->fd, p->buf, want, in->start + at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)want)
			return false;
		if (!take_text(p, base, st, w, counts_lines(in->opt), p->buf,
			       want))
			return true;	/* the error, as the stream has it */
		at += want;
	}
	return true;
}

static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

/*
 * How a part's windows are had: each part weighs its own (a file's
 * pages need not map alike: on an AMD EPYC Zen 5 VM, one half of a
 * 256 MiB file in the page cache mapped its 2 MiB windows in about
 * 0.2 ms, where its large folios were, and the other in 1.2 to 1.8 ms;
 * a window read took 0.16 to 0.24 ms in both). Its first window is read,
 * to warm up (the first took 4 times as long as the next); its second is
 * read and its third mapped, each timed. From then on the next window
 * takes the way that took less, by the mean of its last two whole
 * windows (only whole windows are timed: a short one's system calls are
 * most of its time), and every WINDOW_PROBE-th window the other way, to
 * follow a change. Once each way has two windows, the part's own or
 * any part's, and both of one way's took half as long again as the
 * other's mean (one window now and then is slow, preempted), the
 * process settles on the faster: where mapping is the faster, it was by
 * 10 to 40 %; where reading is, by 4 times. A part too short to measure
 * is read. The first half, going on past where the second stopped (its
 * thread late), goes on as the second half would, by its windows, if it
 * took a valid one; if not, by its own.
 */
#define WINDOW_PROBE	8

/* Whether a way whose window took @slow ns is slow beside @fast ns. */
static bool window_slower(unsigned long long fast, unsigned long long slow)
{
	return slow * 2 >= fast * 3;	/* (1 ns is not slow beside 1 ns) */
}

/*
 * Every part's last two windows each way, for the process to settle
 * sooner (atomic): each window takes a slot of its own by the count, so
 * that two parts weighing at once lose neither. Their order is not kept,
 * and window_ns() needs none: a part preempted between taking its slot
 * and filling it may leave an older window there for a while, still one
 * of that way's recent ones.
 */
static window_times window_seen;
static unsigned int window_seen_count[SOURCE_READ + 1];

/*
 * What a window @how takes, by @ns (0: nothing yet): the mean of its last
 * two, or with @least the lower of them.
 */
static unsigned long long window_ns(window_times ns, enum window_source how,
				    bool least)
{
	const unsigned long long *t = ns[how];

	if (!t[1])
		return t[0];
	if (least)
		return t[1] < t[0] ? t[1] : t[0];
	return t[0] / 2 + t[1] / 2 + (t[0] & t[1] & 1);	/* 1 and 1: 1 */
}

/*
 * The way @ns settles on, if any: two windows each way, and both of one
 * way's slower than the other's mean (one window now and then is slow,
 * preempted; a way slow both times is slow).
 */
static enum window_source window_settles(window_times ns)
{
	/* (both slots: a part may have taken a slot it has not filled) */
	if (!ns[SOURCE_MAP][0] || !ns[SOURCE_MAP][1] ||
	    !ns[SOURCE_READ][0] || !ns[SOURCE_READ][1])
		return SOURCE_UNKNOWN;
	if (window_slower(window_ns(ns, SOURCE_MAP, false),
			  window_ns(ns, SOURCE_READ, true)))
		return SOURCE_MAP;
	if (window_slower(window_ns(ns, SOURCE_READ, false),
			  window_ns(ns, SOURCE_MAP, true)))
		return SOURCE_READ;
	return SOURCE_UNKNOWN;
}

/* The way of the next window, @whole if it is a whole one. */
static enum window_source window_way(struct window_ways *w, bool whole)
{
	enum window_source fast, slow;

	if (w->settled == SOURCE_UNKNOWN)	/* (another part settled) */
		w->settled = __atomic_load_n(&window_chosen,
					     __ATOMIC_RELAXED);
	if (w->settled != SOURCE_UNKNOWN)
		return w->settled;
	if (w->windows < 2 || !whole)
		return SOURCE_READ;
	if (!window_ns(w->ns, SOURCE_MAP, false))
		return SOURCE_MAP;
	fast = window_ns(w->ns, SOURCE_MAP, false) <
	       window_ns(w->ns, SOURCE_READ, false) ? SOURCE_MAP : SOURCE_READ;
	slow = fast == SOURCE_MAP ? SOURCE_READ : SOURCE_MAP;
	return w->windows % WINDOW_PROBE ? fast : slow;
}

/*
 * A window taken @how in @t ns, @whole if it was: weigh it, by the part's
 * own windows and by every part's (the two halves of a file measure at
 * once: between them, two windows each way settle it).
 */
static void window_weigh(struct window_ways *w, enum window_source how,
			 unsigned long long t, bool whole)
{
	enum window_source no = SOURCE_UNKNOWN;
	window_times seen;
	unsigned int slot;
	int i, j;

	if (!w->windows++ || !whole || w->settled != SOURCE_UNKNOWN)
		return;
	if (!t)			/* (0 is "none") */
		t = 1;
	w->ns[how][1] = w->ns[how][0];
	w->ns[how][0] = t;
	slot = __atomic_fetch_add(&window_seen_count[how], 1,
				  __ATOMIC_RELAXED) & 1;
	__atomic_store_n(&window_seen[how][slot], t, __ATOMIC_RELAXED);
	/*
	 * Stored before the pool is read: two parts weighing at once would
	 * otherwise each miss the other's window (a store may wait in the
	 * CPU's buffer past a later load), and neither settle on this
	 * window: the next probe would then go the slow way once more. One
	 * fence a window of 2 MiB.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	w->settled = window_settles(w->ns);
	if (w->settled == SOURCE_UNKNOWN) {
		for (i = SOURCE_MAP; i <= SOURCE_READ; i++)
			for (j = 0; j < 2; j++)
				seen[i][j] = __atomic_load_n(&window_seen[i][j],
							     __ATOMIC_RELAXED);
		w->settled = window_settles(seen);
	}
	/* for the later parts (the first part to settle sets it) */
	if (w->settled != SOURCE_UNKNOWN)
		__atomic_compare_exchange_n(&window_chosen, &no, w->settled,
					    false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
}

/*
 * Check @p's text a window at a time up to @p->end, and move @p over each
 * window while the text is valid: it stops at an error (or a text that
 * ends inside a character), where the file was cut short, or where its
 * text cannot be had.
 */
static __attribute__((noinline)) void map_windows(struct map_part *p)
{
	const struct input *in = p->in;
	const unsigned long long size = in->end - in->start;
	unsigned long long base = p->from, chars = p->chars, to, t;
	unsigned int flags = in->opt->flags;
	enum window_source how;
	struct utf8val_stream st;
	struct utf8val_result r;
	struct stat now, before;
	struct window w;
	bool valid, had;

	/*
	 * A stream, for each window to start where the last ended: a
	 * window that starts a page before, at the character the last one
	 * left open, is mapped page by page where the page cache has large
	 * folios (measured: a third slower).
	 */
	if (base || p->second)	/* a BOM is refused at offset 0 only */
		flags &= ~UTF8VAL_REJECT_BOM;
	utf8val_stream_init(&st, flags);
	utf8val_stream_feed(&st, open_bytes(p), p->done - p->from);
	while (p->done < p->end &&
	       !__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) {
		to = p->end - p->done < MAP_WINDOW ? p->end :
						     p->done + MAP_WINDOW;
		if (fstat(in->fd, &before))
			return;
		w = (struct window){ 0 };
		how = window_way(&p->ways, to - p->done == MAP_WINDOW);
		t = now_ns();
		had = how == SOURCE_READ ? read_window(p, &base, &st, &w, to) :
					   map_window(p, &base, &st, &w, to);
		if (!had && how == SOURCE_MAP && !window_forced) {
			/* no mapping to be had (a limit, a file system) */
			__atomic_store_n(&window_chosen, SOURCE_READ,
					 __ATOMIC_RELAXED);
			p->ways.settled = SOURCE_READ;
			how = SOURCE_READ;
			had = read_window(p, &base, &st, &w, to);
		}
		if (!had)
			return;
		t = now_ns() - t;
		utf8val_stream_result(&st, &r);
		/* (a text that ends inside a character is not valid) */
		valid = !r.error ||
			(r.error == UTF8VAL_EINCOMPLETE && to < size);
		/*
		 * A file cut in a mapped window's last page reads as zeros
		 * there, not SIGBUS: what that checked is not the file's.
		 * Nor if the file changed at all while mapped: cut and
		 * grown again, its size alone says nothing (a change time
		 * coarser than the cut narrows this, as read() has it too).
		 */
		if (fstat(in->fd, &now) || now.st_size < in->start + (off_t)to ||
		    now.st_size != before.st_size ||
		    now.st_ctim.tv_sec != before.st_ctim.tv_sec ||
		    now.st_ctim.tv_nsec != before.st_ctim.tv_nsec)
			return;
		if (!valid)
			return;	/* read() reports it */
		/* (a window taken whole: one an error cut short says nothing) */
		window_weigh(&p->ways, how, t, to - p->done == MAP_WINDOW);
		p->from = base + r.valid_up_to;
		p->chars = chars + r.chars;
		p->edge_len = keep_last(p->edge, MAP_EDGE, p->edge_len, w.tail,
					w.tail_len);
		add_lines(&p->lines, &w.lines);
		p->done = to;
	}
}

/* map_windows(), ended by a SIGBUS in a window: the file was cut short. */
static void map_scan(struct map_part *p)
{
	if (sigsetjmp(map_guard.env, 1)) {
		munmap((void *)map_guard.map, map_guard.len);
		map_guard.map = NULL;
		return;		/* (read() finds where) */
	}
	map_windows(p);
}

/*
 * The second half of a file, on a helper thread (pool.c's, which starts
 * it on another CPU than the first half's): see map_checked().
 */
static void *map_scan_half(void *half)
{
	map_scan(half);
	return NULL;
}

/*
 * The second half @half, checked from the first character after its
 * start, follows the first half @p, checked to there: if the text between
 * the two is one character (or none), move @p as far as @half went.
 */
static void map_join(struct map_part *p, const struct map_part *half)
{
	unsigned char text[2 * UTF8VAL_MAX_SEQ];
	size_t open = p->done - p->from;
	struct utf8val_result r;

	if (half->done == p->done)	/* no window of it was valid */
		return;
	memcpy(text, open_bytes(p), open);
	memcpy(text + open, half->head, half->head_len);
	if (utf8val_validate(text, open + half->head_len,
			     p->in->opt->flags & ~UTF8VAL_REJECT_BOM, &r))
		return;	/* the first half goes on itself, to the error */
	p->from = half->from;
	p->done = half->done;
	/* on in the second half's pages: by its windows, as it would */
	p->ways = half->ways;
	p->chars += r.chars + half->chars;
	/* (the half's text, its first bytes included, follows @p's) */
	p->edge_len = keep_last(p->edge, MAP_EDGE, p->edge_len, half->edge,
				half->edge_len);
	/* (the text between holds no newline, and no first byte) */
	add_lines(&p->lines, &half->lines);
}

/*
 * Check the regular file @in from its start a window at a time, while its
 * text is valid (a big one in two halves at once, where there is a CPU
 * for each), and set @in up for read() to take over: the offset (from
 * @in->start) of @buf[0], the bytes of the character that a window left
 * open there, as the window had them, in @buf (*@have of them), and the
 * file offset after them, which is a chunk boundary. From there on,
 * read() finds what it would have found had it read the text before, the
 * history that --context shows included: the first error, a file cut
 * short, the end.
 */
unsigned long long map_checked(struct input *in, unsigned char *buf,
			       size_t *have)
{
	const unsigned long long size = in->end - in->start;
	struct map_part p = { .in = in, .end = size,
			      .buf = in->scratch->again }, half;
	unsigned long long back, from;
	struct helper helper;
	bool halves = false;

	/* (a walk's workers have the other CPUs) */
	if (map_halves && !in->scratch->hold && size >= MAP_HALVES_MIN) {
		half = (struct map_part){ .in = in, .second = true,
					  .end = size, .buf = malloc(CHUNK) };
		half.done = size / 2 / MAP_WINDOW * MAP_WINDOW;
		half.from = half.done;
		p.end = half.done;
		halves = half.buf &&
			 helper_start(&helper, map_scan_half, &half, &map_cpus);
		if (!halves) {
			free(half.buf);
			p.end = size;
		}
	}
	map_scan(&p);
	if (halves) {
		/*
		 * The second half stops at the end of its window, and this
		 * thread goes on from there: one kept from its CPU (the
		 * machine busy) delays the answer by a window at most.
		 * After an error in the first half, it is not needed.
		 */
		__atomic_store_n(&half.stop, true, __ATOMIC_RELAXED);
		helper_join(&helper);
		free(half.buf);
		if (p.done == p.end) {
			map_join(&p, &half);
			/* on from there: to the end, or to what stopped it */
			p.end = size;
			map_scan(&p);
		}
	}
	in->chars = p.chars;
	if (counts_lines(in->opt)) {
		/* as of @from: the open character's first byte is after it */
		in->pos.line = 1 + p.lines.line;
		in->pos.column = p.lines.column - (p.done > p.from);
		in->tracked = p.from;
	}
	/*
	 * The text before @from that --context shows, and what is open,
	 * as the windows had them: read again, the file may have lost them.
	 */
	from = p.from;
	back = in->opt->context ? (from < CONTEXT_MAX ? from : CONTEXT_MAX) : 0;
	keep_history(in, open_bytes(&p) - back, back);
	*have = p.done - from;
	memcpy(buf, open_bytes(&p), *have);
	if (lseek(in->fd, in->start + p.done, SEEK_SET) < 0)
		input_failed(in, strerror(errno));
	return from;
}
