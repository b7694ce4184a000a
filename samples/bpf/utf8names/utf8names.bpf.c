// SPDX-License-Identifier: GPL-2.0
/*
 * utf8names: a BPF LSM policy that keeps new file names strict UTF-8.
 *
 * Each hook that gives a file a new name passes the name, and for a
 * symlink its target too, to utf8val's kfunc; a name that is not UTF-8 is
 * refused with -EILSEQ and reported through a ring buffer. This program
 * only copies bytes: whether they are UTF-8 is utf8val's answer.
 *
 * Which hooks: the path hooks for tasks (open(O_CREAT), mknod(), bind()
 * of a unix socket, mkdir, symlink, link, rename, io_uring's too); the
 * inode hooks only for kernel threads, which make names without a path
 * (nfsd, ksmbd). The inode hooks also run for names a file system makes
 * for itself, as overlayfs does when it copies up a file or whites one
 * out under its existing name: refusing those would break old files.
 * A name that already exists (rename over a file, RENAME_EXCHANGE) is
 * not new and passes.
 *
 * The copy of the name is the calling task's own (task storage): a
 * per-CPU buffer would be shared by tasks that preempt each other. If the
 * kernel cannot give the task its storage, the name is refused.
 *
 * The loader sets, before loading: audit (report, never refuse) and
 * one_fs with fs_dev (only names made on the file system whose device
 * number, as the kernel keeps it in super_block.s_dev, is fs_dev).
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "../../../utf8val.h"
#include "../../../bpf/utf8val_kfuncs.h"
#include "utf8names.h"

#define EFAULT		14
#define ENOMEM		12
#define ENAMETOOLONG	36
#define EILSEQ		84

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h, 6.1 and 6.12 */
#define S_IFMT		00170000
#define S_IFREG		0100000

/*
 * The kernel's types, only the members read here: CO-RE finds them in the
 * running kernel's BTF wherever they are.
 */
struct super_block {
	__u32 s_dev;
} __attribute__((preserve_access_index));

struct inode {
	struct super_block *i_sb;
} __attribute__((preserve_access_index));

struct vfsmount {
	struct super_block *mnt_sb;
} __attribute__((preserve_access_index));

struct path {
	struct vfsmount *mnt;
} __attribute__((preserve_access_index));

struct qstr {
	union {
		struct {
			__u32 hash;
			__u32 len;
		};
		__u64 hash_len;
	};
	const unsigned char *name;
} __attribute__((preserve_access_index));

struct dentry {
	struct qstr d_name;
	struct inode *d_inode;
} __attribute__((preserve_access_index));

struct task_struct {
	unsigned int flags;
} __attribute__((preserve_access_index));

const volatile bool audit;
const volatile bool one_fs;
const volatile __u32 fs_dev;

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

/* reports the ring buffer had no room for (the refusals still happened) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

char LICENSE[] SEC("license") = "GPL";

static int refuse(int err)
{
	return audit ? 0 : err;
}

static bool is_kthread(void)
{
	return bpf_get_current_task_btf()->flags & PF_KTHREAD;
}

static bool on_our_fs(const struct super_block *sb)
{
	return !one_fs || BPF_CORE_READ(sb, s_dev) == fs_dev;
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
	int verdict = audit ? 0 : -EILSEQ;
	__u32 zero = 0;
	__u64 *n;
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
	if (bpf_ringbuf_output(&events, e,
			       offsetof(struct utf8names_event, name) + len, 0)) {
		n = bpf_map_lookup_elem(&lost, &zero);
		if (n)
			__sync_fetch_and_add(n, 1);
	}
	/* not e->verdict: the verifier must see the return is 0 or -EILSEQ */
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

static const struct super_block *path_sb(const struct path *dir)
{
	return BPF_CORE_READ(dir, mnt, mnt_sb);
}

static const struct super_block *inode_sb(const struct inode *dir)
{
	return BPF_CORE_READ(dir, i_sb);
}

/* --- tasks: the path hooks ------------------------------------------- */

/* open(O_CREAT) and mknod() of a file; mknod() of anything else, bind() */
SEC("lsm/path_mknod")
int BPF_PROG(utf8names_path_mknod, const struct path *dir,
	     struct dentry *dentry, unsigned short mode, unsigned int dev,
	     int ret)
{
	if (ret)
		return ret;
	return check_name(path_sb(dir), dentry, (mode & S_IFMT) == S_IFREG ?
			  UTF8NAMES_CREATE : UTF8NAMES_MKNOD);
}

SEC("lsm/path_mkdir")
int BPF_PROG(utf8names_path_mkdir, const struct path *dir,
	     struct dentry *dentry, unsigned short mode, int ret)
{
	if (ret)
		return ret;
	return check_name(path_sb(dir), dentry, UTF8NAMES_MKDIR);
}

SEC("lsm/path_symlink")
int BPF_PROG(utf8names_path_symlink, const struct path *dir,
	     struct dentry *dentry, const char *old_name, int ret)
{
	if (ret)
		return ret;
	ret = check_name(path_sb(dir), dentry, UTF8NAMES_SYMLINK);
	if (ret)
		return ret;
	return check_target(path_sb(dir), old_name);
}

SEC("lsm/path_link")
int BPF_PROG(utf8names_path_link, struct dentry *old_dentry,
	     const struct path *new_dir, struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	return check_name(path_sb(new_dir), new_dentry, UTF8NAMES_LINK);
}

SEC("lsm/path_rename")
int BPF_PROG(utf8names_path_rename, const struct path *old_dir,
	     struct dentry *old_dentry, const struct path *new_dir,
	     struct dentry *new_dentry, unsigned int flags, int ret)
{
	if (ret)
		return ret;
	return check_name(path_sb(new_dir), new_dentry, UTF8NAMES_RENAME);
}

/* --- kernel threads (nfsd, ksmbd): the inode hooks --------------------- */

SEC("lsm/inode_create")
int BPF_PROG(utf8names_inode_create, struct inode *dir, struct dentry *dentry,
	     unsigned short mode, int ret)
{
	if (ret || !is_kthread())
		return ret;
	return check_name(inode_sb(dir), dentry, UTF8NAMES_CREATE);
}

SEC("lsm/inode_mknod")
int BPF_PROG(utf8names_inode_mknod, struct inode *dir, struct dentry *dentry,
	     unsigned short mode, unsigned int dev, int ret)
{
	if (ret || !is_kthread())
		return ret;
	return check_name(inode_sb(dir), dentry, UTF8NAMES_MKNOD);
}

SEC("lsm/inode_mkdir")
int BPF_PROG(utf8names_inode_mkdir, struct inode *dir, struct dentry *dentry,
	     unsigned short mode, int ret)
{
	if (ret || !is_kthread())
		return ret;
	return check_name(inode_sb(dir), dentry, UTF8NAMES_MKDIR);
}

SEC("lsm/inode_symlink")
int BPF_PROG(utf8names_inode_symlink, struct inode *dir, struct dentry *dentry,
	     const char *old_name, int ret)
{
	if (ret || !is_kthread())
		return ret;
	ret = check_name(inode_sb(dir), dentry, UTF8NAMES_SYMLINK);
	if (ret)
		return ret;
	return check_target(inode_sb(dir), old_name);
}

SEC("lsm/inode_link")
int BPF_PROG(utf8names_inode_link, struct dentry *old_dentry, struct inode *dir,
	     struct dentry *new_dentry, int ret)
{
	if (ret || !is_kthread())
		return ret;
	return check_name(inode_sb(dir), new_dentry, UTF8NAMES_LINK);
}

SEC("lsm/inode_rename")
int BPF_PROG(utf8names_inode_rename, struct inode *old_dir,
	     struct dentry *old_dentry, struct inode *new_dir,
	     struct dentry *new_dentry, int ret)
{
	if (ret || !is_kthread())
		return ret;
	return check_name(inode_sb(new_dir), new_dentry, UTF8NAMES_RENAME);
}
