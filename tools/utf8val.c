// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val: validate files or standard input as UTF-8 from a shell.
 *
 *   utf8val [-q] [--rfc2279] [--surrogates] [--reject-nul]
 *           [--reject-nonchar] [--reject-bom] [FILE...]
 *
 * Prints one verdict line per input, in the format /dev/utf8val reads
 * back (Documentation/utf8val.rst), prefixed with "FILE: " for files.
 * Exit status: 0 all valid, 1 some input invalid or truncated, 2 usage or
 * I/O error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "utf8val.h"

struct position {
	unsigned long long line;		/* newlines before the current point, plus 1 */
	unsigned long long line_chars;		/* characters before the current line */
};

/* Advance @pos over @len bytes of valid UTF-8 that end at a boundary. */
static void track_lines(struct position *pos, unsigned long long *chars, const unsigned char *s,
			size_t len)
{
	const unsigned char *end = s + len, *nl;

	while ((nl = memchr(s, '\n', end - s))) {
		*chars += utf8val_count(s, nl + 1 - s);
		pos->line++;
		pos->line_chars = *chars;
		s = nl + 1;
	}
	*chars += utf8val_count(s, end - s);
}

static int check_fd(int fd, const char *name, unsigned int flags, bool quiet)
{
	struct utf8val_stream st;
	struct utf8val_result res;
	struct position pos = { 1, 0 };
	static unsigned char buf[1 << 16];
	unsigned long long total = 0, counted = 0, chars = 0;
	ssize_t n;

	utf8val_stream_init(&st, flags);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		unsigned long long upto;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "utf8val: %s: %s\n", name, strerror(errno));
			return 2;
		}
		utf8val_stream_feed(&st, buf, n);
		total += n;
		/* Line numbers for the bytes now known to be valid. */
		utf8val_stream_result(&st, &res);
		upto = res.valid_up_to;
		if (upto > counted) {
			unsigned long long base = total - n;	/* the offset of buf[0] */
			size_t from = 0;

			/*
			 * A character that began in an earlier read() ends
			 * here: it holds no newline, so skip its last bytes
			 * and count it.
			 */
			if (counted < base) {
				while (from < (size_t)n &&
				       (buf[from] & 0xc0) == 0x80)
					from++;
				chars++;
				counted = base + from;
			}
			track_lines(&pos, &chars, buf + from, upto - counted);
			counted = upto;
		}
	}

	utf8val_stream_result(&st, &res);
	if (quiet)
		return res.error != UTF8VAL_OK;
	if (name)
		printf("%s: ", name);
	if (res.error == UTF8VAL_OK)
		printf("valid bytes=%llu chars=%llu\n", total, res.chars);
	else if (res.error == UTF8VAL_EINCOMPLETE)
		printf("incomplete bytes=%llu chars=%llu offset=%llu len=%u line=%llu column=%llu\n",
		       total, res.chars, res.valid_up_to, res.error_len,
		       pos.line, res.chars - pos.line_chars + 1);
	else
		printf("invalid bytes=%llu chars=%llu offset=%llu len=%u error=%s line=%llu column=%llu\n",
		       total, res.chars, res.valid_up_to, res.error_len,
		       utf8val_error_name(res.error), pos.line,
		       res.chars - pos.line_chars + 1);
	return res.error != UTF8VAL_OK;
}

static const struct {
	const char *name;
	unsigned int flag;
} options[] = {
	{ "--rfc2279", UTF8VAL_RFC2279 },
	{ "--surrogates", UTF8VAL_SURROGATES },
	{ "--reject-nul", UTF8VAL_REJECT_NUL },
	{ "--reject-nonchar", UTF8VAL_REJECT_NONCHAR },
	{ "--reject-bom", UTF8VAL_REJECT_BOM },
};

static int usage(void)
{
	fprintf(stderr, "usage: utf8val [-q] [--rfc2279] [--surrogates] [--reject-nul]\n"
		"               [--reject-nonchar] [--reject-bom] [FILE...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned int flags = 0;
	bool quiet = false;
	int i, status = 0;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		size_t k;

		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-q")) {
			quiet = true;
			continue;
		}
		for (k = 0; k < sizeof(options) / sizeof(options[0]); k++)
			if (!strcmp(argv[i], options[k].name))
				break;
		if (k == sizeof(options) / sizeof(options[0]))
			return usage();
		flags |= options[k].flag;
	}
	if (i == argc)
		return check_fd(0, NULL, flags, quiet);
	for (; i < argc; i++) {
		int fd = strcmp(argv[i], "-") ? open(argv[i], O_RDONLY) : 0;
		int rc;

		if (fd < 0) {
			fprintf(stderr, "utf8val: %s: %s\n", argv[i],
				strerror(errno));
			status = 2;
			continue;
		}
		rc = check_fd(fd, argv[i], flags, quiet);
		if (fd)
			close(fd);
		if (rc > status)
			status = rc;
	}
	return status;
}
