// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What utf8val(1) prints about an input or a name, in each format (kv,
 * gnu, json), and its messages about them on standard error: names and
 * bytes escaped so that each record is one line of UTF-8; its usage
 * errors and the errors it cannot go on after. (--help and --version are
 * options.c's.)
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

/* A usage error, said as getopt says its own; the exit status, 2. */
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

/* --version's line */
void print_version(void)
{
	printf("utf8val %s\n", utf8val_version());
}

/*
 * An error the command cannot go on after (no memory, standard output
 * gone): "utf8val: [@what: ]" and errno's text, and exit status 2.
 */
void die(const char *what)
{
	const char *why = strerror(errno);

	if (what)
		fprintf(stderr, "%s: %s: %s\n", progname, what, why);
	else
		fprintf(stderr, "%s: %s\n", progname, why);
	exit(2);
}

/*
 * A message about the input or file @name on standard error, after the
 * reports before it, the name escaped as in the reports.
 */
void say(const struct options *opt, const char *name, const char *why)
{
	fflush(stdout);
	if (opt->no_messages)
		return;
	fprintf(stderr, "%s: ", progname);
	print_escaped(stderr, (const unsigned char *)name, strlen(name), 0);
	fprintf(stderr, ": %s\n", why);
}

/* A JSON string: @s's bytes as UTF-8, each error replaced by U+FFFD. */
static void json_bytes(const unsigned char *s, size_t len)
{
	unsigned long long n = utf8val_replace(s, len, 0, NULL, 0);
	unsigned char *text = malloc(n + 1);
	unsigned long long i;

	if (!text)
		die(NULL);
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

/* @word in the colour @sgr (with --color), then plain again. */
static void painted(const struct options *opt, const char *sgr,
		    const char *word)
{
	paint(opt, sgr);
	fputs(word, stdout);
	paint(opt, SGR_PLAIN);
}

/* A record's "FILE: " (kv) or "FILE:" (gnu) prefix. */
static void print_file(const struct options *opt, const char *name,
		       const char *sep)
{
	paint(opt, SGR_NAME);
	print_name(name);
	paint(opt, SGR_PLAIN);
	fputs(sep, stdout);
}

/* JSON's bytes in hex: the member @key, for @s[0, @len). */
static void json_hex(const char *key, const void *s, size_t len)
{
	const unsigned char *p = s;

	printf(",\"%s\":\"", key);
	while (len--)
		printf("%02x", *p++);
	putchar('"');
}

/* JSON's file_bytes: the name's bytes in hex, where "file" lost some. */
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
void report_error(struct input *in, const struct utf8val_result *err,
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
		painted(opt, SGR_ERROR, verdict_word(err->error));
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
		painted(opt, SGR_ERROR, "error:");
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
void report_end(const struct input *in, unsigned long long total)
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
		painted(opt, SGR_VALID, "valid");
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

/* -l's line: @name, ended by newline or, with -0, NUL. */
static void list_name(const struct options *opt, const char *name)
{
	printf("%s%c", name, opt->null ? '\0' : '\n');
}

/*
 * --names: a bad name's record (@r the error in its last component),
 * with its path escaped; with -l, the path, bad (or with -i, valid) as
 * check_name() chose. (Nothing with -q.)
 */
void report_name(const struct options *opt, const char *path,
		 const struct utf8val_result *r)
{
	if (opt->list) {
		list_name(opt, path);
	} else if (opt->quiet) {
		return;
	} else if (opt->format == FORMAT_GNU) {
		print_file(opt, path, ": ");
		painted(opt, SGR_ERROR, "error:");
		printf(" %s name (%u byte%s) at byte %llu of the name\n",
		       utf8val_error_name(r->error), r->error_len,
		       r->error_len == 1 ? "" : "s", r->valid_up_to);
	} else if (opt->format == FORMAT_JSON) {
		json_record("name", path);
		printf(",\"verdict\":\"%s\",\"offset\":%llu,\"len\":%u,\"error\":\"%s\"}\n",
		       verdict_word(r->error), r->valid_up_to, r->error_len,
		       utf8val_error_name(r->error));
	} else {
		print_file(opt, path, ": ");
		painted(opt, SGR_ERROR, verdict_word(r->error));
		printf(" name offset=%llu len=%u", r->valid_up_to, r->error_len);
		if (r->error != UTF8VAL_EINCOMPLETE)
			printf(" error=%s", utf8val_error_name(r->error));
		putchar('\n');
	}
}

/* With -l, @name if @rc (check_input()'s) makes it one to list. */
void list(const char *name, int rc, const struct options *opt)
{
	if (opt->list && rc >= 0 && rc < 2 && !rc == opt->invert)
		list_name(opt, name && strcmp(name, "-") ? name : "(standard input)");
}

/* What went to standard output must have reached it. */
int finish_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", progname,
			strerror(errno ? errno : EIO));
		return 2;
	}
	return status;
}
