// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: commit one bug of the kind named by bug=, in module code that
 * calls into utf8val, so that the debug guest proves each detector is live.
 * A run that loads this module must fail; the real run must be clean.
 * Built only on request (UTF8VAL_INJECT=1, the debug guest kernels).
 *
 * The bug is committed by a kernel thread of its own. A BUG() (the
 * hardened usercopy's, FORTIFY_SOURCE's) ends that thread, and with
 * oops=panic off (scripts/guest/run's inject boots) not the kernel; the
 * module still loads and unloads whole. One boot then proves every
 * detector, one bug after another.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kfence.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "../utf8val.h"

static char *bug = "none";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "oob, double-free, leak, lock-order, sleep-in-atomic, preempt, ubsan, usercopy, fortify, list, kfence or race");

static DEFINE_MUTEX(lock_a);
static DEFINE_MUTEX(lock_b);
static DEFINE_SPINLOCK(atomic_lock);
static int index_past_end = 8;
module_param(index_past_end, int, 0444);
MODULE_PARM_DESC(index_past_end, "how far past the end the bounds bugs reach (the compiler cannot know)");

/* An object KFENCE guards, from the sampled allocations; NULL if none. */
static u8 *kfence_object(void)
{
	int i;

	for (i = 0; i < 1000; i++) {	/* 20 s at most */
		u8 *p = kmalloc(32, GFP_KERNEL);

		if (!p || is_kfence_address(p))
			return p;
		kfree(p);
		msleep(20);
	}
	return NULL;
}

/*
 * An object KASAN checks: KFENCE samples some allocations and then
 * handles their frees itself, where KASAN would not see a bad free.
 */
static u8 *kasan_object(size_t size)
{
	u8 *sampled = NULL, *p;

	p = kmalloc(size, GFP_KERNEL);
	if (p && is_kfence_address(p)) {
		sampled = p;
		p = kmalloc(size, GFP_KERNEL);	/* the next one is not sampled */
	}
	kfree(sampled);
	return p;
}

/*
 * The counter bug utf8val once had: valid bytes summed with plain
 * read-modify-writes from two tasks at once.
 */
static unsigned long racy_bytes;

static void count_valid_bytes(void)
{
	unsigned long end = jiffies + HZ;
	static const u8 text[] = "caf\xc3\xa9";

	while (time_before(jiffies, end)) {
		if (utf8val_check(text, sizeof(text) - 1))
			racy_bytes += sizeof(text) - 1;
		cpu_relax();
	}
}

static int race_thread(void *unused)
{
	count_valid_bytes();
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

static void race(void)
{
	struct task_struct *other = kthread_run(race_thread, NULL, "utf8val-racer");

	if (IS_ERR(other))
		return;
	count_valid_bytes();
	kthread_stop(other);
	pr_info("%lu bytes\n", racy_bytes);
}

/* Commits the bug= kind of bug. */
static int commit(void)
{
	struct utf8val_result res;
	struct list_head head, other, entry;
	u8 *buf;

	if (!strcmp(bug, "oob")) {		/* KASAN */
		buf = kasan_object(16);
		if (!buf)
			return -ENOMEM;
		memcpy(buf, "valid", 5);
		utf8val_validate(buf, 5, 0, &res);
		buf[16 + index_past_end % 8] = 0;
		kfree(buf);
	} else if (!strcmp(bug, "double-free")) {	/* KASAN */
		buf = kasan_object(16);
		if (!buf)
			return -ENOMEM;
		kfree(buf);
		kfree(buf);
	} else if (!strcmp(bug, "leak")) {	/* kmemleak */
		buf = kmalloc(64, GFP_KERNEL);
		if (buf)
			utf8val_validate(buf, 0, 0, &res);
		buf = NULL;
	} else if (!strcmp(bug, "lock-order")) {	/* lockdep */
		mutex_lock(&lock_a);
		mutex_lock(&lock_b);
		mutex_unlock(&lock_b);
		mutex_unlock(&lock_a);
		mutex_lock(&lock_b);
		mutex_lock(&lock_a);
		mutex_unlock(&lock_a);
		mutex_unlock(&lock_b);
	} else if (!strcmp(bug, "sleep-in-atomic")) {	/* DEBUG_ATOMIC_SLEEP */
		spin_lock(&atomic_lock);
		mutex_lock(&lock_a);	/* might_sleep() under a spinlock */
		mutex_unlock(&lock_a);
		spin_unlock(&atomic_lock);
	} else if (!strcmp(bug, "preempt")) {	/* DEBUG_PREEMPT */
		pr_info("on CPU %d\n", smp_processor_id());
	} else if (!strcmp(bug, "usercopy")) {	/* HARDENED_USERCOPY */
		/*
		 * Kernel text to user space: refused before any copy. A
		 * run-time length, which check_object_size() checks.
		 */
		if (copy_to_user((void __user *)4096, (const void *)kfree,
				 8 + index_past_end))
			pr_info("usercopy: not copied\n");
	} else if (!strcmp(bug, "fortify")) {	/* FORTIFY_SOURCE */
		u8 small[8];

		/* a run-time length past a known-size buffer */
		memcpy(small, "0123456789abcdef", 9 + index_past_end % 8);
		utf8val_validate(small, sizeof(small), 0, &res);
	} else if (!strcmp(bug, "list")) {	/* DEBUG_LIST */
		INIT_LIST_HEAD(&head);
		INIT_LIST_HEAD(&other);
		head.next = &other;	/* other.prev is not &head */
		list_add(&entry, &head);
	} else if (!strcmp(bug, "kfence")) {	/* KFENCE */
		buf = kfence_object();
		if (!buf)
			return -ENOMEM;
		/* KFENCE puts the object against one of its guard pages */
		if (PAGE_ALIGNED(buf + 32))
			pr_info("read %u\n", buf[32 + index_past_end % 8]);
		else
			pr_info("read %u\n", buf[index_past_end % 8 - 1]);
		kfree(buf);
	} else if (!strcmp(bug, "ubsan")) {	/* UBSAN_BOUNDS */
		u8 small[4] = { 'a', 'b', 'c', 'd' };
		/* a module parameter: the compiler cannot see it is past the end */
		int i = 4 + index_past_end % 4;

		pr_info("read %u\n", small[i]);
	} else if (!strcmp(bug, "race")) {	/* KCSAN */
		race();
	} else {
		pr_err("unknown bug %s\n", bug);
		return -EINVAL;
	}
	pr_info("injected: %s\n", bug);
	return 0;
}

static DECLARE_COMPLETION(committed);
static int commit_result;

static int commit_thread(void *unused)
{
	commit_result = commit();
	complete(&committed);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

static int __init utf8val_inject_init(void)
{
	struct task_struct *task;

	task = kthread_create(commit_thread, NULL, "utf8val-commit");
	if (IS_ERR(task))
		return PTR_ERR(task);
	get_task_struct(task);
	wake_up_process(task);
	/*
	 * Until the bug is committed, or its BUG() ended the thread: that
	 * ends in do_exit(), which runs none of this module's code again.
	 */
	while (!completion_done(&committed) && !(READ_ONCE(task->flags) & PF_EXITING))
		msleep(20);
	if (completion_done(&committed))
		kthread_stop(task);
	else	/* commit_result stays 0: the module loads, for rmmod */
		pr_info("%s: its thread was ended\n", bug);
	put_task_struct(task);
	return commit_result;
}

static void __exit utf8val_inject_exit(void)
{
}

module_init(utf8val_inject_init);
module_exit(utf8val_inject_exit);

MODULE_DESCRIPTION("utf8val test-only bug injection: proves the detectors are live");
MODULE_LICENSE("GPL");
