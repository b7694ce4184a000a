// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The library in process on a file, the yardstick of the command's speed:
 * utf8val_validate() over the file already in memory, and read() in the
 * command's 256 KiB chunks fed to a stream, as any program using the
 * library would read it. Best of ROUNDS, GB/s.
 * Usage: file_speed FILE [ROUNDS]
 *
 * Two modes for scripts/bench-cli, which times processes:
 *   file_speed --floor FILE        read() FILE in the same chunks, and no
 *                                  more: the I/O floor, a process as the
 *                                  command is
 *   file_speed --rss COMMAND...    run COMMAND (its output to /dev/null):
 *                                  its peak resident set in KiB, as
 *                                  getrusage() counts it (mapped file pages
 *                                  included)
 *   file_speed --files-floor       each file named on standard input
 *                                  (ended by NULs, as find -print0 ends
 *                                  them) opened in its directory, fstat()ed,
 *                                  read and closed, on every CPU, and no
 *                                  more: what the command's walk does for a
 *                                  file, without reading the directories, a
 *                                  floor for `utf8val -l -r`; prints how
 *                                  many regular files it read to their end
 */
#define _GNU_SOURCE		/* sched_getaffinity() */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "utf8val.h"

#define CHUNK	(256u << 10)

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* --floor: the file read through once, nothing done with it. */
static int floor_read(const char *name)
{
	static unsigned char chunk[CHUNK];
	int fd = open(name, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		perror(name);
		return 2;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		;
	return n < 0 ? 2 : 0;
}

/*
 * --files-floor: the files, each a name in a directory, sorted by
 * directory, and the next one a thread takes.
 */
struct file {
	const char *dir, *base;
};

static struct {
	struct file *list;
	size_t nr, next;
	size_t read;		/* regular files, read to their end */
	bool failed;		/* a thread could not run */
} files;

#define FILES_TAKE	32	/* files a thread takes at a time */
#define FILES_THREADS	8	/* at most, as the command's walk has */

static int by_dir(const void *a, const void *b)
{
	return strcmp(((const struct file *)a)->dir,
		      ((const struct file *)b)->dir);
}

/*
 * Read the regular file @name in the directory @dir as the command's
 * walk does: opened there (not following a link, nor blocking), fstat(),
 * read() to the size it had, closed. Whether it was read to its end.
 */
static bool file_read(int dir, const char *name, unsigned char *chunk)
{
	int fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_NOCTTY |
			O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	off_t left = -1;
	ssize_t n = 1;

	if (fd < 0)
		return false;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		left = st.st_size;
	while (left > 0 && n > 0) {
		n = read(fd, chunk, left < CHUNK ? left : CHUNK);
		left -= n;
	}
	close(fd);
	return !left;
}

/*
 * One thread of --files-floor: files taken until there are none, each
 * directory opened once for the files it takes there (a walk opens it
 * once for all).
 */
static void *files_read(void *arg)
{
	unsigned char *chunk = malloc(CHUNK);
	const char *in = NULL;	/* the directory @dir is */
	size_t i, end, read = 0;
	int dir = -1;

	if (!chunk) {
		/* (read once they are joined) */
		__atomic_store_n(&files.failed, true, __ATOMIC_RELAXED);
		return NULL;
	}
	for (;;) {
		i = __atomic_fetch_add(&files.next, FILES_TAKE, __ATOMIC_RELAXED);
		if (i >= files.nr)
			break;
		end = i + FILES_TAKE < files.nr ? i + FILES_TAKE : files.nr;
		for (; i < end; i++) {
			const struct file *f = &files.list[i];

			if (!in || strcmp(in, f->dir)) {
				if (dir >= 0)
					close(dir);
				in = f->dir;
				dir = open(in, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			}
			if (dir >= 0 && file_read(dir, f->base, chunk))
				read++;
		}
	}
	if (dir >= 0)
		close(dir);
	free(chunk);
	__atomic_add_fetch(&files.read, read, __ATOMIC_RELAXED);
	return arg;
}

static int files_floor(void)
{
	size_t size = 0, cap = 0, room = 0;
	pthread_t tid[FILES_THREADS];
	char *list = NULL;
	int threads, i;
	cpu_set_t cpus;
	ssize_t n;

	for (;;) {	/* the whole list, then each name's directory and base */
		if (size == room) {
			room = room ? 2 * room : 1 << 20;
			list = realloc(list, room + 1);
			if (!list)
				goto nomem;
		}
		n = read(0, list + size, room - size);
		if (n <= 0)
			break;
		size += n;
	}
	if (n < 0) {
		perror("file_speed: standard input");
		return 2;
	}
	list[size] = '\0';
	for (char *p = list, *next; p < list + size; p = next) {
		char *slash = strrchr(p, '/');

		next = p + strlen(p) + 1;	/* (before the slash is cut) */
		if (files.nr == cap) {
			cap = cap ? 2 * cap : 4096;
			files.list = realloc(files.list, cap * sizeof(*files.list));
			if (!files.list)
				goto nomem;
		}
		if (slash)	/* "dir/name": "dir" and "name" */
			*slash = '\0';
		files.list[files.nr++] = (struct file){
			.dir = slash ? (slash == p ? "/" : p) : ".",
			.base = slash ? slash + 1 : p,
		};
	}
	qsort(files.list, files.nr, sizeof(*files.list), by_dir);
	threads = sched_getaffinity(0, sizeof(cpus), &cpus) ? 1 : CPU_COUNT(&cpus);
	if (threads > FILES_THREADS)
		threads = FILES_THREADS;
	for (i = 0; i < threads; i++) {
		if (pthread_create(&tid[i], NULL, files_read, NULL)) {
			__atomic_store_n(&files.failed, true, __ATOMIC_RELAXED);
			break;
		}
	}
	while (i--)
		pthread_join(tid[i], NULL);
	if (files.failed) {
		fprintf(stderr, "file_speed: --files-floor: a thread did not run\n");
		return 2;
	}
	printf("%zu\n", files.read);
	return 0;
nomem:
	perror("file_speed");
	return 2;
}

/* --rss: @argv run, its peak resident set printed; its status returned. */
static int peak_rss(char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 2;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return 2;
	printf("%ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

int main(int argc, char **argv)
{
	static unsigned char chunk[CHUNK];
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	double mem = 1e9, rd = 1e9, t;
	unsigned char *buf;
	int fd;
	off_t size;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--floor"))
		return floor_read(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "--rss"))
		return peak_rss(argv + 2);
	if (argc == 2 && !strcmp(argv[1], "--files-floor"))
		return files_floor();
	fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	if (fd < 0 || (size = lseek(fd, 0, SEEK_END)) <= 0 ||
	    !(buf = malloc(size))) {
		fprintf(stderr, "usage: file_speed FILE [ROUNDS]\n");
		return 2;
	}
	if (pread(fd, buf, size, 0) != size)
		return 2;
	for (int r = 0; r < rounds; r++) {
		struct utf8val_result res;
		struct utf8val_stream st;

		t = now();
		utf8val_validate(buf, size, 0, &res);
		t = now() - t;
		mem = t < mem ? t : mem;

		t = now();
		lseek(fd, 0, SEEK_SET);
		utf8val_stream_init(&st, 0);
		while ((n = read(fd, chunk, sizeof(chunk))) > 0)
			utf8val_stream_feed(&st, chunk, n);
		t = now() - t;
		rd = t < rd ? t : rd;
		if (res.error || utf8val_stream_result(&st, NULL))
			fprintf(stderr, "file_speed: not valid UTF-8\n");
	}
	printf("%.2f %.2f\n", size / mem / 1e9, size / rd / 1e9);
	return 0;
}
