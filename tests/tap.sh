# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# TAP for the shell, in plain sh (busybox runs it in the guest, which
# carries a copy in /selftests): sourced by the host's shell tests, the
# guest's shell suites and the runners of test programs.
#
# A test sets TAP_PREFIX, calls result (or expect, or skip) for each check and
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

skip() {	# skip NAME REASON: a test not run, counted as a skip
	n=$((n + 1))
	echo "ok $n - $TAP_PREFIX$1 # SKIP $2"
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

# The check run applies to one program's TAP (awk; busybox's in the
# guest): its results renamed "ok - NAME: ...", its plan kept to account.
# A program that printed no plan, ran none of its tests (1..0) or not as
# many as it planned fails by name; so does an indented "not ok" (a
# subtest's failure under a parent that may still say ok). The plan itself
# is not printed: the run's count is of result lines. Exits 1 if anything
# failed, 3 after a "Bail out!", which says why (no plan is looked for;
# 3: awk's own fatal errors exit 2).
# (With keep=1, the results are printed as they came.)
TAP_CHECK='
function bare(s) {	# the description of a result line
	sub(/^[ \t]*(not )?ok[ \t]*/, "", s)
	sub(/^[0-9]+[ \t]*/, "", s)
	sub(/^-[ \t]*/, "", s)
	return s
}
function named(s) { return s == "" ? name : (s ~ /^#/ ? name " " s : name ": " s) }
function fail(s) { bad++; print "not ok - " s }
BEGIN { plan = -1 }
{ sub(/\r$/, "") }
/^ok([ \t]|$)/ { n++; print (keep ? $0 : "ok - " named(bare($0))); next }
/^not ok([ \t]|$)/ {
	n++
	if (keep) {
		bad++
		print
	} else {
		fail(named(bare($0)))
	}
	next
}
/^[ \t]+not ok([ \t]|$)/ { fail(named(bare($0)) " (a subtest)"); next }
/^1\.\.[0-9]+/ {
	if (plan >= 0) {
		fail(name ": a second plan (" $0 ")")
		next
	}
	plan = why = $0
	sub(/^1\.\./, "", plan)
	sub(/^1\.\.[0-9]+[ \t]*/, "", why)
	plan += 0
	next
}
/^Bail out!/ { fail(name ": " $0); bailed = 1; next }
{ print }
END {
	if (bailed)
		exit 3
	if (plan < 0)
		fail(name ": printed no plan (ran " n + 0 ")")
	else if (plan == 0)
		fail(name ": ran none of its tests (1..0" (why == "" ? "" : " " why) ")")
	else if (n != plan)
		fail(name ": ran " n + 0 " of the " plan " tests it planned")
	exit (bad > 0)
}'

# The check of a whole suite of programs (scripts/test.sh): at least
# "least" results that ran (ok but not skipped, or not ok), and an
# indented "not ok" fails there too, by the suite's name. Exits 1 if
# anything failed.
TAP_LEAST='
function fail(s) { bad++; print "not ok - " s }
/^ok / { if (tolower($0) ~ /# *skip/) skipped++; else ran++ }
/^not ok / { ran++; bad++ }
/^[ \t]+not ok([ \t]|$)/ {
	s = $0
	sub(/^[ \t]+/, "", s)
	fail(name ": " s " (indented)")
	next
}
{ print }
END {
	if (ran < least)
		fail(name ": ran " ran + 0 " tests, fewer than the " least " it must")
	exit (bad > 0)
}'

# The closing count of a run's TAP: "PASSED FAILED SKIPPED". A skip is an
# "ok" with a SKIP directive, never a pass.
TAP_COUNT='
/^ok / { if (tolower($0) ~ /# *skip/) s++; else p++ }
/^not ok / { f++ }
END { print p + 0, f + 0, s + 0 }'

# run NAME COMMAND...: runs a TAP-printing program, names its results
# NAME, checks them against its plan (TAP_CHECK), prints its time, and
# turns a non-zero exit into a failure (after a bail-out, which is one,
# a comment); status becomes 1 if either found one. The program's status
# and the check's come back on fd 4 (the command substitution's pipe)
# while the TAP goes to fd 3 (this stdout); the program has neither, and
# the caller's fds 3 and 4 are as they were.
run() {
	tap_name=$1
	tap_t0=$(date +%s)
	shift
	echo "# ---- $tap_name"
	{
		tap_rc=$({ { if "$@" 3>&- 4>&-; then tap_st=0; else tap_st=$?; fi
			     echo "$tap_st" >&4; } |
			   { awk -v name="$tap_name" "$TAP_CHECK" >&3
			     echo "checked $?" >&4; }; } 4>&1)
	} 3>&1
	echo "# $tap_name: $(($(date +%s) - tap_t0)) s"
	tap_bailed=
	case $tap_rc in
	*"checked 0"*) ;;
	*"checked 3"*) status=1 tap_bailed=1 ;;
	*)	status=1 ;;
	esac
	set -- $tap_rc
	[ "$1" != checked ] || set -- "${3:-}"	# (the order the two came in)
	if [ "${1:-1}" -eq 0 ]; then
		:
	elif [ -n "$tap_bailed" ]; then
		echo "# $tap_name: exited with status ${1:-unknown} after its bail-out"
	else
		echo "not ok - $tap_name: exited with status ${1:-unknown}"
		status=1
	fi
}
