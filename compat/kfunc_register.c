// SPDX-License-Identifier: GPL-2.0
/*
 * Kbuild probe: a module can offer kfuncs to BPF programs
 * (register_btf_kfunc_id_set(), from 5.18).
 */
#include <linux/bpf.h>
#include <linux/btf.h>

int utf8val_probe(const struct btf_kfunc_id_set *set);
int utf8val_probe(const struct btf_kfunc_id_set *set)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING, set);
}
