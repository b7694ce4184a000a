// SPDX-License-Identifier: GPL-2.0
/*
 * Kbuild probe: the kernel has no register_btf_kfunc_id_set() (before
 * 5.18), so modules cannot offer kfuncs. A variable of that name conflicts
 * with the function wherever the kernel declares it.
 */
#include <linux/bpf.h>
#include <linux/btf.h>

static int register_btf_kfunc_id_set __maybe_unused;
