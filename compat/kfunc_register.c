// SPDX-License-Identifier: GPL-2.0
/*
 * Kbuild probe: a module can offer kfuncs to BPF programs as
 * utf8val_bpf.c does, a set of BTF ids (BTF_KFUNCS_START, or 6.1's
 * BTF_SET8_START) handed to register_btf_kfunc_id_set().
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/module.h>

#ifndef BTF_KFUNCS_START
#define BTF_KFUNCS_START(name)	BTF_SET8_START(name)
#define BTF_KFUNCS_END(name)	BTF_SET8_END(name)
#endif

BTF_KFUNCS_START(utf8val_probe_ids)
BTF_KFUNCS_END(utf8val_probe_ids)

static const struct btf_kfunc_id_set utf8val_probe_set = {
	.owner = THIS_MODULE,
	.set = &utf8val_probe_ids,
};

static int __maybe_unused utf8val_probe(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING,
					 &utf8val_probe_set);
}
