#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Every test of the project, on a fresh Debian 12 machine: installs what it
# needs, runs each suite (TAP), and ends with one line "N passed, N failed".
# FUZZ_SECONDS (default 60) bounds the fuzzer.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mkdir -p build
log=build/test.log
: >"$log"
status=0

suite() {
	local t0=$SECONDS

	echo "# ==== $1" | tee -a "$log"
	shift
	"$@" 2>&1 | tee -a "$log"
	[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
	echo "# ---- $((SECONDS - t0)) s" | tee -a "$log"
}

if ! scripts/install-deps host fuzz cross guest static deb debug uml; then
	echo "not ok - installing dependencies"
	echo "0 passed, 1 failed"
	exit 1
fi

suite "host tests: 3 build variants" make -s test
suite "fuzzing" make -s fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
# arm64 (NEON), s390x (big-endian), armhf and i686 (32-bit), in qemu-user,
# the fuzz target from the corpus the fuzzer above grew
suite "host tests on other CPUs" scripts/cross-tests
suite "static checks" scripts/static-checks
suite "Debian packages: build, lintian, install, DKMS" tests/test_debian.sh
# Debian's kernels: 6.1, 6.12 and 6.12's PREEMPT_RT flavour on x86-64
# (the cloud flavour is 6.12's code with fewer drivers: scripts/guest/run
# 6.12-cloud), 6.1 and 6.12 on arm64, 6.1 on i386.
for series in 6.1 6.12 6.12-rt arm64-6.1 arm64-6.12 i386-6.1; do
	suite "guest: Debian $series kernel in qemu" scripts/guest/run "$series" test
done
# The BPF sample on a kernel booted without the BPF LSM: it must say so.
suite "guest: Debian 6.12 without the BPF LSM" env GUEST_ONLY=70 scripts/guest/run 6.12 nolsm
# 6.12 built from Debian's source twice (a few minutes each), 2 CPUs:
# once with KASAN, UBSAN, lockdep, kmemleak, KFENCE and KUnit, once with
# KCSAN (which excludes KASAN); then one failing run per injected bug, to
# prove each detector is live.
suite "guest: debug kernel with every detector" scripts/guest/run debug test
suite "guest: KCSAN kernel" scripts/guest/run kcsan test
suite "guest: the detectors are live" scripts/guest/prove-detectors
# The KUnit suite again, built into a UML kernel by the kernel's kunit.py.
suite "KUnit under UML (kunit.py)" scripts/kunit-uml

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^not ok ' "$log")
# A suite that failed without saying which test still fails the run.
[ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
