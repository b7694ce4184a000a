#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Every test of the project, on a fresh Debian 12 machine: installs what it
# needs, runs each suite (TAP), and ends with one line
# "N passed, N failed, N skipped".
# Suites run three at a time (TEST_JOBS; two CPUs: the guests and the
# tests leave a CPU idle a fifth of the time at two), four once only
# the guests and the module builds are left (pool_size), the longest first,
# beside the downloads the guests share, and fewer beside a detector
# kernel's guest (queue); each one's output is kept until
# it ends, then printed whole, in the order they started, with its time.
# The count is honest: every program's plan is checked (tests/tap.sh's
# run), each suite names the least it must run, a skip is never a pass,
# and steps that are no test (fetching, building) print comments.
# FUZZ_SECONDS (default 60) bounds the fuzzer. Needs root (apt, chroots):
# it asks sudo otherwise.
# --all adds what the default run (CI's) leaves out for time, each a skip
# there that names this option: the KCSAN kernel, KUnit under UML (the
# AVX-512 path in kernel context), the system test's upgrade from the
# previous release and its arm64 system, stress and lifecycle on arm64's
# and riscv64's newest kernels, and most of the policy's attack on
# arm64's (README, "One suite at a time").
set -u
case $#:${1:-} in
0:)	all= ;;
1:--all) all=1 ;;
*)	echo "usage: scripts/test.sh [--all]" >&2; exit 2 ;;
esac
if [ "$(id -u)" -ne 0 ]; then
	exec sudo --preserve-env "$0" "$@"
fi
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. tests/tap.sh
. scripts/cpu-time.sh
mkdir -p build
log=build/test.log
logs=build/suite-logs
rm -rf "$logs"
mkdir -p "$logs"
: >"$log"
status=0
slots=${TEST_JOBS:-3}
[ "$slots" -ge 1 ] 2>/dev/null || slots=1
started=0	# suites started, and printed
printed=0
pooled=()	# the suites that take a slot
apart_started=()	# the suites run apart from the pool (queue)
queued=()	# those not started yet: "AFTER,... COMMAND" (quoted)
pids=()		# each started suite's process
held=()		# suites beside the pool: counted in busy, awaited by due
failures=()	# the suites that ended in failure, for the summary
silent=()	# those of them that said no "not ok": their logs' ends
t_start=$SECONDS
# an interrupted run stops its suites too
trap 'kill $(jobs -p) 2>/dev/null' EXIT

# The variables that make a run test less than all; each set one is named
# at the start and at the end, and CI must set none.
narrowed=
for v in GUEST_ONLY GUEST_TIMEOUT UTF8VAL_QUICK UTF8VAL_SHARED \
	 UTF8VAL_VECTOR_ONLY FUZZ_SECONDS CROSS_FUZZ_SECONDS; do
	[ -n "${!v+x}" ] || continue
	# (UTF8VAL_SHARED=DIR, shared/ elsewhere than beside the tree, is
	# named but narrows nothing; =none skips the tests that read it)
	if [ $v = UTF8VAL_SHARED ] && [ "${!v}" != none ]; then
		echo "# shared/ from UTF8VAL_SHARED=${!v}" | tee -a "$log"
		continue
	fi
	narrowed+="${narrowed:+ }$v=${!v}"
done
[ -z "$narrowed" ] || echo "# narrowed by $narrowed" | tee -a "$log"
# What the default run leaves out (each a skip that names --all), named
# at the start and at the end too.
left_out=
[ -n "$all" ] ||
	left_out="the KCSAN kernel, KUnit under UML, the system test's upgrade from 1.0.0 and its arm64 system, stress and lifecycle on arm64's and riscv64's newest kernels, most of the policy's attack on arm64's (scripts/test.sh --all runs them)"
[ -z "$left_out" ] || echo "# left out: $left_out" | tee -a "$log"

# Disk: a run from a fresh clone fills .cache and build (kernels, chroots,
# the system's image and its overlay) with 10.8 GiB, as the end of its
# times reports; disk_needed leaves room beside that. After the packages
# are installed, a machine with less room than that, less what the
# caches already hold, fails at once, not an hour later on a full disk.
disk_needed=12
[ -z "$all" ] || disk_needed=16	# (arm64's image and chroot, the KCSAN kernel: a guess)
gib() {	# gib KB: in GiB, one decimal
	awk -v kb="$1" 'BEGIN { printf "%.1f", kb / 1048576 }'
}
# (.cache's file system: a link may put .cache and build elsewhere, and
# .cache is the larger)
mkdir -p .cache
caches_kb() {	# what .cache and build hold now
	du -skxD .cache build 2>/dev/null | awk '{ kb += $1 } END { print kb + 0 }'
}
free_kb() {
	df -Pk .cache/ | awk 'NR == 2 { print $4 }'
}
# The file system's fullest during the run, every 10 s by a process that
# ends with this one: a sample may miss the peak, and what else writes
# there counts too.
fs_used_kb() {
	df -Pk .cache/ | awk 'NR == 2 { print $3 }'
}
sample_disk() {
	local u max=$fs_at_start

	while kill -0 $$ 2>/dev/null && sleep 10; do
		u=$(fs_used_kb)
		[ -n "$u" ] && [ "$u" -gt "$max" ] || continue
		max=$u
		echo "$max" >"$logs/disk.max.tmp" && mv "$logs/disk.max.tmp" "$logs/disk.max"
	done
}

suite() {	# suite NAME LEAST COMMAND...: one suite, framed, with its
		# time and the CPU time it took (what a slower CPU scales);
		# it fails unless it runs LEAST tests or more, or, for LEAST
		# "plan", all the tests of the one plan it prints
	local t0=$SECONDS c0 cpu rc checked

	cpu_now "$logs/times.$BASHPID"
	c0=$cpu

	echo "# ==== $1"
	if [ "$2" = plan ]; then
		"${@:3}" 2>&1 | awk -v name="$1" -v keep=1 "$TAP_CHECK"
	else
		"${@:3}" 2>&1 | awk -v name="$1" -v least="$2" "$TAP_LEAST"
	fi
	rc=${PIPESTATUS[0]} checked=${PIPESTATUS[1]}
	cpu_now "$logs/times.$BASHPID"
	echo "# ---- $((SECONDS - t0)) s, CPU $((cpu - c0)) s"
	# when, in the run: which suites ran beside which, and what ended it
	echo "# ---- from $((t0 - t_start)) s to $((SECONDS - t_start)) s of the run"
	[ "$rc" -eq 0 ] && [ "$checked" -eq 0 ]
}
made() {	# made N FILE COMMAND...: once suite N made FILE, or ended
	while { [ -z "$2" ] || [ ! -f "$2" ]; } && [ ! -f "$logs/$1.rc" ]; do
		sleep 2
	done
	"${@:3}"
}
after() {	# after N COMMAND...: once suite N has ended
	made "$1" "" "${@:2}"
}

ended() {	# ended N: whether suite N has ended; one whose process is
		# gone without saying how it ended was killed, and is
		# recorded so (for the suites that wait for it too)
	[ -f "$logs/$1.rc" ] && return 0
	kill -0 "${pids[$1]}" 2>/dev/null && return 1
	[ -f "$logs/$1.rc" ] && return 0
	echo "not ok - a suite was killed" >>"$logs/$1.out"
	echo 1 >"$logs/$1.rc"
}

report() {	# print the ended suites that no running one precedes
	local name

	while [ $printed -lt $started ] && ended $((printed + 1)); do
		printed=$((printed + 1))
		tee -a "$log" <"$logs/$printed.out"
		[ "$(cat "$logs/$printed.rc")" -eq 0 ] && continue
		status=1
		name=$(sed -n '1s/^# ==== //p' "$logs/$printed.out")
		failures+=("${name:-suite $printed, killed before it began} (exit $(cat "$logs/$printed.rc"))")
		grep -q '^not ok' "$logs/$printed.out" || silent+=("$printed")
	done
}

launch() {	# launch COMMAND...: a suite in the background; its number in $started
	started=$((started + 1))
	local n=$started
	( "$@" >"$logs/$n.out" 2>&1
	  echo $? >"$logs/$n.rc.tmp" && mv "$logs/$n.rc.tmp" "$logs/$n.rc" ) &
	pids[n]=$!
}

running() {	# running [SUITE...]: how many have not ended (the pooled ones)
	local n=0 i

	[ $# -gt 0 ] || set -- "${pooled[@]}"
	for i in "$@"; do
		ended "$i" || n=$((n + 1))
	done
	echo $n
}

busy() {	# how many suites run: pooled, held and apart
	local n

	n=$(running)
	[ ${#held[@]} -eq 0 ] || n=$((n + $(running "${held[@]}")))
	[ ${#apart_started[@]} -eq 0 ] ||
		n=$((n + $(running "${apart_started[@]}")))
	echo "$n"
}

# The detector kernels' guests run apart from the pool, one at a time:
# their timed tests, emulated and slowed by KASAN or KCSAN, want the
# CPUs. Each is queued behind the suites it needs (its kernel's build,
# the downloads), and behind the held system test (due, below): its
# qemu has a session of its own (pexpect's), so an autogroup of its own,
# and keeps a whole CPU whatever the guests' nice -10; a guest beside it
# spins as beside two other suites. Waiting would leave a CPU idle only
# once the pool is draining with no pooled suite running: there the
# guest is due without it. (--all's arm64 system test is pooled, and
# counted like any pooled suite: no guest waits for it.) Once a guest
# is due the pool starts nothing until it has started, which it does
# when no other suite runs apart and fewer than $beside_apart run in
# all, pooled, held or apart; until it ends the pool starts a suite
# only while fewer than $beside_apart run in all. Two: the guest's two
# emulated CPUs and one other suite on the two CPUs. Beside two suites
# (CI 76), the debug guest took 1131 s and 758 CPU-seconds, where alone
# it takes 489 s and 535 (one of its CPUs preempted leaves the other
# spinning on the locks it holds), and the guests beside it lost as
# much; started at the pool's end, it ran alone for 8 minutes with the
# other CPU idle.
beside_apart=2
queue() {	# queue AFTER COMMAND...: a suite apart, once the suites
		# AFTER (numbers, comma-separated) have ended
	queued+=("$1 $(printf '%q ' "${@:2}")")
}

draining=	# set by drain()
due() {		# due K: whether the Kth queued suite's predecessors have
		# ended, and the held suites (unless the pool is drained)
	local i IFS=$IFS,

	for i in ${queued[$1]%% *}; do
		ended "$i" || return 1
	done
	[ ${#held[@]} -eq 0 ] || [ "$(running "${held[@]}")" -eq 0 ] ||
		{ [ -n "$draining" ] && [ "$(running)" -eq 0 ]; }
}

apart_running() {	# whether a suite apart runs
	[ ${#apart_started[@]} -gt 0 ] &&
		[ "$(running "${apart_started[@]}")" -gt 0 ]
}

apart_turn() {	# start the first queued suite that is due, if there is room
	local k

	! apart_running || return 0
	for k in "${!queued[@]}"; do
		due "$k" || continue
		[ "$(busy)" -lt "$beside_apart" ] || return 0
		eval "launch ${queued[k]#* }"
		apart_started+=("$started")
		queued=("${queued[@]:0:k}" "${queued[@]:k+1}")
		return 0
	done
}

any_due() {	# whether a queued suite is due
	local k

	for k in "${!queued[@]}"; do
		! due "$k" || return 0
	done
	return 1
}

# The pool's last suites are the guests of Debian's kernels, then the
# module builds of the kernels no guest boots (first_guest: the first of
# them), and the guests wait on their emulated boots and tests more than
# they compute: 6.1's short suite took 104 s and 73 CPU-seconds alone,
# three short suites at once 120 s and 208 (1.7 of two CPUs), on an AMD
# EPYC. Once no suite before them runs, no detector guest is queued or
# running apart, and the system test has ended, the pool takes one more
# than TEST_JOBS' default. (A TEST_JOBS set and not empty is kept to the
# end.)
first_guest=
pool_size() {
	local i

	if [ -n "$first_guest" ] && [ -z "${TEST_JOBS:-}" ] &&
	   [ ${#queued[@]} -eq 0 ] && ! apart_running &&
	   { [ ${#held[@]} -eq 0 ] || [ "$(running "${held[@]}")" -eq 0 ]; }; then
		for i in "${pooled[@]}"; do
			[ "$i" -ge "$first_guest" ] || ended "$i" || {
				echo "$slots"
				return
			}
		done
		echo $((slots + 1))
	else
		echo "$slots"
	fi
}

pool_full() {	# whether the pool may start no suite now
	[ "$(running)" -ge "$(pool_size)" ] && return 0
	if apart_running; then
		[ "$(busy)" -ge "$beside_apart" ]
	else
		any_due		# (it waits for room, which the pool makes)
	fi
}

tick() {	# a second on: the ended suites printed, a queued one started
	sleep 1
	report
	apart_turn
}

start() {	# start COMMAND...: launch it once a slot is free
	apart_turn
	while pool_full; do
		tick
	done
	launch "$@"
	pooled+=("$started")
}

drain() {	# wait for every suite, queued or started, printing each
	draining=1
	while [ $printed -lt $started ] || [ ${#queued[@]} -gt 0 ]; do
		tick
	done
}

if ! scripts/install-deps host fuzz cross guest static deb debug uml system; then
	echo "not ok - installing dependencies" | tee -a "$log"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
caches_at_start=$(caches_kb)
if [ $(($(free_kb) + caches_at_start)) -lt $((disk_needed * 1048576)) ]; then
	echo "not ok - disk: $(gib "$(free_kb)") GiB free on $(df -P .cache/ | awk 'NR == 2 { print $6 }') and $(gib "$caches_at_start") GiB in .cache and build; a run needs $disk_needed GiB in all" | tee -a "$log"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
echo "# disk: $(gib "$(free_kb)") GiB free, $(gib "$caches_at_start") GiB in .cache and build; a run needs $disk_needed GiB in all" | tee -a "$log"
fs_at_start=$(fs_used_kb)
echo "$fs_at_start" >"$logs/disk.max"
sample_disk </dev/null >/dev/null 2>&1 &
disk_sampler=$!
disown $disk_sampler	# (not a suite, and not to be waited for)
trap 'kill $(jobs -p) $disk_sampler 2>/dev/null' EXIT
# the library first: the first suites all link it
if ! make -s lib >build/lib.log 2>&1; then
	sed 's/^/# /' build/lib.log
	echo "not ok - make lib" | tee -a "$log"
fi

# The guests' emulated CPUs run ahead of the other suites, at nice -10
# (scripts/guest/run's GUEST_NICE: qemu only, not the guest's module
# build). qemu runs each emulated CPU of the detector kernels' guests,
# arm64's, riscv64's, i386's and amd64's without the policy in a host
# thread of its own; when the host preempts one that holds a lock, or
# owes an IPI or a TLB shootdown, the others spin on their emulated
# CPUs (the debug guest took 758 CPU-seconds beside two other suites,
# 535 alone), where a compiler or a test program that waits for a CPU
# wastes none. (amd64's guests with the policy run all their CPUs in
# one thread: for them it changes only the order.) The suites at nice 0
# get what these leave: their few time limits (tests/test_cli.sh's,
# test_replace's alarm, scripts/mutants') bound programs that need a
# small part of them. The system test's machine has one emulated CPU
# (scripts/system/machine.py), nothing to spin on.
if [ "$(nice -n -10 nice 2>/dev/null)" -lt "$(nice)" ] 2>/dev/null; then
	export GUEST_NICE=-10
else
	unset GUEST_NICE
	echo "# the guests run at the others' priority: nice -n -10 raises none here" | tee -a "$log"
fi

# Each suite's least count (the second word of suite) is a floor under
# what it runs today on every CPU of this kind; the plans inside are
# checked exactly (tests/tap.sh's run, scripts/guest/run).
# Downloads and chroots the guests share: mostly waiting on the network,
# so beside the slots. Steps, not tests: 0.
launch suite "the guests' kernels, chroots and programs" 0 scripts/guest/prepare
prepared=$started
# Likewise the system test's disk image (mmdebstrap: mostly downloads,
# 4 to 20 minutes), and the Debian packages first in the pool: the system
# test (below) waits for both, then runs beside the pool for half an hour
# to an hour, held: beside it and a detector guest the pool runs no
# suite (queue).
launch suite "the system test's disk image" 0 sh -c '
	if out=$(scripts/system/image trixie amd64 2>&1); then
		echo "# made: $(printf "%s\n" "$out" | tail -1)"
	else
		echo "not ok - the disk image of the system test (scripts/system/image trixie amd64)"
		printf "%s\n" "$out" | tail -30 | sed "s/^/# /"
	fi'
imaged=$started
rm -f build/deb/.built	# (a last run's: the system test waits for it)
start suite "Debian packages: build, lintian, install, DKMS" plan tests/test_debian.sh
packaged=$started
# The packages it built (as soon as they are: the rest of that suite runs
# beside), on a whole Debian 13 system booted with Secure Boot
# (scripts/system/test): apt, DKMS, MokManager, reboots, utf8names.service,
# a kernel upgrade, purge; with --all, the upgrade from 1.0.0 too.
# Beside the pool: much of its time it waits on apt, ssh and reboots.
launch after $imaged made $packaged build/deb/.built \
	suite "system: Debian 13 with Secure Boot, the packages as installed" plan \
	env DEBS="$PWD/build/deb" scripts/system/run ${left_out:+--without-previous} trixie amd64
held+=("$started")
# Debian 13 on arm64 (no Secure Boot there; its packages built in an
# arm64 chroot): only with --all, for CI's time.
if [ -n "$all" ]; then
	start suite "system: Debian 13 on arm64, the packages as installed" plan \
		scripts/system/run trixie arm64
else
	start suite "system: Debian 13 on arm64" 0 \
		echo "ok - trixie arm64: the system test # SKIP scripts/test.sh --all runs it"
fi
# The detector kernels, 6.12 from Debian's source (tinyconfig, a few
# minutes each): KASAN, UBSAN, lockdep, kmemleak, KFENCE, fault injection
# and KUnit; with --all, KCSAN (which excludes KASAN). Built beside the
# other suites; their guests are queued apart from the pool (queue,
# above): each starts once its kernel is built. The suites, then one
# failing boot per kernel with every injected bug, to prove each
# detector is live.
declare -A built=()	# each flavour's build suite
for flavour in debug ${all:+kcsan}; do
	start suite "the $flavour kernel builds" 0 sh -c "
		scripts/guest/build-debug-kernel $flavour >/dev/null &&
		echo '# $flavour: the kernel builds' ||
		echo 'not ok - $flavour: the kernel builds'"
	built[$flavour]=$started
done
queue ${built[debug]},$prepared suite "guest: debug kernel with every detector" 115 \
	scripts/guest/run debug test
if [ -n "$all" ]; then
	queue ${built[kcsan]},$prepared suite "guest: KCSAN kernel" 40 \
		scripts/guest/run kcsan test
	queue ${built[debug]},${built[kcsan]},$prepared suite "guest: the detectors are live" 12 \
		scripts/guest/prove-detectors
else
	start suite "guest: KCSAN kernel" 0 \
		echo "ok - kcsan: the KCSAN kernel's guest # SKIP scripts/test.sh --all runs it"
	queue ${built[debug]},$prepared suite "guest: the detectors are live" 11 \
		scripts/guest/prove-detectors --debug-only
fi
# (the tests of the command, its completion, the install, the headers,
# the documentation's examples, the licenses, the TAP checks and the
# kernel's chunked calls run in the package build's make check, above, on
# the binaries the packages ship: not twice)
# (420 ran here, on AVX-512: 7 of them need it; each variant runs 96 or
# more, so one missing shows)
start suite "host tests: 4 build variants" 400 make -s test-variants
# KUnit in UML, which runs on this CPU: where it has AVX-512, the one
# kernel context that path gets (the guests' emulated CPUs lack it).
# Only with --all; the default run's skip names the path. (The path's
# code is what the host tests compare with the reference on this CPU;
# the kernel's part around it, the vector section, is AVX2's, which the
# debug guest's KUnit runs.)
start suite "KUnit under UML: this CPU's paths in kernel context" 0 \
	scripts/kunit-uml --where-needed ${left_out:+--skip}
start suite "fuzzing" 1 make -s fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
fuzzed=$started
start suite "static checks" plan scripts/static-checks
# plausible bugs planted in the core, each of which the host tests must
# catch, so that a weakened test shows
start suite "mutants of the core" plan scripts/mutants --quick
# arm64 (NEON), riscv64 (RVV), s390x (big-endian), armhf and i686
# (32-bit), in qemu-user, the fuzz target from the corpus the fuzzer
# above grew (armhf: the kernel's chunked calls and the fuzz target; its
# test programs are i686's 32-bit scalar code)
for triplet in riscv64-linux-gnu s390x-linux-gnu aarch64-linux-gnu arm-linux-gnueabihf i686-linux-gnu; do
	least=40
	[ $triplet != arm-linux-gnueabihf ] || least=15
	start after $fuzzed suite "host tests on $triplet" $least scripts/cross-tests "$triplet"
done
# Every Debian kernel (scripts/guest/kernels): the whole guest suite on
# the oldest and newest amd64 kernels and i386's newest, and but for
# its races on arm64's and riscv64's newest; the short one on the rest
# but those only built.
# (scripts/guest/run checks that each suite it put in the guest ran
# whole.)
. scripts/guest/kernel-row.sh
first_guest=$((started + 1))	# (pool_size)
for series in $(kernel_series full); do
	start after $prepared suite "guest: Debian $series kernel in qemu" 90 \
		scripts/guest/run "$series" test
done
# (with --all, the arch rows' whole suite)
arch_left="all but stress, lifecycle and most of the policy's attack"
for series in $(kernel_series arch); do
	start after $prepared suite "guest: Debian $series kernel in qemu${left_out:+, $arch_left}" 80 \
		scripts/guest/run "$series" "${left_out:+arch}${all:+test}"
done
for series in $(kernel_series short); do
	start after $prepared suite "guest: Debian $series kernel in qemu, short suite" 40 \
		scripts/guest/run "$series" short
done
for series in $(kernel_series build); do
	start after $prepared suite "Debian $series: the module builds" 1 sh -c "
		scripts/guest/build-module $series >/dev/null &&
		echo 'ok - $series: module builds with W=1 and sparse, no warning' ||
		echo 'not ok - $series: module builds with W=1 and sparse, no warning'"
done
# The system above boots the module DKMS built on 6.12 and 7.3;
# bookworm's 6.1 is booted here with the module DKMS built from the
# package (no settings). And the BPF sample on a kernel booted without
# the BPF LSM: it must say so.
start after $packaged suite "guest: Debian 6.1 with the module DKMS built" 20 \
	scripts/guest/run 6.1 dkms
start after $prepared suite "guest: Debian 6.12 without the BPF LSM" 5 \
	env GUEST_ONLY=utf8names scripts/guest/run 6.12 nolsm
drain
suite "the README's Supported kernels table" 1 scripts/guest/kernel-table --check |
	tee -a "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
	status=1
	failures+=("the README's Supported kernels table (exit $rc)")
fi
if [ -n "$narrowed" ] && [ -n "${CI:-}" ]; then
	echo "not ok - CI narrows nothing: narrowed by $narrowed" | tee -a "$log"
fi

# Where the time went: each suite's, the longest first, and the whole;
# with the CPU time, which is what a slower machine multiplies.
echo "# ==== times (wall, CPU, from and to in the run's seconds)"
for f in "$logs"/*.out; do
	awk 'NR == 1 { sub(/^# ==== /, ""); name = $0 }
	     /^# ---- [0-9]+ s, CPU [0-9]+ s$/ { t = $3; c = $6 }
	     /^# ---- from [0-9]+ s to [0-9]+ s of the run$/ { from = $4; to = $7 }
	     END { if (name == "") exit
		   # (a suite killed before its time lines: no times)
		   if (to == "") printf "%6s s %6s s %11s %s\n", "?", "?", "?", name
		   else printf "%6d s %6d s %5d-%-5d %s\n", t, c, from, to, name }' "$f"
done | sort -rn | sed 's/^/# /'
cpu_now "$logs/times.$BASHPID"
echo "# whole run: $((SECONDS - t_start)) s, CPU $cpu s on $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1))"
kill $disk_sampler 2>/dev/null
disk_sampler=
echo "# disk: $(gib "$(caches_kb)") GiB in .cache and build ($(gib "$caches_at_start") GiB at the start); at its sampled fullest the file system held $(gib $(($(cat "$logs/disk.max") - fs_at_start))) GiB more than at the start; $(gib "$(free_kb)") GiB free"
[ -z "$narrowed" ] || echo "# narrowed by $narrowed"
[ -z "$left_out" ] || echo "# left out: $left_out"

set -- $(awk "$TAP_COUNT" "$log")
passed=$1 failed=$2 skipped=$3
# CI shows only the end of the output: repeat what failed there (a
# suite may fail with status 0 and a 'not ok', or the reverse).
if [ "$failed" -gt 0 ] || [ ${#failures[@]} -gt 0 ]; then
	echo "# ==== what failed"
	[ ${#failures[@]} -eq 0 ] || printf '# suite: %s\n' "${failures[@]}"
	awk '/^not ok / && ++n <= 25 { print "# " $0 }
	     END { if (n > 25) print "# (and " n - 25 " more)" }' "$log"
	# a suite that failed without a 'not ok': the end of what it said
	for n in "${silent[@]}"; do
		echo "# ==== $(sed -n '1s/^# ==== //p' "$logs/$n.out"): failed, saying no 'not ok'; its end:"
		grep -v -E '^# ---- ([0-9]+ s, CPU|from [0-9]+ s to)' "$logs/$n.out" |
			tail -8 | sed 's/^/#   /'
	done
	# The first two failures again, each with the comments above it
	# (since the result before it: a kselftest's cause) and under it (a
	# TAP diagnostic), a suite's frame and time lines ending them: at
	# the very end, which is what CI shows, for later failures often
	# follow from the first.
	echo "# ==== the first failures, with what they said"
	awk -v max=2 -v above=6 -v below=10 '
	function flush(  i) {
		for (i = (c > below ? c - below : 0); i < c; i++)
			print "# " held[i]
		c = 0
		open = 0
	}
	/^(not )?ok / {
		flush()
		if (/^not ok / && ++failures > max)
			exit
		if (/^not ok /) {
			for (i = (p > above ? p - above : 0); i < p; i++)
				print "# " pre[i]
			print "# " $0
			open = 1
		}
		p = 0
		next
	}
	/^# / && !/^# (----|====) / && !/^# [0-9]+ s since the last result/ {
		if (open)
			held[c++] = $0
		else
			pre[p++] = $0
		next
	}
	{ flush(); p = 0 }
	END { flush() }' "$log"
fi
# A suite that failed without saying which test still fails the run.
[ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
