// SPDX-License-Identifier: GPL-2.0
/*
 * utf8val's kfuncs under test (selftests/bpf/kfuncs_test.c): a syscall
 * program that user space runs with BPF_PROG_RUN on a buffer it fills,
 * programs of the other types that may call them, and programs the
 * verifier must refuse. All but "run" are loaded one at a time.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "../../utf8val.h"
#include "../../bpf/utf8val_kfuncs.h"
#include "kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

struct kfuncs_call call;	/* in .bss, which user space maps */

SEC("syscall")
int run(void *ctx)
{
	__u32 len = call.len;

	if (len > sizeof(call.buf))
		return -1;
	call.check = bpf_utf8val_check(call.buf, len);
	call.ret = bpf_utf8val_validate(call.buf, len, call.flags, &call.res);
	return 0;
}

/* --- other program types that may call them (loaded, never attached) --- */

SEC("lsm/path_mkdir")
int BPF_PROG(lsm_calls, const void *dir, const void *dentry, unsigned short mode)
{
	__u8 name[4] = "abc";

	return bpf_utf8val_check(name, sizeof(name)) ? 0 : -1;
}

SEC("fentry/vfs_mkdir")	/* exported: in every kernel's BTF */
int BPF_PROG(fentry_calls)
{
	struct utf8val_result res;
	__u8 name[4] = "ab\xc0";

	bpf_utf8val_validate(name, sizeof(name), 0, &res);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(tp_btf_calls)
{
	__u8 name[2] = "a";

	return bpf_utf8val_check(name, sizeof(name));
}

/*
 * A buffer that may be NULL: a map lookup the program does not check (the
 * map is empty). 6.12's verifier refuses it (KF_TRUSTED_ARGS); 6.1's lets
 * it through, and the kfuncs must then refuse it themselves.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8[64]);
} empty SEC(".maps");

SEC("syscall")
int maybe_null(void *ctx)
{
	__u32 key = 0;
	const __u8 *v = bpf_map_lookup_elem(&empty, &key);

	call.check = bpf_utf8val_check(v, 64);
	call.ret = bpf_utf8val_validate(v, 64, 0, &call.res);
	return 0;
}

/* --- what the verifier must refuse ------------------------------------ */

/*
 * a size past the end of the buffer (a map value's end: on the stack, the
 * bytes past a variable may be the program's other variables)
 */
SEC("syscall")
int bad_size(void *ctx)
{
	return bpf_utf8val_check(&call.buf[KFUNCS_BUF_SIZE - 8], 9);
}

/* a size the verifier cannot bound */
SEC("syscall")
int unbounded_size(void *ctx)
{
	return bpf_utf8val_check(call.buf, call.len);
}

/* a result that runs past the end of its memory */
SEC("syscall")
int small_result(void *ctx)
{
	return bpf_utf8val_validate(call.buf, 4, 0, (struct utf8val_result *)
				    &call.buf[KFUNCS_BUF_SIZE - 16]);
}

/* a pointer that is not memory the program may read: an integer */
SEC("syscall")
int not_memory(void *ctx)
{
	return bpf_utf8val_check((const __u8 *)(unsigned long)call.len, 4);
}

/* a program type they are not offered to */
SEC("xdp")
int xdp_calls(struct xdp_md *ctx)
{
	__u8 name[4] = "abc";

	return bpf_utf8val_check(name, sizeof(name)) ? XDP_PASS : XDP_DROP;
}
