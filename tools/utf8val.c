// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val(1): validate files or standard input as UTF-8 from a shell.
 * Documentation/man/utf8val.1 is the manual; --help the summary.
 *
 * Input is read in chunks that stay in the CPU's L2 cache, a character
 * split between two reads carried over to the next. Lines and columns
 * cost a pass over the text, so a regular file counts them only when an
 * error is reported, reading the text before it again; a pipe, whose
 * text cannot be read again, counts them as it goes.
 *
 * The valid text at the start of a regular file is checked where the page
 * cache holds it, through a mapping, a window at a time, and a big file's
 * two halves at once where there are two CPUs: read()'s copy costs more
 * than the check. Measured on 256 MiB files in the cache, against read()
 * alone: that took 0.7 to 0.8 times as long (1.0 with the other CPU
 * busy); reading and checking in turn 1.2 to 1.3 times, a thread reading
 * ahead of the check as long or longer (the copy is the cost, and each
 * hand-off wakes a thread), one thread checking the mapping 1.0 to 1.15
 * times (page faults cost less than MAP_POPULATE). read() takes over at
 * the chunk that holds the first error, in the state the reading would
 * have had there, so that what is reported, and where the file offset is
 * left, stays the same.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64	/* files past 2 GiB on 32-bit systems */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <dirent.h>
#include <getopt.h>
#include <locale.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#include "utf8val.h"

#define CHUNK		(256u << 10)	/* read() size: fits in L2 */
#define FFFD_LEN	3
#define CONTEXT_MAX	64	/* --context=N: bytes each side, at most */
#define CONTEXT_DEFAULT	16
/* carried to the next read: an open character, or an error and its context */
#define CARRY_MAX	(2 * UTF8VAL_MAX_SEQ + CONTEXT_MAX)
/*
 * A regular file's text mapped at a time: whole chunks, so that read()
 * takes over at a chunk boundary. The mapping counts in the resident set
 * while it lasts (two of them, with a file's halves); larger windows
 * gained nothing measurable.
 */
#define MAP_WINDOW	(8 * CHUNK)
/* smaller files are read: a mapping's system calls cost as much */
#define MAP_MIN		(4 * CHUNK)
/* bigger ones are checked in two halves at once, where there are CPUs */
#define MAP_HALVES_MIN	(8 * MAP_WINDOW)

enum format { FORMAT_KV, FORMAT_GNU, FORMAT_JSON };

struct options {
	unsigned int flags;
	bool quiet, all, replace;
	bool list, invert, null, no_messages;	/* isutf8's -l, -i; -0, -s */
	unsigned long long max_errors;		/* with --all; 0: no limit */
	int recursive;			/* 0, 'r' (grep -r) or 'R' (-R) */
	bool skip_binary;		/* --binary-files=without-match */
	bool names;			/* --names: the names, not the contents */
	unsigned int context;		/* --context: bytes each side; 0: none */
	bool color;			/* --color: SGR escapes in kv and gnu */
	const char *include[32], *exclude[32], *exclude_dir[32];
	int nr_include, nr_exclude, nr_exclude_dir;
	enum format format;
	struct stat out;		/* standard output, if a regular file */
	bool out_is_file;
};

/* Where the text read so far ends, in lines and characters. */
struct position {
	unsigned long long line;	/* 1-based */
	unsigned long long column;	/* characters since the line began */
	unsigned long long display;	/* --format=gnu: GCC's display columns */
};

/* What checking an input needs of its own, one per thread. */
struct scratch {
	unsigned char buf[CARRY_MAX + CHUNK];
	bool hold;		/* keep a failure's message back ... */
	const char *held;	/* ... here, for the walk to say in order */
};

/* One input being checked. */
struct input {
	const char *name;		/* as given; NULL for standard input */
	const struct options *opt;
	struct scratch *scratch;
	int fd;
	off_t start;			/* file offset of byte 0, if @reread */
	off_t end;			/* a regular file's size when opened, or 0 */
	bool reread;			/* a regular file: count lines later */
	struct position pos;		/* as of @tracked */
	unsigned long long tracked;	/* bytes the position covers */
	unsigned long long chars;	/* so far, each error counting as one */
	unsigned long long errors;
	struct utf8val_result first;	/* the first error; the verdict */
	bool stopped;			/* at an error (or a failure): no more */
	bool cut_short;			/* stopped with bytes left, or unseen */
	const char *failed;		/* why reading it failed, or NULL */
	/* --context: the bytes before the buffer, for an error at its start */
	unsigned char history[CONTEXT_MAX];
	size_t history_len;
};

static const char *progname = "utf8val";

static unsigned long long count_newlines(const unsigned char *s, size_t n)
{
	typedef unsigned char v16 __attribute__((vector_size(16)));
	const v16 nl = {
		'\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n',
		'\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n',
	};
	unsigned long long total = 0;
	size_t i = 0;

	while (n - i >= 16) {
		v16 acc = { 0 }, v;
		int k, j;

		/* up to 255 rounds before a byte counter could wrap */
		for (k = 0; k < 255 && n - i >= 16; k++, i += 16) {
			memcpy(&v, s + i, sizeof(v));
			acc -= (v16)(v == nl);
		}
		for (j = 0; j < 16; j++)
			total += acc[j];
	}
	for (; i < n; i++)
		total += s[i] == '\n';
	return total;
}

/*
 * The width on a terminal, as GCC counts it (1, 2 or 0), of the
 * character that starts at @s, @avail bytes being there.
 */
static int char_width(const unsigned char *s, size_t avail)
{
	static locale_t utf8;
	size_t len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4, i;
	locale_t was;
	wchar_t c;
	int w;

	if (!utf8)
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (!utf8 || s[0] > 0xf4 || len > avail)
		return 1;	/* (RFC 2279's forms: none in Unicode) */
	c = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++)
		c = c << 6 | (s[i] & 0x3f);
	was = uselocale(utf8);
	w = wcwidth(c);
	uselocale(was);
	return w < 0 ? 1 : w;
}

/*
 * GCC's column (the GNU coding standards'), 0-based, after the valid
 * text @s[0, @n) from column @col: tabs stop every 8 columns, wide
 * characters take 2, combining ones 0.
 */
static unsigned long long display_column(const unsigned char *s, size_t n,
					 unsigned long long col)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\t')
			col = (col / 8 + 1) * 8;
		else if (s[i] < 0x80)
			col++;
		else if (s[i] >= 0xc0)	/* a character's first byte */
			col += char_width(s + i, n - i);
	}
	return col;
}

/*
 * The bytes of the character that the text @s[0, @n) leaves open at its
 * end, if any, as its first byte says (in text not checked, an invalid
 * one may be taken for it).
 */
static size_t open_tail(const unsigned char *s, size_t n)
{
	size_t i, len;

	for (i = 1; i <= n && i < UTF8VAL_MAX_SEQ; i++) {
		if ((s[n - i] & 0xc0) == 0x80)
			continue;
		len = s[n - i] < 0xc0 ? 1 : s[n - i] < 0xe0 ? 2 :
		      s[n - i] < 0xf0 ? 3 : s[n - i] < 0xf8 ? 4 :
		      s[n - i] < 0xfc ? 5 : 6;
		return i < len ? i : 0;
	}
	return 0;
}

/*
 * Move @in's position over @n bytes of valid text at @s, which ends
 * before a character or at an error. (Counting a character where its
 * first byte is, any cut would do but for --format=gnu's widths.)
 */
static void advance(struct input *in, const unsigned char *s, size_t n)
{
	unsigned long long lines = count_newlines(s, n);
	bool gnu = in->opt->format == FORMAT_GNU;

	if (lines) {
		const unsigned char *nl = memrchr(s, '\n', n);

		in->pos.line += lines;
		in->pos.column = utf8val_count(nl + 1, s + n - (nl + 1));
		if (gnu)
			in->pos.display = display_column(nl + 1, s + n - (nl + 1), 0);
	} else {
		in->pos.column += utf8val_count(s, n);
		if (gnu)
			in->pos.display = display_column(s, n, in->pos.display);
	}
	in->tracked += n;
}

static void print_hex(FILE *f, const unsigned char *s, size_t len)
{
	while (len--)
		fprintf(f, "\\x%02x", *s++);
}

/*
 * Bytes in a kv or gnu record or a message, which must stay one line of
 * UTF-8: control bytes, "\", @also and the bytes that are not UTF-8 as
 * \xHH.
 */
static void print_escaped(FILE *f, const unsigned char *s, size_t len,
			  int also)
{
	size_t i = 0, end, bad;
	struct utf8val_result r;

	while (i < len) {
		utf8val_validate(s + i, len - i, 0, &r);
		end = i + r.valid_up_to;
		for (; i < end; i++) {
			if (s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\' ||
			    s[i] == also)
				fprintf(f, "\\x%02x", s[i]);
			else
				putc(s[i], f);
		}
		bad = r.error ? r.error_len : 0;
		print_hex(f, s + i, bad);
		i += bad;
	}
}

/*
 * A message about the input or file @name on standard error, after the
 * reports before it, the name escaped as in the reports.
 */
static void say(const struct options *opt, const char *name, const char *why)
{
	fflush(stdout);
	if (opt->no_messages)
		return;
	fprintf(stderr, "%s: ", progname);
	print_escaped(stderr, (const unsigned char *)name, strlen(name), 0);
	fprintf(stderr, ": %s\n", why);
}

/* Reading @in failed: say why, and check no more of it. */
static void input_failed(struct input *in, const char *why)
{
	if (in->scratch->hold)
		in->scratch->held = why;
	else
		say(in->opt, in->name ? in->name : "-", why);
	in->failed = why;
	in->stopped = true;
}

/*
 * Move @in's position to offset @base + @to, over valid text that ends
 * with @s[0, @to) (@s[0] being at offset @base). The text of a regular
 * file before @s that was not counted is read again. Returns false if
 * that fails.
 */
static bool track(struct input *in, const unsigned char *s,
		  unsigned long long base, size_t to)
{
	static unsigned char again[CHUNK];

	while (in->tracked < base) {
		unsigned long long want = base - in->tracked;
		ssize_t n = pread(in->fd, again,
				  want < sizeof(again) ? want : sizeof(again),
				  in->start + in->tracked);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			input_failed(in, strerror(errno));
			return false;
		}
		/* a character cut by the read: next time */
		n -= n ? open_tail(again, n) : 0;
		if (!n) {
			input_failed(in, "changed while being read");
			return false;
		}
		advance(in, again, n);
	}
	advance(in, s + (in->tracked - base), base + to - in->tracked);
	return true;
}

/* Whether each input gets a report: not with -q, --replace or -l. */
static bool reports(const struct options *opt)
{
	return !opt->quiet && !opt->replace && !opt->list;
}

static bool needs_position(const struct options *opt)
{
	return reports(opt);
}

/* A JSON string: @s's bytes as UTF-8, each error replaced by U+FFFD. */
static void json_bytes(const unsigned char *s, size_t len)
{
	unsigned long long n = utf8val_replace(s, len, 0, NULL, 0);
	unsigned char *text = malloc(n + 1);
	unsigned long long i;

	if (!text) {
		perror(progname);
		exit(2);
	}
	utf8val_replace(s, len, 0, text, n);
	putchar('"');
	for (i = 0; i < n; i++) {
		if (text[i] == '"' || text[i] == '\\')
			printf("\\%c", text[i]);
		else if (text[i] < 0x20 || text[i] == 0x7f)
			printf("\\u%04x", text[i]);
		else
			putchar(text[i]);
	}
	putchar('"');
	free(text);
}

static void json_string(const char *s)
{
	json_bytes((const unsigned char *)s, strlen(s));
}

static void print_name(const char *name)
{
	print_escaped(stdout, (const unsigned char *)name, strlen(name), 0);
}

/* --color: Select Graphic Rendition @sgr, or back to plain with "". */
static void paint(const struct options *opt, const char *sgr)
{
	if (opt->color)
		printf("\033[%sm", sgr);
}

#define SGR_NAME	"35"		/* grep's colour for file names */
#define SGR_ERROR	"01;31"		/* GCC's for "error:" */
#define SGR_VALID	"32"
#define SGR_PLAIN	""

/* A record's "FILE: " (kv) or "FILE:" (gnu) prefix. */
static void print_file(const struct options *opt, const char *name,
		       const char *sep)
{
	paint(opt, SGR_NAME);
	print_name(name);
	paint(opt, SGR_PLAIN);
	fputs(sep, stdout);
}

/* JSON's file_bytes: the name's bytes in hex, where "file" lost some. */
/* JSON's bytes in hex: the member @key, for @s[0, @len). */
static void json_hex(const char *key, const void *s, size_t len)
{
	const unsigned char *p = s;

	printf(",\"%s\":\"", key);
	while (len--)
		printf("%02x", *p++);
	putchar('"');
}

static void json_name_bytes(const char *name)
{
	if (!utf8val_check(name, strlen(name)))
		json_hex("file_bytes", name, strlen(name));
}

/* The start of a JSON line about the input or name @name. */
static void json_record(const char *type, const char *name)
{
	printf("{\"type\":\"%s\",\"file\":", type);
	json_string(name);
	json_name_bytes(name);
}

static const char *verdict_word(unsigned int error)
{
	return error == UTF8VAL_OK ? "valid" :
	       error == UTF8VAL_EINCOMPLETE ? "incomplete" : "invalid";
}

/*
 * The bytes a validator accepted, in every format and on /dev/utf8val:
 * those before an error, all of them when valid or incomplete.
 */
static unsigned long long accepted(const struct utf8val_result *r,
				   unsigned long long total)
{
	return r->error && r->error != UTF8VAL_EINCOMPLETE ?
	       r->valid_up_to : total;
}

/* --context: the text around an error, within its line. */
struct context {
	unsigned char before[CONTEXT_MAX];
	const unsigned char *bad, *after;
	size_t before_len, bad_len, after_len;
};

static bool continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/*
 * The context of the error at @s[@at] (@len bytes long), in @s[0, @end)
 * and, before @s, @in's history: up to opt->context bytes each side, cut
 * at line ends and, where the cut splits a character, before it.
 */
static void get_context(const struct input *in, const unsigned char *s,
			size_t at, size_t len, size_t end, struct context *c)
{
	size_t want = in->opt->context, from_s = at < want ? at : want;
	size_t from_history = want - from_s, i;
	const unsigned char *nl;

	if (from_history > in->history_len)
		from_history = in->history_len;
	memcpy(c->before, in->history + in->history_len - from_history,
	       from_history);
	memcpy(c->before + from_history, s + at - from_s, from_s);
	c->before_len = from_history + from_s;
	nl = memrchr(c->before, '\n', c->before_len);
	i = nl ? nl + 1 - c->before : 0;
	if (!nl && c->before_len == want)	/* cut: not inside a character */
		while (i < c->before_len && i < UTF8VAL_MAX_SEQ - 1 &&
		       continuation(c->before[i]))
			i++;
	memmove(c->before, c->before + i, c->before_len - i);
	c->before_len -= i;

	c->bad = s + at;
	c->bad_len = len;
	c->after = s + at + len;
	c->after_len = end - (at + len) < want ? end - (at + len) : want;
	nl = memchr(c->after, '\n', c->after_len);
	if (nl) {
		c->after_len = nl - c->after;
	} else if (c->after_len == want) {
		/* cut: not inside a character */
		c->after_len -= open_tail(c->after, c->after_len);
	}
}

static void print_context(const struct options *opt, const struct context *c)
{
	if (opt->format == FORMAT_JSON) {
		printf(",\"context\":{\"before\":");
		json_bytes(c->before, c->before_len);
		json_hex("bad", c->bad, c->bad_len);
		printf(",\"after\":");
		json_bytes(c->after, c->after_len);
		putchar('}');
		return;
	}
	printf("  context: \"");
	print_escaped(stdout, c->before, c->before_len, '"');
	printf("\" ");
	paint(opt, SGR_ERROR);
	print_hex(stdout, c->bad, c->bad_len);
	paint(opt, SGR_PLAIN);
	printf(" \"");
	print_escaped(stdout, c->after, c->after_len, '"');
	printf("\"\n");
}

/*
 * An error found at @err, @in's position being where it starts; with
 * --context, @ctx is the text around it.
 */
static void report_error(struct input *in, const struct utf8val_result *err,
			 unsigned long long total, const struct context *ctx)
{
	const struct options *opt = in->opt;
	unsigned long long line = in->pos.line, column = in->pos.column + 1;
	const char *name = in->name ? in->name : "-";

	in->errors++;
	if (!reports(opt))
		return;
	switch (opt->format) {
	case FORMAT_KV:
		if (in->name)
			print_file(opt, in->name, ": ");
		paint(opt, SGR_ERROR);
		fputs(verdict_word(err->error), stdout);
		paint(opt, SGR_PLAIN);
		printf(" bytes=%llu chars=%llu offset=%llu len=%u ",
		       accepted(err, total), err->chars, err->valid_up_to,
		       err->error_len);
		if (err->error != UTF8VAL_EINCOMPLETE)
			printf("error=%s ", utf8val_error_name(err->error));
		printf("line=%llu column=%llu\n", line, column);
		break;
	case FORMAT_GNU:
		print_file(opt, strcmp(name, "-") ? name : "<stdin>", ":");
		printf("%llu:%llu: ", line, in->pos.display + 1);
		paint(opt, SGR_ERROR);
		fputs("error:", stdout);
		paint(opt, SGR_PLAIN);
		printf(" %s (%u byte%s) at byte %llu\n",
		       utf8val_error_name(err->error), err->error_len,
		       err->error_len == 1 ? "" : "s", err->valid_up_to);
		break;
	case FORMAT_JSON:
		json_record("error", name);
		printf(",\"offset\":%llu,\"len\":%u,\"error\":\"%s\",\"line\":%llu,\"column\":%llu,\"chars\":%llu",
		       err->valid_up_to, err->error_len,
		       utf8val_error_name(err->error), line, column, err->chars);
		if (ctx)
			print_context(opt, ctx);
		printf("}\n");
		return;
	}
	if (ctx)
		print_context(opt, ctx);
}

/* The verdict on the whole input, after its errors. */
static void report_end(const struct input *in, unsigned long long total)
{
	const struct options *opt = in->opt;
	const struct utf8val_result *r = &in->first;
	unsigned long long chars = r->error ? r->chars : in->chars;

	if (!reports(opt))
		return;
	if (in->failed) {	/* no verdict: stderr said why */
		if (opt->format == FORMAT_JSON) {
			json_record("file", in->name ? in->name : "-");
			printf(",\"verdict\":\"unread\",\"failure\":");
			json_string(in->failed);
			printf("}\n");
		}
		return;
	}
	switch (opt->format) {
	case FORMAT_KV:
		if (in->errors)
			break;
		if (in->name)
			print_file(opt, in->name, ": ");
		paint(opt, SGR_VALID);
		fputs("valid", stdout);
		paint(opt, SGR_PLAIN);
		printf(" bytes=%llu chars=%llu\n", total, chars);
		break;
	case FORMAT_GNU:
		break;
	case FORMAT_JSON:
		json_record("file", in->name ? in->name : "-");
		printf(",\"verdict\":\"%s\",\"bytes\":%llu,\"chars\":%llu,\"error_count\":%llu%s}\n",
		       verdict_word(r->error), accepted(r, total), chars,
		       in->errors, in->cut_short ? ",\"stopped\":true" : "");
		break;
	}
}

/* Standard output for --replace: big writes, every error fatal. */
static unsigned char outbuf[CHUNK];
static size_t outlen;

static void write_all(const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = write(1, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			fprintf(stderr, "%s: standard output: %s\n", progname,
				strerror(errno));
			exit(2);
		}
		p += k;
		n -= k;
	}
}

static void out_flush(void)
{
	write_all(outbuf, outlen);
	outlen = 0;
}

static void out_put(const void *p, size_t n)
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

/*
 * Check @s[0, @len), the input from offset @base on, the bytes before it
 * all settled. Unless @eof, a character left open at the end may be
 * finished by what comes next: return where it starts, for the caller to
 * carry over. Otherwise return @len.
 */
static size_t check_chunk(struct input *in, const unsigned char *s,
			  size_t len, unsigned long long base, bool eof)
{
	const struct options *opt = in->opt;
	/* a BOM is refused at offset 0 of the input only */
	unsigned int flags = base ? opt->flags & ~UTF8VAL_REJECT_BOM :
				    opt->flags;
	unsigned long long chars = in->chars;
	struct utf8val_errors it;
	struct utf8val_result err;
	struct context ctx;
	size_t done = 0;

	utf8val_errors_init(&it, s, len, flags);
	while (utf8val_errors_next(&it, &err)) {
		size_t at = err.valid_up_to;

		if (!eof && (err.error == UTF8VAL_EINCOMPLETE ||
			     (opt->context && reports(opt) &&
			      len - at < err.error_len + opt->context))) {
			/*
			 * the characters before it count; it (and the
			 * text after it that --context shows) waits
			 */
			len = at;
			break;
		}
		if (opt->replace) {
			out_put(s + done, at - done);
			out_put(UTF8VAL_REPLACEMENT, FFFD_LEN);
		}
		if (needs_position(opt) && !track(in, s, base, at))
			return len;
		err.valid_up_to += base;
		err.chars += chars;
		if (!in->errors)
			in->first = err;
		if (opt->context && reports(opt))
			get_context(in, s, at, err.error_len, len, &ctx);
		report_error(in, &err, base + len,
			     opt->context && reports(opt) ? &ctx : NULL);
		done = at + err.error_len;
		in->pos.column++;	/* an error takes one column */
		in->pos.display++;
		in->tracked = base + done;
		if ((!opt->all || opt->list ||
		     (opt->max_errors && in->errors >= opt->max_errors)) &&
		    !opt->replace) {
			in->stopped = true;
			/* (not when the error took the last bytes there are) */
			in->cut_short = !eof || done < len;
			return len;
		}
	}
	/* the totals, or the open character's start */
	in->chars = chars + err.chars;
	if (opt->replace)
		out_put(s + done, len - done);
	return len;
}

/* --context: the last bytes of @in before @s + @n, once @s is gone. */
static void keep_history(struct input *in, const unsigned char *s, size_t n)
{
	size_t room = sizeof(in->history), from_s = n < room ? n : room;
	size_t keep = in->history_len < room - from_s ? in->history_len :
							room - from_s;

	memmove(in->history, in->history + in->history_len - keep, keep);
	memcpy(in->history + keep, s + n - from_s, from_s);
	in->history_len = keep + from_s;
}

/* A pipe's text is counted before the next read() replaces it. */
static void chunk_tail_position(struct input *in, const unsigned char *s,
				unsigned long long base, size_t to)
{
	if (needs_position(in->opt) && !in->reread && !in->stopped &&
	    in->tracked < base + to)
		track(in, s, base, to);	/* only a file can fail */
}

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
static size_t page_size;		/* 0: no mapping, read() only */
static cpu_set_t map_cpus;		/* the CPUs this process may run on */
static bool map_halves;			/* a CPU for a second half */

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

static void map_setup(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	long size = sysconf(_SC_PAGESIZE);

	sigset_t now;

	sigemptyset(&sa.sa_mask);
	/* blocked, a SIGBUS from a file cut short would end the process */
	if (pthread_sigmask(SIG_BLOCK, NULL, &now) || sigismember(&now, SIGBUS))
		return;
	if (size > 0 && !sigaction(SIGBUS, &sa, &sigbus_before))
		page_size = size;
	map_halves = !sched_getaffinity(0, sizeof(map_cpus), &map_cpus) &&
		     CPU_COUNT(&map_cpus) > 1;
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
	for (i = 0; i < sizeof(file_systems) / sizeof(file_systems[0]); i++)
		if ((unsigned int)fs.f_type == file_systems[i])
			return true;
	return false;
}

/* Whether @in is checked through a mapping first: see the top. */
static bool mappable(const struct input *in)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	/* (--replace copies the text out: read() copies it once too) */
	if (!in->reread || in->end - in->start < (off_t)MAP_MIN ||
	    in->opt->replace || !file_system_mappable(in->fd))
		return false;
	pthread_once(&once, map_setup);
	return page_size;
}

/*
 * How far a part of a file is known to be valid, offsets counted from
 * the input's start: at a window's end, where read() would have been.
 */
struct map_part {
	const struct input *in;
	unsigned long long from;	/* where a character left open starts */
	unsigned long long done;	/* checked up to here, a chunk boundary */
	unsigned long long chars;	/* in the text before @from */
	unsigned char open[UTF8VAL_MAX_SEQ];	/* the bytes @from to @done */
	unsigned long long end;		/* the part's end */
	/* the second half: its first character's start, from @done */
	bool second;
	unsigned char head[UTF8VAL_MAX_SEQ];	/* the bytes before it */
	size_t head_len;
	bool stop;			/* (atomic) the first half is done */
};

/*
 * Check @p's text through mappings, a window at a time, up to @p->end,
 * and move @p over each window while the text is valid: it stops at an
 * error (or a text that ends inside a character), where the file was cut
 * short, or where no mapping can be had. The second half of a file
 * starts at the first character after its start instead.
 */
static __attribute__((noinline)) void map_windows(struct map_part *p)
{
	const struct input *in = p->in;
	const unsigned long long size = in->end - in->start;
	unsigned long long base = p->from, chars = p->chars, to, open;
	unsigned int flags = in->opt->flags;
	unsigned char tail[UTF8VAL_MAX_SEQ];
	struct utf8val_stream st;
	struct utf8val_result r;
	struct stat now, before;
	bool valid;

	/*
	 * A stream, for each window to start where the last ended: a
	 * window that starts a page before, at the character the last one
	 * left open, is mapped page by page where the page cache has large
	 * folios (measured: a third slower).
	 */
	if (base || p->second)	/* a BOM is refused at offset 0 only */
		flags &= ~UTF8VAL_REJECT_BOM;
	utf8val_stream_init(&st, flags);
	utf8val_stream_feed(&st, p->open, p->done - p->from);
	while (p->done < p->end &&
	       !__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) {
		off_t at = (in->start + p->done) & ~(off_t)(page_size - 1);
		size_t skip = in->start + p->done - at, len;
		const unsigned char *map;

		to = p->end - p->done < MAP_WINDOW ? p->end :
						     p->done + MAP_WINDOW;
		len = in->start + to - at;
		if (fstat(in->fd, &before))
			return;
		map = mmap(NULL, len, PROT_READ, MAP_SHARED, in->fd, at);
		/* (MADV_SEQUENTIAL: a file not in the cache read slower) */
		if (map == MAP_FAILED)
			return;	/* (a file system without mmap()) */
		map_guard.len = len;
		map_guard.map = map;
		if (p->second) {
			/* a valid text has a character's start in reach */
			while (p->head_len < UTF8VAL_MAX_SEQ &&
			       continuation(map[skip]))
				p->head[p->head_len++] = map[skip++];
			p->from = p->done + p->head_len;
			base = p->from;
			p->second = false;
		}
		utf8val_stream_feed(&st, map + skip, len - skip);
		utf8val_stream_result(&st, &r);
		/* (a text that ends inside a character is not valid) */
		valid = !r.error ||
			(r.error == UTF8VAL_EINCOMPLETE && to < size);
		open = valid ? to - (base + r.valid_up_to) : 0;
		memcpy(tail, map + len - open, open);
		map_guard.map = NULL;
		munmap((void *)map, len);
		/*
		 * A file cut in the window's last page reads as zeros
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
		p->from = base + r.valid_up_to;
		p->chars = chars + r.chars;
		memcpy(p->open, tail, open);
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

/* The second half of a file, on a thread of its own: see map_checked(). */
static void *map_scan_half(void *half)
{
	pthread_setaffinity_np(pthread_self(), sizeof(map_cpus), &map_cpus);
	map_scan(half);
	return NULL;
}

/*
 * Start the thread that checks @half, on another CPU than this one: a new
 * thread starts on its creator's CPU, where the scheduler on a machine of
 * two left it for milliseconds (measured), as long as a half takes. Once
 * it runs, it may run anywhere.
 */
static bool map_start_half(pthread_t *helper, struct map_part *half)
{
	cpu_set_t others = map_cpus;
	pthread_attr_t attr;
	int cpu = sched_getcpu();
	bool started;

	if (pthread_attr_init(&attr))
		return false;
	if (cpu >= 0 && cpu < CPU_SETSIZE)
		CPU_CLR(cpu, &others);
	if (CPU_COUNT(&others))
		pthread_attr_setaffinity_np(&attr, sizeof(others), &others);
	started = !pthread_create(helper, &attr, map_scan_half, half);
	pthread_attr_destroy(&attr);
	return started;
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
	memcpy(text, p->open, open);
	memcpy(text + open, half->head, half->head_len);
	if (utf8val_validate(text, open + half->head_len,
			     p->in->opt->flags & ~UTF8VAL_REJECT_BOM, &r))
		return;	/* the first half goes on itself, to the error */
	p->from = half->from;
	p->done = half->done;
	p->chars += r.chars + half->chars;
	memcpy(p->open, half->open, half->done - half->from);
}

/*
 * Check the regular file @in from its start through mappings, while its
 * text is valid (a big one in two halves at once, where there is a CPU
 * for each), and set @in up for read() to take over: the offset (from
 * @in->start) of @buf[0], the bytes of the character that a window left
 * open there read into @buf (*@have of them) and the file offset after
 * them, which is a chunk boundary. From there on, read() finds what it
 * would have found had it read the text before, the history that
 * --context shows included: the first error, a file cut short, the end.
 */
static unsigned long long map_checked(struct input *in, unsigned char *buf,
				      size_t *have)
{
	const unsigned long long size = in->end - in->start;
	struct map_part p = { .in = in, .end = size }, half;
	unsigned char edge[CONTEXT_MAX + UTF8VAL_MAX_SEQ];
	unsigned long long back, from;
	pthread_t helper;
	bool halves = false;
	ssize_t n;

	/* (a walk's workers have the other CPUs) */
	if (map_halves && !in->scratch->hold && size >= MAP_HALVES_MIN) {
		half = (struct map_part){ .in = in, .second = true,
					  .end = size };
		half.done = size / 2 / MAP_WINDOW * MAP_WINDOW;
		half.from = half.done;
		p.end = half.done;
		halves = map_start_half(&helper, &half);
		if (!halves)
			p.end = size;
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
		pthread_join(helper, NULL);
		if (p.done == p.end) {
			map_join(&p, &half);
			/* on from there: to the end, or to what stopped it */
			p.end = size;
			map_scan(&p);
		}
	}
	in->chars = p.chars;
	/* the text before @from that --context shows, and what is open */
	from = p.from;
	back = in->opt->context ? (from < CONTEXT_MAX ? from : CONTEXT_MAX) : 0;
	do
		n = pread(in->fd, edge, back + p.done - from,
			  in->start + from - back);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		input_failed(in, strerror(errno));
		return from;
	}
	/* (fewer bytes: the file was cut there, as read() will find) */
	if ((size_t)n < back)
		back = n;
	keep_history(in, edge, back);
	*have = n - back;
	memcpy(buf, edge + back, *have);
	if (lseek(in->fd, in->start + from + *have, SEEK_SET) < 0)
		input_failed(in, strerror(errno));
	return from;
}

static int check_stream(struct input *in, int fd)
{
	unsigned char *buf = in->scratch->buf;
	unsigned long long base = 0;	/* offset of buf[0] */
	size_t have = 0;		/* carried bytes at buf[0] */
	bool eof = false;

	if (mappable(in))
		base = map_checked(in, buf, &have);
	while (!eof && !in->stopped) {
		size_t want = CHUNK;
		ssize_t n;
		size_t done;

		/* a regular file as it was when opened: its size then */
		if (in->end > 0 && (unsigned long long)(in->end - in->start) - base - have < want)
			want = in->end - in->start - base - have;
		n = want ? read(fd, buf + have, want) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			input_failed(in, strerror(errno));
			break;
		}
		have += n;
		/* (the size reached: no read() just to be told the end) */
		eof = !n || (in->end > 0 && in->start + (off_t)(base + have) >= in->end);
		done = check_chunk(in, buf, have, base, eof);
		chunk_tail_position(in, buf, base, done);
		if (in->opt->context)
			keep_history(in, buf, done);
		memmove(buf, buf + done, have - done);
		base += done;
		have -= done;
	}
	report_end(in, base + have);
	return in->failed ? 2 : 0;
}

/*
 * Whether @st is the file standard output writes to: reading it while
 * writing to it would read what was written (cat: "input file is output
 * file"), without end for --replace appended to its own input.
 */
static bool is_output(const struct stat *st, const struct options *opt)
{
	return opt->out_is_file && st->st_dev == opt->out.st_dev &&
	       st->st_ino == opt->out.st_ino;
}

#define SKIPPED	(-1)	/* check_input(): not checked, not listed */

/* grep's rule for a binary file: a NUL byte in its first 32 KiB. */
static bool looks_binary(int fd, off_t start, struct scratch *scratch)
{
	ssize_t n = pread(fd, scratch->buf, 32 << 10, start);

	return n > 0 && memchr(scratch->buf, '\0', n);
}

/*
 * Check the input @name (NULL or "-": standard input), or the regular
 * file a walk found there and opened as @fd (-1: open @name here), and
 * close it. Returns 0 valid, 1 not, 2 unread, or SKIPPED: a file that
 * --binary-files=without-match leaves out, or one a walk found that is
 * no longer a regular file (nothing is said about those).
 */
static int check_input(const char *name, int fd, const struct options *opt,
		       struct scratch *scratch)
{
	struct input in = {
		.name = name,
		.opt = opt,
		.scratch = scratch,
		.pos = { 1, 0 },
	};
	bool named = name && strcmp(name, "-"), walked = fd >= 0;
	const char *why = NULL;
	struct stat st;
	int rc;

	if (!walked)
		fd = named ? open(name, O_RDONLY | O_NOCTTY | O_CLOEXEC) : 0;
	if (fd < 0 || fstat(fd, &st))
		why = strerror(errno);
	else if (is_output(&st, opt))
		why = "input file is output file";
	else if (walked && !S_ISREG(st.st_mode))
		goto skip;	/* replaced since the walk saw it */
	in.start = named ? 0 : lseek(fd, 0, SEEK_CUR);
	if (!why && opt->skip_binary && S_ISREG(st.st_mode) && in.start >= 0 &&
	    looks_binary(fd, in.start, scratch))
		goto skip;
	if (why) {
		/* no verdict, but an object for it in JSON */
		input_failed(&in, why);
		report_end(&in, 0);
		if (fd > 0)
			close(fd);
		return 2;
	}
	in.fd = fd;
	in.reread = S_ISREG(st.st_mode) && in.start >= 0;
	if (in.reread)
		in.end = st.st_size;
	rc = check_stream(&in, fd);
	if (fd)
		close(fd);
	if (rc)
		return rc;
	return in.first.error != UTF8VAL_OK;
skip:
	if (fd)
		close(fd);
	return SKIPPED;
}

/* With -l, @name if @rc (check_input()'s) makes it one to list. */
static void list(const char *name, int rc, const struct options *opt)
{
	if (opt->list && rc >= 0 && rc < 2 && (rc == 0) == opt->invert)
		printf("%s%c", name && strcmp(name, "-") ? name : "(standard input)",
		       opt->null ? '\0' : '\n');
}

/* The main thread's scratch space. */
static struct scratch scratch;

/* check_input(), and with -l the name if it is one to list. */
static int check_and_list(const char *name, int fd, const struct options *opt)
{
	int rc = check_input(name, fd, opt, &scratch);

	list(name, rc, opt);
	return rc;
}

/*
 * --names: the verdict on the name of the file at @path (its last
 * component), not on what it holds: 0 valid, 1 not. A name that is not
 * UTF-8 gets a record with its path (escaped) and the error's offset,
 * length and kind in the name; -l lists paths instead.
 */
static int check_name(const char *path, const struct options *opt)
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
	if (opt->list) {
		if (bad != opt->invert)
			printf("%s%c", path, opt->null ? '\0' : '\n');
	} else if (bad && !opt->quiet && opt->format == FORMAT_GNU) {
		print_file(opt, path, ": ");
		paint(opt, SGR_ERROR);
		fputs("error:", stdout);
		paint(opt, SGR_PLAIN);
		printf(" %s name (%u byte%s) at byte %llu of the name\n",
		       utf8val_error_name(r.error), r.error_len,
		       r.error_len == 1 ? "" : "s", r.valid_up_to);
	} else if (bad && !opt->quiet && opt->format == FORMAT_JSON) {
		json_record("name", path);
		printf(",\"verdict\":\"%s\",\"offset\":%llu,\"len\":%u,\"error\":\"%s\"}\n",
		       verdict_word(r.error), r.valid_up_to, r.error_len,
		       utf8val_error_name(r.error));
	} else if (bad && !opt->quiet) {
		print_file(opt, path, ": ");
		paint(opt, SGR_ERROR);
		fputs(verdict_word(r.error), stdout);
		paint(opt, SGR_PLAIN);
		printf(" name offset=%llu len=%u", r.valid_up_to, r.error_len);
		if (r.error != UTF8VAL_EINCOMPLETE)
			printf(" error=%s", utf8val_error_name(r.error));
		putchar('\n');
	}
	return bad;
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
 * A file, found by a walk (and opened as @fd) or named (@fd -1): unless
 * --include or --exclude leave it out.
 */
static int check_file(const char *path, int fd, const struct options *opt)
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

/*
 * -r with -l or -q, where a file's answer is a name or nothing: the files
 * are checked on every CPU (opening, reading and closing 90000 small
 * files is system time a single thread waits out), and the answers and
 * the messages given in the walk's order, as one thread would.
 */
#define POOL_JOBS	256	/* each holds an open file */
#define POOL_THREADS	8
#define POOL_BATCH	32	/* jobs that wake a worker: wake-ups cost */
#define POOL_TAKE	8	/* jobs a worker takes at a time */

/*
 * A directory a walk holds open, for its files to be opened in it, by
 * the walk or a worker: the last to let go closes it.
 */
struct dir_ref {
	int fd;
	int refs;
};

static struct dir_ref *dir_get(struct dir_ref *dir)
{
	__atomic_add_fetch(&dir->refs, 1, __ATOMIC_RELAXED);
	return dir;
}

/*
 * Directories held open, and how many may be: half the descriptors a
 * walk may have, so that the workers' files always find one.
 */
static int dirs_open, dirs_max = 64;

static void dir_put(struct dir_ref *dir)
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
static int open_found(const struct dir_ref *dir, const char *name,
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
static bool replaced(int err)
{
	return err == ELOOP || err == ENOTDIR;
}

struct job {
	char *path;		/* the file */
	struct dir_ref *dir;	/* the directory it is in, and its name */
	const char *name;	/* there (the end of @path) */
	const char *why;	/* the message to say about it, or NULL */
	int rc;
	bool done;
};

static struct pool {
	pthread_mutex_t lock;
	pthread_cond_t work, done;	/* to start; answered */
	struct job ring[POOL_JOBS];
	unsigned long said;	/* jobs before it said, in order */
	unsigned long started;	/* jobs before it taken by a worker */
	unsigned long queued;	/* jobs before it in the ring */
	bool closing;
	int idle;		/* workers waiting for work */
	bool waiting;		/* the walk waits for an answer */
	const struct options *opt;
	int status;		/* the worst answer said */
	int threads;
	pthread_t tid[POOL_THREADS];
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

static void *pool_worker(void *arg)
{
	struct scratch *scratch = arg;
	const struct options *opt = pool.opt;
	unsigned long first, take, i;
	bool mine[POOL_TAKE];
	struct job *j;

	pthread_mutex_lock(&pool.lock);
	for (;;) {
		while (!pool.closing && pool.started == pool.queued) {
			pool.idle++;
			pthread_cond_wait(&pool.work, &pool.lock);
			pool.idle--;
		}
		if (pool.started == pool.queued)
			break;
		/*
		 * A few jobs at a time: the lock is contended. The messages
		 * among them are the walk's to say, at once, and their slots
		 * may be taken again before this batch ends: only the files
		 * are this worker's, noted now.
		 */
		first = pool.started;
		take = pool.queued - first < POOL_TAKE ? pool.queued - first :
							 POOL_TAKE;
		pool.started += take;
		for (i = 0; i < take; i++)
			mine[i] = !pool.ring[(first + i) % POOL_JOBS].done;
		pthread_mutex_unlock(&pool.lock);
		for (i = first; i < first + take; i++) {
			j = &pool.ring[i % POOL_JOBS];
			if (!mine[i - first])
				continue;
			int fd = open_found(j->dir, j->name, opt);

			scratch->hold = true;
			scratch->held = NULL;
			if (fd < 0 && replaced(errno)) {
				j->rc = SKIPPED;
				j->why = NULL;
			} else if (fd < 0) {
				j->rc = 2;
				j->why = strerror(errno);
			} else {
				j->rc = check_input(j->path, fd, opt, scratch);
				j->why = scratch->held;
			}
			dir_put(j->dir);
		}
		pthread_mutex_lock(&pool.lock);
		for (i = first; i < first + take; i++)
			if (mine[i - first])
				pool.ring[i % POOL_JOBS].done = true;
		if (pool.waiting)	/* (a wake-up is a system call) */
			pthread_cond_signal(&pool.done);
	}
	pthread_mutex_unlock(&pool.lock);
	return scratch;
}

/* Say the answers that are ready, in order; with @pool.lock held. */
static void pool_say(void)
{
	struct job *j;

	while (pool.said < pool.queued &&
	       (j = &pool.ring[pool.said % POOL_JOBS])->done) {
		if (j->why)
			say(pool.opt, j->path, j->why);
		else
			list(j->path, j->rc, pool.opt);
		if (j->rc > pool.status)
			pool.status = j->rc;
		free(j->path);
		pool.said++;
		/*
		 * A message no worker has come to yet: none may, as its
		 * slot is free for the next job.
		 */
		if (pool.started < pool.said)
			pool.started = pool.said;
	}
}

/* Wait for a worker to answer; with @pool.lock held. */
static void pool_wait(void)
{
	if (pool.idle && pool.queued != pool.started)	/* a last batch */
		pthread_cond_broadcast(&pool.work);
	pool.waiting = true;
	pthread_cond_wait(&pool.done, &pool.lock);
	pool.waiting = false;
}

/*
 * Start the workers, one per CPU it may run on up to POOL_THREADS: false
 * if that is one, or none starts (the walk then checks each file itself).
 */
static bool pool_start(const struct options *opt)
{
	struct scratch *scratch;
	cpu_set_t set;
	int cpus;

	cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
	if (cpus < 2 || !(opt->list || opt->quiet) || opt->names)
		return false;
	pool.opt = opt;
	pool.status = 0;
	pool.closing = false;
	for (pool.threads = 0; pool.threads < cpus &&
	     pool.threads < POOL_THREADS; pool.threads++) {
		scratch = malloc(sizeof(*scratch));
		if (!scratch)
			break;
		if (pthread_create(&pool.tid[pool.threads], NULL, pool_worker,
				   scratch)) {
			free(scratch);
			break;
		}
	}
	return pool.threads > 0;
}

/*
 * A file for the workers to check (@path, named @name in @dir, which the
 * job holds), or a message about one (@path, @why; @rc the status it
 * means; @dir NULL), after what came before it.
 */
static void pool_add(const char *path, struct dir_ref *dir, const char *name,
		     const char *why, int rc)
{
	struct job *j;
	char *copy = strdup(path);

	if (!copy) {
		perror(progname);
		exit(2);
	}
	pthread_mutex_lock(&pool.lock);
	while (pool.queued - pool.said == POOL_JOBS) {
		pool_say();
		if (pool.queued - pool.said == POOL_JOBS)
			pool_wait();
	}
	j = &pool.ring[pool.queued++ % POOL_JOBS];
	*j = (struct job){ .path = copy, .why = why, .rc = rc, .done = !!why };
	if (dir) {
		j->dir = dir_get(dir);
		j->name = copy + strlen(copy) - strlen(name);
	}
	if (pool.idle && pool.queued - pool.started >= POOL_BATCH)
		pthread_cond_signal(&pool.work);
	pool_say();
	pthread_mutex_unlock(&pool.lock);
}

/* Wait for every answer and say them: the jobs hold nothing after. */
static void pool_drain(void)
{
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		pool_say();
		if (pool.said == pool.queued)
			break;
		pool_wait();
	}
	pthread_mutex_unlock(&pool.lock);
}

/* Wait for every answer, say them, end the workers: the worst status. */
static int pool_end(void)
{
	void *scratch;
	int i;

	pool_drain();
	pthread_mutex_lock(&pool.lock);
	pool.closing = true;
	pthread_cond_broadcast(&pool.work);
	pthread_mutex_unlock(&pool.lock);
	for (i = 0; i < pool.threads; i++) {
		pthread_join(pool.tid[i], &scratch);
		free(scratch);
	}
	return pool.status;
}

/* A walk: -r and -R. */
struct walk {
	const struct options *opt;
	bool pooled;		/* files checked by the pool */
	bool bare;		/* started at an implicit ".": no "./" */
	int status;
	char *path;		/* the entry's path, one buffer for the walk */
	size_t len, size;
};

/* Append @name to the walk's path as a level deeper: the old length. */
static size_t path_push(struct walk *w, const char *name, bool bare)
{
	size_t old = w->len, need = old + strlen(name) + 2;

	if (need > w->size) {
		char *more = realloc(w->path, need * 2);

		if (!more) {
			perror(progname);
			exit(2);
		}
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
 * from readdir() where the file system says, and for a symbolic link
 * with -R, of what it points to.
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

/*
 * Read the directory @fd (closed after) into @list, sorted by name: its
 * length, or -1.
 */
static ssize_t read_dir(int fd, struct entry **list, bool follow)
{
	DIR *d = fdopendir(fd);
	struct entry *e = NULL;
	size_t n = 0, size = 0;
	struct dirent *de;

	if (!d) {
		close(fd);
		return -1;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == size) {
			struct entry *more;

			size = size ? 2 * size : 64;
			more = realloc(e, size * sizeof(*e));
			if (!more)
				goto nomem;
			e = more;
		}
		e[n] = (struct entry){ .name = strdup(de->d_name),
				       .type = de->d_type };
		if (!e[n].name)
			goto nomem;
		entry_type(dirfd(d), &e[n++], follow);
	}
	if (errno) {
		int err = errno;

		while (n)
			free(e[--n].name);
		free(e);
		closedir(d);
		errno = err;
		return -1;
	}
	closedir(d);
	qsort(e, n, sizeof(*e), by_name);
	*list = e;
	return n;
nomem:
	perror(progname);
	exit(2);
}

/* A regular file of a walk, @name in @dir: checked by a worker, or here. */
static void walk_file(struct walk *w, struct dir_ref *dir, const char *name)
{
	int fd;

	if (!wanted(w->path, w->opt))
		return;
	if (w->pooled) {
		pool_add(w->path, dir, name, NULL, 0);
		return;
	}
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
 * Open the directory @name in @at for a walk, and a copy of it for
 * reading (*@copy); with EMFILE, again once the pool has let go of what
 * its jobs hold. -1 and errno if either fails.
 */
static int open_dir(struct walk *w, int at, const char *name, int flags,
		    int *copy)
{
	int fd, tries;

	for (tries = 0; tries < 2; tries++) {
		if (tries)
			pool_drain();
		fd = openat(at, name, flags);
		*copy = fd < 0 ? -1 : dup(fd);
		if (*copy >= 0)
			return fd;
		if (fd >= 0) {
			close(fd);
			errno = EMFILE;
		}
		if (errno != EMFILE || !w->pooled)
			break;
	}
	return -1;
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
	int fd, copy;

	base = base && base[1] ? base + 1 : w->path;
	if (level > 0 && matches(base, opt->exclude_dir, opt->nr_exclude_dir))
		return;
	if (w->pooled && __atomic_load_n(&dirs_open, __ATOMIC_RELAXED) >= dirs_max)
		pool_drain();	/* the jobs let go of their directories */
	/* -r follows a link only where the walk starts, as grep -r does */
	fd = open_dir(w, at, name, O_RDONLY | O_DIRECTORY | O_NOCTTY | O_CLOEXEC |
		      (level > 0 && !follow ? O_NOFOLLOW : 0), &copy);
	if (fd < 0 && level > 0 && replaced(errno))
		return;		/* no longer a directory */
	if (fd >= 0 && !fstat(fd, &st)) {
		here.dev = st.st_dev;
		here.ino = st.st_ino;
		for (s = up; s; s = s->up) {
			if (s->dev == here.dev && s->ino == here.ino) {
				close(fd);
				close(copy);
				walk_say(w, w->path, "a directory loop (skipped)");
				return;
			}
		}
	}
	if (opt->names)
		walk_rc(w, check_name(w->path, opt));
	/* (the stream reads the copy: @fd stays for openat()) */
	if (fd >= 0)
		n = read_dir(copy, &list, follow);
	if (n < 0) {
		walk_say(w, w->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	dir = malloc(sizeof(*dir));
	if (!dir) {
		perror(progname);
		exit(2);
	}
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
 * -r and -R: the regular files below the directory @dir, in name order;
 * symbolic links followed with -R only (-r follows @dir itself, as grep
 * does). A loop or a folder that cannot be read is reported and skipped:
 * status 2 at the end, never an end to the walk. Types come from
 * readdir() where the file system gives them: no stat() for each file.
 */
static int walk(const char *dir, const struct options *opt)
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
		/* (the rest: standard ones, the workers' files, a margin) */
		if (files.rlim_cur < 2 * (4096 + 16))
			dirs_max = files.rlim_cur > 24 ? (files.rlim_cur - 16) / 2 : 4;
		else
			dirs_max = 4096;
	}
	w.path = strdup(dir ? dir : ".");
	if (!w.path) {
		perror(progname);
		exit(2);
	}
	w.len = w.size = strlen(w.path);
	w.pooled = pool_start(opt);
	walk_dir(&w, AT_FDCWD, w.path, 0, NULL);
	rc = w.pooled ? pool_end() : 0;
	free(w.path);
	return rc > w.status ? rc : w.status;
}

/* A FILE operand or a name from --files-from. */
static int check_operand(const char *name, const struct options *opt)
{
	struct stat st;

	if (opt->names && (!name || !strcmp(name, "-"))) {
		say(opt, "-", "standard input has no name");
		return 2;
	}
	if (opt->recursive && name && strcmp(name, "-") &&
	    !stat(name, &st) && S_ISDIR(st.st_mode))
		return walk(name, opt);
	if (opt->names && lstat(name, &st)) {	/* no file: no name to check */
		say(opt, name, strerror(errno));
		return 2;
	}
	/* --include and --exclude apply to named files too, as in grep */
	if (name && strcmp(name, "-"))
		return check_file(name, -1, opt);
	return check_and_list(name, -1, opt);
}

/*
 * --files-from: check each name that @list ("-": standard input) holds,
 * one per line, or ended by NUL with -0; the worst status.
 */
static int check_names_from(const char *list, const struct options *opt)
{
	const int end = opt->null ? '\0' : '\n';
	FILE *f = strcmp(list, "-") ? fopen(list, "r") : stdin;
	int status = 0, rc;
	size_t size = 0;
	char *name = NULL;
	struct stat st;
	ssize_t n;

	if (!f || fstat(fileno(f), &st)) {
		say(opt, list, strerror(errno));
		return 2;
	}
	if (is_output(&st, opt)) {	/* -l's names read back without end */
		say(opt, list, "input file is output file");
		if (f != stdin)
			fclose(f);
		return 2;
	}
	while ((n = getdelim(&name, &size, end, f)) > 0) {
		if (name[n - 1] == end)
			name[--n] = '\0';
		rc = 2;
		if (!n)
			say(opt, list, "an empty name");
		else if (strlen(name) != (size_t)n)
			say(opt, list, "a name with a NUL byte in it (-0 reads such lists)");
		else if (f == stdin && !strcmp(name, "-"))
			say(opt, list, "- in names read from standard input");
		else
			rc = check_operand(name, opt);
		if (rc > status)
			status = rc;
	}
	if (ferror(f)) {
		say(opt, list, strerror(errno));
		status = 2;
	}
	free(name);
	if (f != stdin)
		fclose(f);
	return status;
}

/* What went to standard output must have reached it. */
static int finish_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", progname,
			strerror(errno ? errno : EIO));
		return 2;
	}
	return status;
}

/* The long options without a letter: not characters, for getopt */
enum {
	OPT_FORMAT = 0x300, OPT_JSON, OPT_FILES_FROM, OPT_MAX_ERRORS,
	OPT_CONTEXT,
};

static const struct option long_options[] = {
	{ "quiet", no_argument, NULL, 'q' },
	{ "all", no_argument, NULL, 'a' },
	{ "replace", no_argument, NULL, 'S' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "rfc2279", no_argument, NULL, 0x100 | UTF8VAL_RFC2279 },
	{ "surrogates", no_argument, NULL, 0x100 | UTF8VAL_SURROGATES },
	{ "reject-nul", no_argument, NULL, 0x100 | UTF8VAL_REJECT_NUL },
	{ "reject-nonchar", no_argument, NULL, 0x100 | UTF8VAL_REJECT_NONCHAR },
	{ "reject-bom", no_argument, NULL, 0x100 | UTF8VAL_REJECT_BOM },
	{ "list", no_argument, NULL, 'l' },
	{ "invert", no_argument, NULL, 'i' },
	{ "null", no_argument, NULL, '0' },
	{ "no-messages", no_argument, NULL, 's' },
	{ "files-from", required_argument, NULL, OPT_FILES_FROM },
	{ "recursive", no_argument, NULL, 'r' },
	{ "dereference-recursive", no_argument, NULL, 'R' },
	{ "include", required_argument, NULL, 0x201 },
	{ "exclude", required_argument, NULL, 0x202 },
	{ "exclude-dir", required_argument, NULL, 0x203 },
	{ "binary-files", required_argument, NULL, 0x204 },
	{ "names", no_argument, NULL, 0x205 },
	{ "max-errors", required_argument, NULL, OPT_MAX_ERRORS },
	{ "context", optional_argument, NULL, OPT_CONTEXT },
	{ "color", optional_argument, NULL, 0x206 },
	{ "colour", optional_argument, NULL, 0x206 },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static const char help_text[] =
"Usage: utf8val [OPTION]... [FILE]...\n"
"Check that each FILE is UTF-8 as RFC 3629 defines it, and say where and\n"
"why it is not. With no FILE, or when FILE is -, read standard input.\n"
"\n"
"  -q, --quiet           print nothing: the exit status is the answer\n"
"  -a, --all             report every error, not only the first\n"
"      --max-errors=N    report the first N errors of each input (all of\n"
"                          them: --all)\n"
"  -l, --list            print only the names of the inputs that are not\n"
"                          valid (isutf8 -l); \"(standard input)\" for -\n"
"  -i, --invert          with -l, the names of the valid ones instead\n"
"  -0, --null            with -l, end each name with NUL, not newline\n"
"  -s, --no-messages     say nothing about inputs that cannot be read\n"
"                          (the exit status still says so)\n"
"      --files-from=LIST the inputs named in the file LIST (- for standard\n"
"                          input), one per line, or each ended by NUL with -0\n"
"  -r, --recursive       check the files below each directory FILE (. if\n"
"                          none), as grep -r; symbolic links only if named\n"
"  -R, --dereference-recursive  the same, following every symbolic link\n"
"      --include=GLOB    only the files whose base name matches GLOB\n"
"      --exclude=GLOB    not the files whose base name matches GLOB\n"
"      --exclude-dir=GLOB  not below the directories that match GLOB\n"
"      --binary-files=without-match  skip files with a NUL byte in their\n"
"                          first 32 KiB (grep's rule); text: check them\n"
"      --names           check the names of the FILEs (with -r, of everything\n"
"                          below), not their contents\n"
"      --context[=N]     after each error, the bad bytes in hex and up to N\n"
"                          bytes (16; 64 at most) each side, within its line\n"
"      --color[=WHEN]    colour the reports (or --colour): WHEN is auto (the\n"
"                          default: on a terminal, unless NO_COLOR is set),\n"
"                          always or never\n"
"  -S, --replace         write the input to standard output with each error\n"
"                          (maximal subpart) replaced by U+FFFD, as the WHATWG\n"
"                          Encoding Standard decodes it; report nothing\n"
"      --format=FORMAT   kv (the default), gnu or json\n"
"      --json            the same as --format=json\n"
"      --rfc2279         also accept RFC 2279's 5- and 6-byte forms\n"
"      --surrogates      accept encoded U+D800..U+DFFF\n"
"      --reject-nul      refuse U+0000\n"
"      --reject-nonchar  refuse the 66 noncharacters\n"
"      --reject-bom      refuse a leading U+FEFF\n"
"  -h, --help            print this help and exit\n"
"  -V, --version         print the version and exit\n"
"\n"
"Output, one line per input (kv), prefixed with \"FILE: \" for files:\n"
"  valid bytes=N chars=C\n"
"  invalid bytes=N chars=C offset=O len=L error=NAME line=X column=Y\n"
"  incomplete bytes=N chars=C offset=O len=L line=X column=Y\n"
"bytes are those accepted (all of them, or those before the error), chars\n"
"the characters in them, offset the 0-based byte where the error starts,\n"
"len its length, line and column 1-based, the column in characters.\n"
"With --all, one such line per error, each earlier error counting as one\n"
"character. NAME is one of continuation, bad-byte, short, overlong,\n"
"surrogate, too-large, nul, noncharacter or bom; gnu and json also name\n"
"incomplete the error of input that ends inside a character.\n"
"  gnu:  FILE:LINE:COLUMN: error: NAME (L bytes) at byte O, per error, the\n"
"        column counted as GCC does: tabs stop every 8 columns, wide\n"
"        characters take 2\n"
"  json: JSON lines: an object per error reported (type \"error\": file,\n"
"        offset, len, error, line, column, chars; context), then one per\n"
"        input (type \"file\": file, verdict, bytes, chars, error_count;\n"
"        stopped; verdict \"unread\" with failure), or with --names per\n"
"        bad name (type \"name\"); file_bytes: a name's bytes in hex, where\n"
"        file could not keep them\n"
"\n"
"Exit status: 0 if every input is valid, 1 if some input is invalid or\n"
"incomplete, 2 on a usage or I/O error.\n"
"Manual: utf8val(1); the library: utf8val(3); the device: utf8val(4).\n";

static __attribute__((format(printf, 1, 2)))
int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", progname);
	return 2;
}

/*
 * Standard input, output or error closed by the caller: hold their
 * numbers with /dev/null opened the wrong way, so that a file opened
 * later is not taken for them and using them fails (EBADF), as it would
 * have.
 */
static void hold_closed_std_fds(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd ? O_RDONLY : O_WRONLY) != fd)
			exit(2);
}

/*
 * --color=auto: colour for a terminal that has it, unless NO_COLOR is set
 * to anything but "" (no-color.org; --color=always overrides it).
 */
static bool colors_wanted(void)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && (!no || !*no) && term &&
	       strcmp(term, "dumb");
}

/* Whether the failing option (getopt's optopt) was a long one. */
static bool long_option_failed(const char *shorts)
{
	/*
	 * optopt is 0 for an unknown long option, the option's value for a
	 * long option given an argument, and the letter for a bad short
	 * one, which is never one of ours.
	 */
	return !optopt || optopt > 0xff || strchr(shorts, optopt);
}

int main(int argc, char **argv)
{
	static const char shorts[] = ":qaSrRli0shV";
	struct options opt = { 0 };
	enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } color = COLOR_AUTO;
	const char *files_from = NULL;
	int c, i, status = 0;

	hold_closed_std_fds();
	opt.out_is_file = !fstat(STDOUT_FILENO, &opt.out) &&
			  S_ISREG(opt.out.st_mode);
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, long_options, NULL)) != -1) {
		switch (c) {
		case 'q':
			opt.quiet = true;
			break;
		case 'a':
			opt.all = true;
			break;
		case 'S':
			opt.replace = true;
			break;
		case 'r':
		case 'R':
			opt.recursive = c;
			break;
		case 0x201:
		case 0x202:
		case 0x203: {
			const char **list = c == 0x201 ? opt.include :
					    c == 0x202 ? opt.exclude : opt.exclude_dir;
			int *n = c == 0x201 ? &opt.nr_include :
				 c == 0x202 ? &opt.nr_exclude : &opt.nr_exclude_dir;

			if (*n == 32)
				return usage_error("at most 32 --include, --exclude or --exclude-dir each");
			list[(*n)++] = optarg;
			break;
		}
		case 0x205:
			opt.names = true;
			break;
		case 0x204:
			if (!strcmp(optarg, "without-match"))
				opt.skip_binary = true;
			else if (strcmp(optarg, "text"))
				return usage_error("--binary-files takes without-match or text, not '%s'",
						   optarg);
			break;
		case 'l':
			opt.list = true;
			break;
		case 'i':
			opt.invert = true;
			break;
		case '0':
			opt.null = true;
			break;
		case 's':
			opt.no_messages = true;
			break;
		case OPT_FILES_FROM:
			files_from = optarg;
			break;
		case OPT_MAX_ERRORS: {
			char *end;

			errno = 0;
			opt.max_errors = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || !opt.max_errors ||
			    *optarg == '-')
				return usage_error("--max-errors takes a number of errors, 1 or more, not '%s'",
						   optarg);
			opt.all = true;
			break;
		}
		case OPT_CONTEXT: {
			char *end;

			opt.context = CONTEXT_DEFAULT;
			if (!optarg)
				break;
			errno = 0;
			opt.context = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-' ||
			    !opt.context || opt.context > CONTEXT_MAX)
				return usage_error("--context takes a number of bytes from 1 to %d, not '%s'",
						   CONTEXT_MAX, optarg);
			break;
		}
		case 0x206:
			if (!optarg || !strcmp(optarg, "auto"))
				color = COLOR_AUTO;
			else if (!strcmp(optarg, "always"))
				color = COLOR_ALWAYS;
			else if (!strcmp(optarg, "never"))
				color = COLOR_NEVER;
			else
				return usage_error("--color takes auto, always or never, not '%s'",
						   optarg);
			break;
		case OPT_JSON:
			opt.format = FORMAT_JSON;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "kv"))
				opt.format = FORMAT_KV;
			else if (!strcmp(optarg, "gnu"))
				opt.format = FORMAT_GNU;
			else if (!strcmp(optarg, "json"))
				opt.format = FORMAT_JSON;
			else
				return usage_error("unknown format '%s' (kv, gnu or json)",
						   optarg);
			break;
		case 'h':
			fputs(help_text, stdout);
			return finish_stdout(0);
		case 'V':
			printf("utf8val %s\n", utf8val_version());
			return finish_stdout(0);
		case '?':
			/* a long option: optopt is its value, not a letter */
			if (long_option_failed(shorts + 1)) {
				const char *arg = argv[optind - 1];

				if (optopt)
					return usage_error("option '%.*s' takes no argument",
							   (int)strcspn(arg, "="), arg);
				return usage_error("unrecognized or ambiguous option '%s'",
						   arg);
			}
			return usage_error("invalid option -- '%c'", optopt);
		case ':':
			return usage_error("option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			opt.flags |= c & 0xff;
		}
	}
	if (opt.replace && (opt.format != FORMAT_KV || opt.quiet))
		return usage_error("--replace writes the text, not a report: no --format or --quiet");
	if (opt.list && (opt.replace || opt.format != FORMAT_KV || opt.quiet ||
			 opt.max_errors))
		return usage_error("--list prints names, not a report: no --replace, --format, --quiet or --max-errors");
	if (opt.replace && opt.all)
		return usage_error("--replace replaces every error: no --all or --max-errors");
	if (opt.invert && !opt.list)
		return usage_error("--invert goes with --list");
	if (opt.null && !opt.list && !files_from)
		return usage_error("--null goes with --list or --files-from");
	if (opt.names && (opt.replace || opt.all || opt.context))
		return usage_error("--names reports the first error of each name: no --replace, --all, --max-errors or --context");
	if (opt.names && !opt.recursive && optind == argc && !files_from)
		return usage_error("--names checks the names of FILEs (or, with -r, of the current directory's tree)");
	if (files_from && optind != argc)
		return usage_error("no FILE beside --files-from: the list names them");
	if (opt.context && (opt.replace || opt.quiet || opt.list))
		return usage_error("--context shows errors: no --replace, --quiet or --list");
	opt.color = color == COLOR_ALWAYS ||
		    (color == COLOR_AUTO && colors_wanted());
	if (opt.format == FORMAT_JSON)
		opt.color = false;

	if (files_from)
		status = check_names_from(files_from, &opt);
	else if (optind == argc)
		status = opt.recursive ? walk(NULL, &opt) :
					 check_and_list(NULL, -1, &opt);
	for (i = optind; i < argc; i++) {
		int rc = check_operand(argv[i], &opt);

		if (rc > status)
			status = rc;
	}
	if (opt.replace)
		out_flush();
	return finish_stdout(status);
}
