// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val.h as a user gets it: strict C99, nothing else included first,
 * linked against build/libutf8val.a.
 */
#include "utf8val.h"

#include <stdio.h>

int main(void)
{
	static const char text[] = "na\xc3\xafve \xe2\x82\xac";
	struct utf8val_result res;
	struct utf8val_stream st;
	int ok;

	utf8val_stream_init(&st, 0);
	utf8val_stream_feed(&st, text, 3);
	utf8val_stream_feed(&st, text + 3, sizeof(text) - 4);
	ok = utf8val_check(text, sizeof(text) - 1) &&
	     utf8val_validate(text, sizeof(text) - 1, 0, &res) == UTF8VAL_OK &&
	     res.chars == 7 &&
	     utf8val_stream_result(&st, NULL) == UTF8VAL_OK;
	printf("%sok 1 - utf8val.h compiles as strict C99 and links against libutf8val.a\n1..1\n",
	       ok ? "" : "not ");
	return !ok;
}
