// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The library in process on a file, the yardstick of the command's speed:
 * utf8val_validate() over the file already in memory, and read() in the
 * command's 256 KiB chunks fed to a stream, as any program using the
 * library would read it. Best of ROUNDS, GB/s.
 * Usage: file_speed FILE [ROUNDS]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	static unsigned char chunk[CHUNK];
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	double mem = 1e9, rd = 1e9, t;
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	unsigned char *buf;
	off_t size;
	ssize_t n;

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
