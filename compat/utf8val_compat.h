/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel interfaces whose form changed between the kernels utf8val builds
 * against (Debian's 6.1 and 6.12, and mainline after them), where one
 * spelling serves every form: no probe needed (the probes, for the
 * others, are this folder's .c files, which Kbuild compiles). Kernel-only;
 * scripts/static-checks compiles it against each form.
 */
#ifndef UTF8VAL_COMPAT_H
#define UTF8VAL_COMPAT_H

#include <linux/module.h>

/*
 * MODULE_IMPORT_NS() took a bare name before 6.13 and takes a string
 * literal since. Both write one "import_ns=NAME" entry to .modinfo, which
 * is what modpost and the module loader read: write it directly, the same
 * on every kernel, with no version test to keep up to date.
 */
#define UTF8VAL_IMPORT_NS(ns)	MODULE_INFO(import_ns, #ns)

#endif /* UTF8VAL_COMPAT_H */
