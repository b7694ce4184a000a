// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val(1)'s options: one table, from which getopt_long()'s and --help
 * are made; the values each takes, and the combinations refused, with a
 * message that says why. Documentation/man/utf8val.1 lists them too
 * (tests/test_options.c checks that it lists the same).
 */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/*
 * The long options without a letter: not characters, for getopt; and a
 * validation flag's option, OPT_FLAG with the flag's bits.
 */
enum {
	OPT_FORMAT = 0x300, OPT_JSON, OPT_FILES_FROM, OPT_MAX_ERRORS,
	OPT_CONTEXT, OPT_INCLUDE, OPT_EXCLUDE, OPT_EXCLUDE_DIR,
	OPT_BINARY_FILES, OPT_NAMES, OPT_COLOR,
	OPT_FLAG = 0x10000,
};

static_assert(!(UTF8VAL_FLAGS_ALL & ~(OPT_FLAG - 1)),
	      "a validation flag's bits fit below OPT_FLAG");

/*
 * A switch's row: the bool of struct options it sets. (Offset 0 is
 * flags', never a switch's: 0 says the row is none.)
 */
#define SETS(member)	offsetof(struct options, member)
static_assert(offsetof(struct options, flags) == 0, "no switch at offset 0");

/*
 * Every option, in --help's order: its long name, what getopt_long()
 * returns for it (its letter, if it has one), its argument, the bool it
 * sets if it is a switch, and --help's text for it, whose lines after the
 * first start at HELP_COLUMN. An alias has no text of its own.
 */
static const struct option_row {
	const char *name;
	int val;
	const char *arg;	/* as --help writes it: "", "=N", "[=N]" */
	size_t sets;		/* a switch: SETS(the bool); else 0 */
	const char *help;	/* NULL: an alias of the row before */
} rows[] = {
	{ "quiet", 'q', "", SETS(quiet),
	  "print nothing: the exit status is the answer" },
	{ "all", 'a', "", SETS(all),
	  "report every error, not only the first" },
	{ "max-errors", OPT_MAX_ERRORS, "=N", 0,
	  "report the first N errors of each input (all of\n"
	  "them: --all)" },
	{ "list", 'l', "", SETS(list),
	  "print only the names of the inputs that are not\n"
	  "valid (isutf8 -l); \"(standard input)\" for -" },
	{ "invert", 'i', "", SETS(invert),
	  "with -l, the names of the valid ones instead" },
	{ "null", '0', "", SETS(null),
	  "with -l, end each name with NUL, not newline" },
	{ "no-messages", 's', "", SETS(no_messages),
	  "say nothing about inputs that cannot be read\n"
	  "(the exit status still says so)" },
	{ "files-from", OPT_FILES_FROM, "=LIST", 0,
	  "the inputs named in the file LIST (- for standard\n"
	  "input), one per line, or each ended by NUL with -0" },
	{ "recursive", 'r', "", 0,
	  "check the files below each directory FILE (. if\n"
	  "none), as grep -r; symbolic links only if named" },
	{ "dereference-recursive", 'R', "", 0,
	  "the same, following every symbolic link" },
	{ "include", OPT_INCLUDE, "=GLOB", 0,
	  "only the files whose base name matches GLOB" },
	{ "exclude", OPT_EXCLUDE, "=GLOB", 0,
	  "not the files whose base name matches GLOB" },
	{ "exclude-dir", OPT_EXCLUDE_DIR, "=GLOB", 0,
	  "not below the directories that match GLOB" },
	{ "binary-files", OPT_BINARY_FILES, "=without-match", 0,
	  "skip files with a NUL byte in their\n"
	  "first 32 KiB (grep's rule); text: check them" },
	{ "names", OPT_NAMES, "", SETS(names),
	  "check the names of the FILEs (with -r, of everything\n"
	  "below), not their contents" },
	{ "context", OPT_CONTEXT, "[=N]", 0,
	  "after each error, the bad bytes in hex and up to N\n"
	  "bytes (16; 64 at most) each side, within its line" },
	{ "color", OPT_COLOR, "[=WHEN]", 0,
	  "colour the reports (or --colour): WHEN is auto (the\n"
	  "default: on a terminal, unless NO_COLOR is set),\n"
	  "always or never" },
	{ "colour", OPT_COLOR, "[=WHEN]", 0, NULL },
	{ "replace", 'S', "", SETS(replace),
	  "write the input to standard output with each error\n"
	  "(maximal subpart) replaced by U+FFFD, as the WHATWG\n"
	  "Encoding Standard decodes it; report nothing" },
	{ "format", OPT_FORMAT, "=FORMAT", 0,
	  "kv (the default), gnu or json" },
	{ "json", OPT_JSON, "", 0,
	  "the same as --format=json" },
	{ "rfc2279", OPT_FLAG | UTF8VAL_RFC2279, "", 0,
	  "also accept RFC 2279's 5- and 6-byte forms" },
	{ "surrogates", OPT_FLAG | UTF8VAL_SURROGATES, "", 0,
	  "accept encoded U+D800..U+DFFF" },
	{ "reject-nul", OPT_FLAG | UTF8VAL_REJECT_NUL, "", 0,
	  "refuse U+0000" },
	{ "reject-nonchar", OPT_FLAG | UTF8VAL_REJECT_NONCHAR, "", 0,
	  "refuse the 66 noncharacters" },
	{ "reject-bom", OPT_FLAG | UTF8VAL_REJECT_BOM, "", 0,
	  "refuse a leading U+FEFF" },
	{ "help", 'h', "", 0,
	  "print this help and exit" },
	{ "version", 'V', "", 0,
	  "print the version and exit" },
};

/* getopt_long()'s has_arg, from the argument as --help writes it */
static int has_arg(const struct option_row *r)
{
	if (!*r->arg)
		return no_argument;
	return *r->arg == '[' ? optional_argument : required_argument;
}

/* getopt_long()'s forms of the table, made from it (options_from_rows()) */
static struct option long_options[ARRAY_SIZE(rows) + 1];
/* ":", then each letter, with ':' after it for an argument ("::" optional) */
static char shorts[1 + 3 * ARRAY_SIZE(rows) + 1];

/* where --help's text for an option starts */
#define HELP_COLUMN	24

static const char help_head[] =
"Usage: utf8val [OPTION]... [FILE]...\n"
"Check that each FILE is UTF-8 as RFC 3629 defines it, and say where and\n"
"why it is not. With no FILE, or when FILE is -, read standard input.\n"
"\n";

static const char help_tail[] =
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

/* --help: its head, a line or more per option of the table, its tail */
static void print_help(FILE *out)
{
	const struct option_row *r;
	const char *text, *end;
	int width;

	fputs(help_head, out);
	for (r = rows; r < rows + ARRAY_SIZE(rows); r++) {
		if (!r->help)
			continue;
		if (r->val < 0x100)
			width = fprintf(out, "  -%c, --%s%s", r->val, r->name, r->arg);
		else
			width = fprintf(out, "      --%s%s", r->name, r->arg);
		/* a long one has two spaces after it; the text's lines follow */
		fprintf(out, "%*s", width < HELP_COLUMN ? HELP_COLUMN - width : 2, "");
		for (text = r->help; (end = strchr(text, '\n')); text = end + 1)
			fprintf(out, "%.*s\n%*s", (int)(end - text), text, HELP_COLUMN + 2, "");
		fprintf(out, "%s\n", text);
	}
	fputs(help_tail, out);
}

/* getopt_long()'s table and letters, from the rows */
static void options_from_rows(void)
{
	char *letter = shorts;
	size_t i;

	*letter++ = ':';	/* a missing argument is ':', not '?' */
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		int arg = has_arg(&rows[i]);

		long_options[i] = (struct option){ rows[i].name, arg, NULL, rows[i].val };
		if (rows[i].val >= 0x100)
			continue;
		*letter++ = rows[i].val;
		if (arg != no_argument)
			*letter++ = ':';
		if (arg == optional_argument)
			*letter++ = ':';
	}
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
static bool long_option_failed(void)
{
	/*
	 * optopt is 0 for an unknown long option, the option's value for a
	 * long option given an argument, and the letter for a bad short
	 * one, which is never one of ours.
	 */
	return !optopt || optopt > 0xff ||
	       (optopt != ':' && strchr(shorts + 1, optopt));
}

/* Whether @option is a switch (its row sets a bool): then it is set in @opt. */
static bool set_switch(struct options *opt, int option)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		if (rows[i].val == option && rows[i].sets) {
			*(bool *)((char *)opt + rows[i].sets) = true;
			return true;
		}
	}
	return false;
}

/* What an option asked for, as the combinations below see it */
enum {
	ASKED_REPLACE = 1 << 0, ASKED_FORMAT = 1 << 1, ASKED_QUIET = 1 << 2,
	ASKED_LIST = 1 << 3, ASKED_ALL = 1 << 4, ASKED_MAX_ERRORS = 1 << 5,
	ASKED_INVERT = 1 << 6, ASKED_NULL = 1 << 7, ASKED_NAMES = 1 << 8,
	ASKED_RECURSIVE = 1 << 9, ASKED_FILES_FROM = 1 << 10,
	ASKED_CONTEXT = 1 << 11, ASKED_FILES = 1 << 12,	/* FILE operands */
};

/*
 * The combinations refused, in the order they are checked, and why: an
 * option (@asked) with one of @not_with, or without any of @needs.
 */
static const struct {
	const char *why;
	unsigned int asked, not_with, needs;
} refused[] = {
	{ "--replace writes the text, not a report: no --format or --quiet",
	  ASKED_REPLACE, ASKED_FORMAT | ASKED_QUIET, 0 },
	{ "--list prints names, not a report: no --replace, --format, --quiet or --max-errors",
	  ASKED_LIST, ASKED_REPLACE | ASKED_FORMAT | ASKED_QUIET | ASKED_MAX_ERRORS, 0 },
	{ "--replace replaces every error: no --all or --max-errors",
	  ASKED_REPLACE, ASKED_ALL, 0 },
	{ "--invert goes with --list",
	  ASKED_INVERT, 0, ASKED_LIST },
	{ "--null goes with --list or --files-from",
	  ASKED_NULL, 0, ASKED_LIST | ASKED_FILES_FROM },
	{ "--names reports the first error of each name: no --replace, --all, --max-errors or --context",
	  ASKED_NAMES, ASKED_REPLACE | ASKED_ALL | ASKED_CONTEXT, 0 },
	{ "--names checks the names of FILEs (or, with -r, of the current directory's tree)",
	  ASKED_NAMES, 0, ASKED_RECURSIVE | ASKED_FILES | ASKED_FILES_FROM },
	{ "no FILE beside --files-from: the list names them",
	  ASKED_FILES_FROM, ASKED_FILES, 0 },
	{ "--context shows errors: no --replace, --quiet or --list",
	  ASKED_CONTEXT, ASKED_REPLACE | ASKED_QUIET | ASKED_LIST, 0 },
};

/*
 * The first refused combination of @opt, with @files if there are FILE
 * operands, said: its status (2); or -1 if there is none.
 */
static int refused_combination(const struct options *opt, bool files)
{
	const unsigned int asked =
		(opt->replace ? ASKED_REPLACE : 0) |
		(opt->format != FORMAT_KV ? ASKED_FORMAT : 0) |
		(opt->quiet ? ASKED_QUIET : 0) | (opt->list ? ASKED_LIST : 0) |
		(opt->all ? ASKED_ALL : 0) |
		(opt->max_errors ? ASKED_MAX_ERRORS : 0) |
		(opt->invert ? ASKED_INVERT : 0) | (opt->null ? ASKED_NULL : 0) |
		(opt->names ? ASKED_NAMES : 0) |
		(opt->recursive ? ASKED_RECURSIVE : 0) |
		(opt->files_from ? ASKED_FILES_FROM : 0) |
		(opt->context ? ASKED_CONTEXT : 0) | (files ? ASKED_FILES : 0);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(refused); i++)
		if ((asked & refused[i].asked) &&
		    ((asked & refused[i].not_with) ||
		     (refused[i].needs && !(asked & refused[i].needs))))
			return usage_error("%s", refused[i].why);
	return -1;
}

/*
 * Read the options into @opt: -1 if the command goes on with the operands
 * from optind, or the status it ends with (--help, --version, a usage
 * error, said).
 */
int parse_options(int argc, char **argv, struct options *opt)
{
	enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } color = COLOR_AUTO;
	int c, status;

	opt->out_is_file = !fstat(STDOUT_FILENO, &opt->out) &&
			   S_ISREG(opt->out.st_mode);
	options_from_rows();
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, long_options, NULL)) != -1) {
		if (set_switch(opt, c))
			continue;
		switch (c) {
		case 'r':
		case 'R':
			opt->recursive = c;
			break;
		case OPT_INCLUDE:
		case OPT_EXCLUDE:
		case OPT_EXCLUDE_DIR: {
			const char **list = c == OPT_INCLUDE ? opt->include :
					    c == OPT_EXCLUDE ? opt->exclude : opt->exclude_dir;
			int *n = c == OPT_INCLUDE ? &opt->nr_include :
				 c == OPT_EXCLUDE ? &opt->nr_exclude : &opt->nr_exclude_dir;

			if (*n == 32)
				return usage_error("at most 32 --include, --exclude or --exclude-dir each");
			list[(*n)++] = optarg;
			break;
		}
		case OPT_BINARY_FILES:
			if (!strcmp(optarg, "without-match"))
				opt->skip_binary = true;
			else if (strcmp(optarg, "text"))
				return usage_error("--binary-files takes without-match or text, not '%s'",
						   optarg);
			break;
		case OPT_FILES_FROM:
			opt->files_from = optarg;
			break;
		case OPT_MAX_ERRORS: {
			char *end;

			errno = 0;
			opt->max_errors = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || !opt->max_errors ||
			    *optarg == '-')
				return usage_error("--max-errors takes a number of errors, 1 or more, not '%s'",
						   optarg);
			opt->all = true;
			break;
		}
		case OPT_CONTEXT: {
			char *end;

			opt->context = CONTEXT_DEFAULT;
			if (!optarg)
				break;
			errno = 0;
			opt->context = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-' ||
			    !opt->context || opt->context > CONTEXT_MAX)
				return usage_error("--context takes a number of bytes from 1 to %d, not '%s'",
						   CONTEXT_MAX, optarg);
			break;
		}
		case OPT_COLOR:
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
			opt->format = FORMAT_JSON;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "kv"))
				opt->format = FORMAT_KV;
			else if (!strcmp(optarg, "gnu"))
				opt->format = FORMAT_GNU;
			else if (!strcmp(optarg, "json"))
				opt->format = FORMAT_JSON;
			else
				return usage_error("unknown format '%s' (kv, gnu or json)",
						   optarg);
			break;
		case 'h':
			print_help(stdout);
			return finish_stdout(0);
		case 'V':
			print_version();
			return finish_stdout(0);
		case '?':
			/* a long option: optopt is its value, not a letter */
			if (long_option_failed()) {
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
		default:	/* (an option of the table with no case: a bug) */
			if (!(c & OPT_FLAG))
				abort();
			opt->flags |= c & ~OPT_FLAG;
		}
	}
	status = refused_combination(opt, optind != argc);
	if (status >= 0)
		return status;
	opt->color = color == COLOR_ALWAYS ||
		    (color == COLOR_AUTO && colors_wanted());
	if (opt->format == FORMAT_JSON)
		opt->color = false;
	return -1;
}
