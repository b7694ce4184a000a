# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# A kernel log without the reports of failed allocations (warn_alloc():
# "page allocation failure", "vmalloc error", each with its call trace),
# which the detector patterns (scripts/guest/kernel-reports) would take for
# a bug: fault injection makes them on purpose (selftests/stress_test.c),
# and a caller that handles the failure is right. Each report dropped
# leaves one line saying so. Read by the guest's init (busybox awk) and by
# scripts/guest/run on the host.
/page allocation failure: order:|vmalloc error: size / {
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
