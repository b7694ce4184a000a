# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The debug guest's kernel log without the reports of the allocations
# that fault injection fails on purpose (selftests/stress_test.c, whose
# task is "stress"): warn_alloc()'s "page allocation failure" and
# "vmalloc error", each with its call trace, which the detector patterns
# (scripts/guest/kernel-reports) would take for a bug. Only that task's,
# and only up to the end of its trace (x86-64's </TASK>: the debug kernel
# is x86-64 6.12). Each report dropped leaves one line saying so. Read by
# the debug guest's init (busybox awk) and by scripts/guest/run.
/^(\[ *[0-9.]*\] )?stress: (page allocation failure: order:|vmalloc error: size )/ {
	sub(/^\[ *[0-9.]*\] */, "")
	print "# an allocation failure, reported and dropped: " $0
	skip = 1
	lines = 0
	next
}
skip {
	# its trace ends with </TASK>; a report that never does ends early
	if ($0 ~ /<\/TASK>/ || ++lines > 100)
		skip = 0
	next
}
{ print }
