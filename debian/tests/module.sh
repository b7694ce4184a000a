# SPDX-License-Identifier: GPL-2.0 OR MIT
# Sourced by the tests that need utf8val.ko (run from the source tree's
# root, as autopkgtest does). module_loaded: the module loaded, or the
# test skipped (exit 77) where this machine cannot have it, saying why;
# any other failure to load fails the test.
module_loaded() {
	local out

	[ ! -c /dev/utf8val ] || return 0
	out=$(modprobe utf8val 2>&1) && [ -c /dev/utf8val ] && return 0
	echo "$out"
	if [[ $out == *"Key was rejected"* ]]; then
		echo "Secure Boot refuses DKMS's key until it is enrolled: utf8val(4), SECURE BOOT"
		exit 77
	fi
	if [ ! -e "/lib/modules/$(uname -r)/build" ]; then
		echo "no headers for the running kernel $(uname -r): DKMS built no module for it"
		exit 77
	fi
	dkms status utf8val
	exit 1
}
