// SPDX-License-Identifier: GPL-2.0 OR MIT
// simdjson's UTF-8 validators by implementation, callable from C; apart
// from glib and ICU (peers.cc), so that another CPU's build needs only
// simdjson (bench/emu_icount.c).
#include <cstring>
#include <simdjson.h>

#include "peers.h"

static const simdjson::implementation *simdjson_impl(const char *name)
{
	const simdjson::implementation *impl =
		simdjson::get_available_implementations()[name];

	return impl && impl->supported_by_runtime_system() ? impl : nullptr;
}

template <int which>
static int simdjson_validate(const unsigned char *s, size_t len)
{
	static const char *const names[] = { "fallback", "haswell", "icelake",
					       "arm64" };
	static const simdjson::implementation *impl = simdjson_impl(names[which]);

	return impl->validate_utf8(reinterpret_cast<const char *>(s), len);
}

validator_fn peer_simdjson(const char *name)
{
	if (!simdjson_impl(name))
		return nullptr;
	if (!strcmp(name, "fallback"))
		return simdjson_validate<0>;
	if (!strcmp(name, "haswell"))
		return simdjson_validate<1>;
	if (!strcmp(name, "icelake"))
		return simdjson_validate<2>;
	if (!strcmp(name, "arm64"))
		return simdjson_validate<3>;
	return nullptr;
}
