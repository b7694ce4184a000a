// SPDX-License-Identifier: GPL-2.0
/*
 * utf8names: a BPF LSM policy that keeps new file names strict UTF-8.
 *
 * Each hook that gives a file a new name passes the name, and for a
 * symlink its target too, to utf8val's kfunc; a name that is not UTF-8 is
 * refused with -EILSEQ and reported through a ring buffer. This program
 * only copies bytes: whether they are UTF-8 is utf8val's answer.
 *
 * The rule is about the name that ends up in a directory, whoever makes
 * it, so the inode hooks check every caller: the VFS calls them for every
 * name it makes (open(O_CREAT) through may_o_create(), mknod(), bind() of
 * a unix socket, mkdir, symlink, link, rename, io_uring's), and so do
 * file systems that make names in another one (overlayfs creating, copying
 * up and whiting out in its upper layer; mq_open() in mqueue), and kernel
 * threads (nfsd, ksmbd). The inode hooks see the file system the name
 * lands on: for a name made through overlayfs, the overlay's first, then
 * its upper layer's. (The path hooks would add nothing: every call that
 * reaches one but bcachefs's subvolume ioctl reaches an inode hook.)
 * Three ioctls make a name no inode hook sees, each from the kernel's
 * own copy of it: ocfs2's reflink, bcachefs's subvolume creation and
 * btrfs's subvolumes and snapshots. For those the name is judged as the
 * kernel function that looked it up returns (see the kernel's copies,
 * below), and refused at the permission check that follows. A name that
 * already exists (rename over a file, RENAME_EXCHANGE) is not new and
 * passes.
 *
 * The copy of the name is the calling task's own (task storage): a
 * per-CPU buffer would be shared by tasks that preempt each other. If the
 * kernel cannot give the task its storage, the name is refused.
 *
 * The loader sets the map settings (utf8names.h): audit (report, never
 * refuse) and some_fs (only names made on the file systems whose device
 * numbers, as the kernel keeps them in super_block.s_dev, are keys of
 * guarded). utf8names --reload changes both maps in place.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "../../utf8val.h"
#include "../../bpf/utf8val_kfuncs.h"
#include "utf8names.h"
#include "kernel.bpf.h"	/* the kernel's numbers and types */
#include "verdict.bpf.h"	/* the state, the shared maps, check_name() */

char LICENSE[] SEC("license") = "GPL";

/* --- the inode hooks: the file system the name lands on, any caller ---- */

static const struct super_block *inode_sb(const struct inode *dir)
{
	return BPF_CORE_READ(dir, i_sb);
}

/* open(O_CREAT), creat(), mknod() of a file, mq_open() */

SEC("lsm/inode_create")
int BPF_PROG(utf8names_inode_create, struct inode *dir, struct dentry *dentry,
	     unsigned short mode, int ret)
{
	if (ret)
		return ret;
	enter();
	return leave(check_name(inode_sb(dir), dentry, UTF8NAMES_CREATE));
}

SEC("lsm/inode_mknod")
int BPF_PROG(utf8names_inode_mknod, struct inode *dir, struct dentry *dentry,
	     unsigned short mode, unsigned int dev, int ret)
{
	if (ret)
		return ret;
	enter();
	return leave(check_name(inode_sb(dir), dentry, UTF8NAMES_MKNOD));
}

SEC("lsm/inode_mkdir")
int BPF_PROG(utf8names_inode_mkdir, struct inode *dir, struct dentry *dentry,
	     unsigned short mode, int ret)
{
	if (ret)
		return ret;
	enter();
	return leave(check_name(inode_sb(dir), dentry, UTF8NAMES_MKDIR));
}

SEC("lsm/inode_symlink")
int BPF_PROG(utf8names_inode_symlink, struct inode *dir, struct dentry *dentry,
	     const char *old_name, int ret)
{
	if (ret)
		return ret;
	enter();
	ret = check_name(inode_sb(dir), dentry, UTF8NAMES_SYMLINK);
	if (!ret)
		ret = check_target(inode_sb(dir), old_name);
	return leave(ret);
}

SEC("lsm/inode_link")
int BPF_PROG(utf8names_inode_link, struct dentry *old_dentry, struct inode *dir,
	     struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	enter();
	return leave(check_name(inode_sb(dir), new_dentry, UTF8NAMES_LINK));
}

SEC("lsm/inode_rename")
int BPF_PROG(utf8names_inode_rename, struct inode *old_dir,
	     struct dentry *old_dentry, struct inode *new_dir,
	     struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	enter();
	return leave(check_name(inode_sb(new_dir), new_dentry, UTF8NAMES_RENAME));
}

/* --- the kernel's copies: names no inode hook sees ----------------------- */

/*
 * Three ioctls make a name that no inode hook sees: ocfs2's
 * OCFS2_IOC_REFLINK and bcachefs's BCH_IOCTL_SUBVOLUME_CREATE take the new
 * path with user_path_create() (start_creating_user_path() from 6.18),
 * which returns it from filename_create(); btrfs's subvolume and snapshot
 * ioctls look their name up with lookup_one() (start_creating_killable()
 * from 6.18). Each function returns the new, negative dentry, named with
 * the kernel's own copy, which a second thread can no longer change; each
 * caller then asks inode_permission() for the right to write in the
 * parent folder before it makes the entry.
 *
 * So the file_ioctl hook arms the task for the length of the ioctl (the
 * fexit of the ioctl system call ends it). Each such dentry the task gets
 * meanwhile is judged (and reported) as the function returns it, and the
 * verdict given at the permission checks on its folder: the ioctl fails
 * there with it. Fail closed: a tracing program does not run in a task
 * while another task on the CPU is inside it, so an armed task that asks
 * to write in a folder where no name was judged is refused (EPERM). The
 * loader attaches these programs to the functions the kernel has; where
 * it has none, those ioctls are refused (EPERM), not left unchecked.
 */
enum armed_for {
	ARMED_NONE,
	ARMED_PATH,	/* filename_create() */
	ARMED_LOOKUP,	/* lookup_one() in the ioctl's folder (btrfs) */
};

struct pending {
	__u32 armed;			/* enum armed_for */
	__u32 op;			/* the armed ioctl's */
	const void *armed_in;		/* btrfs: its folder's dentry */
	const struct inode *dir;	/* the folder of the last name judged */
	__s32 verdict;			/* on it: 0 or the refusal */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct pending);
} pendings SEC(".maps");

/* set by the loader: this kernel has no function to see the copy with */
const volatile bool path_blind;
const volatile bool lookup_blind;

static struct pending *pending_of_task(bool create)
{
	return bpf_task_storage_get(&pendings, bpf_get_current_task_btf(), NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* @p armed for @armed, keeping nr_pending, the count of armed tasks */
static void become(struct pending *p, enum armed_for armed)
{
	if (armed && !p->armed)
		__sync_fetch_and_add(&nr_pending, 1);
	else if (!armed && p->armed)
		__sync_fetch_and_add(&nr_pending, -1);
	p->armed = armed;
	p->dir = NULL;
	p->verdict = 0;
}

/* The dentry a function returned, or NULL for an error. */
static struct dentry *returned_dentry(void *ctx)
{
	__u64 ret;

	if (bpf_get_func_ret(ctx, &ret) || !ret || ret >= (__u64)-MAX_ERRNO)
		return NULL;
	return (struct dentry *)ret;
}

/*
 * judge_copy() - the verdict on the dentry a function returned in @ctx,
 * if the task is armed for it (@armed): reported if refused, and kept
 * for the permission checks on its folder.
 */
static void judge_copy(void *ctx, enum armed_for armed)
{
	struct dentry *dentry;
	struct pending *p;
	int verdict;

	if (!nr_pending)	/* (no task is armed: the common case) */
		return;
	p = pending_of_task(false);
	if (!p || p->armed != armed)
		return;
	dentry = returned_dentry(ctx);
	if (!dentry)
		return;
	if (armed == ARMED_LOOKUP && BPF_CORE_READ(dentry, d_parent) != p->armed_in)
		return;
	enter();
	verdict = check_name(BPF_CORE_READ(dentry, d_sb), dentry, p->op);
	p->dir = BPF_CORE_READ(dentry, d_parent, d_inode);
	p->verdict = verdict;
	leave(0);
}

/* filename_create(), inside user_path_create() */
SEC("fexit/filename_create")
int BPF_PROG(utf8names_path_created)
{
	judge_copy(ctx, ARMED_PATH);
	return 0;
}

/* lookup_one(), or start_creating_killable(): in btrfs_mksubvol() */
SEC("fexit/lookup_one")
int BPF_PROG(utf8names_looked_up)
{
	judge_copy(ctx, ARMED_LOOKUP);
	return 0;
}

/* The task's ioctl is done: what it armed ends. */
static void ioctl_done(void)
{
	struct pending *p;

	if (!nr_pending)
		return;
	p = pending_of_task(false);
	if (p)
		become(p, ARMED_NONE);
}

/* the ioctl system call's entry point: the loader names this CPU's */
SEC("fexit/__x64_sys_ioctl")
int BPF_PROG(utf8names_ioctl_done)
{
	ioctl_done();
	return 0;
}

/* and the 32-bit one's */
SEC("fexit/__ia32_compat_sys_ioctl")
int BPF_PROG(utf8names_ioctl_compat_done)
{
	ioctl_done();
	return 0;
}

/* a task that ends armed (killed in its ioctl) is no longer counted */
SEC("lsm/task_free")
int BPF_PROG(utf8names_task_free, struct task_struct *task)
{
	struct pending *p;

	if (!nr_pending)
		return 0;
	p = bpf_task_storage_get(&pendings, task, NULL, 0);
	if (p)
		become(p, ARMED_NONE);
	return 0;
}

/*
 * The verdict on a name judged in @inode, for an armed task; and for one
 * that asks to write in a folder where no name was judged, a refusal.
 */
SEC("lsm/inode_permission")
int BPF_PROG(utf8names_inode_permission, struct inode *inode, int mask, int ret)
{
	struct pending *p;
	int verdict;

	if (ret || !nr_pending)
		return ret;
	p = pending_of_task(false);
	if (!p || !p->armed)
		return 0;
	if (p->dir == inode)
		verdict = p->verdict;
	else if ((mask & MAY_WRITE) &&
		 (BPF_CORE_READ(inode, i_mode) & S_IFMT) == S_IFDIR)
		verdict = refuse(-EPERM);
	else
		return 0;
	enter();
	if (detached)
		verdict = 0;
	if (verdict < -MAX_ERRNO || verdict > 0)	/* (for the verifier) */
		verdict = -EACCES;
	return leave(verdict);
}

/*
 * arm_task() - arm the task for @armed, on behalf of its ioctl @op on
 * @file, in flight (it reads detached): 0, or the refusal where it cannot.
 */
static int arm_task(struct file *file, enum armed_for armed, enum utf8names_op op)
{
	struct pending *p;

	p = pending_of_task(true);
	if (p)
		become(p, ARMED_NONE);
	if (detached)
		return 0;
	if (armed == ARMED_PATH ? path_blind : lookup_blind)
		return refuse(-EPERM);
	if (!p)
		return refuse(-ENOMEM);
	p->armed_in = BPF_CORE_READ(file, f_path.dentry);
	p->op = op;
	become(p, armed);
	return 0;
}

/*
 * The ioctl @cmd on @file: arm the task if it makes a name only the
 * kernel's copy shows (wherever that lands: check_name() applies
 * --mount), ending what an earlier ioctl left armed.
 */
static int arm(struct file *file, unsigned int cmd)
{
	const struct super_block *sb = BPF_CORE_READ(file, f_inode, i_sb);
	enum armed_for armed = ARMED_NONE;
	enum utf8names_op op = UTF8NAMES_SNAPSHOT;
	unsigned long want = 0;
	struct pending *p;

	switch (cmd) {
	case BTRFS_IOC_SUBVOL_CREATE:
	case BTRFS_IOC_SUBVOL_CREATE_V2:
		op = UTF8NAMES_SUBVOLUME;
		want = BTRFS_SUPER_MAGIC;
		armed = ARMED_LOOKUP;
		break;
	case BTRFS_IOC_SNAP_CREATE:
	case BTRFS_IOC_SNAP_CREATE_V2:
		want = BTRFS_SUPER_MAGIC;
		armed = ARMED_LOOKUP;
		break;
	case OCFS2_IOC_REFLINK:
		op = UTF8NAMES_REFLINK;
		want = OCFS2_SUPER_MAGIC;
		armed = ARMED_PATH;
		break;
	case BCH_IOCTL_SUBVOLUME_CREATE:
		op = UTF8NAMES_SUBVOLUME;
		want = BCACHEFS_SUPER_MAGIC;
		armed = ARMED_PATH;
		break;
	}
	if (armed && BPF_CORE_READ(sb, s_magic) != want)
		armed = ARMED_NONE;
	if (!armed && !nr_pending)
		return 0;	/* (every other ioctl: no atomics) */
	if (armed) {
		enter();
		return leave(arm_task(file, armed, op));
	}
	p = pending_of_task(false);
	if (p)
		become(p, ARMED_NONE);
	return 0;
}

SEC("lsm/file_ioctl")
int BPF_PROG(utf8names_file_ioctl, struct file *file, unsigned int cmd,
	     unsigned long arg, int ret)
{
	if (ret)
		return ret;
	return arm(file, cmd);
}

/* 32-bit callers, where the kernel has a hook of their own */
SEC("lsm/file_ioctl_compat")
int BPF_PROG(utf8names_file_ioctl_compat, struct file *file, unsigned int cmd,
	     unsigned long arg, int ret)
{
	if (ret)
		return ret;
	return arm(file, cmd);
}
