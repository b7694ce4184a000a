// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Instructions per byte of utf8val_check() on every path, and of simdutf's
 * vector kernels beside them (su_: Debian's package; sn_: its current
 * source, where ../shared has it), on every text, counted on the CPU
 * itself: a child process runs one call while its parent single-steps
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

/*
 * Four windows of 8 KiB spread over each dataset's text (before it
 * repeats), a count of the second half of each: a step costs 5 to 100
 * microseconds (a trap, two context switches; the most in a virtual
 * machine), so the whole of a corpus would take hours, and its first
 * bytes alone are not all of it (the first 32 KiB of the names JSON are
 * the ISO 3166-2 JSON's).
 */
#define WINDOWS		4
#define WINDOW_LEN	(8u << 10)

/* Where ../shared/peers/simdutf is missing the Makefile links none: NULL */
__attribute__((weak)) const char *peer_simdutf_now(unsigned int i,
						   validator_fn *fn);

/* What a row counts: a validator, on one of our paths (or -1). */
#define MAX_COLUMNS	(NR_UTF8VAL_PATHS + 8)	/* simdutf: 4 a build */
struct column {
	char name[32];
	validator_fn fn;
	int path;
};

/* simdutf's kernel of a vector path's width (the one a row is held to) */
static const struct {
	const char *ours, *peer;
} same_width[] = {
	{ "avx512", "sn_icelake" },
	{ "avx2", "sn_haswell" },
};

/* After @c's first @n columns, a simdutf build's kernels but fallback. */
static size_t add_simdutf(struct column *c, size_t n, const char *prefix,
			  const char *(*build)(unsigned int, validator_fn *))
{
	validator_fn fn;
	const char *name;

	for (unsigned int i = 0;
	     build && n < MAX_COLUMNS && (name = build(i, &fn)); i++) {
		if (!fn || !strcmp(name, "fallback"))
			continue;
		snprintf(c[n].name, sizeof(c[n].name), "%s%s", prefix, name);
		c[n].fn = fn;
		c[n++].path = -1;
	}
	return n;
}

/* Our paths this CPU runs, then both simdutf builds' kernels. */
static size_t columns(struct column *c)
{
	size_t n = 0;

	for (int p = 0; p < NR_UTF8VAL_PATHS; p++) {
		if ((int)utf8val_simd_select(p) != p)
			continue;
		snprintf(c[n].name, sizeof(c[n].name), "%s",
			 utf8val_path_name(p));
		c[n].fn = check_fn;
		c[n++].path = p;
	}
	n = add_simdutf(c, n, "su_", peer_simdutf);
	return add_simdutf(c, n, "sn_", peer_simdutf_now);
}

static const struct column *column_named(const struct column *c, size_t n,
					 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return &c[i];
	return NULL;
}

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
	struct column col[MAX_COLUMNS];
	size_t ncol = columns(col);
	double ipb[ARRAY_SIZE(col)];

	printf("%-15s %-11s %12s %12s %14s\n", "text", "path", "steps(all)",
	       "steps(half)", "instr/byte");
	for (size_t d = 0; d < ndata; d++) {
		long long all[ARRAY_SIZE(col)] = { 0 };
		long long first[ARRAY_SIZE(col)] = { 0 };
		size_t counted = 0;

		for (size_t w = 0; w < WINDOWS; w++) {
			const u8 *text = data[d].text +
				data[d].period / WINDOWS * w;
			size_t len = WINDOW_LEN, half = len / 2;

			/* cut at character boundaries */
			while ((*text & 0xc0) == 0x80)
				text++;
			while ((text[len] & 0xc0) == 0x80)
				len--;
			while ((text[half] & 0xc0) == 0x80)
				half++;
			counted += len - half;
			for (size_t c = 0; c < ncol; c++) {
				long long a = steps(col[c].fn, col[c].path,
						    text, len);
				long long f = steps(col[c].fn, col[c].path,
						    text, half);

				if (a < 0 || f < 0) {
					printf("# ptrace single-stepping is not allowed here\n");
					return 0;
				}
				all[c] += a;
				first[c] += f;
			}
		}
		for (size_t c = 0; c < ncol; c++) {
			ipb[c] = (double)(all[c] - first[c]) / counted;
			printf("%-15s %-11s %12lld %12lld %14.3f\n",
			       data[d].name, col[c].name, all[c], first[c],
			       ipb[c]);
		}
		for (size_t w = 0; w < ARRAY_SIZE(same_width); w++) {
			const struct column *ours, *peer;

			ours = column_named(col, ncol, same_width[w].ours);
			peer = column_named(col, ncol, same_width[w].peer);
			if (ours && peer)
				printf("# %s: %s at %.2f of %s's instructions\n",
				       data[d].name, ours->name,
				       ipb[ours - col] / ipb[peer - col],
				       peer->name);
		}
	}
	utf8val_simd_select(-1);
	return 0;
}
