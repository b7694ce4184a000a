// SPDX-License-Identifier: GPL-2.0 OR MIT
// Thin wrappers so that the benchmark, in C, can call the peers.
#include <glib.h>
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
