// SPDX-License-Identifier: GPL-2.0 OR MIT
/* --replace's output: the text, each error replaced by U+FFFD. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Standard output for --replace: big writes, every error fatal. */
static unsigned char outbuf[CHUNK];
static size_t outlen;

static void write_all(const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = write(1, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			die("standard output");
		p += k;
		n -= k;
	}
}

void out_flush(void)
{
	write_all(outbuf, outlen);
	outlen = 0;
}

void out_put(const void *p, size_t n)
{
	if (n > sizeof(outbuf) - outlen)
		out_flush();
	if (n >= sizeof(outbuf)) {	/* a long valid run: no copy */
		write_all(p, n);
		return;
	}
	memcpy(outbuf + outlen, p, n);
	outlen += n;
}
