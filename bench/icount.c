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
 *
 * That difference hides what a call costs whatever its length (saving
 * registers, building constants, the tail): a second table counts calls
 * of 256 bytes, where that part weighs most, and of the same bytes
 * twice, and splits each path's count into its bytes' share and the rest.
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
 * Where the @w-th of WINDOWS windows spread over @d's text (before it
 * repeats) starts: at a character, as its end must be cut too.
 */
static const u8 *window(const struct dataset *d, size_t w)
{
	const u8 *text = d->text + d->period / WINDOWS * w;

	while ((*text & 0xc0) == 0x80)
		text++;
	return text;
}

/* What the stops count around a call that does nothing */
static noinline int empty_call(const unsigned char *s, size_t len)
{
	__asm__ volatile("" : : "r"(s), "r"(len) : "memory");
	return 1;
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

/* Per byte: a call on each window less one on its first half (above) */
static bool per_byte(const struct dataset *data, size_t ndata,
		     const struct column *col, size_t ncol)
{
	printf("%-15s %-11s %12s %12s %14s\n", "text", "path", "steps(all)",
	       "steps(half)", "instr/byte");
	for (size_t d = 0; d < ndata; d++) {
		long long all[MAX_COLUMNS] = { 0 };
		long long first[MAX_COLUMNS] = { 0 };
		double ipb[MAX_COLUMNS];
		size_t counted = 0;

		for (size_t w = 0; w < WINDOWS; w++) {
			const u8 *text = window(&data[d], w);
			size_t len = WINDOW_LEN, half = len / 2;

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

				if (a < 0 || f < 0)
					return false;
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
	return true;
}

/* One column's calls of SHORT_LEN bytes, split as the second table says */
struct short_cost {
	double call;		/* instructions a call */
	double per_byte;	/* of the same bytes again */
	double fixed;		/* a call's count less its bytes' share */
};

#define SHORT_LEN	256u

/*
 * A call on 256 bytes of every window, and one on the same bytes twice:
 * per byte, the difference over 256 (the same text, so its mix does not
 * move it); fixed, what is left of the first call (less what the stops
 * count around an empty one). Where a vector path spends more than
 * simdutf's kernel of its width, the two parts say whether its bytes or
 * its set-up cost the difference. The scalar path is left out: it has
 * no set-up of this kind, and its calls do not grow in line.
 */
static bool short_calls(const struct dataset *data, size_t ndata,
			const struct column *col, size_t ncol)
{
	long long empty = steps(empty_call, -1, data[0].text, SHORT_LEN);

	if (empty < 0)
		return false;
	printf("\n%-15s %-11s %12s %14s %12s %10s\n", "text", "path",
	       "instr/call", "instr/byte", "(per byte", "fixed)");
	for (size_t d = 0; d < ndata; d++) {
		long long one[MAX_COLUMNS] = { 0 }, two[MAX_COLUMNS] = { 0 };
		struct short_cost cost[MAX_COLUMNS];
		size_t len_one = 0;

		for (size_t w = 0; w < WINDOWS; w++) {
			const u8 *text = window(&data[d], w);
			size_t l1 = SHORT_LEN;
			u8 twice[2 * (SHORT_LEN + 3)];

			/*
			 * Cut after the character at SHORT_LEN, not before:
			 * below 256 bytes a call may go another way. At a
			 * character's end, the bytes twice are valid.
			 */
			while ((text[l1] & 0xc0) == 0x80)
				l1++;
			memcpy(twice, text, l1);
			memcpy(twice + l1, text, l1);
			len_one += l1;
			for (size_t c = 0; c < ncol; c++) {
				long long a, b;

				if (col[c].path == UTF8VAL_PATH_SCALAR)
					continue;
				a = steps(col[c].fn, col[c].path, twice, l1);
				b = steps(col[c].fn, col[c].path, twice,
					  2 * l1);
				if (a < 0 || b < 0)
					return false;
				one[c] += a - empty;
				two[c] += b - empty;
			}
		}
		for (size_t c = 0; c < ncol; c++) {
			struct short_cost *k = &cost[c];

			if (col[c].path == UTF8VAL_PATH_SCALAR)
				continue;
			k->call = (double)one[c] / WINDOWS;
			k->per_byte = (double)(two[c] - one[c]) / len_one;
			k->fixed = k->call - k->per_byte * len_one / WINDOWS;
			printf("%-15s %-11s %12.0f %14.3f %12.3f %10.0f\n",
			       data[d].name, col[c].name, k->call,
			       k->call * WINDOWS / len_one, k->per_byte,
			       k->fixed);
		}
		for (size_t w = 0; w < ARRAY_SIZE(same_width); w++) {
			const struct column *ours, *peer;
			const struct short_cost *o, *p;

			ours = column_named(col, ncol, same_width[w].ours);
			peer = column_named(col, ncol, same_width[w].peer);
			if (!ours || !peer)
				continue;
			o = &cost[ours - col];
			p = &cost[peer - col];
			printf("# %s, %u B: %s at %.2f of %s's instructions",
			       data[d].name, SHORT_LEN, ours->name,
			       o->call / p->call, peer->name);
			if (o->call > p->call)
				printf(": %.0f fixed against %.0f, %.3f a byte against %.3f",
				       o->fixed, p->fixed, o->per_byte,
				       p->per_byte);
			printf("\n");
		}
	}
	return true;
}

/* --calls: the second table alone */
int main(int argc, char **argv)
{
	bool calls_only = argc > 1 && !strcmp(argv[1], "--calls");
	struct dataset data[MAX_DATASETS];
	size_t ndata = datasets_load(data, "../shared");
	struct column col[MAX_COLUMNS];
	size_t ncol = columns(col);

	if (!ndata)
		return 1;
	if ((!calls_only && !per_byte(data, ndata, col, ncol)) ||
	    !short_calls(data, ndata, col, ncol))
		printf("# ptrace single-stepping is not allowed here\n");
	utf8val_simd_select(-1);
	return 0;
}
