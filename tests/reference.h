/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* An independent, slow, obviously correct validator for the tests. */
#ifndef UTF8VAL_REFERENCE_H
#define UTF8VAL_REFERENCE_H

#include "../utf8val_types.h"
#include "../utf8val.h"

/* The verdict of RFC 3629 (as flags change it) on @buf, from first principles. */
enum utf8val_error ref_validate(const u8 *buf, size_t len, unsigned int flags,
				struct utf8val_result *res);
/*
 * The replacement text of @buf (each maximal subpart that ref_validate()
 * finds becomes U+FFFD, resuming after it; a BOM counts only at offset 0)
 * into @out, 3 * @len bytes; its errors into @errs, @len + 1 entries, the
 * last being the totals. Returns the number of errors.
 */
size_t ref_replace(const u8 *buf, size_t len, unsigned int flags, u8 *out,
		   size_t *out_len, struct utf8val_result *errs);
/* Encode per RFC 2279 section 2's table, no checks; returns the length. */
unsigned int ref_encode(u32 cp, u8 *out);

#endif
