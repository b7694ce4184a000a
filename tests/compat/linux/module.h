/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MODULE_IMPORT_NS() as the kernel of MOCK_VERSION defines it: before
 * 6.13 it stringifies a bare name, since 6.13 it pastes a string literal
 * (and a bare name does not compile). MODULE_INFO() keeps the one entry.
 */
#include "version.h"

#define __stringify_1(x)	#x
#define __stringify(x)		__stringify_1(x)
#define MODULE_INFO(tag, info)	\
	static const char mock_modinfo[] = __stringify(tag) "=" info
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)
#else
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, __stringify(ns))
#endif
