// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The command's options (tools/utf8val/options.c), from its table to what
 * each sets and every combination it refuses, with the message, each
 * clause of each and which is said first; --help against a copy kept by
 * hand (tests/utf8val-help.txt: a change of --help is a change of that
 * file too); and utf8val(1)'s list of options against the table, both
 * ways. The answers are written here by hand. TAP.
 */
#include "../tools/utf8val/options.c"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"

/* the usage error options.c said last, as report.c would print it */
static char said[512];

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(said, sizeof(said), fmt, ap);
	va_end(ap);
	return 2;
}

/* how many times options.c printed --version's line */
static unsigned int versions;

void print_version(void)
{
	versions++;
}

int finish_stdout(int status)
{
	return status;
}

/* parse_options() over the NULL-ended arguments @ap into @opt: its status */
static int parse_argv(struct options *opt, char **argv, va_list ap)
{
	int argc = 1;

	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	memset(opt, 0, sizeof(*opt));
	said[0] = '\0';
	optind = 0;	/* glibc: start over, from argv[1] */
	return parse_options(argc, argv, opt);
}

static int parse(struct options *opt, ...)
{
	char *argv[16] = { "utf8val" };
	va_list ap;
	int st;

	va_start(ap, opt);
	st = parse_argv(opt, argv, ap);
	va_end(ap);
	return st;
}

static void check_settings(void)
{
	unsigned int before;
	struct options o;
	int st;

	st = parse(&o, "-q", "-a", "-s", NULL);
	tap_result(st == -1 && o.quiet && o.all && o.no_messages && !o.list,
		   "-q -a -s set quiet, all, no_messages (status %d)", st);
	st = parse(&o, "-li0", NULL);
	tap_result(st == -1 && o.list && o.invert && o.null,
		   "-li0: letters together set list, invert, null (status %d)", st);
	st = parse(&o, "-r", NULL);
	tap_result(st == -1 && o.recursive == 'r', "-r: recursive 'r' (%d)", o.recursive);
	st = parse(&o, "--dereference-recursive", NULL);
	tap_result(st == -1 && o.recursive == 'R', "--dereference-recursive: 'R' (%d)",
		   o.recursive);
	st = parse(&o, "--max-errors=3", NULL);
	tap_result(st == -1 && o.max_errors == 3 && o.all,
		   "--max-errors=3: 3 errors, and --all (status %d)", st);
	st = parse(&o, "--context", NULL);
	tap_result(st == -1 && o.context == 16, "--context: 16 bytes (%u)", o.context);
	st = parse(&o, "--context=64", NULL);
	tap_result(st == -1 && o.context == 64, "--context=64 (%u)", o.context);
	st = parse(&o, "--format=gnu", NULL);
	tap_result(st == -1 && o.format == FORMAT_GNU, "--format=gnu");
	st = parse(&o, "--color=always", "--json", NULL);
	tap_result(st == -1 && o.format == FORMAT_JSON && !o.color,
		   "--color=always --json: JSON, never coloured (status %d)", st);
	st = parse(&o, "--colour=always", "--format=kv", NULL);
	tap_result(st == -1 && o.color && o.format == FORMAT_KV,
		   "--colour=always, the alias of --color (status %d)", st);
	st = parse(&o, "--rfc2279", "--surrogates", "--reject-nul", "--reject-nonchar",
		   "--reject-bom", NULL);
	tap_result(st == -1 && o.flags == (UTF8VAL_RFC2279 | UTF8VAL_SURROGATES |
					   UTF8VAL_REJECT_NUL | UTF8VAL_REJECT_NONCHAR |
					   UTF8VAL_REJECT_BOM),
		   "the five validation flags (0x%x)", o.flags);
	st = parse(&o, "--include=*.c", "--exclude", "*.o", "--exclude-dir=.git",
		   "--include=*.h", NULL);
	tap_result(st == -1 && o.nr_include == 2 && o.nr_exclude == 1 &&
		   o.nr_exclude_dir == 1 && !strcmp(o.include[1], "*.h") &&
		   !strcmp(o.exclude[0], "*.o"), "--include, --exclude, --exclude-dir kept in order");
	st = parse(&o, "--binary-files=without-match", "--names", "x", NULL);
	tap_result(st == -1 && o.skip_binary && o.names && optind == 3,
		   "--binary-files=without-match --names x: FILE at optind 3 (%d)", optind);
	st = parse(&o, "--files-from=list", "-0", NULL);
	tap_result(st == -1 && o.files_from && !strcmp(o.files_from, "list") && o.null,
		   "--files-from=list -0");
	st = parse(&o, "-S", NULL);
	tap_result(st == -1 && o.replace, "-S: replace");
	before = versions;
	st = parse(&o, "-V", "-q", NULL);
	tap_result(st == 0 && versions == before + 1 && !o.quiet,
		   "-V -q: the version once, then exit 0 before -q (status %d, %u lines)",
		   st, versions - before);
	st = parse(&o, "--version", NULL);
	tap_result(st == 0 && versions == before + 2, "--version: the same (status %d)", st);
}

/* @args must be refused with status 2 and the message @why */
static void refused_with(const char *why, ...)
{
	char *argv[16] = { "utf8val" };
	struct options o;
	va_list ap;
	int st;

	va_start(ap, why);
	st = parse_argv(&o, argv, ap);
	va_end(ap);
	tap_result(st == 2 && !strcmp(said, why), "%s%s%s%s: refused (status %d, said \"%s\")",
		   argv[1], argv[2] ? " " : "", argv[2] ? argv[2] : "",
		   argv[2] && argv[3] ? " ..." : "", st, said);
}

/* the messages of the refused combinations, as the user reads them */
#define NO_REPORT	"--replace writes the text, not a report: no --format or --quiet"
#define LIST_NAMES	"--list prints names, not a report: no --replace, --format, --quiet or --max-errors"
#define REPLACES_ALL	"--replace replaces every error: no --all or --max-errors"
#define NAMES_FIRST	"--names reports the first error of each name: no --replace, --all, --max-errors or --context"
#define NAMES_OF	"--names checks the names of FILEs (or, with -r, of the current directory's tree)"
#define CONTEXT_SHOWS	"--context shows errors: no --replace, --quiet or --list"

/*
 * Each clause of each refused combination on its own, and where two are
 * refused at once, the one said first.
 */
static void check_clauses(void)
{
	struct options o;

	refused_with(LIST_NAMES, "-l", "-S", NULL);
	refused_with(LIST_NAMES, "-l", "-q", NULL);
	refused_with(NAMES_FIRST, "--names", "-S", "x", NULL);
	refused_with(NAMES_FIRST, "--names", "-a", "x", NULL);
	refused_with(NAMES_FIRST, "--names", "--max-errors=1", "x", NULL);
	refused_with(CONTEXT_SHOWS, "--context", "-S", NULL);
	refused_with(CONTEXT_SHOWS, "--context", "-l", NULL);
	refused_with(REPLACES_ALL, "-S", "--max-errors=3", NULL);
	/* first said: the order of the checks */
	refused_with(NO_REPORT, "-l", "-S", "--json", NULL);
	refused_with(NO_REPORT, "-S", "-a", "--json", NULL);
	refused_with(LIST_NAMES, "--context", "-l", "-q", NULL);
	refused_with(NAMES_FIRST, "--names", "--context", "-q", "x", NULL);
	refused_with("--invert goes with --list", "-i", "--names", NULL);
	tap_result(parse(&o, "--names", "--files-from=list", NULL) == -1 &&
		   parse(&o, "--names", "x", NULL) == -1,
		   "--names with --files-from or a FILE is taken (said \"%s\")", said);
}

/*
 * Every option of the table, by its name and by its letter, is known
 * (--help's output goes to /dev/null meanwhile).
 */
static void check_every_option(void)
{
	char arg[64], letter[3] = "-", unknown[512] = "";
	int out = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
	bool help_quiet;
	struct options o;
	size_t i;
	int help;

	fflush(stdout);
	if (out < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0) {
		tap_result(false, "every option is known: /dev/null: %s", strerror(errno));
		return;
	}
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		snprintf(arg, sizeof(arg), "--%s%s", rows[i].name,
			 has_arg(&rows[i]) == required_argument ? "=1" : "");
		parse(&o, arg, NULL);
		if (strstr(said, "unrecognized") || strstr(said, "invalid option"))
			snprintf(unknown + strlen(unknown), sizeof(unknown) - strlen(unknown),
				 " %s", arg);
		if (rows[i].val >= 0x100)
			continue;
		letter[1] = rows[i].val;
		parse(&o, letter, NULL);
		if (strstr(said, "invalid option"))
			snprintf(unknown + strlen(unknown), sizeof(unknown) - strlen(unknown),
				 " %s", letter);
	}
	help = parse(&o, "-h", "-q", NULL);
	help_quiet = o.quiet;
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	close(out);
	close(null);
	tap_result(!*unknown, "every option of the table is known by its name and its letter (not:%s)",
		   unknown);
	tap_result(help == 0 && !help_quiet, "-h -q: the help, then exit 0 before -q (status %d)",
		   help);
}

static void check_refusals(void)
{
	struct options o;

	refused_with("--replace writes the text, not a report: no --format or --quiet",
		     "-S", "--json", NULL);
	refused_with("--replace writes the text, not a report: no --format or --quiet",
		     "-q", "-S", NULL);
	refused_with("--list prints names, not a report: no --replace, --format, --quiet or --max-errors",
		     "-l", "--max-errors=2", NULL);
	refused_with("--list prints names, not a report: no --replace, --format, --quiet or --max-errors",
		     "-l", "--format=gnu", NULL);
	refused_with("--replace replaces every error: no --all or --max-errors",
		     "-S", "-a", NULL);
	refused_with("--invert goes with --list", "-i", NULL);
	refused_with("--null goes with --list or --files-from", "-0", NULL);
	refused_with("--names reports the first error of each name: no --replace, --all, --max-errors or --context",
		     "--names", "--context", "x", NULL);
	refused_with("--names checks the names of FILEs (or, with -r, of the current directory's tree)",
		     "--names", NULL);
	refused_with("no FILE beside --files-from: the list names them",
		     "--files-from=-", "x", NULL);
	refused_with("--context shows errors: no --replace, --quiet or --list",
		     "--context=4", "-q", NULL);
	refused_with("--max-errors takes a number of errors, 1 or more, not '0'",
		     "--max-errors=0", NULL);
	refused_with("--context takes a number of bytes from 1 to 64, not '65'",
		     "--context=65", NULL);
	refused_with("--color takes auto, always or never, not 'yes'", "--color=yes", NULL);
	refused_with("unknown format 'xml' (kv, gnu or json)", "--format=xml", NULL);
	refused_with("--binary-files takes without-match or text, not 'binary'",
		     "--binary-files=binary", NULL);
	refused_with("option '--quiet' takes no argument", "--quiet=1", NULL);
	refused_with("option '--format' needs an argument", "--format", NULL);
	refused_with("unrecognized or ambiguous option '--re'", "--re", NULL);
	refused_with("invalid option -- 'x'", "-qx", NULL);
	/* and their neighbours, which are not refused */
	tap_result(parse(&o, "-l", "-i", "-0", "-r", NULL) == -1 &&
		   parse(&o, "-0", "--files-from=-", NULL) == -1 &&
		   parse(&o, "--names", "-r", NULL) == -1 &&
		   parse(&o, "-S", "--format=kv", NULL) == -1 &&
		   parse(&o, "--context", "-a", "--format=gnu", NULL) == -1,
		   "the combinations next to the refused ones are taken (said \"%s\")", said);
}

/* --help, byte for byte, against the copy kept by hand */
static void check_help(void)
{
	char *text = NULL, want[8192];
	size_t len = 0, n;
	FILE *mem, *f = fopen(HELP, "r");

	if (!f) {
		tap_result(false, "%s: %s", HELP, strerror(errno));
		return;
	}
	n = fread(want, 1, sizeof(want), f);
	fclose(f);
	mem = open_memstream(&text, &len);
	if (!mem) {
		tap_result(false, "--help: open_memstream: %s", strerror(errno));
		return;
	}
	print_help(mem);
	fclose(mem);
	if (len != n || memcmp(text, want, n)) {
		size_t at = 0;

		while (at < len && at < n && text[at] == want[at])
			at++;
		printf("# --help differs from %s at byte %zu of %zu (expected %zu)\n",
		       HELP, at, len, n);
	}
	tap_result(len == n && !memcmp(text, want, n),
		   "--help is %s, byte for byte (%zu bytes)", HELP, len);
	free(text);
}

/* a man page's roff, \- as -, for the names in a .TP item's line */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++)
		if (!(s[0] == '\\' && s[1] == '-'))
			*d++ = *s;
	*d = '\0';
}

/*
 * utf8val(1): the options its OPTIONS section lists (the line after each
 * .TP) are the table's, each with its letter, and it lists them all.
 */
static void check_manual(void)
{
	bool listed[ARRAY_SIZE(rows)] = { false };
	char line[512], *p, *item = NULL;
	unsigned int unknown = 0, wrong_letter = 0, missing = 0;
	bool in_options = false, after_tp = false;
	FILE *f = fopen(MANUAL, "r");
	size_t i;

	if (!f) {
		tap_result(false, "%s: %s", MANUAL, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, ".SH", 3))
			in_options = !strncmp(line, ".SH OPTIONS", 11);
		if (!in_options)
			continue;
		if (!strncmp(line, ".TP", 3)) {
			after_tp = true;
			continue;
		}
		if (!after_tp)
			continue;
		after_tp = false;
		unescape(line);
		item = line;
		for (p = strstr(item, "--"); p; p = strstr(p + 2, "--")) {
			size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
			char letter = 0, *dash;

			/* "-x, --long": the letter before it */
			dash = strchr(item, '-');
			if (dash && dash < p && dash[1] != '-')
				letter = dash[1];
			for (i = 0; i < ARRAY_SIZE(rows); i++)
				if (strlen(rows[i].name) == n && !strncmp(rows[i].name, p + 2, n))
					break;
			if (i == ARRAY_SIZE(rows)) {
				printf("# utf8val(1) lists --%.*s, which the table has not\n",
				       (int)n, p + 2);
				unknown++;
				continue;
			}
			listed[i] = true;
			if (letter != (rows[i].val < 0x100 ? rows[i].val : 0)) {
				printf("# utf8val(1) gives --%s the letter '%c'\n", rows[i].name,
				       letter ? letter : ' ');
				wrong_letter++;
			}
		}
	}
	fclose(f);
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		if (!listed[i]) {
			printf("# utf8val(1) does not list --%s\n", rows[i].name);
			missing++;
		}
	}
	tap_result(!unknown && !wrong_letter && !missing,
		   "utf8val(1)'s OPTIONS are the table's: %u unknown, %u with another letter, %u missing",
		   unknown, wrong_letter, missing);
}

int main(void)
{
	check_settings();
	check_every_option();
	check_refusals();
	check_clauses();
	check_help();
	check_manual();
	return tap_finish();
}
