// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val.h as a user gets it: nothing else included first, built as
 * strict C99 and as C++ (tests/test_header.sh), linked against the
 * library. The program has names of its own that a header leaking the
 * kernel's would break: its own u8 and u64 of other types, a bool of its
 * own in C, and __attribute__((noinline)).
 */
#include "utf8val.h"

#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
#define LANGUAGE "C++"
#else
#define LANGUAGE "strict C99"
#endif

typedef struct { unsigned int hi, lo; } u64;
typedef int u8;
#ifndef __cplusplus
typedef int bool;	/* pre-C23 code that never included stdbool.h */
#define true 1
#endif

static __attribute__((noinline)) u64 split(unsigned long long v)
{
	u64 r = { (unsigned int)(v >> 32), (unsigned int)v };

	return r;
}

int main(void)
{
	static const char text[] = "na\xc3\xafve \xe2\x82\xac";
	struct utf8val_result res;
	struct utf8val_stream st;
	u8 ok;
	u64 chars;

	utf8val_stream_init(&st, 0);
	utf8val_stream_feed(&st, text, 3);
	utf8val_stream_feed(&st, text + 3, sizeof(text) - 4);
	ok = utf8val_check(text, sizeof(text) - 1) &&
	     utf8val_validate(text, sizeof(text) - 1, 0, &res) == UTF8VAL_OK &&
	     utf8val_stream_result(&st, NULL) == UTF8VAL_OK &&
	     UTF8VAL_VERSION >= 10000 &&
	     !strcmp(utf8val_version(), UTF8VAL_VERSION_STRING);
	chars = split(res.chars);
	ok = ok && chars.hi == 0 && chars.lo == 7;
	printf("%sok 1 - utf8val.h builds as %s beside a program's own u8, u64 and noinline, and links\n1..1\n",
	       ok ? "" : "not ", LANGUAGE);
	return !ok;
}
