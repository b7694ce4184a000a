// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: commit one bug of the kind named by bug=, in module code that
 * calls into utf8val, so that the debug guest proves each detector is live.
 * A run that loads this module must fail; the real run must be clean.
 * Built only for kernels with CONFIG_KUNIT (the debug guest kernel).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "../utf8val.h"

static char *bug = "none";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "oob, leak, lock-order, sleep-in-atomic or ubsan");

static DEFINE_MUTEX(lock_a);
static DEFINE_MUTEX(lock_b);
static DEFINE_SPINLOCK(atomic_lock);
static int index_past_end = 8;
module_param(index_past_end, int, 0444);

static int __init utf8val_inject_init(void)
{
	struct utf8val_result res;
	u8 *buf;

	if (!strcmp(bug, "oob")) {		/* KASAN */
		buf = kmalloc(16, GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
		memcpy(buf, "valid", 5);
		utf8val_validate(buf, 5, 0, &res);
		buf[16 + index_past_end % 8] = 0;
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
	} else if (!strcmp(bug, "ubsan")) {	/* UBSAN_BOUNDS */
		u8 small[4] = { 'a', 'b', 'c', 'd' };
		/* a module parameter: the compiler cannot see it is past the end */
		int i = 4 + index_past_end % 4;

		pr_info("read %u\n", small[i]);
	}
	pr_info("injected: %s\n", bug);
	return 0;
}

static void __exit utf8val_inject_exit(void)
{
}

module_init(utf8val_inject_init);
module_exit(utf8val_inject_exit);

MODULE_DESCRIPTION("utf8val test-only bug injection: proves the detectors are live");
MODULE_LICENSE("GPL");
