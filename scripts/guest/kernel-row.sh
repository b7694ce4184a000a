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

# utf8names_row KO CONFIG ARCH: whether the utf8names policy runs on a
# kernel (its .config) with the module built for it (KO): "yes", or "no"
# and why. The README's table says it, and scripts/guest/run expects it.
utf8names_row() {
	case $(modinfo -F kfuncs "$1") in
	absent:*)	echo no; return ;;
	esac
	# riscv64's 7.2 allocates BPF task storage with kmalloc_nolock(),
	# which needs Zacas (a 16-byte compare-and-exchange) and qemu 7.2's
	# CPU lacks it: the loader refuses to start (tools/utf8names/policy.c)
	if [ "$3" = riscv64 ]; then
		echo "no: no BPF task storage without Zacas (qemu's CPU); the loader says so"
	# the BPF LSM on by default, and BPF trampolines (arm64 has them
	# with ftrace's direct calls)
	elif grep -q '^CONFIG_LSM=".*bpf' "$2" &&
	     grep -q '^CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y' "$2"; then
		echo yes
	else
		echo "no: cannot attach to LSM hooks"
	fi
}
