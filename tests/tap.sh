# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# TAP for the shell tests: ". tests/tap.sh", set TAP_PREFIX, call
# result for each test and tap_done at the end (its status is the run's).
n=0
failed=0
TAP_PREFIX=${TAP_PREFIX:-}

result() {	# result STATUS NAME [DETAIL]: STATUS 0 passes
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $TAP_PREFIX$2"
	else
		echo "not ok $n - $TAP_PREFIX$2"
		[ -z "${3:-}" ] || printf '%s\n' "$3" | tail -40 | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}

tap_done() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
}
