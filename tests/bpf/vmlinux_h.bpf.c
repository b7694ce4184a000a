// SPDX-License-Identifier: GPL-2.0
/*
 * The kfuncs as a BPF program of the usual kind includes them: after
 * vmlinux.h (generated from the kernel's BTF by bpftool) and libbpf's
 * headers. scripts/static-checks compiles it; it is never loaded.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "../../utf8val.h"
#include "../../bpf/utf8val_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

SEC("lsm/path_mkdir")
int BPF_PROG(check_mkdir, const struct path *dir, struct dentry *dentry,
	     umode_t mode, int ret)
{
	struct utf8val_result res;
	__u32 len = dentry->d_name.len;
	__u8 name[64];

	if (ret || len > sizeof(name))
		return ret;
	bpf_probe_read_kernel(name, len, dentry->d_name.name);
	if (bpf_utf8val_validate(name, len, UTF8VAL_REJECT_NUL, &res))
		return -84;	/* EILSEQ */
	return bpf_utf8val_check(name, len) ? 0 : -84;
}
