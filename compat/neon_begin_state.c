// SPDX-License-Identifier: GPL-2.0
/*
 * Kbuild probe: kernel_neon_begin() and kernel_neon_end() take the buffer
 * the task's FP/SIMD state is saved to (from 6.19: "arm64/fpsimd: Allocate
 * kernel mode FP/SIMD buffers on the stack").
 */
#include <asm/neon.h>

void utf8val_probe(struct user_fpsimd_state *state);
void utf8val_probe(struct user_fpsimd_state *state)
{
	kernel_neon_begin(state);
	kernel_neon_end(state);
}
