# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# TAP for the shell, in plain sh (busybox runs it in the guest, which
# carries a copy in /selftests): sourced by the host's shell tests, the
# guest's shell suites and the runners of test programs.
#
# A test sets TAP_PREFIX, calls result (or expect) for each check and
# tap_done at the end (its status is the run's). A runner calls run for each program;
# status becomes 1 if any failed.
n=0
failed=0
status=0
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

expect() {	# expect NAME WANT GOT: passes if GOT is WANT
	if [ "$2" = "$3" ]; then
		result 0 "$1"
	else
		result 1 "$1" "want: $2
got:  $3"
	fi
}

tap_done() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
}

# run NAME COMMAND...: runs a TAP-printing program, prefixes its results
# with NAME, drops its plan, prints its time, and turns a non-zero exit
# into a failure. The program's status comes back on fd 4 (the command
# substitution's pipe) while its TAP goes to fd 3 (this stdout); the
# program has neither, and the caller's fds 3 and 4 are as they were.
run() {
	tap_name=$1
	tap_t0=$(date +%s)
	shift
	echo "# ---- $tap_name"
	{
		tap_rc=$({ { if "$@" 3>&- 4>&-; then tap_st=0; else tap_st=$?; fi
			     echo "$tap_st" >&4; } |
			   sed -e "s@^\(not ok\|ok\) [0-9]* - @\1 - $tap_name: @" \
			       -e '/^1\.\.[0-9]*$/d' >&3; } 4>&1)
	} 3>&1
	echo "# $tap_name: $(($(date +%s) - tap_t0)) s"
	if [ "${tap_rc:-1}" -ne 0 ]; then
		echo "not ok - $tap_name: exited with status ${tap_rc:-unknown}"
		status=1
	fi
}
