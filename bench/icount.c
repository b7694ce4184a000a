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
 * registers, building constants, the end): a second table counts calls
 * of 256 bytes, where that part weighs most, and of 512 from the same
 * places, and splits a call's count into what its bytes cost and the
 * rest.
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

static bool column_named(const struct column *c, size_t n, const char *name,
			 size_t *at)
{
	for (*at = 0; *at < n; (*at)++)
		if (!strcmp(c[*at].name, name))
			return true;
	return false;
}

/* Where same_width[@w]'s path and its peer are among @c's @n, if both are */
static bool width_pair(const struct column *c, size_t n, size_t w,
		       size_t *ours, size_t *peer)
{
	return column_named(c, n, same_width[w].ours, ours) &&
	       column_named(c, n, same_width[w].peer, peer);
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

/* What steps() returns besides a count */
enum {
	STEPS_REFUSED = -1,	/* no single-stepping here */
	STEPS_SIGNAL = -2,	/* the call stopped on another signal */
	STEPS_INVALID = -3,	/* the call said its valid input was not */
};

/*
 * Instructions the child executes from its first stop to its second: @fn
 * on @text, on our @path if @fn is ours; the call must find @text valid
 * (every input here is), or its count is of the wrong way.
 */
static long long steps(validator_fn fn, int path, const u8 *text, size_t len)
{
	long long n = 0;
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return STEPS_REFUSED;
	if (!pid) {
		volatile bool ok;

		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(2);
		utf8val_simd_select(path);
		raise(SIGSTOP);
		ok = fn(text, len);
		raise(SIGSTOP);
		_exit(ok ? 0 : 1);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return STEPS_REFUSED;
	}
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) ||
		    waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
			n = STEPS_REFUSED;
			break;
		}
		if (WSTOPSIG(st) == SIGSTOP)
			break;		/* the second raise(SIGSTOP) */
		if (WSTOPSIG(st) != SIGTRAP) {
			n = STEPS_SIGNAL;
			break;
		}
		n++;
	}
	/* on from the second stop, to the child's verdict */
	if (n >= 0 && (ptrace(PTRACE_CONT, pid, NULL, NULL) ||
		       waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		       WEXITSTATUS(st)))
		n = STEPS_INVALID;
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return n;
}

/* Per byte: a call on each window less one on its first half (above) */
static long long per_byte(const struct dataset *data, size_t ndata,
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
					return a < 0 ? a : f;
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
			size_t o, p;

			if (width_pair(col, ncol, w, &o, &p))
				printf("# %s: %s at %.2f of %s's instructions\n",
				       data[d].name, col[o].name,
				       ipb[o] / ipb[p], col[p].name);
		}
	}
	return 0;
}

/*
 * The second table: calls of SHORT_LEN bytes, and of twice that, on
 * SHORT_PIECES pieces of each text spread over it. What the second
 * SHORT_LEN bytes add (next, a byte) is what bytes cost a call there;
 * what a call of SHORT_LEN bytes spends beyond that (overhead) is what it
 * pays whatever its length: entry, set-up, the end. Both are means over
 * the pieces, the text of the first and second halves alike on average.
 */
#define SHORT_LEN	256u
#define SHORT_PIECES	16

static bool starts_char(const u8 *p)
{
	return (*p & 0xc0) != 0x80;
}

/*
 * A piece from @d's text at @at or just after, where each call's end
 * starts a character: cut at exactly SHORT_LEN and twice that, its calls
 * take no tail of another length, and both are valid. NULL if none is
 * near (no text here has one far).
 */
static const u8 *short_piece(const struct dataset *d, size_t at)
{
	const u8 *p = d->text + at;

	for (size_t tries = 0; tries < 4096 &&
	     p + 2 * SHORT_LEN < d->text + d->len; tries++, p++)
		if (starts_char(p) && starts_char(p + SHORT_LEN) &&
		    starts_char(p + 2 * SHORT_LEN))
			return p;
	return NULL;
}

static bool piece_ascii(const u8 *p)
{
	for (size_t i = 0; i < SHORT_LEN; i++)
		if (p[i] & 0x80)
			return false;
	return true;
}

/* One column's calls on a text's pieces */
struct short_cost {
	double call;		/* instructions a call of SHORT_LEN bytes */
	double next;		/* a byte, of the second SHORT_LEN */
	double overhead;	/* a call's count beyond SHORT_LEN of those */
};

/*
 * Whether @col answers SHORT_LEN bytes one way and twice that another:
 * AVX-512's whole() takes each length in a function of its own
 * (whole256() and whole512()), or where 512 bytes cost less than twice
 * 256 less what bytes cost cannot be told from a count. (AVX2's whole()
 * takes both in one loop.)
 */
static bool not_one_way(const struct column *col,
			const struct short_cost *k)
{
	return (col->fn == check_fn &&
		!strcmp(utf8val_path_name(col->path), "avx512") &&
		utf8val_arch_has_whole(col->path, 2 * SHORT_LEN)) ||
	       k->overhead < 0;
}

/*
 * Where a vector path spends more than simdutf's kernel of its width,
 * the two parts say whether its bytes or a call's overhead cost the
 * difference. The scalar path is left out: the table is about the
 * vector paths' set-up. A path that answers 256 bytes one way and 512
 * another (not_one_way()) has no such split.
 */
static long long short_calls(const struct dataset *data, size_t ndata,
			     const struct column *col, size_t ncol)
{
	long long empty = steps(empty_call, -1, data[0].text, 0);

	if (empty < 0)
		return empty;
	printf("\n%-15s %-11s %12s %14s %12s %10s\n", "text", "path",
	       "instr/call", "call/byte", "next/byte", "overhead");
	for (size_t d = 0; d < ndata; d++) {
		long long one[MAX_COLUMNS] = { 0 }, two[MAX_COLUMNS] = { 0 };
		struct short_cost cost[MAX_COLUMNS];
		size_t pieces = 0, mixed = 0;

		for (size_t w = 0; w < SHORT_PIECES; w++) {
			const u8 *p = short_piece(&data[d], data[d].period /
						  SHORT_PIECES * w);

			if (!p)
				continue;
			pieces++;
			mixed += !piece_ascii(p);
			for (size_t c = 0; c < ncol; c++) {
				long long a, b;

				if (col[c].path == UTF8VAL_PATH_SCALAR)
					continue;
				a = steps(col[c].fn, col[c].path, p, SHORT_LEN);
				b = steps(col[c].fn, col[c].path, p,
					  2 * SHORT_LEN);
				if (a < 0 || b < 0)
					return a < 0 ? a : b;
				one[c] += a - empty;
				two[c] += b - empty;
			}
		}
		if (!pieces)
			continue;
		for (size_t c = 0; c < ncol; c++) {
			struct short_cost *k = &cost[c];

			if (col[c].path == UTF8VAL_PATH_SCALAR)
				continue;
			k->call = (double)one[c] / pieces;
			k->next = (double)(two[c] - one[c]) / pieces /
				  SHORT_LEN;
			k->overhead = k->call - k->next * SHORT_LEN;
			printf("%-15s %-11s %12.0f %14.3f", data[d].name,
			       col[c].name, k->call, k->call / SHORT_LEN);
			if (not_one_way(&col[c], k))
				printf(" %23s\n", "(not one way)");
			else
				printf(" %12.3f %10.0f\n", k->next,
				       k->overhead);
		}
		for (size_t w = 0; w < ARRAY_SIZE(same_width); w++) {
			const struct short_cost *o, *p;
			size_t oi, pi;

			if (!width_pair(col, ncol, w, &oi, &pi))
				continue;
			o = &cost[oi];
			p = &cost[pi];
			printf("# %s, %u B (%zu of %zu pieces with non-ASCII): ",
			       data[d].name, SHORT_LEN, mixed, pieces);
			printf("%s at %.2f of %s's instructions", col[oi].name,
			       o->call / p->call, col[pi].name);
			if (o->call > p->call)
				printf(": overhead %.0f against %.0f, %.3f a byte against %.3f",
				       o->overhead, p->overhead, o->next,
				       p->next);
			printf("\n");
		}
	}
	return 0;
}

/* --calls: the second table alone */
int main(int argc, char **argv)
{
	bool calls_only = argc > 1 && !strcmp(argv[1], "--calls");
	struct dataset data[MAX_DATASETS];
	size_t ndata = datasets_load(data, "../shared");
	struct column col[MAX_COLUMNS];
	size_t ncol = columns(col);
	long long err = calls_only ? 0 : per_byte(data, ndata, col, ncol);

	if (!err)
		err = short_calls(data, ndata, col, ncol);
	utf8val_simd_select(-1);
	switch (err) {
	case 0:
		return 0;
	case STEPS_REFUSED:	/* as in a container that forbids it */
		printf("# ptrace single-stepping is not allowed here\n");
		return 0;
	case STEPS_SIGNAL:
		printf("# a counted call stopped on a signal of its own\n");
		return 1;
	default:
		printf("# a counted call found its valid input invalid\n");
		return 1;
	}
}
