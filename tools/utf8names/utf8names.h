/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the utf8names BPF program tells its loader: one record per name
 * it refused (or, in audit mode, would have refused), through a ring
 * buffer.
 */
#ifndef UTF8NAMES_H
#define UTF8NAMES_H

/*
 * The room for a name or a symlink target: PATH_MAX (4096, NUL included)
 * and one more byte, to tell a longer target.
 */
#define UTF8NAMES_NAME_MAX	4097

/* the operation that would have made the name */
enum utf8names_op {
	UTF8NAMES_CREATE,	/* open(O_CREAT), mknod() of a file */
	UTF8NAMES_MKNOD,	/* mknod() of a device or FIFO, bind() of a socket */
	UTF8NAMES_MKDIR,
	UTF8NAMES_SYMLINK,	/* the link's name, or (what) its target */
	UTF8NAMES_LINK,
	UTF8NAMES_RENAME,
	UTF8NAMES_SUBVOLUME,	/* btrfs's ioctls */
	UTF8NAMES_SNAPSHOT,
	UTF8NAMES_REFLINK,	/* ocfs2's reflink ioctl */
	UTF8NAMES_NR_OPS,
};

/*
 * The program's counters (map counts), per CPU. Their order stays in
 * every version, as the state's detached flag does: a loader ends a
 * policy another version pinned by them (policy.c, end_programs()).
 */
enum utf8names_count {
	UTF8NAMES_REPORTED,	/* names refused, or audited */
	UTF8NAMES_LOST,		/* of those, reports the ring buffer dropped */
	UTF8NAMES_INFLIGHT,	/* hooks from before reading detached until done */
	UTF8NAMES_NR_COUNTS,
};

/*
 * What the policy does (map settings), which utf8names --reload changes
 * in place: report and never refuse (audit), and only on the file
 * systems in map guarded (some_fs).
 */
struct utf8names_settings {
	__u8 audit;
	__u8 some_fs;
};

/* how many file systems --mount can name */
#define UTF8NAMES_MOUNTS_MAX	64

struct utf8names_event {
	__u32 pid;		/* thread group (process) id */
	__u32 uid;
	char comm[16];
	__u32 op;		/* enum utf8names_op */
	__u32 target;		/* 1: a symlink's target, 0: the new name */
	__s32 verdict;		/* -EILSEQ refused, 0 allowed (audit mode) */
	__u32 len;		/* bytes in name[] */
	struct utf8val_result res;	/* where and why it is not UTF-8 */
	__u8 name[UTF8NAMES_NAME_MAX];	/* only len bytes are sent */
};

#endif /* UTF8NAMES_H */
