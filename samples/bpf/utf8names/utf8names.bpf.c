// SPDX-License-Identifier: GPL-2.0
/*
 * utf8names: a BPF LSM policy that keeps new file names strict UTF-8.
 *
 * Each hook that gives a file a new name passes the name, and for a
 * symlink its target too, to utf8val's kfunc; a name that is not UTF-8 is
 * refused with -EILSEQ and reported through a ring buffer. This program
 * only copies bytes: whether they are UTF-8 is utf8val's answer.
 *
 * The inode hooks, not the path ones: every name a file system is asked
 * to make passes them, whoever asks (open(O_CREAT), mknod(), bind() of a
 * socket, mq_open(), but also nfsd, ksmbd or overlayfs, which the path
 * hooks never see). They know the file system, not the mount.
 *
 * The loader sets, before loading: audit (report, never refuse), and
 * one_fs with fs_dev (only names made on the file system whose device
 * number, as the kernel keeps it, is fs_dev).
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
#define ENAMETOOLONG	36
#define EILSEQ		84

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
} __attribute__((preserve_access_index));

const volatile bool audit;
const volatile bool one_fs;
const volatile __u32 fs_dev;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} events SEC(".maps");

/* one record's room per CPU: too big for the 512-byte BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
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

static bool on_our_fs(const struct inode *dir)
{
	return !one_fs || BPF_CORE_READ(dir, i_sb, s_dev) == fs_dev;
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
		return -ENAMETOOLONG;	/* no kernel makes such a name */
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

/* check_name() - the verdict on the name @dentry will have */
static int check_name(const struct inode *dir, struct dentry *dentry,
		      enum utf8names_op op)
{
	struct utf8names_event *e;
	const unsigned char *name;
	__u32 zero = 0;
	__u32 len;

	if (!on_our_fs(dir))
		return 0;
	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e)
		return 0;
	len = BPF_CORE_READ(dentry, d_name.len);
	name = BPF_CORE_READ(dentry, d_name.name);
	if (len > UTF8NAMES_NAME_MAX)
		return -ENAMETOOLONG;
	if (bpf_probe_read_kernel(e->name, len, name))
		return -EFAULT;		/* refuse what cannot be read */
	return check(e, len, op, false);
}

SEC("lsm/inode_create")
int BPF_PROG(utf8names_create, struct inode *dir, struct dentry *dentry,
	     unsigned short mode, int ret)
{
	if (ret)
		return ret;
	return check_name(dir, dentry, UTF8NAMES_CREATE);
}

SEC("lsm/inode_mknod")
int BPF_PROG(utf8names_mknod, struct inode *dir, struct dentry *dentry,
	     unsigned short mode, unsigned int dev, int ret)
{
	if (ret)
		return ret;
	return check_name(dir, dentry, UTF8NAMES_MKNOD);
}

SEC("lsm/inode_mkdir")
int BPF_PROG(utf8names_mkdir, struct inode *dir, struct dentry *dentry,
	     unsigned short mode, int ret)
{
	if (ret)
		return ret;
	return check_name(dir, dentry, UTF8NAMES_MKDIR);
}

SEC("lsm/inode_symlink")
int BPF_PROG(utf8names_symlink, struct inode *dir, struct dentry *dentry,
	     const char *old_name, int ret)
{
	struct utf8names_event *e;
	__u32 zero = 0;
	long len;

	if (ret)
		return ret;
	ret = check_name(dir, dentry, UTF8NAMES_SYMLINK);
	if (ret || !on_our_fs(dir))
		return ret;
	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e)
		return 0;
	/* the target: a NUL-terminated path, up to PATH_MAX with its NUL */
	len = bpf_probe_read_kernel_str(e->name, sizeof(e->name), old_name);
	if (len <= 0)
		return -EFAULT;
	return check(e, len - 1, UTF8NAMES_SYMLINK, true);
}

SEC("lsm/inode_link")
int BPF_PROG(utf8names_link, struct dentry *old_dentry, struct inode *dir,
	     struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	return check_name(dir, new_dentry, UTF8NAMES_LINK);
}

/* RENAME_EXCHANGE: the hook runs for each direction, so both names */
SEC("lsm/inode_rename")
int BPF_PROG(utf8names_rename, struct inode *old_dir, struct dentry *old_dentry,
	     struct inode *new_dir, struct dentry *new_dentry, int ret)
{
	if (ret)
		return ret;
	return check_name(new_dir, new_dentry, UTF8NAMES_RENAME);
}
