/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Internal to utf8val: where a stream's valid text ends in lines and
 * columns, kept chunk by chunk for /dev/utf8val's verdict (its line and
 * column fields), whose bytes are gone once a write() returns.
 */
#ifndef UTF8VAL_LINES_H
#define UTF8VAL_LINES_H

#include "utf8val_types.h"
#include "utf8val.h"

struct utf8val_lines {
	u64 line;		/* 1 + the newlines in the valid text */
	u64 line_chars;		/* the stream's characters before that line */
};

static inline void utf8val_lines_init(struct utf8val_lines *l)
{
	l->line = 1;
	l->line_chars = 0;
}

void utf8val_lines_follow(struct utf8val_lines *l,
			  const struct utf8val_stream *st,
			  const void *buf, size_t len, u64 start);

#endif /* UTF8VAL_LINES_H */
