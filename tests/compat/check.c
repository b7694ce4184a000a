// SPDX-License-Identifier: GPL-2.0
/*
 * utf8val_compat.h against each form of the kernel interfaces it
 * bridges, without a kernel tree: tests/compat/linux/ mimics <linux/...>,
 * with the form chosen by the version the compiler is given
 * (-DMOCK_VERSION=...). Prints what the module's .modinfo would hold.
 */
#include <stdio.h>

#include "../../compat/utf8val_compat.h"

UTF8VAL_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

int main(void)
{
	puts(mock_modinfo);
	return 0;
}
