// SPDX-License-Identifier: GPL-2.0
/*
 * utf8val's validators as BPF kfuncs, so that BPF programs (LSM policy,
 * tracing) can ask whether bytes are strict UTF-8 without carrying UTF-8
 * logic of their own. Documentation/utf8val.rst describes the contract;
 * tools/utf8names uses them.
 *
 * Program types:
 *  - LSM and tracing (fentry/fexit, tp_btf, iterators): where policy over
 *    names and paths is written. One registration covers both: 6.1 and
 *    6.12 map BPF_PROG_TYPE_LSM to the tracing hook's kfuncs.
 *  - syscall: run by BPF_PROG_RUN on a buffer user space passes in, which
 *    is how the selftests check every answer against a reference.
 *
 * Both kfuncs only read the buffer and fill the caller's result: no
 * locks, no allocation, no sleeping, so they are safe in any context a
 * program of those types runs in; the vector paths only run in plain task
 * context. The verifier proves the memory: each buffer is a pointer
 * with its size in the next argument (the __sz suffix), and the result is
 * a struct of scalars the program owns.
 *
 * While a program that calls them is loaded, the verifier holds a
 * reference on this module, so it cannot be unloaded under the program.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>

#include "utf8val.h"
#include "utf8val_bpf.h"
#include "utf8val_simd.h"

/*
 * What 6.1 lacks of the annotations 6.12 has. __bpf_kfunc (6.5) keeps a
 * kfunc whole and out of line (global functions nothing in C calls are
 * emitted whole anyway; noinline says it). BTF_KFUNCS_START (6.9) marks
 * the set as kfuncs, which 6.12 requires and 6.1 does not know. The
 * prototypes in utf8val_bpf.h make 6.7's __bpf_kfunc_start_defs()
 * unnecessary.
 */
#ifndef __bpf_kfunc
#define __bpf_kfunc noinline
#endif
#ifndef BTF_KFUNCS_START
#define BTF_KFUNCS_START(name)	BTF_SET8_START(name)
#define BTF_KFUNCS_END(name)	BTF_SET8_END(name)
#endif

/*
 * A vector path only in plain task context: a tracing program may run
 * inside the kernel's own FPU code, with bottom halves or preemption off
 * (fpregs_lock() on x86, get_cpu_fpsimd_context() on arm64), where
 * kernel_fpu_begin() would save registers that are half switched. Where
 * preempt_disable() is not counted (Debian's arm64 kernels), those
 * sections still show: they disable bottom halves (x86, arm64 6.12) or
 * mark the CPU busy for may_use_simd() (arm64 6.1).
 */
static bool vectors_allowed(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_COUNT))
		return preemptible();
	return !in_interrupt() && !irqs_disabled();
}

/**
 * bpf_utf8val_check() - is a buffer strict UTF-8 (RFC 3629)?
 * @buf: the bytes, in the program's own writable memory (stack, map
 *	value, ring buffer record; not .rodata)
 * @buf__sz: their number; the verifier checks @buf holds that many
 *
 * The kfunc form of utf8val_check(). It returns int, not bool, because a
 * BPF program reads the whole return register.
 *
 * Context: Any context a BPF program runs in.
 * Return: 1 if the bytes are valid strict UTF-8 (an empty buffer is), 0
 * if not, or if @buf is NULL (6.1's verifier lets a map lookup the
 * program did not check through).
 */
__bpf_kfunc int bpf_utf8val_check(const u8 *buf, u32 buf__sz)
{
	if (unlikely(!buf))
		return 0;
	if (vectors_allowed())
		return utf8val_check(buf, buf__sz);
	return utf8val_check_scalar(buf, buf__sz);
}

/**
 * bpf_utf8val_validate() - validate a buffer and say where and why it fails
 * @buf: the bytes, in the program's own writable memory (stack, map
 *	value, ring buffer record; not .rodata)
 * @buf__sz: their number; the verifier checks @buf holds that many
 * @flags: %UTF8VAL_* flags from utf8val.h, 0 for strict RFC 3629
 * @res: filled in whatever the verdict (see utf8val_validate())
 *
 * The kfunc form of utf8val_validate(), with the same flags, errors and
 * result. Unknown flag bits validate nothing and return %UTF8VAL_EFLAGS.
 *
 * Context: Any context a BPF program runs in.
 * Return: %UTF8VAL_OK (0) if valid, else the enum utf8val_error of the
 * first ill-formed subsequence, also in @res->error; -EINVAL, with @res
 * untouched, if @buf or @res is NULL (what 6.1's verifier may let
 * through).
 */
__bpf_kfunc int bpf_utf8val_validate(const u8 *buf, u32 buf__sz, u32 flags,
				     struct utf8val_result *res)
{
	if (unlikely(!buf || !res))
		return -EINVAL;
	if (vectors_allowed())
		return utf8val_validate(buf, buf__sz, flags, res);
	return utf8val_validate_scalar(buf, buf__sz, flags, res);
}

/*
 * KF_TRUSTED_ARGS: 6.12's verifier then refuses a pointer that may be
 * NULL (6.1's applies the flag to kernel objects only, hence the checks
 * above). From 7.0 every kfunc's arguments are trusted and the flag is
 * gone; the macro itself says which kernel this is.
 */
#ifndef KF_TRUSTED_ARGS
#define KF_TRUSTED_ARGS 0
#endif
BTF_KFUNCS_START(utf8val_kfunc_ids)
BTF_ID_FLAGS(func, bpf_utf8val_check, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, bpf_utf8val_validate, KF_TRUSTED_ARGS)
BTF_KFUNCS_END(utf8val_kfunc_ids)

static const struct btf_kfunc_id_set utf8val_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &utf8val_kfunc_ids,
};

/**
 * utf8val_bpf_init() - offer the kfuncs to BPF programs
 *
 * The kernel has no way to take kfuncs back: they go when the module's
 * BTF does, at unload, which the programs using them prevent.
 *
 * Return: 0, or the error of a registration that failed (such as
 * -ENOENT when the module was built without BTF).
 */
int __init utf8val_bpf_init(void)
{
	u32 i;
	int err;

	/*
	 * resolve_btfids only warns when a kfunc is missing from the module's
	 * BTF, and 6.1 registers a zero id without a word.
	 */
	for (i = 0; i < utf8val_kfunc_ids.cnt; i++) {
		if (!utf8val_kfunc_ids.pairs[i].id) {
			pr_err("kfunc %u has no BTF id: the module was built without its BTF\n", i);
			return -ENOENT;
		}
	}
	err = register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING,
					&utf8val_kfunc_set);
	if (!err)
		err = register_btf_kfunc_id_set(BPF_PROG_TYPE_SYSCALL,
						&utf8val_kfunc_set);
	if (err)
		pr_err("cannot register the BPF kfuncs: %d\n", err);
	return err;
}
