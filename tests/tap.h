/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TAP for the C tests, on the host and in the guest: one line per test,
 * diagnostics as '#' lines, the plan at the end.
 */
#ifndef UTF8VAL_TEST_TAP_H
#define UTF8VAL_TEST_TAP_H

#include <stdbool.h>

/* A line "ok N - ..." or "not ok N - ...", numbered in order. */
void tap_result(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The plan after the last line; returns the exit status: 1 if any failed. */
int tap_finish(void);

#endif /* UTF8VAL_TEST_TAP_H */
