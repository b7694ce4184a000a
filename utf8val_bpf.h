/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's BPF kfuncs (utf8val_bpf.c), built where the kernel loads
 * module BTF (Kbuild decides, and defines UTF8VAL_KFUNCS, or else
 * UTF8VAL_NO_KFUNCS: why not). modinfo's "kfuncs" says which.
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
#define UTF8VAL_KFUNCS_INFO	"bpf_utf8val_check bpf_utf8val_validate"
#else
/* Why the module has no kfuncs: Kbuild defines UTF8VAL_NO_KFUNCS as one */
#define UTF8VAL_NO_KFUNCS_ASKED		"the build was asked for none (UTF8VAL_BPF=n)"
#define UTF8VAL_NO_KFUNCS_MODULE_BTF	"the kernel loads no module BTF (CONFIG_DEBUG_INFO_BTF_MODULES)"
#define UTF8VAL_NO_KFUNCS_REGISTER	"the kernel takes no kfuncs from modules"
#define UTF8VAL_NO_KFUNCS_VMLINUX	"the kernel's BTF (vmlinux) was missing at build time"
#define UTF8VAL_NO_KFUNCS_RESOLVE_BTFIDS	"resolve_btfids was missing at build time"
#define UTF8VAL_NO_KFUNCS_PAHOLE	"pahole was missing at build time"
#ifndef UTF8VAL_NO_KFUNCS
#define UTF8VAL_NO_KFUNCS	"not configured (CONFIG_UTF8VAL_BPF)"
#endif
#define UTF8VAL_KFUNCS_INFO	"absent: " UTF8VAL_NO_KFUNCS

#include <linux/printk.h>

static inline int utf8val_bpf_init(void)
{
	pr_info("no BPF kfuncs: %s\n", UTF8VAL_NO_KFUNCS);
	return 0;
}
#endif

#endif /* UTF8VAL_BPF_H */
