// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Lines and columns of valid text: the newlines in it, the column GCC
 * gives its end (wcwidth() in C.UTF-8, each thread's own locale), and
 * the character it leaves open.
 */
#include <locale.h>
#include <string.h>
#include <wchar.h>

#include "cli.h"

typedef unsigned char v16 __attribute__((vector_size(16)));

/*
 * The newlines in @s[0, @n), 16 bytes a step (SSE2 on x86-64, NEON on
 * arm64): a counter a byte lane, summed before one could wrap.
 */
static unsigned long long newlines16(const unsigned char *s, size_t n)
{
	const v16 nl = {
		'\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n',
		'\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n',
	};
	unsigned long long total = 0;
	size_t i = 0;

	while (n - i >= 16) {
		v16 acc = { 0 }, v;
		int k, j;

		/* up to 255 rounds before a byte counter could wrap */
		for (k = 0; k < 255 && n - i >= 16; k++, i += 16) {
			memcpy(&v, s + i, sizeof(v));
			acc -= (v16)(v == nl);
		}
		for (j = 0; j < 16; j++)
			total += acc[j];
	}
	for (; i < n; i++)
		total += s[i] == '\n';
	return total;
}

#ifdef __x86_64__
typedef unsigned char v32 __attribute__((vector_size(32)));

/*
 * The same 32 bytes a step, where the CPU has AVX2 (built for the
 * baseline, a 32-byte compare is done a byte at a time).
 */
static __attribute__((target("avx2"))) unsigned long long
newlines32(const unsigned char *s, size_t n)
{
	unsigned long long total = 0;
	size_t i = 0;
	v32 nl;
	int j;

	for (j = 0; j < 32; j++)
		nl[j] = '\n';
	while (n - i >= 32) {
		v32 acc = { 0 }, v;
		int k;

		for (k = 0; k < 255 && n - i >= 32; k++, i += 32) {
			memcpy(&v, s + i, sizeof(v));
			acc -= (v32)(v == nl);
		}
		for (j = 0; j < 32; j++)
			total += acc[j];
	}
	for (; i < n; i++)
		total += s[i] == '\n';
	return total;
}
#endif

/* The newlines in @s[0, @n), by the widest vectors the CPU has. */
unsigned long long count_newlines(const unsigned char *s, size_t n)
{
#ifdef __x86_64__
	if (__builtin_cpu_supports("avx2"))
		return newlines32(s, n);
#endif
	return newlines16(s, n);
}

/*
 * Move @pos over the @n bytes of valid text at @s, a character counted
 * where its first byte is: returns where the last line starts in them
 * (@s if none does).
 */
const unsigned char *move_position(struct position *pos,
				   const unsigned char *s, size_t n)
{
	unsigned long long lines = count_newlines(s, n);
	const unsigned char *line = s;

	if (lines) {
		line = (const unsigned char *)memrchr(s, '\n', n) + 1;
		pos->line += lines;
		pos->column = 0;
	}
	pos->column += utf8val_count(line, s + n - line);
	return line;
}

/* char_width()'s C.UTF-8 locale: one a thread, made once, never freed */
static __thread locale_t utf8;

/*
 * The width on a terminal, as GCC counts it (1, 2 or 0), of the
 * character that starts at @s, @avail bytes being there.
 */
static int char_width(const unsigned char *s, size_t avail)
{
	size_t len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4, i;
	locale_t was;
	wchar_t c;
	int w;

	if (!utf8)
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (!utf8 || s[0] > 0xf4 || len > avail)
		return 1;	/* (RFC 2279's forms: none in Unicode) */
	c = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++)
		c = c << 6 | (s[i] & 0x3f);
	was = uselocale(utf8);
	w = wcwidth(c);
	uselocale(was);
	return w < 0 ? 1 : w;
}

/*
 * GCC's column (the GNU coding standards'), 0-based, after the valid
 * text @s[0, @n) from column @col: tabs stop every 8 columns, wide
 * characters take 2, combining ones 0.
 */
unsigned long long display_column(const unsigned char *s, size_t n,
				  unsigned long long col)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\t')
			col = (col / 8 + 1) * 8;
		else if (s[i] < 0x80)
			col++;
		else if (s[i] >= 0xc0)	/* a character's first byte */
			col += char_width(s + i, n - i);
	}
	return col;
}

/*
 * The bytes of the character that the text @s[0, @n) leaves open at its
 * end, if any, as its first byte says (in text not checked, an invalid
 * one may be taken for it).
 */
size_t open_tail(const unsigned char *s, size_t n)
{
	size_t i, len;

	for (i = 1; i <= n && i < UTF8VAL_MAX_SEQ; i++) {
		if ((s[n - i] & 0xc0) == 0x80)
			continue;
		len = s[n - i] < 0xc0 ? 1 : s[n - i] < 0xe0 ? 2 :
		      s[n - i] < 0xf0 ? 3 : s[n - i] < 0xf8 ? 4 :
		      s[n - i] < 0xfc ? 5 : 6;
		return i < len ? i : 0;
	}
	return 0;
}
