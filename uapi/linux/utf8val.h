/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * /dev/utf8val ioctls. Flag values and error codes are those of utf8val.h,
 * which user space can include as it is.
 *
 * Every struct has the same layout on 32- and 64-bit ABIs (no implicit
 * padding, 64-bit fields 8-aligned), so 32-bit callers use the same
 * numbers. Reserved fields must be zero on input and are zero on output.
 */
#ifndef _UAPI_LINUX_UTF8VAL_H
#define _UAPI_LINUX_UTF8VAL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * Free in Documentation/userspace-api/ioctl/ioctl-number.rst as of the
 * newest table checked (Linux 6.18-era: 0xB8 is mshv's and Marvell
 * CN10K DPI's, 0xBA liveupdate's, nothing from 0xBB to 0xBF); 0xB8,
 * used before, clashes with both.
 */
#define UTF8VAL_IOC_MAGIC	0xBE

/**
 * struct utf8val_ioc_verdict - the stream's verdict so far
 * @bytes: bytes the stream accepted (the sum of write() results)
 * @valid_up_to: bytes before the first ill-formed subsequence
 * @chars: code points in those bytes
 * @error: enum utf8val_error, 0 when valid
 * @error_len: maximal subpart of the error, 0 when valid
 * @flags: the stream's validation flags
 * @line: 1-based line of the error (or of the end, when valid)
 * @column: 1-based column in characters of the same
 * @reserved: zero
 */
struct utf8val_ioc_verdict {
	__u64 bytes;
	__u64 valid_up_to;
	__u64 chars;
	__u32 error;
	__u32 error_len;
	__u32 flags;
	__u32 reserved;
	__u64 line;
	__u64 column;
};

/**
 * struct utf8val_ioc_flags - new flags for the stream (which restarts)
 * @flags: UTF8VAL_* flags of utf8val.h
 * @reserved: must be zero
 */
struct utf8val_ioc_flags {
	__u32 flags;
	__u32 reserved;
};

/**
 * struct utf8val_ioc_validate - validate a buffer in one call
 * @buf: user pointer to the bytes, as a __u64
 * @len: their length
 * @flags: UTF8VAL_* flags of utf8val.h
 * @reserved: must be zero
 * @valid_up_to: out: as struct utf8val_result
 * @chars: out
 * @error: out
 * @error_len: out
 */
struct utf8val_ioc_validate {
	__u64 buf;
	__u64 len;
	__u32 flags;
	__u32 reserved;
	__u64 valid_up_to;
	__u64 chars;
	__u32 error;
	__u32 error_len;
};

/* The stream's verdict, without reading the verdict line. */
#define UTF8VAL_IOC_GET_VERDICT	_IOR(UTF8VAL_IOC_MAGIC, 0x01, \
				     struct utf8val_ioc_verdict)
/* Start the stream again, same flags. */
#define UTF8VAL_IOC_RESET	_IO(UTF8VAL_IOC_MAGIC, 0x02)
/* Start the stream again with new flags. */
#define UTF8VAL_IOC_SET_FLAGS	_IOW(UTF8VAL_IOC_MAGIC, 0x03, \
				     struct utf8val_ioc_flags)
/* Validate a user buffer; the stream is not touched. */
#define UTF8VAL_IOC_VALIDATE	_IOWR(UTF8VAL_IOC_MAGIC, 0x04, \
				      struct utf8val_ioc_validate)

#endif /* _UAPI_LINUX_UTF8VAL_H */
