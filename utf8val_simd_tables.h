/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The rules every vector path checks, as 16-entry nibble tables.
 *
 * Every error of UTF-8 shows in a pair of adjacent bytes, except a
 * missing or extra third or fourth byte. For each byte and the one before
 * it, three tables indexed by nibbles (the previous byte's high and low
 * nibble, this byte's high nibble) give the error classes each nibble
 * allows; a class survives their AND only if the pair is in it. One
 * class, "two continuation bytes", is legal exactly where the byte two or
 * three back is a lead of a 3- or 4-byte sequence, so the paths XOR that
 * class with that condition. The tables are derived from the RFC 3629
 * ABNF; tests/ compares every path with the reference on every input of
 * up to 3 bytes. utf8val_simd_rules.h is the formula that reads them.
 *
 * Included only by the vector translation units, which load the tables
 * into registers once per call.
 */
#ifndef UTF8VAL_SIMD_TABLES_H
#define UTF8VAL_SIMD_TABLES_H

/* Error classes, one bit each. */
#define TOO_SHORT	0x01	/* lead, then no continuation */
#define TOO_LONG	0x02	/* ASCII, then a continuation */
#define OVERLONG_3	0x04	/* E0 80..9F */
#define TOO_LARGE	0x08	/* F4 90..BF, F5..FF 90..BF */
#define SURROGATE	0x10	/* ED A0..BF */
#define OVERLONG_2	0x20	/* C0 or C1, then a continuation */
#define F0_F5_80	0x40	/* F0 80..8F (overlong), F5..FF 80..8F */
#define TWO_CONTS	0x80	/* continuation, continuation */

#define CARRY		(TOO_SHORT | TOO_LONG | TWO_CONTS)
#define CONT_ANY	(TOO_LONG | OVERLONG_2 | TWO_CONTS)

/* Classes a previous byte with this high nibble can start. */
static const char prev_high[16] = {
	TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
	TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
	TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
	TOO_SHORT | OVERLONG_2,					/* C */
	TOO_SHORT,						/* D */
	TOO_SHORT | OVERLONG_3 | SURROGATE,			/* E */
	TOO_SHORT | TOO_LARGE | F0_F5_80,			/* F */
};

/* Classes a previous byte with this low nibble can start. */
static const char prev_low[16] = {
	CARRY | OVERLONG_3 | OVERLONG_2 | F0_F5_80,		/* C0 E0 F0 */
	CARRY | OVERLONG_2,					/* C1 */
	CARRY,
	CARRY,
	CARRY | TOO_LARGE,					/* F4 */
	CARRY | TOO_LARGE | F0_F5_80,				/* F5.. */
	CARRY | TOO_LARGE | F0_F5_80,
	CARRY | TOO_LARGE | F0_F5_80,
	CARRY | TOO_LARGE | F0_F5_80,
	CARRY | TOO_LARGE | F0_F5_80,
	CARRY | TOO_LARGE | F0_F5_80,
	CARRY | TOO_LARGE | F0_F5_80,
	CARRY | TOO_LARGE | F0_F5_80,
	CARRY | TOO_LARGE | F0_F5_80 | SURROGATE,		/* ED */
	CARRY | TOO_LARGE | F0_F5_80,
	CARRY | TOO_LARGE | F0_F5_80,
};

/* Classes this byte's high nibble completes. */
static const char this_high[16] = {
	TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
	TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
	CONT_ANY | OVERLONG_3 | F0_F5_80,			/* 80..8F */
	CONT_ANY | OVERLONG_3 | TOO_LARGE,			/* 90..9F */
	CONT_ANY | SURROGATE | TOO_LARGE,			/* A0..AF */
	CONT_ANY | SURROGATE | TOO_LARGE,			/* B0..BF */
	TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
};

/* Bytes at or past these, two or three back, need a continuation here. */
#define THIRD_MIN	0xe0
#define FOURTH_MIN	0xf0

/* The three tables, as utf8val_simd_rules.h's rule_lookup() names them */
enum rule_table { RULE_PREV_HIGH, RULE_PREV_LOW, RULE_THIS_HIGH };

#endif /* UTF8VAL_SIMD_TABLES_H */
