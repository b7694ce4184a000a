/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* An independent, slow, obviously correct validator for the tests. */
#ifndef UTF8VAL_REFERENCE_H
#define UTF8VAL_REFERENCE_H

#include "../utf8val_types.h"
#include "../utf8val.h"

/* The verdict of RFC 3629 (as flags change it) on @buf, from first principles. */
enum utf8val_error ref_validate(const u8 *buf, size_t len, unsigned int flags,
				struct utf8val_result *res);
/* Encode per RFC 2279 section 2's table, no checks; returns the length. */
unsigned int ref_encode(u32 cp, u8 *out);

#endif
