// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Reference validator. Written from the texts, not from the core:
 *
 * - Which sequences are valid is the RFC 3629 section 4 ABNF, transcribed
 *   rule by rule into byte-range patterns; the flags add rules (RFC 2279
 *   section 2's table restricted to shortest forms, or the surrogate range).
 * - The maximal subpart at an error is the longest prefix of the input
 *   that is a prefix of some pattern (Unicode chapter 3, U+FFFD policy).
 * - Why a sequence fails is decided from the values it could still
 *   encode: below its length's minimum is overlong, inside D800..DFFF a
 *   surrogate, above the mode's maximum too large.
 *
 * It is slow on purpose: every position tries every pattern.
 */
#include "reference.h"

/* An internal error of the reference itself: loud, and never a match. */
#ifdef __KERNEL__
#include <linux/bug.h>
#define ref_bug(fmt, ...)	WARN(1, "reference: " fmt, ##__VA_ARGS__)
#else
#include <stdio.h>
#include <stdlib.h>
#define ref_bug(fmt, ...)						\
	do {								\
		fprintf(stderr, "reference: " fmt, ##__VA_ARGS__);	\
		abort();						\
	} while (0)
#endif

struct pattern {
	unsigned int n;
	u8 lo[6], hi[6];
};

/* RFC 3629 section 4, one line per alternative (UTF8-tail is 80..BF). */
static const struct pattern abnf[] = {
	{ 1, { 0x00 }, { 0x7f } },
	{ 2, { 0xc2, 0x80 }, { 0xdf, 0xbf } },
	{ 3, { 0xe0, 0xa0, 0x80 }, { 0xe0, 0xbf, 0xbf } },
	{ 3, { 0xe1, 0x80, 0x80 }, { 0xec, 0xbf, 0xbf } },
	{ 3, { 0xed, 0x80, 0x80 }, { 0xed, 0x9f, 0xbf } },
	{ 3, { 0xee, 0x80, 0x80 }, { 0xef, 0xbf, 0xbf } },
	{ 4, { 0xf0, 0x90, 0x80, 0x80 }, { 0xf0, 0xbf, 0xbf, 0xbf } },
	{ 4, { 0xf1, 0x80, 0x80, 0x80 }, { 0xf3, 0xbf, 0xbf, 0xbf } },
	{ 4, { 0xf4, 0x80, 0x80, 0x80 }, { 0xf4, 0x8f, 0xbf, 0xbf } },
};

/* UTF8VAL_SURROGATES: U+D800..U+DFFF. */
static const struct pattern surrogates[] = {
	{ 3, { 0xed, 0xa0, 0x80 }, { 0xed, 0xbf, 0xbf } },
};

/*
 * UTF8VAL_RFC2279: what RFC 2279's table allows beyond RFC 3629, in
 * shortest form: U+110000..U+1FFFFF in 4 bytes, U+200000..U+3FFFFFF in 5
 * (min F8 88 80 80 80), U+4000000..U+7FFFFFFF in 6 (min FC 84 80 80 80 80).
 */
static const struct pattern rfc2279[] = {
	{ 4, { 0xf4, 0x90, 0x80, 0x80 }, { 0xf4, 0xbf, 0xbf, 0xbf } },
	{ 4, { 0xf5, 0x80, 0x80, 0x80 }, { 0xf7, 0xbf, 0xbf, 0xbf } },
	{ 5, { 0xf8, 0x88, 0x80, 0x80, 0x80 },
	     { 0xf8, 0xbf, 0xbf, 0xbf, 0xbf } },
	{ 5, { 0xf9, 0x80, 0x80, 0x80, 0x80 },
	     { 0xfb, 0xbf, 0xbf, 0xbf, 0xbf } },
	{ 6, { 0xfc, 0x84, 0x80, 0x80, 0x80, 0x80 },
	     { 0xfc, 0xbf, 0xbf, 0xbf, 0xbf, 0xbf } },
	{ 6, { 0xfd, 0x80, 0x80, 0x80, 0x80, 0x80 },
	     { 0xfd, 0xbf, 0xbf, 0xbf, 0xbf, 0xbf } },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* How many bytes of @s (at most @avail) match pattern @p. */
static unsigned int match(const struct pattern *p, const u8 *s, size_t avail)
{
	unsigned int k = 0;

	while (k < p->n && k < avail && s[k] >= p->lo[k] && s[k] <= p->hi[k])
		k++;
	return k;
}

struct attempt {
	unsigned int full;	/* length of a complete match, 0 if none */
	unsigned int longest;	/* longest partial match */
};

static void try_set(const struct pattern *set, size_t n, const u8 *s,
		    size_t avail, struct attempt *a)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned int k = match(&set[i], s, avail);

		if (k == set[i].n)
			a->full = k;
		else if (k > a->longest)
			a->longest = k;
	}
}

/* RFC 2279 section 2: sequence length from the lead's high bits. */
static unsigned int lead_length(u8 b)
{
	unsigned int n = 0;

	while (n < 8 && (b & (0x80 >> n)))
		n++;
	return n == 0 ? 1 : n;
}

/* The value bits of an @n-byte sequence, from RFC 2279's table. */
static u64 value_of(const u8 *s, unsigned int n)
{
	u64 v = n == 1 ? s[0] : s[0] & (0x7f >> n);

	for (unsigned int k = 1; k < n; k++)
		v = (v << 6) | (s[k] & 0x3f);
	return v;
}

/* Smallest value that needs @n bytes (RFC 2279 table, first column). */
static u64 min_value(unsigned int n)
{
	static const u64 min[] = { 0, 0, 0x80, 0x800, 0x10000, 0x200000,
				   0x4000000 };
	return min[n];
}

/*
 * Why the @k known bytes at @s cannot start a valid sequence, from the
 * range of values any completion would encode.
 */
static enum utf8val_error classify(const u8 *s, unsigned int k,
				   unsigned int flags)
{
	const u64 max = flags & UTF8VAL_RFC2279 ? 0x7fffffff : 0x10ffff;
	unsigned int n = lead_length(s[0]);
	u8 lo[6], hi[6];
	u64 vlo, vhi;

	if (n > 6 || k > n) {
		ref_bug("no sequence length for lead %02x\n", s[0]);
		return UTF8VAL_EFLAGS;
	}
	for (unsigned int i = 0; i < n; i++) {
		lo[i] = i < k ? s[i] : 0x80;
		hi[i] = i < k ? s[i] : 0xbf;
	}
	vlo = value_of(lo, n);
	vhi = value_of(hi, n);
	if (vhi < min_value(n))
		return UTF8VAL_EOVERLONG;
	if (vlo >= 0xd800 && vhi <= 0xdfff)
		return UTF8VAL_ESURROGATE;
	if (vlo > max)
		return UTF8VAL_ETOOLARGE;
	ref_bug("no reason for %02x %02x\n", s[0], k > 1 ? s[1] : 0);
	return UTF8VAL_EFLAGS;
}

static enum utf8val_error invalid_lead(u8 b, unsigned int flags)
{
	if (b >= 0x80 && b <= 0xbf)
		return UTF8VAL_ECONTINUATION;
	/* Bytes no mode can start a sequence with. */
	if (b >= 0xfe || (b >= 0xf8 && !(flags & UTF8VAL_RFC2279)))
		return UTF8VAL_EBADBYTE;
	return classify(&b, 1, flags);
}

static enum utf8val_error policy(u64 cp, size_t at, unsigned int flags)
{
	if (cp == 0 && (flags & UTF8VAL_REJECT_NUL))
		return UTF8VAL_ENUL;
	if ((flags & UTF8VAL_REJECT_NONCHAR) &&
	    ((cp >= 0xfdd0 && cp <= 0xfdef) ||
	     (cp <= 0x10ffff && (cp & 0xffff) >= 0xfffe)))
		return UTF8VAL_ENONCHAR;
	if ((flags & UTF8VAL_REJECT_BOM) && at == 0 && cp == 0xfeff)
		return UTF8VAL_EBOM;
	return UTF8VAL_OK;
}

enum utf8val_error ref_validate(const u8 *buf, size_t len, unsigned int flags,
				struct utf8val_result *res)
{
	struct utf8val_result r = { 0 };
	size_t i = 0;

	if (flags & ~UTF8VAL_FLAGS_ALL) {
		r.error = UTF8VAL_EFLAGS;
		goto out;
	}
	while (i < len) {
		struct attempt a = { 0, 0 };
		size_t avail = len - i;

		try_set(abnf, COUNT(abnf), buf + i, avail, &a);
		if (flags & UTF8VAL_SURROGATES)
			try_set(surrogates, COUNT(surrogates), buf + i, avail,
				&a);
		if (flags & UTF8VAL_RFC2279)
			try_set(rfc2279, COUNT(rfc2279), buf + i, avail, &a);

		if (a.full) {
			enum utf8val_error e;

			e = policy(value_of(buf + i, a.full), i, flags);
			if (e) {
				r.error = e;
				r.error_len = a.full;
				break;
			}
			i += a.full;
			r.chars++;
			continue;
		}
		if (a.longest && a.longest == avail) {
			r.error = UTF8VAL_EINCOMPLETE;
		} else if (a.longest == 0) {
			r.error = invalid_lead(buf[i], flags);
		} else if (a.longest == 1 && buf[i + 1] >= 0x80 &&
			   buf[i + 1] <= 0xbf) {
			r.error = classify(buf + i, 2, flags);
		} else {
			r.error = UTF8VAL_ESHORT;
		}
		r.error_len = a.longest ? a.longest : 1;
		break;
	}
	r.valid_up_to = i;
out:
	if (res)
		*res = r;
	return r.error;
}

unsigned int ref_encode(u32 cp, u8 *out)
{
	unsigned int n = 1;

	while (n < 6 && cp >= min_value(n + 1))
		n++;
	if (n == 1) {
		out[0] = cp;
		return 1;
	}
	for (unsigned int k = n - 1; k > 0; k--, cp >>= 6)
		out[k] = 0x80 | (cp & 0x3f);
	out[0] = (u8)(0xff << (8 - n)) | cp;
	return n;
}

size_t ref_replace(const u8 *buf, size_t len, unsigned int flags, u8 *out,
		   size_t *out_len, struct utf8val_result *errs)
{
	size_t pos = 0, n = 0, o = 0, i;
	u64 chars = 0;

	if (flags & ~UTF8VAL_FLAGS_ALL) {	/* nothing validated */
		errs[0] = (struct utf8val_result){ .error = UTF8VAL_EFLAGS };
		errs[1] = errs[0];
		*out_len = 0;
		return 1;
	}
	for (;;) {
		unsigned int f = pos ? flags & ~UTF8VAL_REJECT_BOM : flags;
		struct utf8val_result r;

		ref_validate(buf + pos, len - pos, f, &r);
		for (i = 0; i < r.valid_up_to; i++)
			out[o++] = buf[pos + i];
		chars += r.chars;
		if (r.error == UTF8VAL_OK)
			break;
		errs[n++] = (struct utf8val_result){
			.valid_up_to = pos + r.valid_up_to,
			.chars = chars,
			.error = r.error,
			.error_len = r.error_len,
		};
		out[o++] = 0xef;
		out[o++] = 0xbf;
		out[o++] = 0xbd;
		chars++;
		pos += r.valid_up_to + r.error_len;
		if (r.error == UTF8VAL_EINCOMPLETE)
			break;
	}
	errs[n] = (struct utf8val_result){ .valid_up_to = len, .chars = chars };
	*out_len = o;
	return n;
}
