# SPDX-License-Identifier: GPL-2.0 OR MIT
# Sourced by bash scripts that report the CPU time of their steps.

cpu_now() {	# cpu_now FILE: cpu= the CPU seconds (user and system) of
		# this shell's ended children, by bash's times (in this
		# shell: a subshell's start at 0), written through FILE,
		# which a pipe or a command substitution would fork;
		# 1m2.345s, or 1m2,345s in a locale's own decimal point
	times >"$1"
	cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) {
		split($i, t, /[^0-9]+/); ms += (t[1] * 60 + t[2]) * 1000 + t[3] }
		printf "%d\n", ms / 1000 }' "$1")
	rm -f "$1"
}
