/* SPDX-License-Identifier: GPL-2.0 */
/*
 * utf8names.bpf.c's part: the policy's state and maps, and the verdict on
 * one name or symlink target, which every hook asks for. Its globals are
 * in the order the loader's skeleton has always had them.
 */
#ifndef UTF8NAMES_VERDICT_BPF_H
#define UTF8NAMES_VERDICT_BPF_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "../../utf8val.h"
#include "../../bpf/utf8val_kfuncs.h"
#include "utf8names.h"
#include "kernel.bpf.h"

/*
 * Set by the loader to end the policy (on a signal, or utf8names
 * --detach) before it unlinks the programs: a CPU already in the old
 * trampoline may run a program later, and the policy must end when the
 * loader says so. It then waits for the hooks that read it unset (see
 * in_flight()). It is the state's first byte in every version: a loader
 * ends a policy another version pinned by it.
 */
bool detached;

/* tasks armed by an ioctl (pendings, in utf8names.bpf.c): the hooks' fast path */
__u64 nr_pending;

/* the number of links the loader made: --status counts their pins */
__u32 nr_links;

/*
 * The loader's BPF object, hashed: a policy pinned by another build (before
 * an upgrade) may lay out its maps otherwise, so a loader gives settings
 * to, or follows, only its own; --pin replaces another's.
 */
__u64 object_id;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct utf8names_settings);
} settings SEC(".maps");

/* the guarded file systems' s_dev (some_fs), filled before attaching */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, UTF8NAMES_MOUNTS_MAX);
	__type(key, __u32);
	__type(value, __u8);
} guarded SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} events SEC(".maps");

/* each task's room for one record: too big for the 512-byte BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct utf8names_event);
} scratch SEC(".maps");

/*
 * Counts, per CPU: [UTF8NAMES_REPORTED] names refused (or audited), each
 * counted before its report is sent; [UTF8NAMES_LOST] reports the ring
 * buffer had no room for (the refusals still happened). A reader that
 * has printed reported - lost records has seen them all.
 * [UTF8NAMES_INFLIGHT] is a gauge, not a count: the hooks running on the
 * CPU, between in_flight(1) and in_flight(-1).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UTF8NAMES_NR_COUNTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

/* What the policy does now; with no settings, it enforces everywhere. */
static struct utf8names_settings now(void)
{
	struct utf8names_settings none = { 0 };
	__u32 key = 0;
	struct utf8names_settings *s = bpf_map_lookup_elem(&settings, &key);

	return s ? *s : none;
}

static int refuse(int err)
{
	return now().audit ? 0 : err;
}

static bool on_our_fs(const struct super_block *sb)
{
	__u32 dev;

	if (detached)
		return false;
	if (!now().some_fs)
		return true;
	dev = BPF_CORE_READ(sb, s_dev);
	return bpf_map_lookup_elem(&guarded, &dev);
}

static void count(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&counts, &which);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/*
 * A hook's run, from before it reads detached until its refusal is
 * counted, counts in [UTF8NAMES_INFLIGHT] of its CPU (programs do not
 * migrate): a loader that has set detached waits until it has seen each
 * CPU's count at 0 once, and no refusal can follow then. (RCU cannot
 * tell it so: a CPU already in an old trampoline may run the program
 * after any grace period user space can wait for.)
 *
 * A fetching atomic, which the JITs make fully ordered (lock xadd on
 * x86, ldaddal or an LL/SC loop with dmb on arm64; a plain atomic add is
 * stadd there, which orders nothing): the count is visible before
 * detached is read, and the refusal's count before the hook leaves, as
 * the loader sets detached before it reads the counts.
 */
static void in_flight(__s64 change)
{
	__u32 which = UTF8NAMES_INFLIGHT;
	__u64 *n = bpf_map_lookup_elem(&counts, &which);
	__u64 was;

	if (!n)
		return;
	was = __sync_fetch_and_add(n, change);
	asm volatile("" : : "r"(was));	/* used, or clang adds without fetching */
}

static void enter(void)
{
	in_flight(1);
}

static int leave(int ret)
{
	in_flight(-1);
	return ret;
}

/* The task's own record, or NULL if the kernel cannot make it. */
static struct utf8names_event *record(void)
{
	return bpf_task_storage_get(&scratch, bpf_get_current_task_btf(), NULL,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
}

/*
 * check() - the verdict on the @len bytes now in @e->name: 0, or -EILSEQ
 * (reported), or 0 with a report in audit mode.
 */
static int check(struct utf8names_event *e, __u32 len, enum utf8names_op op,
		 bool target)
{
	/*
	 * Kernel threads get EACCES: nfsd has no answer for EILSEQ (it
	 * warns, and tells the client EIO), nor has ksmbd.
	 */
	int verdict = now().audit ? 0 :
		      bpf_get_current_task_btf()->flags & PF_KTHREAD ? -EACCES : -EILSEQ;
	__u64 id;

	if (len > UTF8NAMES_NAME_MAX)
		return refuse(-ENAMETOOLONG);
	if (bpf_utf8val_validate(e->name, len, 0, &e->res) == UTF8VAL_OK)
		return 0;
	id = bpf_get_current_pid_tgid();
	e->pid = id >> 32;
	e->uid = (__u32)bpf_get_current_uid_gid();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->op = op;
	e->target = target;
	e->verdict = verdict;
	e->len = len;
	count(UTF8NAMES_REPORTED);
	if (bpf_ringbuf_output(&events, e,
			       offsetof(struct utf8names_event, name) + len, 0))
		count(UTF8NAMES_LOST);
	return verdict;
}

/* check_name() - the verdict on the new name @dentry is to have */
static int check_name(const struct super_block *sb, struct dentry *dentry,
		      enum utf8names_op op)
{
	struct utf8names_event *e;
	__u32 len;

	if (!on_our_fs(sb))
		return 0;
	if (BPF_CORE_READ(dentry, d_inode))
		return 0;	/* it exists: not a new name */
	e = record();
	if (!e)
		return refuse(-ENOMEM);
	len = BPF_CORE_READ(dentry, d_name.len);
	if (len > UTF8NAMES_NAME_MAX)
		return refuse(-ENAMETOOLONG);
	if (bpf_probe_read_kernel(e->name, len, BPF_CORE_READ(dentry, d_name.name)))
		return refuse(-EFAULT);
	return check(e, len, op, false);
}

/* check_target() - the verdict on a new symlink's target */
static int check_target(const struct super_block *sb, const char *target)
{
	struct utf8names_event *e;
	long len;

	if (!on_our_fs(sb))
		return 0;
	e = record();
	if (!e)
		return refuse(-ENOMEM);
	/* a NUL-terminated path; one that fills the buffer is too long */
	len = bpf_probe_read_kernel_str(e->name, sizeof(e->name), target);
	if (len <= 0)
		return refuse(-EFAULT);
	if (len == sizeof(e->name))
		return refuse(-ENAMETOOLONG);
	return check(e, len - 1, UTF8NAMES_SYMLINK, true);
}

#endif /* UTF8NAMES_VERDICT_BPF_H */
