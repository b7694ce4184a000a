// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Compiled, not linked, by riscv/utf8val.mk against the kernel's headers
 * with the RVV object's flags: whether the kernel has kernel-mode vector
 * (kernel_vector_begin(), may_use_simd(): 6.8 and later) and the compiler
 * the RVV intrinsics the path uses.
 */
#include <asm/cpufeature.h>
#include <asm/simd.h>
#include <asm/vector.h>
#undef __INT64_TYPE__
#define __INT64_TYPE__		long long
#undef __UINT64_TYPE__
#define __UINT64_TYPE__		unsigned long long
#include <riscv_vector.h>

static int __maybe_unused utf8val_probe(const unsigned char *p)
{
	vuint8m1x3_t tables;
	vuint8m1_t v;
	int r = 0;

	if (!riscv_has_extension_unlikely(RISCV_ISA_EXT_v) || !may_use_simd())
		return 0;
	kernel_vector_begin();
	v = __riscv_vle8_v_u8m1(p, 16);
	tables = __riscv_vcreate_v_u8m1x3(v, v, v);
	v = __riscv_vrgather_vv_u8m1(__riscv_vget_v_u8m1x3_u8m1(tables, 2),
				     __riscv_vslide1up_vx_u8m1(v, 0, 16), 16);
	r = __riscv_vfirst_m_b8(__riscv_vmsne_vx_u8m1_b8(v, 0, 16), 16);
	kernel_vector_end();
	return r;
}
