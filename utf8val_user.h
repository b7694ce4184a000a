/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the kernel's compiler_types.h gives the core, for its builds
 * outside the kernel (library, tests, benchmarks, fuzzer), whoever builds
 * them and with whatever flags: the benchmarks measure this code. A plain
 * "inline" left the DFA's lanes out of line and cost scalar ASCII a
 * quarter of its speed. Internal: the public utf8val.h never includes it.
 */
#ifndef UTF8VAL_USER_H
#define UTF8VAL_USER_H

#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#ifndef noinline
#define noinline	__attribute__((__noinline__))
#endif
#ifndef __aligned
#define __aligned(x)	__attribute__((__aligned__(x)))
#endif
#ifndef __always_unused
#define __always_unused	__attribute__((__unused__))
#endif

#endif /* UTF8VAL_USER_H */
