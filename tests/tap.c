// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <stdarg.h>
#include <stdio.h>

#include "tap.h"

static unsigned int tap_count, tap_failed;

void tap_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %u - ", ok ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	tap_failed += !ok;
}

int tap_finish(void)
{
	printf("1..%u\n", tap_count);
	return tap_failed ? 1 : 0;
}
