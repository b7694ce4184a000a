/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * utf8val: UTF-8 validation as RFC 3629 section 4 defines it.
 *
 * The same header serves the kernel module, other kernel code and
 * user-space programs linked against libutf8val. It stands alone (C99,
 * C++11) and defines nothing outside the utf8val_ and UTF8VAL_ names
 * (stddef.h aside): its types are
 * plain C ones, the kernel's u8, u32 and u64 on every architecture Linux
 * runs on. Documentation/utf8val.rst explains the rules and the error
 * model; utf8val(3) the library.
 *
 * No function reads outside the bytes it is given, even when they change
 * during the call; the answer is then well formed but may describe no
 * single moment of them (utf8val.rst, "Bytes that change during the call").
 */
#ifndef UTF8VAL_H
#define UTF8VAL_H

#ifdef __KERNEL__
#include <linux/types.h>
#elif defined(__bpf__)
/* BPF programs: size_t only, beside vmlinux.h's own types */
#define __need_size_t
#include <stddef.h>
#else
#include <stddef.h>
#endif

/* The kernel's bool, C++'s bool, and C's _Bool: one type, no stdbool.h */
#if defined(__KERNEL__) || defined(__cplusplus)
#define UTF8VAL_BOOL	bool
#else
#define UTF8VAL_BOOL	_Bool
#endif

/* The library's version; utf8val_version() says which one is linked. */
#define UTF8VAL_VERSION_MAJOR	1
#define UTF8VAL_VERSION_MINOR	1
#define UTF8VAL_VERSION_PATCH	0
#define UTF8VAL_VERSION_STRING	"1.1.0"
/* One number that compares in order: 10000 * major + 100 * minor + patch */
#define UTF8VAL_VERSION		(UTF8VAL_VERSION_MAJOR * 10000 + \
				 UTF8VAL_VERSION_MINOR * 100 + \
				 UTF8VAL_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Validation flags. Zero means strict RFC 3629. Each flag widens or
 * narrows the accepted language in one documented way; the meaning of a
 * flag never changes, new behaviour gets a new bit.
 */
/* Also accept RFC 2279 5- and 6-byte forms and 4-byte leads F5..F7, up to
 * U+7FFFFFFF; the shortest form is still required.
 */
#define UTF8VAL_RFC2279		0x01u
/* Accept encoded U+D800..U+DFFF (WTF-8 / CESU-8 style data). */
#define UTF8VAL_SURROGATES	0x02u
/* U+0000 is an error. */
#define UTF8VAL_REJECT_NUL	0x04u
/* The 66 noncharacters (U+FDD0..U+FDEF, U+nFFFE, U+nFFFF) are errors. */
#define UTF8VAL_REJECT_NONCHAR	0x08u
/* A leading U+FEFF signature is an error (RFC 3629 section 6). */
#define UTF8VAL_REJECT_BOM	0x10u

#define UTF8VAL_FLAGS_ALL	(UTF8VAL_RFC2279 | UTF8VAL_SURROGATES | \
				 UTF8VAL_REJECT_NUL | UTF8VAL_REJECT_NONCHAR | \
				 UTF8VAL_REJECT_BOM)

/* Longest sequence in any mode (RFC 2279 6-byte forms). */
#define UTF8VAL_MAX_SEQ		6

/**
 * enum utf8val_error - why input is not valid UTF-8
 * @UTF8VAL_OK: valid
 * @UTF8VAL_EINCOMPLETE: input ends inside a sequence
 * @UTF8VAL_ECONTINUATION: 80..BF where a sequence must start
 * @UTF8VAL_EBADBYTE: a byte that never appears: F8..FF (FE, FF with
 *	%UTF8VAL_RFC2279)
 * @UTF8VAL_ESHORT: a lead byte not followed by enough continuation bytes
 * @UTF8VAL_EOVERLONG: C0, C1, E0 80..9F, F0 80..8F (and F8 80..87,
 *	FC 80..83 with %UTF8VAL_RFC2279)
 * @UTF8VAL_ESURROGATE: ED A0..BF (without %UTF8VAL_SURROGATES)
 * @UTF8VAL_ETOOLARGE: F4 90..BF, F5..F7: above U+10FFFF
 * @UTF8VAL_ENUL: U+0000 with %UTF8VAL_REJECT_NUL
 * @UTF8VAL_ENONCHAR: a noncharacter with %UTF8VAL_REJECT_NONCHAR
 * @UTF8VAL_EBOM: a leading U+FEFF with %UTF8VAL_REJECT_BOM
 * @UTF8VAL_EFLAGS: unknown flag bits: nothing was validated
 *
 * The values are ABI: they appear in the device's ioctl results.
 */
enum utf8val_error {
	UTF8VAL_OK = 0,
	UTF8VAL_EINCOMPLETE,
	UTF8VAL_ECONTINUATION,
	UTF8VAL_EBADBYTE,
	UTF8VAL_ESHORT,
	UTF8VAL_EOVERLONG,
	UTF8VAL_ESURROGATE,
	UTF8VAL_ETOOLARGE,
	UTF8VAL_ENUL,
	UTF8VAL_ENONCHAR,
	UTF8VAL_EBOM,
	UTF8VAL_EFLAGS,
};

/**
 * struct utf8val_result - verdict with the position and size of the error
 * @valid_up_to: bytes before the first ill-formed subsequence; the whole
 *	length when valid
 * @chars: code points in those bytes
 * @error: enum utf8val_error
 * @error_len: the maximal subpart (Unicode chapter 3) of the ill-formed
 *	subsequence: 1..3 (1..5 with %UTF8VAL_RFC2279); for
 *	%UTF8VAL_EINCOMPLETE the bytes pending; for policy errors the
 *	sequence length; 0 when valid
 */
struct utf8val_result {
	unsigned long long valid_up_to;
	unsigned long long chars;
	unsigned int error;
	unsigned int error_len;
};

/**
 * struct utf8val_stream - state of an incremental validation
 *
 * Caller-allocated, no heap. The members are private: use
 * utf8val_stream_init(), utf8val_stream_feed() and utf8val_stream_result().
 */
struct utf8val_stream {
	/* private: */
	unsigned long long pos;		/* bytes consumed; stops at the error */
	unsigned long long chars;	/* complete code points before pos */
	unsigned long long err_at;	/* valid_up_to of the sticky error */
	unsigned int flags;
	unsigned int error;	/* sticky enum utf8val_error */
	unsigned int error_len;
	unsigned int cp;	/* value decoded so far of the pending sequence */
	unsigned char lead;	/* first byte of the pending sequence */
	unsigned char seen;	/* bytes of it consumed, 0 at a boundary */
	unsigned char need;	/* continuation bytes still expected */
};

/**
 * struct utf8val_errors - an iteration over every error of a buffer
 *
 * Caller-allocated. The members are private: use utf8val_errors_init()
 * and utf8val_errors_next().
 */
struct utf8val_errors {
	/* private: */
	const unsigned char *buf;
	size_t len;
	size_t pos;			/* where the next search starts */
	unsigned long long chars;	/* characters before pos */
	unsigned int flags;
	unsigned char ended;
};

/* U+FFFD REPLACEMENT CHARACTER, as utf8val_replace() writes it */
#define UTF8VAL_REPLACEMENT	"\xef\xbf\xbd"
/* The most bytes utf8val_replace() can make of @len bytes */
#define UTF8VAL_REPLACE_MAX(len)	(3 * (unsigned long long)(len))
/* utf8val_replace()'s answer to unknown flag bits */
#define UTF8VAL_REPLACE_EFLAGS	(~0ull)

UTF8VAL_BOOL utf8val_check(const void *buf, size_t len);
enum utf8val_error utf8val_validate(const void *buf, size_t len,
				    unsigned int flags,
				    struct utf8val_result *res);

void utf8val_stream_init(struct utf8val_stream *st, unsigned int flags);
enum utf8val_error utf8val_stream_feed(struct utf8val_stream *st,
				       const void *buf, size_t len);
enum utf8val_error utf8val_stream_result(const struct utf8val_stream *st,
					 struct utf8val_result *res);

void utf8val_errors_init(struct utf8val_errors *it, const void *buf,
			 size_t len, unsigned int flags);
UTF8VAL_BOOL utf8val_errors_next(struct utf8val_errors *it,
				 struct utf8val_result *err);
unsigned long long utf8val_replace(const void *buf, size_t len,
				   unsigned int flags, void *dst,
				   size_t size);

enum utf8val_error utf8val_decode(const void *buf, size_t len,
				  unsigned int flags, unsigned int *cp,
				  unsigned int *seq_len);
unsigned int utf8val_encode(unsigned int cp, unsigned int flags,
			    unsigned char *out);
unsigned long long utf8val_count(const void *buf, size_t len);
const char *utf8val_error_name(unsigned int err);
const char *utf8val_version(void);

#ifdef __cplusplus
}
#endif

#endif /* UTF8VAL_H */
