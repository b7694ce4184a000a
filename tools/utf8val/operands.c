// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The inputs named: FILE operands, and the names --files-from reads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* A FILE operand or a name from --files-from. */
int check_operand(const char *name, const struct options *opt)
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
int check_names_from(const char *list, const struct options *opt)
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

