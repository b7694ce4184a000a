/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's BPF kfuncs (utf8val_bpf.c), built where the kernel loads
 * module BTF (Kbuild decides, and defines UTF8VAL_KFUNCS).
 */
#ifndef UTF8VAL_BPF_H
#define UTF8VAL_BPF_H

#ifdef UTF8VAL_KFUNCS
#include <linux/types.h>

struct utf8val_result;

int utf8val_bpf_init(void);
/* the kfuncs: called from BPF programs, never from C */
int bpf_utf8val_check(const u8 *buf, u32 buf__sz);
int bpf_utf8val_validate(const u8 *buf, u32 buf__sz, u32 flags,
			 struct utf8val_result *res);
#else
static inline int utf8val_bpf_init(void)
{
	return 0;
}
#endif

#endif /* UTF8VAL_BPF_H */
