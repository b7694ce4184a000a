// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val(1)'s options: getopt_long's table, --help's text, the values
 * each takes and the combinations refused, with a message that says why.
 * Documentation/man/utf8val.1 lists them too.
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

static const struct option long_options[] = {
	{ "quiet", no_argument, NULL, 'q' },
	{ "all", no_argument, NULL, 'a' },
	{ "replace", no_argument, NULL, 'S' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "rfc2279", no_argument, NULL, OPT_FLAG | UTF8VAL_RFC2279 },
	{ "surrogates", no_argument, NULL, OPT_FLAG | UTF8VAL_SURROGATES },
	{ "reject-nul", no_argument, NULL, OPT_FLAG | UTF8VAL_REJECT_NUL },
	{ "reject-nonchar", no_argument, NULL, OPT_FLAG | UTF8VAL_REJECT_NONCHAR },
	{ "reject-bom", no_argument, NULL, OPT_FLAG | UTF8VAL_REJECT_BOM },
	{ "list", no_argument, NULL, 'l' },
	{ "invert", no_argument, NULL, 'i' },
	{ "null", no_argument, NULL, '0' },
	{ "no-messages", no_argument, NULL, 's' },
	{ "files-from", required_argument, NULL, OPT_FILES_FROM },
	{ "recursive", no_argument, NULL, 'r' },
	{ "dereference-recursive", no_argument, NULL, 'R' },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "exclude-dir", required_argument, NULL, OPT_EXCLUDE_DIR },
	{ "binary-files", required_argument, NULL, OPT_BINARY_FILES },
	{ "names", no_argument, NULL, OPT_NAMES },
	{ "max-errors", required_argument, NULL, OPT_MAX_ERRORS },
	{ "context", optional_argument, NULL, OPT_CONTEXT },
	{ "color", optional_argument, NULL, OPT_COLOR },
	{ "colour", optional_argument, NULL, OPT_COLOR },
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

/* The options that set a bool of struct options (no other type), only. */
static const struct {
	int option;
	size_t field;
} switches[] = {
	{ 'q', offsetof(struct options, quiet) },
	{ 'a', offsetof(struct options, all) },
	{ 'S', offsetof(struct options, replace) },
	{ 'l', offsetof(struct options, list) },
	{ 'i', offsetof(struct options, invert) },
	{ '0', offsetof(struct options, null) },
	{ 's', offsetof(struct options, no_messages) },
	{ OPT_NAMES, offsetof(struct options, names) },
};

/* Whether @option is one of the switches: then it is set in @opt. */
static bool set_switch(struct options *opt, int option)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(switches); i++) {
		if (switches[i].option == option) {
			*(bool *)((char *)opt + switches[i].field) = true;
			return true;
		}
	}
	return false;
}

/*
 * Read the options into @opt: -1 if the command goes on with the operands
 * from optind, or the status it ends with (--help, --version, a usage
 * error, said).
 */
int parse_options(int argc, char **argv, struct options *opt)
{
	static const char shorts[] = ":qaSrRli0shV";
	enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } color = COLOR_AUTO;
	int c;

	opt->out_is_file = !fstat(STDOUT_FILENO, &opt->out) &&
			   S_ISREG(opt->out.st_mode);
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
		default:	/* (an option of the table with no case: a bug) */
			if (!(c & OPT_FLAG))
				abort();
			opt->flags |= c & ~OPT_FLAG;
		}
	}
	if (opt->replace && (opt->format != FORMAT_KV || opt->quiet))
		return usage_error("--replace writes the text, not a report: no --format or --quiet");
	if (opt->list && (opt->replace || opt->format != FORMAT_KV ||
			  opt->quiet || opt->max_errors))
		return usage_error("--list prints names, not a report: no --replace, --format, --quiet or --max-errors");
	if (opt->replace && opt->all)
		return usage_error("--replace replaces every error: no --all or --max-errors");
	if (opt->invert && !opt->list)
		return usage_error("--invert goes with --list");
	if (opt->null && !opt->list && !opt->files_from)
		return usage_error("--null goes with --list or --files-from");
	if (opt->names && (opt->replace || opt->all || opt->context))
		return usage_error("--names reports the first error of each name: no --replace, --all, --max-errors or --context");
	if (opt->names && !opt->recursive && optind == argc && !opt->files_from)
		return usage_error("--names checks the names of FILEs (or, with -r, of the current directory's tree)");
	if (opt->files_from && optind != argc)
		return usage_error("no FILE beside --files-from: the list names them");
	if (opt->context && (opt->replace || opt->quiet || opt->list))
		return usage_error("--context shows errors: no --replace, --quiet or --list");
	opt->color = color == COLOR_ALWAYS ||
		    (color == COLOR_AUTO && colors_wanted());
	if (opt->format == FORMAT_JSON)
		opt->color = false;
	return -1;
}
