/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Validators from Debian packages, measured beside utf8val. */
#ifndef UTF8VAL_BENCH_PEERS_H
#define UTF8VAL_BENCH_PEERS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Each returns nonzero if @s is valid UTF-8. */
typedef int (*validator_fn)(const unsigned char *s, size_t len);

int peer_glib(const unsigned char *s, size_t len);
int peer_icu(const unsigned char *s, size_t len);
/* A simdjson implementation by name ("fallback", "haswell", "icelake",
 * "arm64"), or NULL if this CPU cannot run it (peers_simdjson.cc).
 */
validator_fn peer_simdjson(const char *name);
/* simdutf's implementations, as many as its build has: the @i'th's name
 * ("rvv", "fallback"...), or NULL past the last; in *@fn its validator,
 * NULL if this CPU cannot run it (peers_simdutf.cc).
 */
const char *peer_simdutf(unsigned int i, validator_fn *fn);
/* The same of simdutf's current source (../shared/peers/simdutf). */
const char *peer_simdutf_now(unsigned int i, validator_fn *fn);

#ifdef __cplusplus
}
#endif

#endif
