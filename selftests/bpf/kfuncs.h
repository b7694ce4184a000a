/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* One call of both kfuncs, as selftests/bpf/kfuncs.bpf.c makes it. */
#ifndef KFUNCS_H
#define KFUNCS_H

#define KFUNCS_BUF_SIZE	(64 * 1024)

struct kfuncs_call {
	/* in */
	__u32 flags;
	__u32 len;
	/* out */
	__s32 check;
	__s32 ret;
	struct utf8val_result res;
	/* in */
	__u8 buf[KFUNCS_BUF_SIZE];
};

#endif /* KFUNCS_H */
