// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val(1): validate files or standard input as UTF-8 from a shell.
 * Documentation/man/utf8val.1 is the manual; --help the summary; cli.h
 * says which file holds what.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"

const char *const progname = "utf8val";

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

int main(int argc, char **argv)
{
	struct options opt = { 0 };
	int i, status;

	hold_closed_std_fds();
	status = parse_options(argc, argv, &opt);
	if (status >= 0)
		return status;
	map_setup();	/* before any thread */
	status = 0;
	if (opt.files_from)
		status = check_names_from(opt.files_from, &opt);
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
