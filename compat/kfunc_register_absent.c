// SPDX-License-Identifier: GPL-2.0
/*
 * Kbuild probe: the kernel has no register_btf_kfunc_id_set() (before
 * 5.18), so modules cannot offer kfuncs. A declaration of our own conflicts
 * with the kernel's wherever it has one.
 */
#include <linux/bpf.h>
#include <linux/btf.h>

struct utf8val_probe_absent;
int register_btf_kfunc_id_set(struct utf8val_probe_absent *none);
