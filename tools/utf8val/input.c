// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * One input checked: read in chunks that stay in the CPU's L2 cache, a
 * character split between two reads carried over to the next. Lines and
 * columns cost a pass over the text, so a regular file read here counts
 * them only when an error is reported, reading the text before it again;
 * a pipe, whose text cannot be read again, counts them as it goes. A
 * regular file's valid start is checked through mappings first (map.c),
 * which count them as they go.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Whether errors need their line and column: for their reports. */
static bool needs_position(const struct options *opt)
{
	return reports(opt);
}

/*
 * Move @in's position over @n bytes of valid text at @s, which ends
 * before a character or at an error. (Counting a character where its
 * first byte is, any cut would do but for --format=gnu's widths.)
 */
static void advance(struct input *in, const unsigned char *s, size_t n)
{
	const unsigned char *line = move_position(&in->pos, s, n);

	if (in->opt->format == FORMAT_GNU)
		in->pos.display = display_column(line, s + n - line,
						 line == s ? in->pos.display : 0);
	in->tracked += n;
}

/* Reading @in failed: say why, and check no more of it. */
void input_failed(struct input *in, const char *why)
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
	unsigned char *again = in->scratch->again;

	while (in->tracked < base) {
		unsigned long long want = base - in->tracked;
		ssize_t n = pread(in->fd, again,
				  want < CHUNK ? want : CHUNK,
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

	/*
	 * -l and -q need neither the characters nor, in valid text, any
	 * position: the uncounted check settles it, and only an error takes
	 * the long way. A character left open waits for the next chunk if
	 * it may yet be finished; bytes that cannot be are an error now.
	 */
	if (!flags && !reports(opt) && !opt->replace) {
		size_t open = eof ? 0 : open_tail(s, len);

		if ((!open || utf8val_validate(s + len - open, open, 0, NULL) ==
			      UTF8VAL_EINCOMPLETE) &&
		    utf8val_check(s, len - open))
			return len - open;
	}
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

/*
 * The @len bytes at @buf (@room at most) followed by the @n at @s: keep
 * the last @room of them at @buf, and return how many there are.
 */
size_t keep_last(unsigned char *buf, size_t room, size_t len,
		 const unsigned char *s, size_t n)
{
	size_t from_s = n < room ? n : room;
	size_t keep = len < room - from_s ? len : room - from_s;

	memmove(buf, buf + len - keep, keep);
	memcpy(buf + keep, s + n - from_s, from_s);
	return keep + from_s;
}

/* --context: the last bytes of @in before @s + @n, once @s is gone. */
void keep_history(struct input *in, const unsigned char *s, size_t n)
{
	in->history_len = keep_last(in->history, sizeof(in->history),
				    in->history_len, s, n);
}

/* A pipe's text is counted before the next read() replaces it. */
static void chunk_tail_position(struct input *in, const unsigned char *s,
				unsigned long long base, size_t to)
{
	if (needs_position(in->opt) && !in->reread && !in->stopped &&
	    in->tracked < base + to)
		track(in, s, base, to);	/* only a file can fail */
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
bool is_output(const struct stat *st, const struct options *opt)
{
	return opt->out_is_file && st->st_dev == opt->out.st_dev &&
	       st->st_ino == opt->out.st_ino;
}

/*
 * A pipe's buffer widened to a chunk where the kernel allows it (up to
 * /proc/sys/fs/pipe-max-size, 1 MiB by default, within the user's pipe
 * pages): with Linux's 64 KiB, writer and reader take turns sixteen
 * pages at a time, and `cat FILE | utf8val` took four times as long as
 * with 256 KiB. Never narrowed: the writer's end shares the buffer. (It
 * stays wide after us, and counts four times against the user's pages.)
 */
static void widen_pipe(int fd)
{
	int size = fcntl(fd, F_GETPIPE_SZ);

	if (size >= 0 && size < (int)CHUNK)
		fcntl(fd, F_SETPIPE_SZ, (int)CHUNK);	/* refused: as it was */
}

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
int check_input(const char *name, int fd, const struct options *opt,
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
	if (S_ISFIFO(st.st_mode))
		widen_pipe(fd);
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

/* The main thread's scratch space. */
static struct scratch scratch;

/* check_input(), and with -l the name if it is one to list. */
int check_and_list(const char *name, int fd, const struct options *opt)
{
	int rc = check_input(name, fd, opt, &scratch);

	list(name, rc, opt);
	return rc;
}
