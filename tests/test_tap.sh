#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The bookkeeping of every count (tests/tap.sh), on made-up programs and
# suites: a program that prints nothing, stops short of its plan, has an
# indented "not ok", or plans 1..0 fails by its name; skips are counted
# as skips; a suite short of its least fails by its name. TAP.
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/tap.sh"

fake() {	# fake TEXT [STATUS]: a program that prints TEXT (printf's)
	printf "$1"
	return "${2:-0}"
}

# ran NAME TEXT [STATUS]: what run says of that program, and its status
ran() {
	(status=0
	 run "$1" fake "$2" "${3:-0}"
	 echo "status $status")
}

# expect_run DESCRIPTION NAME TEXT STATUS WANT: run's output has the line
# WANT (a fixed string), and its status is STATUS
expect_run() {
	local out

	out=$(ran "$2" "$3")
	grep -qxF -- "$5" <<<"$out" && grep -qx "status $4" <<<"$out"
	result $? "$1" "$out"
}

expect_run "a program that prints nothing fails by name" \
	empty '' 1 "not ok - empty: printed no plan (ran 0)"
expect_run "a program short of its plan fails by name" \
	short 'ok 1 - a\nok 2 - b\n1..5\n' 1 "not ok - short: ran 2 of the 5 tests it planned"
expect_run "a program past its plan fails by name" \
	long 'ok 1 - a\nok 2 - b\n1..1\n' 1 "not ok - long: ran 2 of the 1 tests it planned"
expect_run "an indented not ok fails by name" \
	indented '1..2\nok 1 - a\n    not ok 1 - inner\nok 2 - b\n' 1 \
	"not ok - indented: inner (a subtest)"
expect_run "a SKIP-only plan (1..0) fails by name" \
	skipped '1..0 # SKIP no vectors\n' 1 \
	"not ok - skipped: ran none of its tests (1..0 # SKIP no vectors)"
expect_run "two plans fail by name" \
	twice 'ok 1 - a\n1..1\n1..1\n' 1 "not ok - twice: a second plan (1..1)"
expect_run "a bail-out fails by name" \
	bail 'Bail out! no device\n' 1 "not ok - bail: Bail out! no device"
out=$(ran bail 'ok 1 - a\nBail out! no device\n' 139)
[ "$(grep -c '^not ok' <<<"$out")" -eq 1 ] && grep -qx "status 1" <<<"$out" &&
	grep -qxF "# bail: exited with status 139 after its bail-out" <<<"$out"
result $? "a bail-out is one failure, its status a comment" "$out"
out=$(ran bail 'not ok 1 - a\nBail out! no device\nnot ok 2 - b\n1..2\n')
[ "$(grep -c '^not ok' <<<"$out")" -eq 3 ] && grep -qx "status 1" <<<"$out"
result $? "results around a bail-out still count" "$out"
expect_run "the kselftest harness's form (plan first, no dash) passes" \
	harness 'TAP version 13\n1..2\nok 1 global.a\nok 2 global.b # SKIP one CPU\n' 0 \
	"ok - harness: global.b # SKIP one CPU"
expect_run "a not ok marked TODO still fails" \
	todo 'ok 1 - a\nnot ok 2 - b # TODO later\n1..2\n' 1 "not ok - todo: b # TODO later"
out=$(ran status 'ok 1 - a\n1..1\n' 3)
grep -qxF "not ok - status: exited with status 3" <<<"$out" && grep -qx "status 1" <<<"$out"
result $? "a non-zero exit fails by name, however its TAP looks" "$out"
out=$(ran good 'ok 1 - a\n1..1\n')
[ "$(grep -c '^not ok' <<<"$out")" -eq 0 ] && grep -qx "status 0" <<<"$out"
result $? "a program that met its plan passes" "$out"

# the guest runs the same check with busybox's sh and awk
if [ -x /bin/busybox ]; then
	text='TAP version 13\n1..3\nok 1 global.a\n  not ok 1 sub\nok 2 - b # SKIP x\r\n'
	want=$(ran guest "$text" | grep -v '^# guest: ')
	got=$(/bin/busybox sh -c '. "$1"; fake() { printf "$1"; }
		run guest fake "$2"; echo "status $status"' sh "$top/tests/tap.sh" "$text" |
		grep -v '^# guest: ')
	expect "busybox's sh and awk (the guest's) check the same" "$want" "$got"
else
	skip "busybox's sh and awk check the same" "no /bin/busybox"
fi

# the suite's floor (scripts/test.sh)
least() {	# least NAME LEAST TEXT: the check's output, and its status
	printf "$3" | awk -v name="$1" -v least="$2" "$TAP_LEAST"
	echo "status $?"
}
out=$(least guests 3 'ok - a\nok - b # SKIP no CPU\nnot ok - c\n')
grep -qxF "not ok - guests: ran 2 tests, fewer than the 3 it must" <<<"$out" &&
	grep -qx "status 1" <<<"$out"
result $? "a suite below its least fails by name; its skips do not count as run" "$out"
out=$(least suite 1 'ok - a\n  not ok - hidden\n')
grep -qxF "not ok - suite: not ok - hidden (indented)" <<<"$out" && grep -qx "status 1" <<<"$out"
result $? "an indented not ok fails a suite by name" "$out"
out=$(least suite 2 'ok - a\nok - b\n')
expect "a suite at its least passes" "ok - a
ok - b
status 0" "$out"

# the closing count
expect "skips are counted apart from passes" "2 1 2" \
	"$(printf 'ok - a\nok - b # SKIP x\nok 3 - c # skip y\nnot ok - d\nok - e\n  not ok - f\n# ok - g\n' |
	   awk "$TAP_COUNT")"
tap_done
