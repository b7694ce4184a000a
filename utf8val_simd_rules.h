/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The rules over one register of bytes, written once for every vector
 * path: a template, which each path includes after defining its
 * primitives, as utf8val_simd_loop.h is for the block loop. For each byte
 * (in) and the bytes one, two and three before it (prev1, prev2, prev3),
 * with the tables of utf8val_simd_tables.h:
 *
 *	prev_high[prev1 >> 4] & prev_low[prev1 & 15] & this_high[in >> 4]
 *	    ^ (0x80 if prev2 >= THIRD_MIN or prev3 >= FOURTH_MIN)
 *
 * is nonzero where a rule breaks: the classes the pair allows, with "two
 * continuations" turned over where a 3- or 4-byte lead makes it legal.
 *
 * The includer includes utf8val_simd_tables.h first (its primitives name
 * the tables), then defines three types, as macros (a sizeless vector
 * type cannot be wrapped in a struct):
 *
 *   rule_vec       a register of bytes
 *   rule_tables    how the checks reach the tables and constants: a
 *                  pointer to the path's, or the registers themselves
 *   rule_before    what comes before a register: the one before it, or
 *                  where it is in memory
 *
 * and these functions (static __always_inline; @which, @n and @min are
 * constants):
 *
 *   rule_vec rule_back(rule_vec last, rule_vec in, rule_before before,
 *                      int n)
 *                  the bytes @n (1 to 3) before each byte of @in; @last
 *                  is those n - 1 before (@in for 1), for a path that
 *                  moves them in a byte at a time
 *   rule_vec rule_high(rule_tables t, rule_vec v)
 *   rule_vec rule_low(rule_tables t, rule_vec v)
 *                  bytes that rule_lookup() reads as each byte's high
 *                  and low nibble: exactly >> 4 and & 15, unless the
 *                  path's lookup ignores the other bits (AVX-512's)
 *   rule_vec rule_lookup(rule_tables t, enum rule_table which,
 *                        rule_vec nibbles)
 *                  the table's entries at the nibbles @nibbles stand for
 *   rule_vec rule_and3(rule_vec a, rule_vec b, rule_vec c)
 *   rule_vec rule_lead_at_least(rule_tables t, rule_vec v, u8 min)
 *                  bit 7 set where a byte of @v is @min or more (@min is
 *                  THIRD_MIN or FOURTH_MIN: a saturating v - (min - 0x80))
 *   rule_vec rule_or(rule_vec a, rule_vec b)
 *   rule_vec rule_xor_bit7(rule_tables t, rule_vec a, rule_vec b)
 *                  a ^ (b & 0x80)
 */
#ifndef UTF8VAL_SIMD_RULES_H
#define UTF8VAL_SIMD_RULES_H

#include "utf8val_simd_tables.h"

/*
 * Nonzero bytes where @in breaks a rule, given the bytes one, two and
 * three before each of its bytes (for a path that can load them).
 */
static __always_inline rule_vec rule_errors_back(rule_tables t, rule_vec in,
						 rule_vec prev1, rule_vec prev2,
						 rule_vec prev3)
{
	rule_vec classes, leads;

	classes = rule_and3(rule_lookup(t, RULE_PREV_HIGH, rule_high(t, prev1)),
			    rule_lookup(t, RULE_PREV_LOW, rule_low(t, prev1)),
			    rule_lookup(t, RULE_THIS_HIGH, rule_high(t, in)));
	leads = rule_or(rule_lead_at_least(t, prev2, THIRD_MIN),
			rule_lead_at_least(t, prev3, FOURTH_MIN));
	return rule_xor_bit7(t, classes, leads);
}

/* Nonzero bytes where @in, after @before, breaks a rule. */
static __always_inline rule_vec rule_errors(rule_tables t, rule_vec in,
					    rule_before before)
{
	rule_vec prev1 = rule_back(in, in, before, 1);
	rule_vec prev2 = rule_back(prev1, in, before, 2);
	rule_vec prev3 = rule_back(prev2, in, before, 3);

	return rule_errors_back(t, in, prev1, prev2, prev3);
}

#endif /* UTF8VAL_SIMD_RULES_H */
