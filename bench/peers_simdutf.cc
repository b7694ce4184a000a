// SPDX-License-Identifier: GPL-2.0 OR MIT
// simdutf's UTF-8 validators, one per implementation its build has,
// callable from C; apart from the other peers, so that another CPU's build
// needs only simdutf (bench/emu_icount.c on riscv64, where Debian has
// simdutf but no simdjson with a vector kernel).
// Built twice: against Debian's package (peer_simdutf()), and with
// SIMDUTF_NOW against simdutf's current source in ../shared/peers/simdutf
// (peer_simdutf_now()), whose namespace the Makefile renames so that both
// link into one program.
#include <simdutf.h>
#include <string>

#include "peers.h"

#ifdef SIMDUTF_NOW
#define peer_simdutf peer_simdutf_now
#endif

// x86-64's four (icelake, haswell, westmere, fallback) at most
#define SIMDUTF_MAX	4

static const simdutf::implementation *impls[SIMDUTF_MAX];
static std::string names[SIMDUTF_MAX];	// (simdutf's are string_views)
static unsigned int nimpls;

template <unsigned int which>
static int simdutf_validate(const unsigned char *s, size_t len)
{
	return impls[which]->validate_utf8(reinterpret_cast<const char *>(s), len);
}

static const validator_fn validators[SIMDUTF_MAX] = {
	simdutf_validate<0>, simdutf_validate<1>,
	simdutf_validate<2>, simdutf_validate<3>,
};

const char *peer_simdutf(unsigned int i, validator_fn *fn)
{
	if (!nimpls) {
		for (const simdutf::implementation *impl :
		     simdutf::get_available_implementations()) {
			if (nimpls == SIMDUTF_MAX)
				break;
			names[nimpls] = std::string(impl->name());
			impls[nimpls++] = impl;
		}
	}
	if (i >= nimpls)
		return nullptr;
	*fn = impls[i]->supported_by_runtime_system() ? validators[i] : nullptr;
	return names[i].c_str();
}
