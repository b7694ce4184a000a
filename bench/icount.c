// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Instructions per byte of utf8val_check() on every path, and of simdutf's
 * vector kernels beside them (su_), counted on the CPU itself: a child process runs one call while its parent single-steps
 * it with ptrace(PTRACE_SINGLESTEP), one trap per instruction retired.
 * Valgrind cannot run AVX-512, so this is how that path is counted; the
 * AVX2 and scalar rows check the method against callgrind's table.
 *
 * The count between the two stops includes a little of raise(); the
 * difference between a call on the whole buffer and one on its first half
 * cancels that, and gives the cost per byte of the second half.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utf8val.h"
#include "utf8val_simd.h"
#include "bench/datasets.h"
#include "bench/peers.h"

static int check_fn(const unsigned char *s, size_t len)
{
	return utf8val_check(s, len);
}

/* the first 256 KiB of each dataset, as callgrind's cells: each step
 * costs a few microseconds
 */
#define TEXT_LEN	(256u << 10)

/*
 * Instructions the child executes from its first stop to its second: @fn
 * on @text, on our @path if @fn is ours.
 */
static long long steps(validator_fn fn, int path, const u8 *text, size_t len)
{
	long long n = 0;
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		volatile bool ok;

		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		utf8val_simd_select(path);
		raise(SIGSTOP);
		ok = fn(text, len);
		raise(SIGSTOP);
		_exit(ok ? 0 : 1);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) ||
		    waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
			n = -1;
			break;
		}
		if (WSTOPSIG(st) != SIGTRAP)
			break;		/* the second raise(SIGSTOP) */
		n++;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return n;
}

int main(void)
{
	struct dataset data[MAX_DATASETS];
	size_t ndata = datasets_load(data, "../shared");

	printf("%-15s %-11s %12s %12s %14s\n", "text", "path", "steps(all)",
	       "steps(half)", "instr/byte");
	for (size_t d = 0; d < ndata; d++) {
		static const char *const counted =
			" ascii rfc3629-en-ja maintainers lines-mixed random-1-4 ";
		char name[32];
		const u8 *text = data[d].text;

		/* single-stepping is slow: a few texts of each kind */
		snprintf(name, sizeof(name), " %s ", data[d].name);
		if (!strstr(counted, name))
			continue;
		size_t len = TEXT_LEN, half = len / 2;

		/* cut at character boundaries */
		while ((text[len] & 0xc0) == 0x80)
			len--;
		while ((text[half] & 0xc0) == 0x80)
			half++;
		for (int p = 0; ; p++) {
			validator_fn fn = check_fn;
			const char *name;
			char su[32];
			long long all, first;
			int path;

			/* our paths, then simdutf's kernels but its fallback */
			if (p < NR_UTF8VAL_PATHS) {
				if ((int)utf8val_simd_select(p) != p)
					continue;
				name = utf8val_path_name(p);
			} else {
				name = peer_simdutf(p - NR_UTF8VAL_PATHS, &fn);
				if (!name)
					break;
				if (!fn || !strcmp(name, "fallback"))
					continue;
				snprintf(su, sizeof(su), "su_%s", name);
				name = su;
			}
			path = p < NR_UTF8VAL_PATHS ? p : -1;
			all = steps(fn, path, text, len);
			first = steps(fn, path, text, half);
			if (all < 0 || first < 0) {
				printf("# ptrace single-stepping is not allowed here\n");
				return 0;
			}
			printf("%-15s %-11s %12lld %12lld %14.3f\n", data[d].name,
			       name, all, first,
			       (double)(all - first) / (len - half));
		}
	}
	utf8val_simd_select(-1);
	return 0;
}
