// SPDX-License-Identifier: GPL-2.0
/* Kbuild probe: kernel_neon_begin() and kernel_neon_end() take nothing. */
#include <asm/neon.h>

void utf8val_probe(void);
void utf8val_probe(void)
{
	kernel_neon_begin();
	kernel_neon_end();
}
