/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's <linux/version.h> for the version under test. */
#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + (c))
#define LINUX_VERSION_CODE	MOCK_VERSION
