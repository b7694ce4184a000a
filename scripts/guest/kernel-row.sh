# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Sourced by the guest scripts: row SERIES sets suite, arch, meta and
# guest from SERIES' row of scripts/guest/kernels (false if it has none);
# kernel_series lists the series, optionally only those whose guest is $1.
kernels_table=$(dirname "${BASH_SOURCE[0]}")/kernels

row() {
	local s
	while read -r s suite arch meta guest; do
		[ "$s" = "$1" ] && return 0
	done < <(grep -v '^#' "$kernels_table")
	return 1
}

kernel_series() {
	grep -v '^#' "$kernels_table" | awk -v g="${1:-}" 'g == "" || $5 == g { print $1 }'
}
