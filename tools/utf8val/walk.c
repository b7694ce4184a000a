// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The trees of -r and -R, --include, --exclude and --exclude-dir, and
 * --names. A walk opens what it found in the directory it found it in,
 * holding that open (struct dir_ref) for the file to be opened there by
 * the walk or a worker.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"

struct dir_ref *dir_get(struct dir_ref *dir)
{
	__atomic_add_fetch(&dir->refs, 1, __ATOMIC_RELAXED);
	return dir;
}

/* Directories held open: the walk's, and those the pool's jobs hold. */
static int dirs_open;

void dir_put(struct dir_ref *dir)
{
	if (!__atomic_sub_fetch(&dir->refs, 1, __ATOMIC_ACQ_REL)) {
		close(dir->fd);
		free(dir);
		__atomic_sub_fetch(&dirs_open, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Open the regular file @name a walk found in @dir: not following a
 * link (with -r) nor blocking (a FIFO put there since); check_input()
 * then checks it is still a regular file. What is read is what the walk
 * found, whatever is renamed meanwhile and however deep it is.
 */
int open_found(const struct dir_ref *dir, const char *name,
	       const struct options *opt)
{
	const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	char proc[32];
	struct stat st;
	int path, fd;

	if (opt->recursive != 'R')	/* a link put there: ELOOP */
		return openat(dir->fd, name, flags | O_NOFOLLOW);
	/*
	 * -R follows links: where to is seen first (O_PATH opens nothing),
	 * so that a link swapped in to a device never opens it.
	 */
	path = openat(dir->fd, name, O_PATH | O_CLOEXEC);
	if (path < 0)
		return -1;
	if (fstat(path, &st) || !S_ISREG(st.st_mode)) {
		close(path);
		errno = ELOOP;	/* no longer a regular file */
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", path);
	fd = open(proc, flags);
	if (fd < 0 && errno == ENOENT)	/* no /proc */
		fd = openat(dir->fd, name, flags);
	close(path);
	return fd;
}

/* open_found()'s failure for a file no longer what the walk saw */
bool replaced(int err)
{
	return err == ELOOP || err == ENOTDIR;
}

static bool matches(const char *base, const char *const *globs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!fnmatch(globs[i], base, 0))
			return true;
	return false;
}

/* Whether --include and --exclude leave the file @path to check. */
static bool wanted(const char *path, const struct options *opt)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (opt->nr_include && !matches(base, opt->include, opt->nr_include))
		return false;
	return !matches(base, opt->exclude, opt->nr_exclude);
}

/*
 * --names: the verdict on the name of the file at @path (its last
 * component), not on what it holds: 0 valid, 1 not. A name that is not
 * UTF-8 gets a record with its path (escaped) and the error's offset,
 * length and kind in the name; -l lists paths instead.
 */
int check_name(const char *path, const struct options *opt)
{
	size_t end = strlen(path), start;
	struct utf8val_result r;
	bool bad;

	while (end > 1 && path[end - 1] == '/')	/* "dir/": its name */
		end--;
	for (start = end; start && path[start - 1] != '/'; start--)
		;
	utf8val_validate(path + start, end - start, opt->flags, &r);
	bad = r.error != UTF8VAL_OK;
	if (opt->list ? bad != opt->invert : bad)
		report_name(opt, path, &r);
	return bad;
}

/*
 * A file, found by a walk (and opened as @fd) or named (@fd -1): unless
 * --include or --exclude leave it out.
 */
int check_file(const char *path, int fd, const struct options *opt)
{
	if (!wanted(path, opt)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (opt->names)
		return check_name(path, opt);
	return check_and_list(path, fd, opt);
}

/* A walk: -r and -R. */
struct walk {
	const struct options *opt;
	bool pooled;		/* files checked by the pool */
	bool bare;		/* started at an implicit ".": no "./" */
	int status;
	char *path;		/* the entry's path, one buffer for the walk */
	size_t len, size;
	char *dents;		/* what getdents64() reads, DENTS_SIZE */
	/*
	 * The descriptors the process may have (0 if unknown: near_limit()
	 * all through), those open as the walk started (the standard ones,
	 * any inherited), and those a file of the walk takes to open.
	 */
	rlim_t fd_limit;
	unsigned int fd_base, fd_per_file;
};

/*
 * near_limit(): how close, in descriptors: the files of as many as 8
 * workers, two each with -R, the folder being opened, and a few more
 */
#define FD_MARGIN	24

/* a folder read at a time (off the stack: walk_dir() recurses) */
#define DENTS_SIZE	32768

/* Append @name to the walk's path as a level deeper: the old length. */
static size_t path_push(struct walk *w, const char *name, bool bare)
{
	size_t old = w->len, need = old + strlen(name) + 2;

	if (need > w->size) {
		char *more = realloc(w->path, need * 2);

		if (!more)
			die(NULL);
		w->path = more;
		w->size = need * 2;
	}
	if (bare)		/* "name", as grep -r says, not "./name" */
		w->len = 0;
	else if (!w->len || w->path[w->len - 1] != '/')	/* "dir/" + "name" */
		w->path[w->len++] = '/';
	strcpy(w->path + w->len, name);
	w->len += strlen(name);
	return old;
}

static void path_pop(struct walk *w, size_t old)
{
	w->len = old;
	w->path[old] = '\0';
}

/* A directory being walked, and the ones it is in: -R's loops. */
struct dir_seen {
	dev_t dev;
	ino_t ino;
	const struct dir_seen *up;
};

/* What a directory holds, read before it is closed. */
struct entry {
	char *name;
	unsigned char type;	/* DT_*: what a link points to, with -R */
	int err;		/* why its type is unknown, or 0 */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name,
		      ((const struct entry *)b)->name);
}

/* Something to say about @path, in order: status 2. */
static void walk_say(struct walk *w, const char *path, const char *why)
{
	if (w->pooled)
		pool_add(path, NULL, NULL, why, 2);
	else
		say(w->opt, path, why);
	w->status = 2;
}

static void walk_rc(struct walk *w, int rc)
{
	if (rc > w->status)
		w->status = rc;
}

#define ERR_DANGLING	(-1)	/* entry.err: -R's link to nothing */

/*
 * The type of @e, a name in the directory @dfd, as the walk sees it:
 * from the folder's entry where the file system says, and for a
 * symbolic link with -R, of what it points to.
 */
static void entry_type(int dfd, struct entry *e, bool follow)
{
	struct stat st;

	if (e->type == DT_UNKNOWN) {
		if (fstatat(dfd, e->name, &st, AT_SYMLINK_NOFOLLOW)) {
			e->err = errno;
			return;
		}
		e->type = IFTODT(st.st_mode);
	}
	if (e->type != DT_LNK || !follow)
		return;
	if (!fstatat(dfd, e->name, &st, 0))
		e->type = IFTODT(st.st_mode);
	else
		e->err = errno == ENOENT ? ERR_DANGLING : errno;
}

/* Append the entry @name, of type @type, in the directory @fd to *@e. */
static void add_entry(struct entry **e, size_t *n, size_t *size, int fd,
		      const char *name, unsigned char type, bool follow)
{
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return;
	if (*n == *size) {
		struct entry *more;

		*size = *size ? 2 * *size : 64;
		more = realloc(*e, *size * sizeof(**e));
		if (!more)
			die(NULL);
		*e = more;
	}
	(*e)[*n] = (struct entry){ .name = strdup(name), .type = type };
	if (!(*e)[*n].name)
		die(NULL);
	entry_type(fd, &(*e)[(*n)++], follow);
}

/*
 * Read the directory @fd into @list, sorted by name: its length, or -1.
 * With getdents64() on the walk's own descriptor: fdopendir() would want
 * one of its own to close, a dup(), and made an fstat() and two fcntl()
 * calls a directory besides, 29000 of the 380000 system calls of a walk
 * of Linux's source.
 */
static ssize_t read_dir(struct walk *w, int fd, struct entry **list,
			bool follow)
{
	struct entry *e = NULL;
	size_t n = 0, size = 0;
	ssize_t got, at;

	while ((got = getdents64(fd, w->dents, DENTS_SIZE)) > 0) {
		for (at = 0; at < got; ) {
			const struct dirent64 *de = (const void *)(w->dents + at);

			add_entry(&e, &n, &size, fd, de->d_name, de->d_type,
				  follow);
			at += de->d_reclen;
		}
	}
	/* (a folder removed since it was opened reads as empty, as readdir()) */
	if (got < 0 && errno != ENOENT) {
		int err = errno;

		while (n)
			free(e[--n].name);
		free(e);
		errno = err;
		return -1;
	}
	qsort(e, n, sizeof(*e), by_name);
	*list = e;
	return n;
}

/*
 * Whether the folders held open (the walk's, and those the pool's jobs
 * hold) bring the descriptors within FD_MARGIN of the limit. Counted, not
 * read off a descriptor's number: descriptors inherited open may lie
 * anywhere below the limit. There the walk checks each file itself,
 * once the workers' answers before it are said, as one CPU would: the
 * workers' files, and the folders their jobs hold, would otherwise take
 * the descriptors one CPU has for them, and files fail that one CPU
 * checks; and open_dir_once() tests for a spare.
 */
static bool near_limit(const struct walk *w)
{
	return (rlim_t)w->fd_base +
	       __atomic_load_n(&dirs_open, __ATOMIC_RELAXED) + FD_MARGIN >=
	       w->fd_limit;
}

/* A regular file of a walk, @name in @dir: checked by a worker, or here. */
static void walk_file(struct walk *w, struct dir_ref *dir, const char *name)
{
	int fd;

	if (!wanted(w->path, w->opt))
		return;
	if (w->pooled && !near_limit(w)) {
		pool_add(w->path, dir, name, NULL, 0);
		return;
	}
	if (w->pooled)
		pool_drain();	/* the answers before it first */
	fd = open_found(dir, name, w->opt);
	if (fd >= 0)
		walk_rc(w, check_and_list(w->path, fd, w->opt));
	else if (!replaced(errno))
		walk_say(w, w->path, strerror(errno));
}

static void walk_dir(struct walk *w, int at, const char *name, int level,
		     const struct dir_seen *up);

/* The entry @e of the directory @dir, at the walk's path. */
static void walk_entry(struct walk *w, struct dir_ref *dir,
		       const struct entry *e, int level,
		       const struct dir_seen *up)
{
	const struct options *opt = w->opt;

	if (e->err == ERR_DANGLING && opt->names)	/* a name all the same */
		walk_rc(w, check_file(w->path, -1, opt));
	else if (e->err == ERR_DANGLING)
		walk_say(w, w->path, "a symbolic link to nothing");
	else if (e->err)
		walk_say(w, w->path, strerror(e->err));
	else if (e->type == DT_DIR)
		walk_dir(w, dir->fd, e->name, level, up);
	else if (opt->names)
		walk_rc(w, check_file(w->path, -1, opt));
	else if (e->type == DT_REG)
		walk_file(w, dir, e->name);
	/* (symbolic links with -r, devices, FIFOs, sockets: not read) */
}

/*
 * Open the directory @name in @at, and fail it with EMFILE where that
 * left too few descriptors to open a file in it: each of its files
 * would fail alone. Near the limit, dup() tells.
 */
static int open_dir_once(const struct walk *w, int at, const char *name,
			 int flags)
{
	int fd = openat(at, name, flags), spare[2];
	unsigned int n = 0;
	bool room;

	if (fd < 0 || !near_limit(w))
		return fd;
	while (n < w->fd_per_file && (spare[n] = dup(fd)) >= 0)
		n++;
	room = n == w->fd_per_file;
	while (n)
		close(spare[--n]);
	if (room)
		return fd;
	close(fd);
	errno = EMFILE;
	return -1;
}

/*
 * Open the directory @name in @at for a walk; with EMFILE, again once
 * the pool has let go of what its jobs hold. -1 and errno if it fails.
 */
static int open_dir(struct walk *w, int at, const char *name, int flags)
{
	int fd = open_dir_once(w, at, name, flags);

	if (fd < 0 && errno == EMFILE && w->pooled) {
		pool_drain();
		fd = open_dir_once(w, at, name, flags);
	}
	return fd;
}

/*
 * The directory @name in the directory @at (the walk's path), @level
 * below the walk's start: its name with --names, then what it holds, in
 * name order. It holds one descriptor per level, and the pool one per
 * directory its jobs are in.
 */
static void walk_dir(struct walk *w, int at, const char *name, int level,
		     const struct dir_seen *up)
{
	const struct options *opt = w->opt;
	const char *base = strrchr(w->path, '/');
	bool follow = opt->recursive == 'R';
	struct dir_seen here = { .up = up };
	const struct dir_seen *s;
	struct dir_ref *dir;
	struct entry *list;
	struct stat st;
	ssize_t n = -1, i;
	size_t old;
	int fd;

	base = base && base[1] ? base + 1 : w->path;
	if (level > 0 && matches(base, opt->exclude_dir, opt->nr_exclude_dir))
		return;
	/*
	 * Near the limit the jobs let go of their folders, and the workers
	 * of their files: the walk then opens the folder with what one CPU
	 * would have.
	 */
	if (w->pooled && near_limit(w))
		pool_drain();
	/* -r follows a link only where the walk starts, as grep -r does */
	fd = open_dir(w, at, name, O_RDONLY | O_DIRECTORY | O_NOCTTY | O_CLOEXEC |
		      (level > 0 && !follow ? O_NOFOLLOW : 0));
	if (fd < 0 && level > 0 && replaced(errno))
		return;		/* no longer a directory */
	if (fd >= 0 && !fstat(fd, &st)) {
		here.dev = st.st_dev;
		here.ino = st.st_ino;
		for (s = up; s; s = s->up) {
			if (s->dev == here.dev && s->ino == here.ino) {
				close(fd);
				walk_say(w, w->path, "a directory loop (skipped)");
				return;
			}
		}
	}
	if (opt->names)
		walk_rc(w, check_name(w->path, opt));
	if (fd >= 0)
		n = read_dir(w, fd, &list, follow);
	if (n < 0) {
		walk_say(w, w->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	dir = malloc(sizeof(*dir));
	if (!dir)
		die(NULL);
	*dir = (struct dir_ref){ .fd = fd, .refs = 1 };
	__atomic_add_fetch(&dirs_open, 1, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++) {
		old = path_push(w, list[i].name, w->bare && level == 0);
		walk_entry(w, dir, &list[i], level + 1, &here);
		path_pop(w, old);
		free(list[i].name);
	}
	free(list);
	dir_put(dir);
}

/*
 * The descriptors open now, counted in /proc/self/fd (read into @buf);
 * without /proc, those below the limit (up to 2^20) that poll() does not
 * find invalid, 256 a call.
 */
static unsigned int fds_open(char *buf, rlim_t limit)
{
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	unsigned int n = 0, max, k, i;
	struct pollfd p[256];
	ssize_t got = -1, at;
	unsigned int fd;

	if (dir >= 0) {
		while ((got = getdents64(dir, buf, DENTS_SIZE)) > 0) {
			for (at = 0; at < got; n++)
				at += ((const struct dirent64 *)(buf + at))->d_reclen;
		}
		close(dir);
	}
	if (!got && n >= 3)
		return n - 3;	/* ".", ".." and @dir's own */
	max = limit < (1u << 20) ? limit : 1u << 20;
	for (n = 0, fd = 0; fd < max; fd += k) {
		k = max - fd < 256 ? max - fd : 256;
		for (i = 0; i < k; i++)
			p[i] = (struct pollfd){ .fd = fd + i };
		if (poll(p, k, 0) < 0)
			return max;	/* unknown: near the limit all through */
		for (i = 0; i < k; i++)
			n += !(p[i].revents & POLLNVAL);
	}
	return n;
}

/*
 * -r and -R: the regular files below the directory @dir, in name order;
 * symbolic links followed with -R only (-r follows @dir itself, as grep
 * does). A loop or a folder that cannot be read is reported and skipped:
 * status 2 at the end, never an end to the walk. Types come from the
 * folder's entries where the file system gives them: no stat() for each
 * file.
 */
int walk(const char *dir, const struct options *opt)
{
	struct walk w = { .opt = opt, .bare = !dir };
	struct rlimit files;
	int rc;

	/* a descriptor per level of the tree: as many as may be had */
	if (!getrlimit(RLIMIT_NOFILE, &files)) {
		if (files.rlim_cur < files.rlim_max) {
			files.rlim_cur = files.rlim_max;
			if (setrlimit(RLIMIT_NOFILE, &files))
				getrlimit(RLIMIT_NOFILE, &files);
		}
		w.fd_limit = files.rlim_cur;
	}
	w.path = strdup(dir ? dir : ".");
	w.dents = malloc(DENTS_SIZE);
	if (!w.path || !w.dents)
		die(NULL);
	w.fd_base = fds_open(w.dents, w.fd_limit);
	/* -R opens a file's path first, then the file (open_found()) */
	w.fd_per_file = opt->recursive == 'R' ? 2 : 1;
	w.len = strlen(w.path);
	w.size = w.len;
	w.pooled = pool_start(opt);
	walk_dir(&w, AT_FDCWD, w.path, 0, NULL);
	rc = w.pooled ? pool_end() : 0;
	free(w.dents);
	free(w.path);
	return rc > w.status ? rc : w.status;
}
