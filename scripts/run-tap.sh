# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Sourced by the scripts that run test binaries (run-host-tests,
# cross-tests): run NAME COMMAND... runs a TAP-printing program, prefixes
# its results with NAME, drops its plan, prints its time, and turns a
# non-zero exit into a failure; status becomes 1 if any run failed.
status=0

run() {
	local name=$1 t0=$SECONDS
	shift
	echo "# ---- $name"
	"$@" | sed -e "s@^\(not ok\|ok\) [0-9]* - @\1 - $name: @" \
		-e '/^1\.\.[0-9]*$/d'
	local rc=${PIPESTATUS[0]}
	echo "# $name: $((SECONDS - t0)) s"
	if [ "$rc" -ne 0 ]; then
		echo "not ok - $name: exited with status $rc"
		status=1
	fi
}
