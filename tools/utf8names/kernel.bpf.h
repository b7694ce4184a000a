/* SPDX-License-Identifier: GPL-2.0 */
/*
 * utf8names.bpf.c's part: the kernel's numbers and types it reads. A BPF
 * object is one compilation unit, so its parts are headers it includes
 * once, in order.
 */
#ifndef UTF8NAMES_KERNEL_BPF_H
#define UTF8NAMES_KERNEL_BPF_H

#include <linux/types.h>

#define EACCES		13
#define EPERM		1
#define EFAULT		14
#define ENOMEM		12
#define ENAMETOOLONG	36
#define EILSEQ		84

/*
 * include/uapi/linux/magic.h and the file systems' ioctls (btrfs.h,
 * ocfs2's and bcachefs's): the file systems whose ioctls make names, and
 * what those take; include/linux/err.h
 */
#define BTRFS_SUPER_MAGIC		0x9123683e
#define BTRFS_IOC_SNAP_CREATE		0x50009401	/* vol_args */
#define BTRFS_IOC_SUBVOL_CREATE		0x5000940e	/* vol_args */
#define BTRFS_IOC_SNAP_CREATE_V2	0x50009417	/* vol_args_v2 */
#define BTRFS_IOC_SUBVOL_CREATE_V2	0x50009418	/* vol_args_v2 */
#define OCFS2_SUPER_MAGIC		0x7461636f
#define OCFS2_IOC_REFLINK		0x40186f04	/* reflink_arguments */
#define BCH_IOCTL_SUBVOLUME_CREATE	0x4020bc10	/* bch_ioctl_subvolume */
#define BCACHEFS_SUPER_MAGIC		0xca451a4e
#define MAX_ERRNO			4095
/* include/linux/fs.h, include/uapi/linux/stat.h */
#define MAY_WRITE			0x2
#define S_IFMT				00170000
#define S_IFDIR				0040000

/*
 * The kernel's types, only the members read here: CO-RE finds them in the
 * running kernel's BTF wherever they are.
 */
struct super_block {
	__u32 s_dev;
	unsigned long s_magic;
} __attribute__((preserve_access_index));

struct dentry;

struct inode {
	__u16 i_mode;
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
	struct dentry *d_parent;
	struct qstr d_name;
	struct inode *d_inode;
	struct super_block *d_sb;
} __attribute__((preserve_access_index));

struct path {
	struct dentry *dentry;
} __attribute__((preserve_access_index));

struct file {
	struct path f_path;
	struct inode *f_inode;
} __attribute__((preserve_access_index));

struct task_struct {
	unsigned int flags;
} __attribute__((preserve_access_index));

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h, 5.10 to 7.3 */

#endif /* UTF8NAMES_KERNEL_BPF_H */
