/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * utf8val's kfuncs, for BPF programs (clang -target bpf, libbpf): include
 * this after vmlinux.h or linux/bpf.h and bpf/bpf_helpers.h, and after
 * utf8val.h, which has the flags, the errors and struct utf8val_result.
 * The program's license must be GPL-compatible. utf8val.ko must be
 * loaded, built with its BTF; Documentation/utf8val.rst describes the
 * contract, and tools/utf8names shows a policy that uses them.
 *
 * Callable from LSM, tracing (fentry, fexit, tp_btf, iterators) and
 * syscall programs. Each buffer is the program's own writable memory
 * (stack, map value, ring buffer record; not .rodata), its size next to
 * it, bounded where the verifier can see it.
 */
#ifndef UTF8VAL_KFUNCS_H
#define UTF8VAL_KFUNCS_H

/* 1 if @buf holds strict UTF-8 (RFC 3629), else 0 */
extern int bpf_utf8val_check(const __u8 *buf, __u32 buf__sz) __ksym;

/*
 * UTF8VAL_OK (0) or the enum utf8val_error of the first ill-formed
 * subsequence under @flags (UTF8VAL_*), with @res filled in as
 * utf8val_validate() fills it; UTF8VAL_EFLAGS for unknown flag bits.
 */
extern int bpf_utf8val_validate(const __u8 *buf, __u32 buf__sz, __u32 flags,
				struct utf8val_result *res) __ksym;

#endif /* UTF8VAL_KFUNCS_H */
