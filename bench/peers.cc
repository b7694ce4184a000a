// SPDX-License-Identifier: GPL-2.0 OR MIT
// Thin wrappers so that the benchmark, in C, can call the peers.
#include <glib.h>
#include <simdjson.h>
#include <unicode/utf8.h>

#include "peers.h"

int peer_glib(const unsigned char *s, size_t len)
{
	return g_utf8_validate(reinterpret_cast<const gchar *>(s),
			       static_cast<gssize>(len), nullptr);
}

int peer_icu(const unsigned char *s, size_t len)
{
	int32_t i = 0, n = static_cast<int32_t>(len);
	UChar32 c;

	while (i < n) {
		U8_NEXT(s, i, n, c);
		if (c < 0)
			return 0;
	}
	return 1;
}

static const simdjson::implementation *simdjson_impl(const char *name)
{
	const simdjson::implementation *impl =
		simdjson::get_available_implementations()[name];

	return impl && impl->supported_by_runtime_system() ? impl : nullptr;
}

template <int which>
static int simdjson_validate(const unsigned char *s, size_t len)
{
	static const char *const names[] = { "fallback", "haswell", "icelake" };
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
	return nullptr;
}
