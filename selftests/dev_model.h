/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What /dev/utf8val must answer, worked out in user space from the
 * independent reference (tests/reference.c): the model of one stream, the
 * verdict and the read() line it must give, and what a write must return.
 * Shared by the guest's test programs.
 */
#ifndef UTF8VAL_DEV_MODEL_H
#define UTF8VAL_DEV_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../tests/reference.h"
#include "../tests/tap.h"
#include "../uapi/linux/utf8val.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define DEV		"/dev/utf8val"
#define SYSFS_DIR	"/sys/class/misc/utf8val/"

/* Every byte the stream was fed, up to and including its first error. */
struct stream_model {
	u8 *data;
	size_t len, cap;
	u64 bytes;		/* the sum of write()'s results */
	unsigned int flags;
	size_t read_pos;	/* in the verdict line */
};

void model_restart(struct stream_model *m, unsigned int flags);
void model_free(struct stream_model *m);
/*
 * What write() must return for @len bytes at @buf of which the first
 * @readable can be copied (-errno on failure); the model follows.
 */
ssize_t model_write(struct stream_model *m, const u8 *buf, size_t readable,
		    size_t len);
void model_verdict(const struct stream_model *m, struct utf8val_ioc_verdict *v);
/* The name of an error in verdict lines, from the ABI, not the module */
const char *model_error_name(unsigned int error);
/* The read() line; returns its length. */
int model_line(const struct stream_model *m, char *buf, size_t size);
/* The verdict fields that differ, as text for a log, or NULL. */
const char *verdict_mismatch(const struct utf8val_ioc_verdict *want,
			     const struct utf8val_ioc_verdict *got);

long long sysfs_value(const char *name);
/*
 * The validation paths the module has (simd_paths), at most @max, into
 * @names; returns how many (0 if it cannot say).
 */
int simd_paths(char names[][16], int max);

/* xorshift64: fast, seeded, repeatable. */
static inline u64 xorshift(u64 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* Random bytes biased towards the edges of UTF-8's ranges. */
size_t random_input(u64 *rng, u8 *buf, size_t max);

#endif /* UTF8VAL_DEV_MODEL_H */
