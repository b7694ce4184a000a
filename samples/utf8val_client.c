// SPDX-License-Identifier: GPL-2.0
/*
 * How another driver uses utf8val: a name that arrives from user space is
 * accepted only if it is strict UTF-8 without U+0000, and rejected with
 * -EILSEQ, saying where and why, otherwise.
 *
 *   insmod utf8val_client.ko name=$'caf\xc3\xa9'        loads
 *   insmod utf8val_client.ko name=$'..\xc0\xaf..'       fails: -EILSEQ
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "../utf8val.h"

static char *name = "utf8val";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "a name to check, as another driver would");

static int check_name(const char *s)
{
	struct utf8val_result res;

	if (utf8val_validate(s, strlen(s), UTF8VAL_REJECT_NUL, &res)) {
		pr_warn("rejected name: %s at byte %llu (%u bytes), after %llu characters\n",
			utf8val_error_name(res.error), res.valid_up_to,
			res.error_len, res.chars);
		return -EILSEQ;
	}
	pr_info("accepted name of %llu characters\n", res.chars);
	return 0;
}

static int __init utf8val_client_init(void)
{
	return check_name(name);
}

static void __exit utf8val_client_exit(void)
{
}

module_init(utf8val_client_init);
module_exit(utf8val_client_exit);

MODULE_DESCRIPTION("utf8val sample client: validate a name like a driver would");
MODULE_LICENSE("GPL");
