/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel interfaces whose form changed between the kernels utf8val builds
 * against (Debian's 6.1 and 6.12, and mainline after them). Kernel-only;
 * scripts/static-checks compiles it against each form.
 */
#ifndef UTF8VAL_COMPAT_H
#define UTF8VAL_COMPAT_H

#include <linux/module.h>
#include <linux/version.h>

/*
 * Since 6.13 MODULE_IMPORT_NS() and the _NS exports take a string
 * literal; before, a bare name. UTF8VAL_IMPORT_NS(NAME) takes the name.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define UTF8VAL_IMPORT_NS(ns)	MODULE_IMPORT_NS(#ns)
#else
#define UTF8VAL_IMPORT_NS(ns)	MODULE_IMPORT_NS(ns)
#endif

#endif /* UTF8VAL_COMPAT_H */
