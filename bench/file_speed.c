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
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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
