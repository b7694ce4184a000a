#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# build/utf8val as a script uses it: verdict lines (expected values worked
# out by hand from the bytes), exit status, options, errors. TAP output.
# Usage: test_cli.sh PATH_TO_UTF8VAL
set -u
cli=${1:?usage: test_cli.sh PATH_TO_UTF8VAL}
. "$(dirname "$0")/tap.sh"
# The temporary files and folders below, mktemp's, all in one folder
# (which others may pass through: -r's test as nobody), removed however
# this ends but by SIGKILL: HUP, INT or TERM ends it by exit, which runs
# the EXIT trap, once the command it waits for has ended
scratch=$(mktemp -d) && chmod 711 "$scratch" || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
export TMPDIR=$scratch
# a path to no command would fail every test below alike: one failure
# (and one that waits for input or hangs, once, not at every test). Its
# answer goes to a file, not a pipe, which a child it leaves behind could
# hold open; at most 64 KiB of it (ulimit -f); -k: KILL what ignores TERM;
# --foreground: an INT from the terminal reaches it.
SECONDS=0
{ (ulimit -f 64 && exec timeout --foreground -k 2 10 "$cli" --version \
	>"$scratch/version" 2>&1 </dev/null); } 2>/dev/null
rc=$? took=$SECONDS
# its first line, without control characters
version=$(head -c 200 "$scratch/version" | head -n 1 | LC_ALL=C tr -d '\000-\010\013-\037\177')
case $rc:$version in
0:"utf8val "?*) ;;
*)
	if [ "$rc" -ge 124 ] && [ "$took" -ge 10 ]; then
		why="did not end in 10 s${version:+ (said: $version)}"
	else
		why="${version:-no output} (exit status $rc)"
	fi
	echo "Bail out! $cli --version: $why"
	exit 1
	;;
esac
# the first CPU this may run on (a cpuset may leave CPU 0 out), and how many
read -r cpu0 cpus_here < <(python3 -c 'import os; a = os.sched_getaffinity(0); print(min(a), len(a))')
# strace, where it may trace (not where ptrace is refused: a container,
# Yama's ptrace_scope, an emulated build): the tests that hold a system
# call with it skip without
strace_ok=
if command -v strace >/dev/null &&
	[ -z "$(strace -qq -f -o /dev/null -e trace=read \
		-e inject=read:delay_enter=1 cat /dev/null 2>&1)" ]; then
	strace_ok=yes
fi
# preload_lib DIR/NAME WHAT: DIR/NAME.c built into DIR/NAME.so (once), a
# library to preload into the command; where gcc fails, WHAT fails, saying
# why, and the tests that need it are not run
preload_lib() {
	local err

	[ -f "$1.so" ] && return
	err=$(gcc -Wall -Werror -shared -fPIC -o "$1.so" "$1.c" -ldl 2>&1) && return
	result 1 "$2: its helper builds (gcc)" "$err"
	return 1
}

check() {	# check NAME EXPECTED_OUTPUT EXPECTED_STATUS BYTES [ARGS...]
	local name=$1 want=$2 want_rc=$3 bytes=$4 got rc
	shift 4
	got=$(printf "$bytes" | "$cli" "$@" 2>&1)
	rc=$?
	expect "$name" "($want_rc) $want" "($rc) $got"
}

check "valid" "valid bytes=10 chars=7" 0 'caf\xc3\xa9 \xe2\x82\xac\n'
check "empty input" "valid bytes=0 chars=0" 0 ''
# "ab\n" is line 1; "c", "é", "d" are columns 1-3 of line 2; C0 is column 4
check "overlong on line 2" \
	"invalid bytes=7 chars=6 offset=7 len=1 error=overlong line=2 column=4" 1 \
	'ab\nc\xc3\xa9d\xc0\xaf'
check "truncated sequence" \
	"invalid bytes=14 chars=14 offset=14 len=2 error=short line=2 column=6" 1 \
	'line one\nline \xe2\x82\x41two'
check "incomplete tail" \
	"incomplete bytes=8 chars=5 offset=5 len=3 line=1 column=6" 1 \
	'tail \xf0\x9f\x98'
check "surrogate, strict" \
	"invalid bytes=1 chars=1 offset=1 len=1 error=surrogate line=1 column=2" 1 \
	'x\xed\xa0\x80'
check "surrogate, --surrogates" "valid bytes=4 chars=2" 0 'x\xed\xa0\x80' --surrogates
check "5-byte form, --rfc2279" "valid bytes=5 chars=1" 0 '\xf8\x88\x80\x80\x80' --rfc2279
check "BOM, --reject-bom" \
	"invalid bytes=0 chars=0 offset=0 len=3 error=bom line=1 column=1" 1 \
	'\xef\xbb\xbfhello' --reject-bom
check "NUL, --reject-nul" \
	"invalid bytes=1 chars=1 offset=1 len=1 error=nul line=1 column=2" 1 \
	'a\0b' --reject-nul
check "-q prints nothing" "" 1 '\xff' -q
# what the flags refuse, strict UTF-8 allows: -q and -l still refuse it
check "-q --reject-nul" "" 1 'a\0b' -q --reject-nul
check "-l --reject-nonchar" "(standard input)" 1 'a\xef\xbf\xbe' -l --reject-nonchar
check "-l --reject-bom" "(standard input)" 1 '\xef\xbb\xbfa' -l --reject-bom
check "-q --surrogates" "" 0 'x\xed\xa0\x80' -q --surrogates
check "unknown option" "utf8val: unrecognized or ambiguous option '--bogus'
Try 'utf8val --help' for more information." 2 '' --bogus
check "unknown short option among others" "utf8val: invalid option -- 'x'
Try 'utf8val --help' for more information." 2 '' -qx
check "unknown format" "utf8val: unknown format 'xml' (kv, gnu or json)
Try 'utf8val --help' for more information." 2 '' --format=xml
check "combined short options" "" 1 '\xff\xfe' -qa
check "--version" "utf8val 1.1.0" 0 '' --version
check "-a: every error, resuming after each maximal subpart" \
"invalid bytes=1 chars=1 offset=1 len=1 error=overlong line=1 column=2
invalid bytes=2 chars=2 offset=2 len=1 error=continuation line=1 column=3
invalid bytes=4 chars=4 offset=4 len=2 error=short line=2 column=1
incomplete bytes=9 chars=6 offset=7 len=2 line=2 column=3" 1 \
	'a\xc0\xaf\n\xe2\x82x\xf0\x9f' -a
check "--format=gnu, as compilers print" \
"<stdin>:1:2: error: overlong (1 byte) at byte 1
<stdin>:1:3: error: continuation (1 byte) at byte 2" 1 'a\xc0\xafb' --format=gnu --all
check "--format=gnu prints nothing for valid input" "" 0 'ok\n' --format=gnu
check "--json: a line for the error, one for the file" '{"type":"error","file":"-","offset":1,"len":1,"error":"overlong","line":1,"column":2,"chars":1}
{"type":"file","file":"-","verdict":"invalid","bytes":1,"chars":1,"error_count":1,"stopped":true}' 1 'a\xc0\xafb' --json
check "--json --all: a line per error" '{"type":"error","file":"-","offset":1,"len":1,"error":"overlong","line":1,"column":2,"chars":1}
{"type":"error","file":"-","offset":2,"len":1,"error":"continuation","line":1,"column":3,"chars":2}
{"type":"file","file":"-","verdict":"invalid","bytes":1,"chars":1,"error_count":2}' 1 'a\xc0\xafb' --json --all
check "--json: an input that ends inside a character was read to its end: not stopped" '{"type":"error","file":"-","offset":0,"len":2,"error":"incomplete","line":1,"column":1,"chars":0}
{"type":"file","file":"-","verdict":"incomplete","bytes":2,"chars":0,"error_count":1}' 1 '\xe2\x82' --json
check "--json, valid: one line" '{"type":"file","file":"-","verdict":"valid","bytes":3,"chars":2,"error_count":0}' 0 'a\xc3\xa9' --json
check "--replace" "$(printf 'a\xef\xbf\xbd\xef\xbf\xbdb')" 1 'a\xc0\xafb' --replace
check "--replace of valid input is the input" "$(printf 'caf\xc3\xa9')" 0 'caf\xc3\xa9' -S
check "--replace takes no --format" "utf8val: --replace writes the text, not a report: no --format or --quiet
Try 'utf8val --help' for more information." 2 '' -S --json

# --help: exit 0, every long option of the program and the exit statuses
help=$("$cli" --help)
rc=$?
missing=
for o in $(grep -o '{ "[a-z0-9-]*"' "$(dirname "$0")/../tools/utf8val/options.c" | cut -d'"' -f2); do
	grep -q -- "--$o" <<<"$help" || missing="$missing --$o"
done
grep -q "Exit status" <<<"$help" || missing="$missing (exit status)"
[ "$rc" -eq 0 ] && [ -z "$missing" ]
result $? "--help exits 0 and names every option and the exit status" \
	"status $rc, missing:$missing"
check "missing file" "utf8val: /nonexistent: No such file or directory" 2 '' /nonexistent

# A verdict spanning read() chunks: 200000 lines of "é\n", then C0.
big=$(mktemp)
for _ in $(seq 2000); do printf '\xc3\xa9\n%.0s' $(seq 100); done >"$big"
printf '\xc3\xa9\xc0' >>"$big"
expect "line and column across read() chunks" \
	"$big: invalid bytes=600002 chars=400001 offset=600002 len=1 error=overlong line=200001 column=2" \
	"$("$cli" "$big")"

# A 3-byte character across the read() boundary of a pipe: 30000 euro
# signs in two writes (65537 bytes, then the rest and "\nab", C0, "x").
got=$( (printf '\xe2\x82\xac%.0s' $(seq 30000) | head -c 65537; sleep 0.2
	printf '\xe2\x82\xac%.0s' $(seq 30000) | tail -c +65538
	printf '\nab\xc0x') | "$cli")
expect "a character split between two reads of a pipe" \
	"invalid bytes=90003 chars=30003 offset=90003 len=1 error=overlong line=2 column=3" \
	"$got"

# Random 1- to 4-byte text with newlines and one error, through a pipe
# in random pieces, against Python's decoder (an independent reference
# for the offset, line and column).
for seed in 1 2 3 4 5 6; do
	got=$(python3 - "$seed" <<'PY' | "$cli" | sed 's/.*offset=\([0-9]*\).* line=\([0-9]*\) column=\([0-9]*\)/\1 \2 \3/'
import os, random, signal, sys, time
signal.signal(signal.SIGPIPE, signal.SIG_DFL)	# the reader may stop early
r = random.Random(int(sys.argv[1]))
chars = "a\n\u00e9\u20ac\U0001f600z"
text = "".join(r.choice(chars) for _ in range(r.randrange(20000, 90000)))
data = text.encode() + r.choice([b"\xc0", b"\xe2\x82A", b"\xed\xa0\x80", b"\xff"]) + b"tail"
i, out = 0, sys.stdout.buffer
while i < len(data):
    k = r.randrange(1, 70000)
    out.write(data[i:i + k]); out.flush(); i += k
    time.sleep(0.002)
PY
)
	want=$(python3 - "$seed" <<'PY'
import random, sys
r = random.Random(int(sys.argv[1]))
chars = "a\n\u00e9\u20ac\U0001f600z"
text = "".join(r.choice(chars) for _ in range(r.randrange(20000, 90000)))
data = text.encode() + r.choice([b"\xc0", b"\xe2\x82A", b"\xed\xa0\x80", b"\xff"]) + b"tail"
try:
    data.decode()
except UnicodeDecodeError as e:
    good = data[:e.start].decode()
    line = good.count("\n") + 1
    print(e.start, line, len(good) - (good.rfind("\n") + 1) + 1)
PY
)
	expect "random text in random pipe pieces, seed $seed: offset, line, column" "$want" "$got"
done
# Many errors of every kind, through a file (mapped) and through a pipe in
# random pieces: --all's list and --replace's text against Python's
# decoder (the WHATWG one), its errors recorded by an error handler.
gen=$(mktemp)
cat >"$gen" <<'PY'
import codecs, random, signal, sys, time
signal.signal(signal.SIGPIPE, signal.SIG_DFL)	# the reader may stop early
r = random.Random(int(sys.argv[1]))
pieces = ["a", "\n", "\u00e9", "\u20ac", "\U0001f600", "\ufffd", "z"]
bad = [b"\xc0", b"\xc1\xbf", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
       b"\xf0\x9f\x98", b"\x80", b"\xbf\xbf", b"\xff", b"\xf8\x88\x80\x80\x80"]
data = b"".join(r.choice(bad) if r.random() < 0.01 else r.choice(pieces).encode()
                for _ in range(r.randrange(50000, 200000)))
data += r.choice([b"", b"\xe2\x82", b"\xf0"])
if sys.argv[2] == "data":
    out = sys.stdout.buffer
    i = 0
    while i < len(data):
        k = r.randrange(1, 150000)
        out.write(data[i:i + k]); out.flush(); i += k
        time.sleep(0.001)
    sys.exit()
errors = []
def record(e):
    errors.append((e.start, e.end))
    return ("\ufffd", e.end)
codecs.register_error("record", record)
text = data.decode("utf-8", "record")
if sys.argv[2] == "replace":
    sys.stdout.buffer.write(text.encode())
    sys.exit()
# each error: offset, len, line, column, from the text as replaced
out, pos, line, col, ci = [], 0, 1, 1, 0
for start, end in errors:
    good = data[pos:start].decode()
    nl = good.count("\n")
    line += nl
    col = (len(good) - good.rfind("\n")) if nl else col + len(good)
    out.append("%d %d %d %d" % (start, end - start, line, col))
    col += 1
    pos = end
print("\n".join(out))
PY
for seed in 11 12 13; do
	python3 "$gen" $seed data >"$big"
	want=$(python3 "$gen" $seed errors)
	fields='s/.*offset=\([0-9]*\) len=\([0-9]*\) .*line=\([0-9]*\) column=\([0-9]*\)/\1 \2 \3 \4/'
	expect "--all on a file, seed $seed: every error's offset, len, line, column" \
		"$want" "$("$cli" -a "$big" | sed "$fields")"
	expect "--all through a pipe in random pieces, seed $seed" \
		"$want" "$(python3 "$gen" $seed data | "$cli" -a | sed "$fields")"
	want=$(python3 "$gen" $seed replace | sha1sum)
	expect "--replace on a file, seed $seed: Python's decode('utf-8', 'replace')" \
		"$want" "$("$cli" -S "$big" | sha1sum)"
	expect "--replace through a pipe in random pieces, seed $seed" \
		"$want" "$(python3 "$gen" $seed data | "$cli" -S | sha1sum)"
done
rm -f "$gen"

# -l and -q take the uncounted check, a character cut by a read() left
# for the next: text valid, or with one error (a cut character among
# them) anywhere, through a pipe in random pieces, against Python.
gen=$(mktemp)
cat >"$gen" <<'PY'
import random, signal, sys, time
signal.signal(signal.SIGPIPE, signal.SIG_DFL)	# the reader may stop early
r = random.Random(int(sys.argv[1]))
text = "".join(r.choice("a\n\u00e9\u20ac\U0001f600")
               for _ in range(r.randrange(1, 120000))).encode()
at = r.randrange(len(text) + 1)
bad = r.choice([b"", b"", b"\xe2\x82", b"\xf0\x9f\x98", b"\xc3", b"\x80",
                b"\xed\xa0\x80", b"\xc0\xaf", b"\xff"])
data = text[:at] + bad + (text[at:] if r.random() < 0.5 else b"")
if sys.argv[2] == "data":
    out, i = sys.stdout.buffer, 0
    while i < len(data):
        k = r.randrange(1, 9000)
        out.write(data[i:i + k]); out.flush(); i += k
        time.sleep(0.0005)
    sys.exit()
try:
    data.decode()
    print(0)
except UnicodeDecodeError:
    print(1)
PY
for seed in $(seq 21 32); do
	want=$(python3 "$gen" $seed status)
	python3 "$gen" $seed data | "$cli" -q
	got=$?
	listed=$(python3 "$gen" $seed data | "$cli" -l)
	got="$got $?${listed:+ $listed}"
	expect "-q and -l through a pipe in random pieces, seed $seed" \
		"$want $want$([ "$want" = 1 ] && echo ' (standard input)')" "$got"
done
rm -f "$gen"
# Bytes at the end of a read that no later byte can make valid are an
# error at once: the answer comes before the writer is done, and a file
# as standard input is left after the chunk of the error, as without -q.
# (the writer holds the pipe open until the reader closes it, 5 s at most)
hold='import os, select, sys
os.write(1, bytes.fromhex(sys.argv[1]))
p = select.poll()
p.register(1, select.POLLERR)
p.poll(5000)'
for bad in ff f8 616263c0 eda0 f490 e080; do
	got=$(python3 -c "$hold" $bad | { timeout 3 "$cli" -q; echo $?; })
	got="$got $(python3 -c "$hold" $bad | timeout 3 "$cli" -l; echo $?)"
	expect "-q and -l answer $bad (hex) before the pipe's end" \
		"1 (standard input) 1" "$(echo $got)"
done
for size in $((768 << 10)) $((7 << 20)); do
	at=$(( size / 262144 / 2 * 262144 - 1 ))	# a chunk's last byte
	python3 -c 'import sys; n, at = map(int, sys.argv[1:]); sys.stdout.buffer.write(b"a" * at + b"\xf8" + b"a" * (n - at - 1))' \
		$size $at >"$big"
	for opt in -q -l; do
		got=$( { "$cli" $opt >/dev/null; cat | wc -c; } <"$big")
		expect "$opt on standard input, $size bytes, F8 at a chunk's last byte: the offset left after its chunk" \
			"$(( size - (at / 262144 + 1) * 262144 ))" "$got"
	done
done

# Standard input a regular file already partly read: offsets, lines and
# columns count from where utf8val starts (lines are counted by reading
# the file again).
printf 'x\nxab\nc\xc0' >"$big"
got=$( { dd bs=1 count=3 of=/dev/null 2>/dev/null; "$cli"; } <"$big")
expect "standard input, a file read in part before" \
	"invalid bytes=4 chars=4 offset=4 len=1 error=overlong line=2 column=2" "$got"
rm -f "$big"

# The first error ends the reading: an endless writer after a bad byte.
got=$( (printf 'ok\n\xff'; yes) | timeout 20 "$cli"; echo "status $?")
expect "stops at the first error of an endless pipe" \
	"invalid bytes=3 chars=3 offset=3 len=1 error=bad-byte line=2 column=1
status 1" "$got"
got=$( (printf '\xff'; yes) | timeout 20 "$cli" -q; echo "status $?")
expect "-q stops at the first error too" "status 1" "$got"

# Options given wrongly, each said plainly.
check "a long option given an argument it takes none" "utf8val: option '--rfc2279' takes no argument
Try 'utf8val --help' for more information." 2 '' --rfc2279=x
check "an ambiguous abbreviation" "utf8val: unrecognized or ambiguous option '--r'
Try 'utf8val --help' for more information." 2 '' --r
check "--quiet and --replace together" "utf8val: --replace writes the text, not a report: no --format or --quiet
Try 'utf8val --help' for more information." 2 '' -qS
check "- is <stdin> in gnu format" "<stdin>:1:1: error: bad-byte (1 byte) at byte 0" 1 '\xff' --format=gnu -

# An input that cannot be read, or that shrinks while being read: said on
# standard error, a complete JSON object for it, and the next file checked.
dir=$(mktemp -d)
printf 'a\n%.0s' $(seq 300000) >"$dir/shrinks"
printf '\xff' >>"$dir/shrinks"
printf 'ok' >"$dir/ok"
cat >"$dir/shrink.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
/*
 * The first pread (the command counting lines again) finds the file cut;
 * with SHRINK_READ set, the first read() of a regular file does.
 */
static void cut_once(int fd)
{
	static int cut;

	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!cut++ && truncate(path, 0))	/* the fd is read-only */
		perror("truncate");
}

/* both names, each with its own offset: 32-bit programs call pread64 */
ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t (*real)(int, void *, size_t, off_t) = dlsym(RTLD_NEXT, "pread");

	if (!getenv("SHRINK_READ"))
		cut_once(fd);
	return real(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	ssize_t (*real)(int, void *, size_t, off64_t) = dlsym(RTLD_NEXT, "pread64");

	if (!getenv("SHRINK_READ"))
		cut_once(fd);
	return real(fd, buf, n, off);
}

ssize_t read(int fd, void *buf, size_t n)
{
	ssize_t (*real)(int, void *, size_t);
	struct stat st;

	real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	if (getenv("SHRINK_READ") && !fstat(fd, &st) && S_ISREG(st.st_mode))
		cut_once(fd);
	return real(fd, buf, n);
}
C
if preload_lib "$dir/shrink" "the tests of files cut while read"; then
	got=$(LD_PRELOAD=$dir/shrink.so "$cli" --json "$dir/shrinks" "$dir/ok" 2>"$dir/err"
		echo "status $?")
	json_ok=$(printf '%s\n' "$got" | head -2 | python3 -c '
import json, sys
print(" ".join(json.loads(l)["verdict"] for l in sys.stdin))' 2>&1)
	expect "a file cut while its lines are counted again: reported, and the next file checked" \
		"unread valid
status 2
utf8val: $dir/shrinks: changed while being read" \
		"$json_ok
$(printf '%s\n' "$got" | tail -1)
$(cat "$dir/err")"
	# Mapped, its first window ends inside a euro sign and the second holds an
	# error: read() takes over with the sign's two bytes as the window had
	# them, not read again (a cut there once said "valid", then "changed"),
	# and a cut before that first read() leaves the file ending inside the
	# sign, as it would for read() alone.
	python3 -c 'import sys; sys.stdout.buffer.write(b"a" * ((2 << 20) - 2) + "\u20ac".encode() + b"b" * 1000 + b"\xff")' >"$dir/open.txt"
	for ctx in '' --context=8; do
		cp "$dir/open.txt" "$dir/open"
		got=$(UTF8VAL_WINDOWS=map LD_PRELOAD=$dir/shrink.so "$cli" $ctx "$dir/open" 2>&1; echo "status $?")
		expect "a mapped window's open character not read again${ctx:+ ($ctx)}" \
			"$dir/open: invalid bytes=2098153 chars=2098151 offset=2098153 len=1 error=bad-byte line=1 column=2098152${ctx:+
  context: \"bbbbbbbb\" \\xff \"\"}
status 1" "$got"
		cp "$dir/open.txt" "$dir/open"
		got=$(UTF8VAL_WINDOWS=map SHRINK_READ=1 LD_PRELOAD=$dir/shrink.so "$cli" $ctx "$dir/open" 2>&1; echo "status $?")
		expect "a file cut under the character a mapped window left open${ctx:+ ($ctx)}" \
			"$dir/open: incomplete bytes=2097152 chars=2097150 offset=2097150 len=2 line=1 column=2097151${ctx:+
  context: \"aaaaaaaa\" \\xe2\\x82 \"\"}
status 1" "$got"
	done
fi
got=$("$cli" --json "$dir" "$dir/ok" 2>&1 | python3 -c '
import json, sys
for l in sys.stdin:
    print(json.loads(l)["verdict"] if l.startswith("{") else l.strip())')
expect "a directory: reported, a complete JSON object, the next file checked" \
	"utf8val: $dir: Is a directory
unread
valid" "$got"
rm -rf "$dir"

# A pipe's buffer is widened to a chunk: with 64 KiB, `cat FILE | utf8val`
# took four times as long. The test keeps the read end to ask its size,
# and expects what the kernel allows this user (a pipe of its own asks).
got=$(python3 -c '
import fcntl, os, subprocess, sys
r, w = os.pipe()
try:
    fcntl.fcntl(os.pipe()[0], fcntl.F_SETPIPE_SZ, 262144)
    want = 262144
except OSError:
    want = fcntl.fcntl(r, fcntl.F_GETPIPE_SZ)
p = subprocess.Popen(sys.argv[1:], stdin=r, stdout=subprocess.PIPE)
os.write(w, b"caf\xc3\xa9\n")
os.close(w)
out = p.communicate()[0].decode().strip()
got = fcntl.fcntl(r, fcntl.F_GETPIPE_SZ)
print(out, "as allowed" if got == want else "%d, not %d" % (got, want))' "$cli" 2>&1)
expect "a pipe read: its buffer widened to 256 KiB where allowed" "valid bytes=6 chars=5 as allowed" "$got"

# Output that cannot be written is an error, not a silent success.
got=$(printf 'abc' | "$cli" -S 2>&1 >/dev/full; echo "status $?")
expect "--replace into a full device fails with status 2" \
	"utf8val: standard output: No space left on device
status 2" "$got"
got=$(printf 'abc' | "$cli" 2>&1 >/dev/full; echo "status $?")
expect "a verdict into a full device fails with status 2" \
	"utf8val: standard output: No space left on device
status 2" "$got"
got=$("$cli" --help 2>&1 >/dev/full; echo "status $?")
expect "--help into a full device fails with status 2" \
	"utf8val: standard output: No space left on device
status 2" "$got"

# What people do by mistake (issue 23): each of these once went wrong.
mistakes=$(mktemp -d)
printf 'a\xffb\n' >"$mistakes/f"
got=$("$cli" -S "$mistakes/f" 2>&1 >>"$mistakes/f"; echo "status $? size $(stat -c %s "$mistakes/f")")
expect "--replace appending to its own input is refused, as cat does" \
	"utf8val: $mistakes/f: input file is output file
status 2 size 4" "$got"
got=$("$cli" "$mistakes/f" 2>&1 >>"$mistakes/f"; echo "status $? size $(stat -c %s "$mistakes/f")")
expect "a report appended to its own input is refused too" \
	"utf8val: $mistakes/f: input file is output file
status 2 size 4" "$got"
got=$("$cli" <"$mistakes/f" 2>&1 >>"$mistakes/f"; echo "status $? size $(stat -c %s "$mistakes/f")")
expect "standard input that is standard output is refused" \
	"utf8val: -: input file is output file
status 2 size 4" "$got"
got=$("$cli" --json "$mistakes" "$mistakes/missing" 2>/dev/null; echo "status $?")
expect "--json: an object with verdict unread for each input it cannot read" \
	"{\"type\":\"file\",\"file\":\"$mistakes\",\"verdict\":\"unread\",\"failure\":\"Is a directory\"}
{\"type\":\"file\",\"file\":\"$mistakes/missing\",\"verdict\":\"unread\",\"failure\":\"No such file or directory\"}
status 2" "$got"
check "a bad short option after a long one is named" "utf8val: invalid option -- 'x'
Try 'utf8val --help' for more information." 2 '' --all -xq
check "a long option given an argument is named" "utf8val: option '--all' takes no argument
Try 'utf8val --help' for more information." 2 '' -q --all=yes
got=$("$cli" "$mistakes/f" - 2>&1 <&-; echo "status $?")
expect "with standard input closed, - is a bad descriptor, not the file before" \
	"$mistakes/f: invalid bytes=1 chars=1 offset=1 len=1 error=bad-byte line=1 column=2
utf8val: -: Bad file descriptor
status 2" "$got"
got=$("$cli" "$mistakes/f" 2>&1 >&-; echo "status $?")
expect "with standard output closed, the report fails loudly" \
	"utf8val: standard output: Bad file descriptor
status 2" "$got"
rm -rf "$mistakes"

# isutf8's habits: -l lists the inputs that are not valid, -i the valid
# ones, -0 ends each name with NUL; -s says nothing of unreadable ones.
lists=$(mktemp -d)
printf 'ok\n' >"$lists/good"
printf 'bad \xc0\xaf\n' >"$lists/bad"
printf 'cut \xe2\x82' >"$lists/cut"
newline_name="$lists/$(printf 'two\nlines \377')"
printf '\xff' >"$newline_name"
got=$("$cli" -l "$lists/good" "$lists/bad" "$lists/cut" 2>&1; echo "status $?")
expect "-l: only the names of invalid and incomplete inputs, in order" \
	"$lists/bad
$lists/cut
status 1" "$got"
got=$("$cli" -l -i "$lists/good" "$lists/bad" 2>&1; echo "status $?")
expect "-l -i: the valid ones instead; the status stays the verdict" \
	"$lists/good
status 1" "$got"
got=$("$cli" -l "$lists/good" 2>&1; echo "status $?")
expect "-l: nothing when all are valid, status 0" "status 0" "$got"
got=$("$cli" -l0 "$lists/bad" "$newline_name" | od -An -c | tr -s ' \n' ' ')
want=$(printf '%s\0%s\0' "$lists/bad" "$newline_name" | od -An -c | tr -s ' \n' ' ')
expect "-l -0: names that hold newlines and invalid bytes, each ended by NUL" "$want" "$got"
got=$(printf '\xff' | "$cli" --list; echo "status $?")
expect "-l: standard input is listed as (standard input)" \
	"(standard input)
status 1" "$got"
got=$("$cli" -ls "$lists/missing" "$lists/bad" 2>&1; echo "status $?")
expect "-s: nothing said of a missing input, which is not listed; status 2" \
	"$lists/bad
status 2" "$got"
got=$("$cli" -l "$lists/missing" 2>&1; echo "status $?")
expect "-l without -s: the missing input is reported on standard error" \
	"utf8val: $lists/missing: No such file or directory
status 2" "$got"
rm -rf "$lists"
check "--invert without --list is a usage error" "utf8val: --invert goes with --list
Try 'utf8val --help' for more information." 2 '' -i
check "--null without --list is a usage error" "utf8val: --null goes with --list or --files-from
Try 'utf8val --help' for more information." 2 '' -0

# --files-from: the names in a file or standard input, by line or by NUL
names=$(mktemp -d)
printf 'ok' >"$names/good"
printf '\xc0' >"$names/bad"
odd="$names/$(printf 'new\nline \377')"
printf '\xff' >"$odd"
printf '%s\n' "$names/good" "$names/bad" >"$names/list"
got=$("$cli" -l --files-from="$names/list" 2>&1; echo "status $?")
expect "--files-from: one name per line" "$names/bad
status 1" "$got"
got=$(printf '%s\0' "$names/good" "$odd" | "$cli" -l0 --files-from=- | tr '\0' '|'; echo "status ${PIPESTATUS[1]}")
expect "--files-from=- -0: names with newlines and invalid bytes, from standard input" \
	"$odd|status 1" "$got"
got=$(printf '%s\n\n-\n%s\n' "$names/good" "$names/missing" | "$cli" --files-from=- 2>&1; echo "status $?")
expect "--files-from=-: an empty name, - and a missing file are errors, the rest checked" \
	"$names/good: valid bytes=2 chars=2
utf8val: -: an empty name
utf8val: -: - in names read from standard input
utf8val: $names/missing: No such file or directory
status 2" "$got"
got=$("$cli" --files-from="$names/nolist" 2>&1; echo "status $?")
expect "--files-from with a list that does not exist" \
	"utf8val: $names/nolist: No such file or directory
status 2" "$got"
rm -rf "$names"

# Names in records: one line of UTF-8 whatever the name holds (control
# bytes, "\" and bytes that are not UTF-8 as \xHH); JSON keeps the bytes.
odd=$(mktemp -d)
name="$odd/$(printf 'nl\nback\\slash\377caf\303\251')"
printf 'ok' >"$name"
got=$("$cli" "$name")
expect "kv: a name with a newline, a backslash and a bad byte stays one line" \
	"$odd/nl\\x0aback\\x5cslash\\xffcafé: valid bytes=2 chars=2" "$got"
printf 'x\377' >"$name"
got=$("$cli" --format=gnu "$name")
expect "gnu: the same name escaped" \
	"$odd/nl\\x0aback\\x5cslash\\xffcafé:1:2: error: bad-byte (1 byte) at byte 1" "$got"
printf '%s' "$got" | "$cli" -q
expect "gnu: the record is itself valid UTF-8" 0 $?
got=$("$cli" --json "$name" | tail -1 | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
print(o["file"] == sys.argv[1].encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
      bytes.fromhex(o["file_bytes"]) == sys.argv[1].encode("utf-8", "surrogateescape"))' "$name")
expect "json: file with U+FFFD for the bad byte, file_bytes the name exactly" "True True" "$got"
got=$("$cli" "$odd/$(printf 'gone\nx\377')" 2>&1)
expect "a message on standard error escapes the name as the records do" \
	"utf8val: $odd/gone\\x0ax\\xff: No such file or directory" "$got"
got=$("$cli" --json "$odd" 2>/dev/null | grep -c file_bytes)
expect "json: no file_bytes for a name that is UTF-8" 0 "$got"
rm -rf "$odd"

check "--max-errors=2: the first two errors of three" \
"invalid bytes=1 chars=1 offset=1 len=1 error=bad-byte line=1 column=2
invalid bytes=3 chars=3 offset=3 len=1 error=bad-byte line=1 column=4" 1 'a\xffb\xffc\xff' --max-errors=2
check "--max-errors above the count: every error" \
"invalid bytes=0 chars=0 offset=0 len=1 error=bad-byte line=1 column=1" 1 '\xff' --max-errors=5
check "--max-errors=1 in JSON says it stopped" \
'{"type":"error","file":"-","offset":0,"len":1,"error":"bad-byte","line":1,"column":1,"chars":0}
{"type":"file","file":"-","verdict":"invalid","bytes":0,"chars":0,"error_count":1,"stopped":true}' 1 '\xff\xff' --json --max-errors=1
for bad in 0 -1 x 2x 99999999999999999999999; do
	check "--max-errors=$bad is a usage error" "utf8val: --max-errors takes a number of errors, 1 or more, not '$bad'
Try 'utf8val --help' for more information." 2 '' --max-errors=$bad
done
check "--files-from with FILE operands is a usage error" "utf8val: no FILE beside --files-from: the list names them
Try 'utf8val --help' for more information." 2 '' --files-from=- x
check "--list with --json is a usage error" "utf8val: --list prints names, not a report: no --replace, --format, --quiet or --max-errors
Try 'utf8val --help' for more information." 2 '' -l --json

# -r and -R: file trees as grep walks them, in name order
tree=$(mktemp -d)
chmod 755 "$tree"
mkdir -p "$tree/d/sub" "$tree/d/skip"
printf 'ok\n' >"$tree/d/a.txt"
printf 'bad \xff\n' >"$tree/d/sub/b.txt"
printf 'bin\0\xff' >"$tree/d/sub/c.dat"
printf '\xc0' >"$tree/d/skip/e.txt"
printf '\xc0' >"$tree/d/$(printf 'new\nline\377.txt')"
ln -s sub "$tree/d/link"
ln -s . "$tree/d/sub/loop"
got=$("$cli" -rl0 "$tree/d" 2>&1 | tr '\0' '|'; echo "status ${PIPESTATUS[0]}")
expect "-r: every regular file below, in name order; symbolic links not followed" \
	"$tree/d/$(printf 'new\nline\377.txt')|$tree/d/skip/e.txt|$tree/d/sub/b.txt|$tree/d/sub/c.dat|status 1" "$got"
got=$("$cli" -rl --binary-files=without-match --exclude-dir=skip --exclude='new*' "$tree/d" 2>&1; echo "status $?")
expect "-r with --exclude-dir, --exclude and --binary-files=without-match" \
	"$tree/d/sub/b.txt
status 1" "$got"
got=$("$cli" -rli --include='*.txt' "$tree/d" 2>&1; echo "status $?")
expect "-r -l -i --include: the valid .txt files" \
	"$tree/d/a.txt
status 1" "$got"
abs_cli=$(realpath "$cli")
got=$(cd "$tree/d/sub" && "$abs_cli" -r --binary-files=without-match 2>&1; echo "status $?")
expect "-r without FILE: the current directory" \
	"b.txt: invalid bytes=4 chars=4 offset=4 len=1 error=bad-byte line=1 column=5
status 1" "$got"
got=$("$cli" -Rl --include='b.txt' "$tree/d" 2>&1; echo "status $?")
expect "-R: symbolic links followed, a loop reported and skipped, status 2" \
	"$tree/d/link/b.txt
utf8val: $tree/d/link/loop: a directory loop (skipped)
$tree/d/sub/b.txt
utf8val: $tree/d/sub/loop: a directory loop (skipped)
status 2" "$got"
got=$("$cli" "$tree/d" 2>&1; echo "status $?")
expect "a directory without -r is an error" "utf8val: $tree/d: Is a directory
status 2" "$got"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod -R a+rX "$tree"
	chmod 000 "$tree/d/skip"
	got=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$cli" -rl --exclude='new*' "$tree/d" 2>&1; echo "status $?")
	expect "-r: a folder it cannot read is reported and skipped, status 2" \
		"utf8val: $tree/d/skip: Permission denied
$tree/d/sub/b.txt
$tree/d/sub/c.dat
status 2" "$got"
fi
mkdir "$tree/big"
(cd "$tree/big" && for i in $(seq 0 99); do mkdir "$i"; (cd "$i" && touch $(seq -f 'f%g' 0 99)); done)
printf '\xff' >"$tree/big/57/f42"
got=$("$cli" -rl "$tree/big"; echo "status $?")
expect "-r over 10000 files finds the one that is not UTF-8" "$tree/big/57/f42
status 1" "$got"
# A folder whose names take many reads of it (getdents64() returns 32 KiB
# at most a call here): every file found, those after the first read too.
mkdir "$tree/longnames"
(cd "$tree/longnames" && touch $(seq -f 'a-name-long-enough-that-a-read-of-the-folder-holds-few-%04g' 0 2999))
for i in 0007 1234 2999; do
	printf 'x\xc0\xafy' >"$tree/longnames/a-name-long-enough-that-a-read-of-the-folder-holds-few-$i"
done
got=$({ "$cli" -rl "$tree/longnames"; echo "status $?"; } | sed 's|.*-||')
expect "-r -l over 3000 long names in one folder: the three not UTF-8" "0007
1234
2999
status 1" "$got"
rm -rf "$tree/longnames"
# A folder removed after the walk opened it, before it read it (rm -rf
# beside a walk): read as empty, as readdir() has it, not an error.
# strace holds the walk's read of it while it goes.
name="-r -l: a folder removed between its open and its read is empty, not an error"
if [ -n "$strace_ok" ]; then
	mkdir -p "$tree/gone/sub"
	printf 'x\377' >"$tree/gone/f"
	sub=$(realpath "$tree/gone/sub")	# as strace and /proc see it
	strace -qq -o /dev/null -P "$sub" -e trace=getdents64 \
		-e inject=getdents64:delay_enter=3000000 \
		"$cli" -rl "$tree/gone" >"$tree/gone.out" 2>&1 &
	tracer=$!
	held=
	for _ in $(seq 100); do	# until the walk holds the folder open
		walker=$(pgrep -P "$tracer" || true)
		if [ -n "$walker" ] && ls -l "/proc/$walker/fd" 2>/dev/null |
			grep -q -- "-> $sub\$"; then
			held=yes
			break
		fi
		sleep 0.1
	done
	rmdir "$tree/gone/sub"
	wait "$tracer"
	echo "status $?" >>"$tree/gone.out"
	# (not seen holding it: the test tested nothing, and says so)
	expect "$name" "held
$tree/gone/f
status 1" "${held:+held}
$(cat "$tree/gone.out")"
	rm -rf "$tree/gone" "$tree/gone.out"
else
	skip "$name" "no strace that may trace here"
fi
# -l and -q check the files of a walk on every CPU: the answers and the
# messages come in the walk's order all the same, as on one CPU.
for i in $(seq 0 39); do
	mkdir -p "$tree/par/$i/d"
	for j in $(seq 0 49); do
		if [ $(( (i * 50 + j) % 7 )) -eq 0 ]; then
			printf 'x\xff' >"$tree/par/$i/f$j"
		else
			printf 'ok' >"$tree/par/$i/f$j"
		fi
	done
	ln -s nowhere "$tree/par/$i/dangling"
	ln -s .. "$tree/par/$i/d/up"
done
many=$("$cli" -Rl "$tree/par" 2>&1; echo "status $?")
one=$(taskset -c "$cpu0" "$cli" -Rl "$tree/par" 2>&1; echo "status $?")
expect "-R -l on every CPU: 286 names and 80 messages in the order one CPU gives" \
	"286 80 $one" "$(grep -c "^$tree" <<<"$many") $(grep -c '^utf8val: ' <<<"$many") $many"
many=$("$cli" -Rli "$tree/par" 2>&1 | md5sum; "$cli" -Rq "$tree/par" 2>&1 | md5sum; echo "status ${PIPESTATUS[0]}")
one=$(taskset -c "$cpu0" "$cli" -Rli "$tree/par" 2>&1 | md5sum; taskset -c "$cpu0" "$cli" -Rq "$tree/par" 2>&1 | md5sum; echo "status ${PIPESTATUS[0]}")
expect "-R -l -i and -R -q on every CPU: as on one" "$one" "$many"
# A file swapped for a link to a secret between the walk's look and its
# open (a preloaded openat() does the swap): the link is not followed.
cat >"$tree/swap.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int swap(const char *sym, int dfd, const char *name, int flags,
		va_list ap)
{
	int (*real)(int, const char *, int, ...) = dlsym(RTLD_NEXT, sym);
	int mode = va_arg(ap, int);

	if (!strcmp(name, "victim")) {
		unlinkat(dfd, "victim", 0);
		symlinkat(getenv("SECRET"), dfd, "victim");
	}
	return real(dfd, name, flags, mode);
}

/* both names: _FILE_OFFSET_BITS=64 programs call openat64 */
#define WRAP(sym)						\
int sym(int dfd, const char *name, int flags, ...)		\
{								\
	va_list ap;						\
	int fd;							\
								\
	va_start(ap, flags);					\
	fd = swap(#sym, dfd, name, flags, ap);			\
	va_end(ap);						\
	return fd;						\
}
WRAP(openat)
WRAP(openat64)
C
mkdir "$tree/race"
printf 'hunter2 \377' >"$tree/secret"
printf 'harmless' >"$tree/race/victim"
if preload_lib "$tree/swap" "-r: the swap test"; then
	got=$(SECRET=$tree/secret LD_PRELOAD=$tree/swap.so "$cli" -r --context "$tree/race" 2>&1; echo "status $?")
	expect "-r: a file swapped for a symbolic link after the walk saw it is skipped, not followed" \
		"status 0" "$got"
fi
# A message first (a dangling link), then a big file that keeps a worker
# busy while the ring fills, then 400 invalid files: every job checked
# once, in order, as on one CPU (a message's slot was taken twice).
mkdir "$tree/ring"
ln -s nowhere "$tree/ring/a0"
head -c 30M /dev/zero >"$tree/ring/a1"
for i in $(seq -w 0 399); do printf 'x\377' >"$tree/ring/f$i"; done
one=$(taskset -c "$cpu0" "$cli" -R -l "$tree/ring" 2>&1; echo "status $?")
for i in 1 2 3 4 5; do
	many=$("$cli" -R -l "$tree/ring" 2>&1; echo "status $?")
	[ "$many" = "$one" ] || break
done
expect "-R -l: a message, a big file, 400 more: as on one CPU, five times" \
	"$(echo "$one" | wc -l) $one" "$(echo "$many" | wc -l) $many"
rm -rf "$tree/ring"
# Few descriptors: the pool gives back what its jobs hold, and a tree
# deeper than the descriptors there are says why.
mkdir "$tree/wide"
for i in $(seq -w 0 59); do mkdir "$tree/wide/d$i"; printf '\377' >"$tree/wide/d$i/f"; done
one=$(ulimit -n 30; taskset -c "$cpu0" "$cli" -r -l "$tree/wide" 2>&1; echo "status $?")
many=$(ulimit -n 30; "$cli" -r -l "$tree/wide" 2>&1; echo "status $?")
expect "-r -l with 30 descriptors over 60 folders: every file, as on one CPU" \
	"61 $one" "$(echo "$many" | wc -l) $many"
python3 - "$tree/deep40" <<'PY'
import os, sys
os.mkdir(sys.argv[1])
fd = os.open(sys.argv[1], os.O_RDONLY)
for i in range(40):
    os.mkdir("d", dir_fd=fd)
    fd = os.open("d", os.O_RDONLY, dir_fd=fd)
PY
got=$(ulimit -n 30; "$cli" -r -l "$tree/deep40" 2>&1 | sed 's/^.*: //' | sort -u; echo "status ${PIPESTATUS[0]}")
expect "-r deeper than the descriptors: the real reason, status 2" "Too many open files
status 2" "$got"
# ... and a folder the walk could open with the last descriptor there is,
# leaving none for its files, is the one message, not one for each file.
python3 - "$tree/deepf" <<'PY'
import os, sys
os.mkdir(sys.argv[1])
fd = os.open(sys.argv[1], os.O_RDONLY)
for i in range(40):
    for f in range(100):
        out = os.open("f%02d" % f, os.O_WRONLY | os.O_CREAT, dir_fd=fd)
        os.write(out, b"\xff")
        os.close(out)
    os.mkdir("d", dir_fd=fd)
    fd = os.open("d", os.O_RDONLY, dir_fd=fd)
PY
got=$(ulimit -n 30; taskset -c "$cpu0" "$cli" -r -l "$tree/deepf" 2>&1 | grep -c 'Too many open files'; echo "status ${PIPESTATUS[0]}")
expect "-r deeper than the descriptors, files in every folder: one message" \
	"1
status 2" "$got"
# ... and on every CPU as on one: near the limit the walk checks the files
# itself (the workers' files would take the descriptors its folders
# leave, and files fail at random that one CPU checks).
got=$(ulimit -n 30; taskset -c "$cpu0" "$cli" -r -l "$tree/deepf" 2>&1; echo "status $?")
name="-r -l deeper than the descriptors, 100 files in every folder: as on one CPU, five times"
if [ "$cpus_here" -lt 2 ]; then
	skip "$name" "one CPU here"
else
	for i in 1 2 3 4 5; do
		many=$(ulimit -n 30; "$cli" -r -l "$tree/deepf" 2>&1; echo "status $?")
		[ "$many" = "$got" ] || break
	done
	expect "$name" "$got" "$many"
fi
# That race shows only where the walk runs beside the workers: with the
# machine busy it may not. Each read() held 0.5 ms (strace), the workers
# hold their files open while the walk goes on, whatever else runs; and
# eight of them, as many as the pool takes (sched_getaffinity() says 8
# CPUs), two descriptors each with -R: the margin a bigger machine needs.
# (It leaves $CPUS8_SAID: a run it was not in tested nothing.)
cat >"$tree/cpus8.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
	const char *said = getenv("CPUS8_SAID");
	int i, fd;

	(void)pid;
	memset(set, 0, size);
	for (i = 0; i < 8; i++)
		CPU_SET_S(i, size, set);
	fd = said ? open(said, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
	if (fd >= 0)
		close(fd);
	return 0;
}
C
for how in -r -R; do
	name="$how -l deeper than the descriptors, every read() slowed, 8 workers: as on one CPU"
	if [ -z "$strace_ok" ]; then
		skip "$name" "no strace that may trace here"
		continue
	fi
	preload_lib "$tree/cpus8" "$name" || continue
	one=$(ulimit -n 30; taskset -c "$cpu0" "$cli" "$how" -l "$tree/deepf" 2>&1; echo "status $?")
	rm -f "$tree/cpus8.said"
	many=$(ulimit -n 30
		timeout 300 strace -qq -f -o /dev/null \
			-E LD_PRELOAD="$tree/cpus8.so${LD_PRELOAD:+:$LD_PRELOAD}" \
			-E CPUS8_SAID="$tree/cpus8.said" \
			-e trace=read -e inject=read:delay_enter=500 \
			"$cli" "$how" -l "$tree/deepf" 2>&1
		echo "status $?")
	[ -f "$tree/cpus8.said" ] || many="(8 CPUs not faked: the shim was not called)
$many"
	expect "$name" "$one" "$many"
done
# ... with 16 descriptors inherited open at the top of the range (the
# walk counts what is open, not the numbers it is given), and with -R,
# whose files take two descriptors each to open.
got=$(ulimit -n 30
	for fd in $(seq 14 29); do eval "exec $fd</dev/null"; done
	taskset -c "$cpu0" "$cli" -r -l "$tree/deepf" 2>&1 | grep -c 'Too many open files'
	echo "status ${PIPESTATUS[0]}")
expect "-r deeper than the descriptors, 16 inherited open at the top: one message" \
	"1
status 2" "$got"
got=$(ulimit -n 30; taskset -c "$cpu0" "$cli" -R -l "$tree/deepf" 2>&1 | grep -c 'Too many open files'; echo "status ${PIPESTATUS[0]}")
expect "-R deeper than the descriptors, files in every folder: one message" \
	"1
status 2" "$got"
rm -rf "$tree/deepf"
rm -rf "$tree/wide" "$tree/deep40"
# Folders held by jobs not yet taken (fewer than a batch, POOL_BATCH,
# wakes no worker that waits): 20 of them, then a chain of 45 more that
# one CPU opens with 64 descriptors and that does not fit beside the 20
# (with FD_MARGIN 24 the walk is not near the limit before the chain).
# The pool gives them back as the walk nears the limit (walk_dir()'s
# drain, or open_dir()'s once an open fails), and it goes on as one CPU.
# A worker not yet waiting when the jobs come may take them first: five
# runs. Paths relative to the tree, so that a failure's diff is read
# whole.
mkdir "$tree/held"
for i in $(seq -w 0 19); do mkdir "$tree/held/a$i"; printf '\377' >"$tree/held/a$i/f"; done
chain=held/z
for i in $(seq 45); do chain=$chain/d; done
mkdir -p "$tree/$chain" && printf '\377' >"$tree/$chain/f"
want=$(cd "$tree" && printf '%s\n' held/a*/f "$chain/f"; echo "status 1")
case $cli in /*) here_cli=$cli ;; */*) here_cli=$PWD/$cli ;; *) here_cli=$cli ;; esac
one=$(cd "$tree" && ulimit -n 64 && taskset -c "$cpu0" "$here_cli" -r -l held 2>&1; echo "status $?")
expect "-r -l, 20 folders, then 45 deep in 64 descriptors, one CPU: every file" \
	"$want" "$one"
name="-r -l, 20 folders held by jobs, then 45 deep in 64 descriptors: every file, five times"
if [ "$cpus_here" -lt 2 ]; then
	skip "$name" "one CPU here"
else
	for i in 1 2 3 4 5; do
		many=$(cd "$tree" && ulimit -n 64 && "$here_cli" -r -l held 2>&1; echo "status $?")
		[ "$many" = "$want" ] || break
	done
	[ "$many" = "$want" ]
	result $? "$name" "$(diff <(echo "$want") <(echo "$many"))"
fi
rm -rf "$tree/held"
# A FIFO named with --binary-files: sniffed and checked through one open.
mkfifo "$tree/fifo"
python3 -c 'import sys; sys.stdout.buffer.write(b"a" * 50000 + b"\xff" + b"b" * 50000)' >"$tree/fifo" &
got=$("$cli" -r --binary-files=without-match "$tree/fifo" 2>&1; echo "status $?")
wait
expect "--binary-files on a FIFO: nothing lost to the sniffing" \
	"$tree/fifo: invalid bytes=50000 chars=50000 offset=50000 len=1 error=bad-byte line=1 column=50001
status 1" "$got"
# Deeper than PATH_MAX: the walk goes by directory, not by full path.
python3 - "$tree/deep" <<'PY'
import os, sys
os.mkdir(sys.argv[1])
fd = os.open(sys.argv[1], os.O_RDONLY)
for i in range(30):
    name = "d%d" % i + "x" * 200
    os.mkdir(name, dir_fd=fd)
    fd = os.open(name, os.O_RDONLY, dir_fd=fd)
with open(os.open("bad", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "wb") as f:
    f.write(b"\xff")
PY
got=$("$cli" -rl "$tree/deep" | tr '/' '\n' | tail -1; echo "status ${PIPESTATUS[0]}")
expect "-r deeper than PATH_MAX: the file at the bottom is checked" "bad
status 1" "$got"
# --include and --exclude apply to named files too, as in grep.
printf '\377' >"$tree/x.txt"
got=$("$cli" --exclude='*.txt' "$tree/x.txt"; echo "status $?")
expect "--exclude leaves out a named file too" "status 0" "$got"
# A --files-from list that standard output appends to is refused.
printf '%s\n' "$tree/x.txt" >"$tree/list"
got=$(timeout 5 "$cli" -l -i --files-from="$tree/list" 2>&1 >>"$tree/list"; echo "status $? lines $(wc -l <"$tree/list")")
expect "--files-from: a list that is standard output is refused" \
	"utf8val: $tree/list: input file is output file
status 2 lines 1" "$got"
# --names: the name of "dir/" is dir's.
mkdir -p "$tree/$(printf 'd\377')/ok"
got=$("$cli" --names "$tree/$(printf 'd\377')/ok/"; echo "status $?")
expect "--names: a trailing slash names the directory before it" "status 0" "$got"
rm -rf "$tree"
check "--binary-files with another value is a usage error" "utf8val: --binary-files takes without-match or text, not 'binary'
Try 'utf8val --help' for more information." 2 '' --binary-files=binary

# --names: the names, not the contents (the audit half of utf8names)
named=$(mktemp -d)
mkdir -p "$named/t/$(printf 'dir\377')"
printf '\xff' >"$named/t/ok"
touch "$named/t/$(printf 'dir\377')/$(printf 'caf\303')" "$named/t/$(printf 'x\300\257y')"
ln -s nowhere "$named/t/$(printf 'ln\355\240\200')"
got=$("$cli" --names -r "$named/t" 2>&1; echo "status $?")
expect "--names -r: every name below, directories and dangling links too, not the contents" \
	"$named/t/dir\\xff: invalid name offset=3 len=1 error=bad-byte
$named/t/dir\\xff/caf\\xc3: incomplete name offset=3 len=1
$named/t/ln\\xed\\xa0\\x80: invalid name offset=2 len=1 error=surrogate
$named/t/x\\xc0\\xafy: invalid name offset=1 len=1 error=overlong
status 1" "$got"
got=$("$cli" --names --surrogates -r "$named/t" 2>&1 | grep -c surrogate)
expect "--names takes the flags: --surrogates lets the surrogate name pass" 0 "$got"
got=$("$cli" --names "$named/t/ok" 2>&1; echo "status $?")
expect "--names on a valid name with invalid contents: nothing, status 0" "status 0" "$got"
got=$("$cli" --names -rl0 "$named/t" | tr '\0' '|' | tr -c '|' 'x' | tr -d 'x'; echo "status ${PIPESTATUS[0]}")
expect "--names -l -0: four names listed" "||||status 1" "$got"
got=$("$cli" --names "$named/none" - 2>&1; echo "status $?")
expect "--names: a missing file and standard input are errors" \
	"utf8val: $named/none: No such file or directory
utf8val: -: standard input has no name
status 2" "$got"
got=$("$cli" --names --json -r "$named/t" | python3 -c '
import json, sys
for line in sys.stdin:
    o = json.loads(line)
    name = bytes.fromhex(o["file_bytes"]).rsplit(b"/", 1)[1]
    print(o["type"], name, o["verdict"], o["offset"], o["len"], o["error"])'; echo "status ${PIPESTATUS[0]}")
expect "--names --json: a line per bad name, its bytes exact" \
	"name b'dir\\xff' invalid 3 1 bad-byte
name b'caf\\xc3' incomplete 3 1 incomplete
name b'ln\\xed\\xa0\\x80' invalid 2 1 surrogate
name b'x\\xc0\\xafy' invalid 1 1 overlong
status 1" "$got"
rm -rf "$named"
check "--names without FILE or -r is a usage error" "utf8val: --names checks the names of FILEs (or, with -r, of the current directory's tree)
Try 'utf8val --help' for more information." 2 '' --names
check "--names with --all is a usage error" "utf8val: --names reports the first error of each name: no --replace, --all, --max-errors or --context
Try 'utf8val --help' for more information." 2 '' --names --all x

# --context: the text around each error, within its line, cut before a
# character that does not fit.
check "--context: 16 bytes each side, in the line" \
"invalid bytes=18 chars=18 offset=18 len=1 error=bad-byte line=2 column=8
  context: \"line 2 \" \\xff \" of the text, th\"" 1 \
	'first line\nline 2 \xff of the text, that goes on\n' --context
check "--context=N: a character cut by N is left out" \
"invalid bytes=20 chars=10 offset=20 len=1 error=bad-byte line=1 column=11
  context: \"éé\" \\xff \"éé\"" 1 \
	'\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xff\xc3\xa9\xc3\xa9\xc3\xa9' --context=5
check "--context=N: characters that fit in N are kept" \
"invalid bytes=20 chars=10 offset=20 len=1 error=bad-byte line=1 column=11
  context: \"éé\" \\xff \"éé\"" 1 \
	'\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xff\xc3\xa9\xc3\xa9\xc3\xa9' --context=4
check "--context: quotes, backslashes, tabs and other errors escaped" \
"invalid bytes=3 chars=3 offset=3 len=2 error=short line=1 column=4
  context: \"\\x22\\x5c\\x09\" \\xe2\\x82 \"\\xc0 \\x0d\\x0d\"
invalid bytes=5 chars=4 offset=5 len=1 error=overlong line=1 column=5
  context: \"\\x22\\x5c\\x09\\xe2\\x82\" \\xc0 \" \\x0d\\x0d\"" 1 '"\\\t\xe2\x82\xc0 \r\r\n' -a --context
check "--context in gnu format" \
"<stdin>:1:3: error: bad-byte (1 byte) at byte 2
  context: \"ab\" \\xff \"cd\"" 1 'ab\xffcd' --context --format=gnu
check "--context in JSON: before, bad in hex, after" \
'{"type":"error","file":"-","offset":2,"len":2,"error":"short","line":1,"column":3,"chars":2,"context":{"before":"ab","bad":"e282","after":"cd"}}
{"type":"file","file":"-","verdict":"invalid","bytes":2,"chars":2,"error_count":1,"stopped":true}' 1 'ab\xe2\x82cd' --context --json
for bad in 0 65 x -1 1x; do
	check "--context=$bad is a usage error" "utf8val: --context takes a number of bytes from 1 to 64, not '$bad'
Try 'utf8val --help' for more information." 2 '' --context=$bad
done
check "--context: a carriage return beside the error is shown" \
"invalid bytes=3 chars=3 offset=3 len=1 error=bad-byte line=1 column=4
  context: \"ab\\x0d\" \\xff \"\\x0dcd\"" 1 'ab\r\xff\rcd' --context
check "--json=1 names the long option" "utf8val: option '--json' takes no argument
Try 'utf8val --help' for more information." 2 '' --json=1
check "--replace with --all is a usage error" "utf8val: --replace replaces every error: no --all or --max-errors
Try 'utf8val --help' for more information." 2 '' -S -a
check "--list with --max-errors is a usage error" "utf8val: --list prints names, not a report: no --replace, --format, --quiet or --max-errors
Try 'utf8val --help' for more information." 2 '' -l --max-errors=2
check "--context with --quiet is a usage error" "utf8val: --context shows errors: no --replace, --quiet or --list
Try 'utf8val --help' for more information." 2 '' --context -q

# Errors on both sides of a read() boundary (256 KiB), from a file and a
# pipe: the context is whole, worked out here from the bytes.
edge=$(mktemp -d)
python3 - "$edge" <<'PY'
import random, sys
random.seed(7)
text = bytearray(random.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(600000))
for at in (262144 - 3, 262144 + 1, 2 * 262144 - 70):
    text[at] = 0xff
open(sys.argv[1] + "/f", "wb").write(text)
with open(sys.argv[1] + "/want", "w") as want:
    for at in (262144 - 3, 262144 + 1, 2 * 262144 - 70):
        want.write('  context: "%s" \\xff "%s"\n' % (
            text[at - 16:at].decode("latin-1").replace("\xff", "?"),
            text[at + 1:at + 17].decode("latin-1").replace("\xff", "?")))
PY
sed -i 's/?/\\xff/g' "$edge/want"
got=$("$cli" -a --context "$edge/f" | grep '^  ')
expect "--context across read() boundaries, from a file" "$(cat "$edge/want")" "$got"
got=$(cat "$edge/f" | "$cli" -a --context | grep '^  ')
expect "--context across read() boundaries, from a pipe" "$(cat "$edge/want")" "$got"
rm -rf "$edge"

# --format=gnu counts columns as GCC does: tabs to the next multiple of 8,
# wide characters 2, combining ones 0 (kv counts characters).
check "gnu: GCC's columns, a tab, a wide and a combining character" \
	"<stdin>:1:13: error: bad-byte (1 byte) at byte 9" 1 \
	'a\tb\xe4\xb8\xadc\xcc\x81\xff' --format=gnu
wide=$(mktemp)
python3 -c 'import sys; sys.stdout.buffer.write(("\u4e2d" * 200000 + "\t").encode() + b"x\xff")' >"$wide"
got=$("$cli" --format=gnu "$wide"; cat "$wide" | "$cli" --format=gnu)
expect "gnu: wide characters across read() boundaries, from a file and a pipe" \
	"$wide:1:400010: error: bad-byte (1 byte) at byte 600002
<stdin>:1:400010: error: bad-byte (1 byte) at byte 600002" "$got"
rm -f "$wide"

# --color: SGR escapes on a terminal, or when asked; NO_COLOR for auto.
esc=$(printf '\033')
check "--color=always: the name, the verdict and the bad bytes" \
"$esc[01;31minvalid$esc[m bytes=1 chars=1 offset=1 len=1 error=bad-byte line=1 column=2
  context: \"a\" $esc[01;31m\\xff$esc[m \"\"" 1 'a\xff' --color=always --context
sed_color=$(printf 'x\377' | NO_COLOR=1 "$cli" --color=always --format=gnu | cat -v)
expect "--color=always wins over NO_COLOR (gnu)" \
	"^[[35m<stdin>^[[m:1:2: ^[[01;31merror:^[[m bad-byte (1 byte) at byte 1" "$sed_color"
check "--color (auto) is plain into a pipe" "valid bytes=1 chars=1" 0 'a' --color
check "--color=sometimes is a usage error" "utf8val: --color takes auto, always or never, not 'sometimes'
Try 'utf8val --help' for more information." 2 '' --color=sometimes
tty_run() {	# tty_run ENV...: utf8val on a terminal, its output
	env "$@" python3 -c '
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "--color", "/dev/null"])
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
sys.stdout.write(repr(out))' "$cli"
}
expect "--color=auto on a terminal" \
	"b'\\x1b[35m/dev/null\\x1b[m: \\x1b[32mvalid\\x1b[m bytes=0 chars=0\\r\\n'" \
	"$(tty_run TERM=xterm)"
expect "--color=auto on a terminal, NO_COLOR set" \
	"b'/dev/null: valid bytes=0 chars=0\\r\\n'" "$(tty_run TERM=xterm NO_COLOR=1)"
expect "--color=auto on a dumb terminal" \
	"b'/dev/null: valid bytes=0 chars=0\\r\\n'" "$(tty_run TERM=dumb)"

# JSON lines: every line an object, one per error and one per file.
got=$(python3 -c 'import sys; sys.stdout.buffer.write(b"ab\xff\n" * 5000)' |
	"$cli" --json --all --context | python3 -c '
import json, sys
kinds = [json.loads(l)["type"] for l in sys.stdin]
print(kinds.count("error"), kinds.count("file"), kinds[-1])')
expect "--json --all: 5000 error lines, then the file's" "5000 1 file" "$got"

# Regular files of a MiB and more are checked a window at a time (big ones
# in two halves at once), each window mapped or read with pread() as the
# command measures (UTF8VAL_WINDOWS sets it, for each to be tested), and
# read() takes over at the window of the first error: the reports must be
# those of the same bytes through a pipe, which is never mapped, and
# Python's decoder must agree.
# Errors at every offset around the boundaries (chunks of 256 KiB, the
# windows' ends, the halves' meeting point, the end), in text whose
# characters straddle them.
maps=$(mktemp -d)
cat >"$maps/sweep.py" <<'PY'
import codecs, os, random, subprocess, sys
cli, path, ways = sys.argv[1], sys.argv[2], sys.argv[3:]
r = random.Random(5)
pieces = ["a", "\n", "\u00e9", "\u20ac", "\U0001f600", "xyz", "\t"]
text = "".join(r.choice(pieces) for _ in range(9 << 20)).encode()
size = (20 << 20) + 12345	# halves: the second from 10 MiB on
data = bytearray((text * 3)[:size])
while data[-1] & 0xc0 == 0x80 or data[-1] >= 0xc0:	# end on a character
    data.pop()
open(path, "wb").write(data)

# Python's decoder, stopped at the first error by a handler that keeps
# its place: one pass gives the error and the text before it (two took
# half of the sweep's time)
first = []
def stop(e):
    first.append((e.start, e.end))
    return "", len(e.object)
codecs.register_error("first-error", stop)

def expected(d):
    first.clear()
    good = d.decode("utf-8", "first-error")
    if not first:
        return "valid bytes=%d chars=%d" % (len(d), len(good))
    start, end = first[0]
    nl = good.rfind("\n")
    return "offset=%d len=%d line=%d column=%d chars=%d" % (
        start, end - start, good.count("\n") + 1,
        len(good) - (nl + 1) + 1, len(good))

def fields(line):	# kv's fields, as expected() names them
    f = dict(w.split("=", 1) for w in line.split() if "=" in w)
    if line.split()[0] == "valid":
        return "valid bytes=%s chars=%s" % (f["bytes"], f["chars"])
    return "offset=%s len=%s line=%s column=%s chars=%s" % (
        f["offset"], f["len"], f["line"], f["column"], f["chars"])

def run(args, way):
    env = dict(os.environ, UTF8VAL_WINDOWS=way)
    p = subprocess.run([cli] + args, capture_output=True, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace")

bad = []
def case(name, d, args=()):
    open(path, "wb").write(d)
    p = subprocess.run(["bash", "-c", 'cat "$1" | "$2" "${@:3}"', "bash", path, cli] + list(args),
                       capture_output=True)
    piped, prc = p.stdout.decode("utf-8", "replace"), p.returncode
    want = None if args else expected(bytes(d))
    for way in ways:	# the file's windows each way, the pipe and Python once
        rc, got = run(list(args) + [path], way)
        mine = got.replace(path + ": ", "").replace(path + ":", "<stdin>:")
        mine = mine.replace('"file":"%s"' % path, '"file":"-"')
        mine = mine.replace(path + "\n", "(standard input)\n")
        if (rc, mine) != (prc, piped):
            bad.append("%s (%s): file (%d) %r, pipe (%d) %r" % (name, way, rc, mine[:300], prc, piped[:300]))
        elif want is not None and fields(mine.splitlines()[0]) != want:
            bad.append("%s (%s): %r, Python: %r" % (name, way, mine, want))

KiB, MiB = 1024, 1 << 20
edges = [256 * KiB, 2 * MiB, 4 * MiB, 10 * MiB - 256 * KiB, 10 * MiB,
         12 * MiB, 18 * MiB, 20 * MiB, len(data) - 8]
errors = [b"\xff", b"\xc0\xaf", b"\xe2\x82A", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80"]
for edge in edges:
    for d in range(-5, 6):
        at = edge + d
        if at < 0 or at + 4 > len(data):
            continue
        bad_bytes = errors[(edge + d) % len(errors)]
        case("error %r at %d" % (bad_bytes, at),
             data[:at] + bad_bytes + data[at + len(bad_bytes):])
# valid: each window boundary splits a character in some place
for shift in range(4):
    case("valid, shifted by %d" % shift, b"a" * shift + data[:len(data) - 8])
# ends inside a character, and a file of whole windows
case("incomplete at the end", data + b"\xf0\x9f\x98")
case("exactly 16 MiB", data[:16 * MiB])
# options through the mapped path and at its hand-off
at = 10 * MiB + 3
two = data[:at] + b"\xff" + data[at + 1:12 * MiB + 7] + b"\xc0" + data[12 * MiB + 8:]
for args in (["-a"], ["-a", "--context"], ["--context=64"], ["--format=gnu"],
             ["--json", "--all"], ["-q"], ["-l"], ["--max-errors=1"],
             ["--reject-nul"], ["--surrogates", "-a"]):
    case("options %s" % " ".join(args), two, args)
# --context needs the bytes before the hand-off (an error just after),
# and carries an error near a chunk's end to the next read (just before)
for d in range(-70, 70, 7):
    at = 2 * MiB + d
    case("--context, an error %d bytes from a window's start" % d,
         data[:at] + b"\xff" + data[at + 1:], ["--context=64"])
# one line, no newline anywhere: the columns of the windows and of the
# halves add up
flat = data.replace(b"\n", b"x")
for at in (2 * MiB + 1, 10 * MiB - 1, 10 * MiB + 2, 14 * MiB, len(flat) - 3):
    case("one line, an error at %d" % at, flat[:at] + b"\xff" + flat[at + 1:])
case("one line, valid", flat)
# a BOM refused at offset 0 only; NUL and noncharacters at the boundaries
case("--reject-bom, a BOM first", b"\xef\xbb\xbf" + data, ["--reject-bom"])
case("--reject-bom, a BOM at 10 MiB", data[:10 * MiB] + b"\xef\xbb\xbf" + data[10 * MiB:], ["--reject-bom"])
case("--reject-nul at 10 MiB - 1", data[:10 * MiB - 1] + b"\0" + data[10 * MiB:], ["--reject-nul"])
case("--reject-nonchar across 10 MiB", data[:10 * MiB - 1] + b"\xef\xbf\xbe" + data[10 * MiB + 2:], ["--reject-nonchar"])
case("--rfc2279, a 6-byte form across 10 MiB", data[:10 * MiB - 2] + b"\xfd\xbf\xbf\xbf\xbf\xbf" + data[10 * MiB + 4:], ["--rfc2279"])
print("\n".join(bad))
PY
got=$(python3 "$maps/sweep.py" "$cli" "$maps/f" map read 2>&1)
expect "files in windows, mapped and read: errors around every boundary, options, the hand-off to read(): as through a pipe, and as Python says" \
	"" "$got"

# Standard input a big regular file, read in part before: offsets count
# from there, and the file offset is left where read() alone left it (the
# end, or after the chunk of the first error).
python3 -c 'import sys; sys.stdout.buffer.write((b"ab\xc3\xa9\n" * 1500000)[:7 << 20])' >"$maps/f"
got=$( { dd bs=4095 count=1 of=/dev/null 2>/dev/null; "$cli"; cat | wc -c; } <"$maps/f")
expect "standard input at offset 4095 of a mapped file: checked from there, the offset left at the end" \
	"$(tail -c +4096 "$maps/f" | "$cli")
0" "$got"
printf '\377' | dd of="$maps/f" bs=1 seek=$((5 << 20)) conv=notrunc 2>/dev/null
got=$( { dd bs=5 count=1 of=/dev/null 2>/dev/null; "$cli"; cat | wc -c; } <"$maps/f")
at=$(( (5 << 20) - 5 ))
expect "standard input at offset 5: the error's offset from there, the offset left after its chunk" \
	"$(tail -c +6 "$maps/f" | "$cli")
$(( (7 << 20) - 5 - (at / 262144 + 1) * 262144 ))" "$got"

# A file cut short or grown while it is mapped: a preloaded mmap() cuts
# or grows it when it maps the Nth window, so that the check meets pages
# past the end (SIGBUS), or zeros in the last page (no SIGBUS): what is
# reported is what read() finds, as when a file is cut while being read.
cat >"$maps/cut.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * CUT_AT=N: at the Nth shared mapping; CUT_HOW: half, last, grow, slow
 * (which first makes CUT_SAID); fail: each shared mapping fails, and at
 * exit the bytes read() read, in CUT_SAID; or count: each shared mapping's offset,
 * a line appended to CUT_SAID, where a thread but the first maps nothing
 * before the first joins a thread, and at exit the bytes read in all,
 * in CUT_SAID.read.
 */
static int joined;
static unsigned long long bytes_read, bytes_read_plain;

int pthread_join(pthread_t thread, void **ret)
{
	int (*real)(pthread_t, void **) = dlsym(RTLD_NEXT, "pthread_join");

	__atomic_store_n(&joined, 1, __ATOMIC_RELEASE);
	return real(thread, ret);
}

static ssize_t counted(ssize_t n)
{
	if (n > 0)
		__atomic_add_fetch(&bytes_read, n, __ATOMIC_RELAXED);
	return n;
}

ssize_t read(int fd, void *buf, size_t n)
{
	ssize_t (*real)(int, void *, size_t) = dlsym(RTLD_NEXT, "read");
	ssize_t got = counted(real(fd, buf, n));

	if (got > 0)
		__atomic_add_fetch(&bytes_read_plain, got, __ATOMIC_RELAXED);
	return got;
}

/*
 * CUT_PREAD=N: the file cut in the middle of the Nth chunk a window reads
 * with pread(), before it is read (the cut's offset in CUT_SAID).
 */
static int cut_pread(int fd, size_t n, off64_t off)
{
	static int calls;
	const char *at = getenv("CUT_PREAD");
	char path[64];
	FILE *said;

	if (!at || n != 256 << 10 ||
	    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) != atoi(at))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (truncate64(path, off + n / 2 + 100))
		return -1;
	said = fopen(getenv("CUT_SAID"), "w");
	if (!said)
		return -1;
	fprintf(said, "%lld\n", (long long)(off + n / 2 + 100));
	return fclose(said);
}

/* both names: _FILE_OFFSET_BITS=64 programs call pread64 on 32-bit */
ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t (*real)(int, void *, size_t, off_t) = dlsym(RTLD_NEXT, "pread");

	return cut_pread(fd, n, off) ? -1 : counted(real(fd, buf, n, off));
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	ssize_t (*real)(int, void *, size_t, off64_t) = dlsym(RTLD_NEXT, "pread64");

	return cut_pread(fd, n, off) ? -1 : counted(real(fd, buf, n, off));
}

__attribute__((destructor)) static void said_read(void)
{
	char path[4096];
	FILE *f;

	/* fail: what read() read, the windows' pread() aside */
	if (getenv("CUT_HOW") && !strcmp(getenv("CUT_HOW"), "fail")) {
		f = fopen(getenv("CUT_SAID"), "w");
		if (f) {
			fprintf(f, "%llu\n", bytes_read_plain);
			fclose(f);
		}
		return;
	}
	if (!getenv("CUT_HOW") || strcmp(getenv("CUT_HOW"), "count"))
		return;
	snprintf(path, sizeof(path), "%s.read", getenv("CUT_SAID"));
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%llu\n", bytes_read);
		fclose(f);
	}
}

/* What a mapping of @len bytes at @off does first: NULL to map it. */
static void *hook(size_t len, int flags, int fd, off64_t off)
{
	static int calls;
	const char *how = getenv("CUT_HOW");
	char path[64];
	off64_t to = -1;
	FILE *said;

	if (fd >= 0 && (flags & MAP_SHARED) && !strcmp(how, "fail")) {
		errno = ENOMEM;		/* as a limit on mappings gives */
		return MAP_FAILED;
	}
	if (fd >= 0 && (flags & MAP_SHARED) && !strcmp(how, "count")) {
		int n = snprintf(path, sizeof(path), "%lld\n", (long long)off);
		int w, i;

		for (i = 0; i < 30000 && gettid() != getpid() &&
		     !__atomic_load_n(&joined, __ATOMIC_ACQUIRE); i++)
			usleep(1000);
		/* one write() a line: the two halves' threads append */
		w = open(getenv("CUT_SAID"), O_WRONLY | O_APPEND | O_CREAT, 0600);
		if (w < 0 || write(w, path, n) != n)
			return MAP_FAILED;
		close(w);
	} else if (fd >= 0 && (flags & MAP_SHARED) &&
	    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) == atoi(getenv("CUT_AT"))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!strcmp(how, "half"))
			to = off + len / 2 + 100;	/* SIGBUS past it */
		else if (!strcmp(how, "last"))
			to = off + len - 100;	/* zeros, no SIGBUS */
		if (to >= 0 && truncate64(path, to))
			return MAP_FAILED;
		if (!strcmp(how, "grow")) {
			int w = open(path, O_WRONLY | O_APPEND);

			if (w < 0 || write(w, "\xff", 1) != 1)
				return MAP_FAILED;
			close(w);
		}
		said = fopen(getenv("CUT_SAID"), "w");
		if (said) {
			fprintf(said, "%lld\n", (long long)to);
			fclose(said);
		}
	}
	if (fd >= 0 && (flags & MAP_SHARED) && !strcmp(how, "slow")) {
		close(open(getenv("CUT_SAID"), O_WRONLY | O_CREAT, 0600));
		sleep(1);
	}
	return NULL;
}

/* both names, each with its own offset: 32-bit programs call mmap64 */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *(*real)(void *, size_t, int, int, int, off_t) = dlsym(RTLD_NEXT, "mmap");

	return hook(len, flags, fd, off) ?: real(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	void *(*real)(void *, size_t, int, int, int, off64_t) = dlsym(RTLD_NEXT, "mmap64");

	return hook(len, flags, fd, off) ?: real(addr, len, prot, flags, fd, off);
}
C
if preload_lib "$maps/cut" "the mapping tests"; then
	python3 -c 'import sys; sys.stdout.buffer.write((b"x" * 79 + b"\n") * (300 << 10))' >"$maps/text"
	# cut_case WHAT VAR=VALUE...: the text file checked, cut where the
	# preloaded hooks are told (CUT_SAID says at what size): what read()
	# then finds is reported
	cut_case() {
		local what=$1 to
		shift
		cp "$maps/text" "$maps/f"
		got=$(env "$@" CUT_SAID="$maps/said" LD_PRELOAD="$maps/cut.so" \
			"$cli" "$maps/f" 2>&1; echo "status $?")
		to=$(cat "$maps/said" 2>/dev/null)
		expect "$what: what read() then finds" \
			"$maps/f: valid bytes=$to chars=$to
status 0" "$got"
		rm -f "$maps/said"
	}
	sigbus_blocked() {	# sigbus_blocked COMMAND...: run with SIGBUS
				# blocked, as a supervisor's mask leaves it
		python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGBUS])
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
	}
	# Read windows: the Nth chunk read cut short (in either half).
	for chunk in 1 2 9 17 40 80; do
		cut_case "a file cut while a window reads its chunk $chunk" \
			UTF8VAL_WINDOWS=read CUT_HOW=none CUT_PREAD=$chunk
	done
	# No mapping to be had (a limit on them, say), the way not set: the
	# windows are read, in two halves, not the whole file by read().
	cp "$maps/text" "$maps/f"
	got=$(CUT_HOW=fail CUT_SAID=$maps/said LD_PRELOAD=$maps/cut.so \
		"$cli" "$maps/f" "$maps/f" 2>&1; echo "status $?")
	expect "no mapping to be had: the windows read, read() left nothing to read" \
		"$maps/f: valid bytes=$((80 * (300 << 10))) chars=$((80 * (300 << 10)))
$maps/f: valid bytes=$((80 * (300 << 10))) chars=$((80 * (300 << 10)))
status 0
read() read: 0" "$got
read() read: $(cat "$maps/said" 2>/dev/null)"
	rm -f "$maps/said"
	# SIGBUS blocked by the parent, the way not set: no mapping (a file
	# cut under one would end the command), the windows read
	cp "$maps/text" "$maps/f"
	got=$(CUT_HOW=fail CUT_SAID=$maps/said LD_PRELOAD=$maps/cut.so \
		sigbus_blocked "$cli" "$maps/f" 2>&1; echo "status $?")
	expect "SIGBUS blocked on entry: the windows read, read() left nothing to read" \
		"$maps/f: valid bytes=$((80 * (300 << 10))) chars=$((80 * (300 << 10)))
status 0
read() read: 0" "$got
read() read: $(cat "$maps/said" 2>/dev/null)"
	rm -f "$maps/said"
	# The rest is about mapped windows.
	export UTF8VAL_WINDOWS=map
	for how in half last; do
		for win in 1 2 3 6 7 8; do
			cut_case "a file cut ($how) at the mapping of window $win" \
				CUT_AT=$win CUT_HOW=$how
		done
	done
	# SIGBUS blocked by the parent (a supervisor's mask): the kernel
	# would end the command at a cut file's fault, so it reads instead
	cp "$maps/text" "$maps/f"
	got=$(CUT_AT=2 CUT_HOW=half CUT_SAID=$maps/said LD_PRELOAD=$maps/cut.so \
		sigbus_blocked "$cli" "$maps/f" 2>&1; echo "status $?")
	expect "SIGBUS blocked on entry, the file cut: no mapping, all read" \
		"$maps/f: valid bytes=$((80 * (300 << 10))) chars=$((80 * (300 << 10)))
status 0" "$got"
	rm -f "$maps/said"
	cp "$maps/text" "$maps/f"
	got=$(CUT_AT=2 CUT_HOW=grow CUT_SAID=$maps/said LD_PRELOAD=$maps/cut.so \
		"$cli" "$maps/f" 2>&1; echo "status $?")
	expect "a file grown while mapped: checked to its size when opened" \
		"$maps/f: valid bytes=$((80 * (300 << 10))) chars=$((80 * (300 << 10)))
status 0" "$got"
	# slowed down, a second a mapping (12 windows, 5 and 7 in the
	# halves): signals once the first mapping began, with both halves'
	# threads; one that waited for the mappings would end the command
	# 4 to 7 seconds later
	cp "$maps/text" "$maps/f"
	for sig in INT TERM; do
		rm -f "$maps/said"
		# (a job of a script ignores SIGINT, unless told)
		CUT_AT=0 CUT_HOW=slow CUT_SAID=$maps/said LD_PRELOAD=$maps/cut.so \
			env --default-signal=INT "$cli" "$maps/f" >"$maps/out" 2>&1 &
		pid=$!
		for _ in $(seq 200); do
			[ -e "$maps/said" ] && break
			sleep 0.05
		done
		kill -$sig $pid
		t0=$(date +%s%N)
		wait $pid
		rc=$?
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		expect "SIG$sig in the middle of a mapped file: ended by it at once, nothing printed" \
			"status $(( 128 + $(kill -l $sig) )) fast" \
			"status $rc $([ $ms -lt 3000 ] && echo fast || echo "slow: $ms ms")$(cat "$maps/out")"
	done
	# Early answers: a bad byte first in a sparse 1 GiB file. The first
	# half stops at the window that holds it, and the command reads no
	# more than the chunk there; the second half's thread, held by the
	# preloaded mmap() until the first half joins it, maps one window at
	# most and stops. On one CPU there is no second half. (Counted in
	# mappings and bytes, not in time, which a busy machine stretches.)
	truncate -s 1G "$maps/sparse"
	printf '\377' | dd of="$maps/sparse" conv=notrunc 2>/dev/null
	for cpus in one every; do
		if [ $cpus = every ] && [ "$cpus_here" -lt 2 ]; then
			skip "a bad byte first in a 1 GiB file, on every CPU: answered from its first window" \
				"one CPU here: no second half"
			continue
		fi
		rm -f "$maps/said" "$maps/said.read"
		on_one=()
		[ $cpus = every ] || on_one=(taskset -c "$cpu0")
		got=$(CUT_AT=0 CUT_HOW=count CUT_SAID=$maps/said LD_PRELOAD=$maps/cut.so \
			"${on_one[@]}" "$cli" "$maps/sparse"; echo "status $?")
		mapped=$(echo $(cat "$maps/said" 2>/dev/null))
		# (the second half's thread may see the first half done before
		# it maps its first window)
		[ $cpus = one ] || case $mapped in
		0 | "0 $((1 << 29))") mapped="0, and the second half's first window or none" ;;
		esac
		got+="
mapped at: $mapped"
		read_bytes=$(cat "$maps/said.read" 2>/dev/null)
		[ "${read_bytes:-none}" -le $((1 << 20)) ] 2>/dev/null &&
			read_bytes="1 MiB or less"
		got+="
read: $read_bytes"
		want=0
		[ $cpus = one ] || want="0, and the second half's first window or none"
		expect "a bad byte first in a 1 GiB file, on $cpus CPU: answered from its first window" \
			"$maps/sparse: invalid bytes=0 chars=0 offset=0 len=1 error=bad-byte line=1 column=1
status 1
mapped at: $want
read: 1 MiB or less" "$got"
	done
	rm -f "$maps/sparse" "$maps/said" "$maps/said.read"
	unset UTF8VAL_WINDOWS
fi

# How a big file's windows are had, mapped or read, the way not set: the
# command times its windows and takes the faster way. Here a preloaded
# clock_gettime() says what each took (each thread's clock moves only by
# the windows it took since it last read it), so that the choice is the
# rule's, not this machine's. Counted in windows mapped and read.
cat >"$maps/clock.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/*
 * CLOCK_MAP_NS, CLOCK_READ_NS: what a window mapped (a shared mapping of
 * a file) and one read (pread() of 256 KiB chunks) take, in ns: "T", or
 * "T0,T1" for the process's windows of that way to take T0, T1, T0, ...
 * in turn; CLOCK_MAP_NS_HI, if set, what a window mapped from 40 MiB on
 * (the second half of an 80 MiB file) takes. CLOCK_MEET=N: a thread
 * about to take its (N+1)th window, its Nth weighed and the (N+1)th's
 * way chosen, waits there until a second thread is too (10 s at most).
 * CLOCK_HOLD=N,M: the second thread, about to take its (N+1)th window,
 * waits there until the first joins it (its half done, the second told
 * to stop); the first, about to take its Mth, waits until the second is
 * held (10 s at most, each).
 * At exit, in CLOCK_SAID: "MAPPED READ THREADS", the windows each way and
 * the threads that took any, and "unmet" if a wait timed out; then the
 * ways of the first thread's windows in order, and of the other's, as
 * runs: "2R 1M 17R | 2R 1M 17R" ("+" after more than WAYS_MAX). One
 * other thread takes windows: the second half's.
 */
#define WAYS_MAX	200

static __thread unsigned long long now_ns;
static __thread int mapped, read_since, windows_here, waited;
static __thread long long mapped_at;	/* the last mapping's offset */
static unsigned long long windows_mapped, windows_read;
static int threads, met, unmet, held, joined;
static char ways[2][WAYS_MAX + 2];	/* 'M', 'R': the first's, the other's */
static int ways_len[2];

/* The time of the @nth window @name tells of. */
static unsigned long long ns(const char *name, unsigned long long nth)
{
	const char *times = getenv(name);
	unsigned long long t[2] = { 0 };
	char *end;

	if (!times)
		return 0;
	t[0] = t[1] = strtoull(times, &end, 10);
	if (*end == ',')
		t[1] = strtoull(end + 1, NULL, 10);
	return t[nth & 1];
}

/* Wait until *@count is @n, 10 s of the real clock at most. */
static void wait_for(int *count, int n)
{
	int (*real)(clockid_t, struct timespec *) =
		dlsym(RTLD_NEXT, "clock_gettime");
	struct timespec pause = { 0, 100000 }, t0, t;

	real(CLOCK_MONOTONIC, &t0);
	while (__atomic_load_n(count, __ATOMIC_SEQ_CST) < n) {
		real(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 10) {
			__atomic_store_n(&unmet, 1, __ATOMIC_RELAXED);
			return;
		}
		nanosleep(&pause, NULL);
	}
}

/* Wait, once, if this is CLOCK_MEET's or CLOCK_HOLD's place. */
static void meet(void)
{
	const char *at = getenv("CLOCK_MEET"), *hold = getenv("CLOCK_HOLD");
	int n = -1, m = 0;

	if (waited)
		return;
	if (at && windows_here == atoi(at)) {
		waited = 1;
		__atomic_fetch_add(&met, 1, __ATOMIC_SEQ_CST);
		wait_for(&met, 2);
	}
	if (!hold || sscanf(hold, "%d,%d", &n, &m) != 2)
		return;
	if (gettid() != getpid() && windows_here == n) {
		waited = 1;
		__atomic_store_n(&held, 1, __ATOMIC_SEQ_CST);
		wait_for(&joined, 1);
	} else if (gettid() == getpid() && windows_here == m - 1) {
		waited = 1;
		wait_for(&held, 1);
	}
}

/* This thread's monotonic time: moved by the window it took since. */
static unsigned long long test_now(void)
{
	int other = gettid() != getpid();

	if (mapped || read_since) {	/* the end of a window */
		if (!windows_here++)
			__atomic_fetch_add(&threads, 1, __ATOMIC_RELAXED);
		if (ways_len[other] < WAYS_MAX)
			ways[other][ways_len[other]++] = mapped ? 'M' : 'R';
		else
			ways[other][WAYS_MAX] = '+';
	} else {			/* the start of one */
		meet();
	}
	if (mapped)
		now_ns += ns(getenv("CLOCK_MAP_NS_HI") &&
			     mapped_at >= 40LL << 20 ? "CLOCK_MAP_NS_HI" :
						       "CLOCK_MAP_NS",
			     __atomic_fetch_add(&windows_mapped, 1, __ATOMIC_RELAXED));
	else if (read_since)
		now_ns += ns("CLOCK_READ_NS",
			     __atomic_fetch_add(&windows_read, 1, __ATOMIC_RELAXED));
	mapped = read_since = 0;
	return now_ns;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	int (*real)(clockid_t, struct timespec *) = dlsym(RTLD_NEXT, "clock_gettime");
	unsigned long long t;

	if (id != CLOCK_MONOTONIC)
		return real(id, ts);
	t = test_now();
	ts->tv_sec = t / 1000000000;
	ts->tv_nsec = t % 1000000000;
	return 0;
}

/*
 * The name 32-bit programs built with a 64-bit time_t call: its
 * timespec's tv_nsec is 32 bits and 32 of padding, either way round, so
 * a 64-bit one holds it.
 */
struct timespec_time64 {
	long long tv_sec, tv_nsec;
};

int __clock_gettime64(clockid_t id, struct timespec_time64 *ts)
{
	int (*real)(clockid_t, struct timespec_time64 *) =
		dlsym(RTLD_NEXT, "__clock_gettime64");
	unsigned long long t;

	if (id != CLOCK_MONOTONIC)
		return real(id, ts);
	t = test_now();
	ts->tv_sec = t / 1000000000;
	ts->tv_nsec = t % 1000000000;
	return 0;
}

/* both names: _FILE_OFFSET_BITS=64 programs call pread64 on 32-bit */
ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t (*real)(int, void *, size_t, off_t) = dlsym(RTLD_NEXT, "pread");

	read_since |= n == 256 << 10;
	return real(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	ssize_t (*real)(int, void *, size_t, off64_t) = dlsym(RTLD_NEXT, "pread64");

	read_since |= n == 256 << 10;
	return real(fd, buf, n, off);
}

/* A mapping made: a window mapped, if it is a file's, shared. */
static void *map_made(void *map, int flags, int fd, long long off)
{
	if (fd >= 0 && (flags & MAP_SHARED)) {
		mapped_at = off;
		mapped |= map != MAP_FAILED;
	}
	return map;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *(*real)(void *, size_t, int, int, int, off_t) = dlsym(RTLD_NEXT, "mmap");

	return map_made(real(addr, len, prot, flags, fd, off), flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	void *(*real)(void *, size_t, int, int, int, off64_t) = dlsym(RTLD_NEXT, "mmap64");

	return map_made(real(addr, len, prot, flags, fd, off), flags, fd, off);
}

/* The first thread joins the second: its half done, the second stopped. */
int pthread_join(pthread_t thread, void **ret)
{
	int (*real)(pthread_t, void **) = dlsym(RTLD_NEXT, "pthread_join");

	if (gettid() == getpid())
		__atomic_store_n(&joined, 1, __ATOMIC_SEQ_CST);
	return real(thread, ret);
}

/* @w's ways as runs: "2R 1M 17R". */
static void said_ways(FILE *f, const char *w)
{
	int i, n;

	for (i = 0; w[i]; i += n) {
		for (n = 1; w[i + n] == w[i]; n++)
			;
		fprintf(f, "%s%d%c", i ? " " : "", n, w[i]);
	}
}

__attribute__((destructor)) static void said(void)
{
	FILE *f = fopen(getenv("CLOCK_SAID"), "w");

	if (f) {
		fprintf(f, "%llu %llu %d%s\n", windows_mapped, windows_read,
			threads, unmet ? " unmet" : "");
		said_ways(f, ways[0]);
		if (ways_len[1])
			fputs(" | ", f);
		said_ways(f, ways[1]);
		fputc('\n', f);
		fclose(f);
	}
}
C
if preload_lib "$maps/clock" "the clock's tests"; then
	# 40 windows of 2 MiB; in two halves of 20 on two CPUs
	python3 -c 'import sys; sys.stdout.buffer.write((b"x" * 79 + b"\n") * (1 << 20))' >"$maps/f"
	# timed MAP READ CPUS: the command's verdict and status, its windows
	# timed as MAP (or LO/HI, by the half a mapping is in) and READ ns,
	# on the first CPU (one), on every CPU (every), or on every CPU with
	# the halves meeting after their third windows (meet), or with the
	# second half held at its third until the first, its 20 taken, joins
	# it (hold); the shim's count in $maps/said
	timed() {
		local on=() meet=() map=$1 hi=()

		if [[ $map == */* ]]; then	# LO/HI: by the half it is in
			hi=(CLOCK_MAP_NS_HI="${map#*/}")
			map=${map%/*}
		fi
		[ "$3" != one ] || on=(taskset -c "$cpu0")
		[ "$3" != meet ] || meet=(CLOCK_MEET=3)
		[ "$3" != hold ] || meet=(CLOCK_HOLD=2,20)
		rm -f "$maps/said"
		env CLOCK_MAP_NS="$map" "${hi[@]}" CLOCK_READ_NS="$2" \
			CLOCK_SAID="$maps/said" "${meet[@]}" \
			LD_PRELOAD="$maps/clock.so" "${on[@]}" "$cli" "$maps/f" 2>&1
		echo "status $?"
	}
	valid="$maps/f: valid bytes=$((80 << 20)) chars=$((80 << 20))"
	# windows_case NAME MAP READ CPUS MAPPED READ [WAYS]: the file valid,
	# and its 40 windows had as told, by one thread on one CPU and by two
	# (the halves) on every CPU: exactly MAPPED mapped and READ read, in
	# the order WAYS says (the shim's runs, the first thread's | the
	# other's; +([0-9]) where the halves' shares of a run are a race),
	# but on every CPU with no meeting (the halves running freely,
	# weighing together) 40 in all, MAPPED mapped and READ read at most
	shopt -s extglob	# (WAYS's patterns)
	windows_case() {
		local got had want mapped=? reads=? threads=? unmet= ways=?
		local parts=2	# (tap.sh's count is n)

		got=$(timed "$2" "$3" "$4")
		[ "$4" != one ] || parts=1
		{ read -r mapped reads threads unmet; read -r ways; } \
			2>/dev/null <"$maps/said"
		had="mapped $mapped read $reads by $threads${unmet:+ $unmet}"
		want="mapped $5 read $6 by $parts"
		if [ $# -ge 7 ]; then	# (WAYS an extglob: +([0-9]) a length)
			# shellcheck disable=SC2053
			[[ $ways != $7 ]] || ways=$7
			had+=", ways $ways"
			want+=", ways $7"
		elif [ "$4" = every ]; then	# (no order to compare)
			# (by 1 or 2: a half's thread kept off its CPU
			# leaves its windows to the other, which is right)
			want="mapped $5 read $6 at most by 1 or 2"
			if [[ $mapped =~ ^[0-9]+$ && $reads =~ ^[0-9]+$ &&
			      $threads =~ ^[12]$ ]] &&
			   [ "$((mapped + reads))" -eq 40 ] &&
			   [ "$mapped" -le "$5" ] && [ "$reads" -le "$6" ]; then
				had="$want"
			fi
		fi
		expect "$1" "$valid
status 0 $want" "$got $had"
	}
	# Each part reads its first window (not timed) and its second,
	# maps its third, and goes the faster way from then on but for every
	# eighth window, the other way. Two windows each way, both of one way
	# taking half as long again as the other's mean, settle the process.
	# Within that, nothing settles: the 9th, 17th, 25th and 33rd windows
	# go the slower way still, to follow a change (with the third, mapped,
	# and the first two, read: 5 mapped or 6 read of 40).
	windows_case "mapping 3 times as slow as reading, on one CPU: 2 windows mapped, then settled on reading" \
		3000000 1000000 one 2 38 "2R 1M 5R 1M 31R"
	windows_case "mapping 1.6 times as slow as reading, on one CPU: settled on reading" \
		1600000 1000000 one 2 38 "2R 1M 5R 1M 31R"
	windows_case "mapping 1.5 times as slow as reading, on one CPU: settled on reading" \
		1500000 1000000 one 2 38 "2R 1M 5R 1M 31R"
	windows_case "mapping 1.4 times as slow as reading, on one CPU: read, mapping still timed every eighth window" \
		1400000 1000000 one 5 35 "2R 1M 5R 1M 7R 1M 7R 1M 7R 1M 7R"
	# one mapped window of two slow (1 ms, 3 ms, ...): not slow both times
	windows_case "one mapped window 3 times as slow as a read, the next as fast, on one CPU: never settled" \
		1000000,3000000 1000000 one 5 35 "2R 1M 5R 1M 7R 1M 7R 1M 7R 1M 7R"
	# reads of 1 and 1.4 ms in turn: 1.6 is not half as long again as
	# their mean, 1.2, though it is as their least
	windows_case "mapping 1.6 ms, reading 1 and 1.4 ms in turn, on one CPU: held against the reads' mean, never settled" \
		1600000 1000000,1400000 one 5 35 "2R 1M 5R 1M 7R 1M 7R 1M 7R 1M 7R"
	windows_case "reading 3 times as slow as mapping, on one CPU: 3 windows read, then settled on mapping" \
		1000000 3000000 one 37 3 "2R 6M 1R 31M"
	windows_case "mapping a little faster than reading (0.8), on one CPU: mapped, reading still timed every eighth window" \
		800000 1000000 one 34 6 "2R 6M 1R 7M 1R 7M 1R 7M 1R 7M"
	# a clock coarser than a window: 0 ns is kept as 1, and a mean of 1
	# and 1 is 1, not 0 ("none", which would map the probes too)
	windows_case "mapping in 0 ns, reading in 1 ms, on one CPU: 3 windows read, then settled on mapping" \
		0 1000000 one 37 3 "2R 6M 1R 31M"
	windows_case "mapping and reading both in 0 ns, on one CPU: never settled" \
		0 0 one 5 35 "2R 1M 5R 1M 7R 1M 7R 1M 7R 1M 7R"
	# A 41st window of 1 MiB, a probe's place (every eighth), which would
	# be mapped: a window that is not whole is read, whatever the rule says
	python3 -c 'import sys; sys.stdout.buffer.write((b"x" * 79 + b"\n") * (1 << 20) + b"y" * (1 << 20))' >"$maps/f"
	valid="$maps/f: valid bytes=$((81 << 20)) chars=$((81 << 20))"
	windows_case "a short last window, mapping 1.4 times as slow as reading, on one CPU: read" \
		1400000 1000000 one 5 36 "2R 1M 5R 1M 7R 1M 7R 1M 7R 1M 8R"
	truncate -s $((80 << 20)) "$maps/f"
	valid="$maps/f: valid bytes=$((80 << 20)) chars=$((80 << 20))"
	# The process's choice holds for its next file, which goes that way
	# from its first window
	cp "$maps/f" "$maps/g"
	rm -f "$maps/said"
	got=$(env CLOCK_MAP_NS=1000000 CLOCK_READ_NS=3000000 \
		CLOCK_SAID="$maps/said" LD_PRELOAD="$maps/clock.so" \
		taskset -c "$cpu0" "$cli" "$maps/f" "$maps/g" 2>&1
	      echo "status $?")
	had=$(tr '\n' , <"$maps/said" 2>/dev/null)
	expect "reading 3 times as slow as mapping, two files on one CPU: the second's 40 windows mapped" \
		"$valid
${valid//\/f:/\/g:}
status 0 77 3 1,2R 6M 1R 71M," "$got $had"
	rm -f "$maps/g"
	if [ "$cpus_here" -lt 2 ]; then
		for ways in "mapping 3 times as slow as reading, on every CPU: the halves settled together" \
			    "reading 3 times as slow as mapping, on every CPU: the halves settled together" \
			    "mapping 3 times as slow as reading, the halves meeting after their third windows: 2 mapped" \
			    "reading 3 times as slow as mapping, the halves meeting after their third windows: 4 read" \
			    "mapping 1.4 times as slow as reading, the second half held at its third window: the first goes on as the second would" \
			    "mapping faster in the first half's pages, slower in the second's, the second half held: the first goes on by the second's times"; do
			skip "$ways" "one CPU here: no second half"
		done
	else
		# Alone, each half would map 2 windows (read 3) of its 20
		# before it settled: 4 (6) in all. Weighed together, two
		# windows each way of either half settle the process: at
		# most 3 mapped (5 read), one of them in flight as it settles.
		windows_case "mapping 3 times as slow as reading, on every CPU: the halves settled together" \
			3000000 1000000 every 3 40
		windows_case "reading 3 times as slow as mapping, on every CPU: the halves settled together" \
			1000000 3000000 every 40 5
		# Held until both have weighed their third windows, the
		# halves settle on the windows they have between them then,
		# one mapped (two read) each: each alone (or one adopting the
		# other's choice) would go on to its 9th, 3 or 4 mapped (5 or
		# 6 read)
		windows_case "mapping 3 times as slow as reading, the halves meeting after their third windows: 2 mapped" \
			3000000 1000000 meet 2 38 "2R 1M +([0-9])R | 2R 1M +([0-9])R"
		windows_case "reading 3 times as slow as mapping, the halves meeting after their third windows: 4 read" \
			1000000 3000000 meet 36 4 "2R +([0-9])M | 2R +([0-9])M"
		# The second half reads 2 windows and maps its third, held
		# until the first half, its 20 had (3 mapped: its 3rd, 9th,
		# 17th), joins it; the first goes on after the second's 3rd
		# with the second's record, as its 4th window, mapping its
		# 9th and 17th: 6 mapped, the first half's 17 more windows
		# "5R 1M 7R 1M 3R". With its own record (its 21st on) it
		# would map its 25th and 33rd, "4R 1M 7R 1M 4R"; begun afresh
		# its 3rd, 9th and 17th: 7 mapped.
		windows_case "mapping 1.4 times as slow as reading, the second half held at its third window: the first goes on as the second would" \
			1400000 1000000 hold 6 34 "2R 1M 5R 1M 7R 1M 8R 1M 7R 1M 3R | 2R 1M"
		# The same with mapping faster (0.8) in the first half's
		# pages, never settled either: the first half maps its
		# windows but every eighth, then goes on by the second's
		# times (mapping 1.4 there), reading but every eighth. With
		# its own times (and the second's count) it would map there
		# too.
		windows_case "mapping faster in the first half's pages, slower in the second's, the second half held: the first goes on by the second's times" \
			800000/1400000 1000000 hold 19 21 "2R 6M 1R 7M 1R 3M 5R 1M 7R 1M 3R | 2R 1M"
	fi
	rm -f "$maps/f" "$maps/said"
fi

# A SIGBUS that is not a mapped window's is not swallowed: a mapped file
# checked (the handler set), then a FIFO that no one opens.
python3 -c 'import sys; sys.stdout.buffer.write(b"a" * (3 << 20))' >"$maps/big"
mkfifo "$maps/fifo"
"$cli" "$maps/big" "$maps/fifo" >/dev/null 2>&1 &
pid=$!
sleep 0.3
kill -BUS $pid
wait $pid 2>/dev/null
rc=$?
expect "SIGBUS sent from outside still ends the command" "status 135" "status $rc"
rm -f "$maps/fifo"

# An early answer from a pipe: a bad byte first, then 1 GiB whose
# writer is ended by SIGPIPE, which it is only if the command stopped
# reading long before the end.
got=$({ printf '\xff'; head -c 1G /dev/zero; } | "$cli"; echo "status ${PIPESTATUS[*]}")
expect "a bad byte first in a 1 GiB pipe: answered at once, the writer ended by SIGPIPE" \
	"invalid bytes=0 chars=0 offset=0 len=1 error=bad-byte line=1 column=1
status 141 1" "$got"

# Output that cannot be written, from a mapped file's reports.
python3 -c 'import sys; sys.stdout.buffer.write(b"ab\xff\n" * (1 << 20))' >"$maps/f"
got=$("$cli" -a "$maps/f" | head -1; echo "status ${PIPESTATUS[0]}")
expect "--all on a mapped file into a pipe closed early: SIGPIPE, the first line out" \
	"$maps/f: invalid bytes=2 chars=2 offset=2 len=1 error=bad-byte line=1 column=3
status 141" "$got"
got=$("$cli" "$maps/big" 2>&1 >&-; echo "status $?")
expect "a mapped file with standard output closed: the report fails loudly" \
	"utf8val: standard output: Bad file descriptor
status 2" "$got"

# Empty files, /dev/stdin, a FIFO, a slow writer, a stopped command.
: >"$maps/empty"
got=$("$cli" "$maps/empty"; "$cli" <"$maps/empty"; echo "status $?")
expect "a 0-byte file, named and as standard input" \
	"$maps/empty: valid bytes=0 chars=0
valid bytes=0 chars=0
status 0" "$got"
python3 -c 'import sys; sys.stdout.buffer.write(b"\xc3\xa9" * (3 << 20) + b"\n\xe2\x82")' >"$maps/f"
got=$("$cli" /dev/stdin <"$maps/f"; cat "$maps/f" | "$cli" /dev/stdin)
expect "/dev/stdin, a mapped file and a pipe" \
	"/dev/stdin: incomplete bytes=$(( (6 << 20) + 3 )) chars=$(( (3 << 20) + 1 )) offset=$(( (6 << 20) + 1 )) len=2 line=2 column=1
/dev/stdin: incomplete bytes=$(( (6 << 20) + 3 )) chars=$(( (3 << 20) + 1 )) offset=$(( (6 << 20) + 1 )) len=2 line=2 column=1" "$got"
mkfifo "$maps/fifo"
cat "$maps/f" >"$maps/fifo" &
got=$("$cli" "$maps/fifo")
wait
expect "a FIFO named: read, as a pipe" \
	"$maps/fifo: incomplete bytes=$(( (6 << 20) + 3 )) chars=$(( (3 << 20) + 1 )) offset=$(( (6 << 20) + 1 )) len=2 line=2 column=1" "$got"
got=$(python3 -c '
import sys, time
for b in b"\xe2\x82\xac\n\xf0\x9f\x98\x80x\xe2\x82\xc0":
    sys.stdout.buffer.write(bytes([b])); sys.stdout.buffer.flush(); time.sleep(0.01)' | "$cli")
expect "a writer that writes a byte at a time: characters split between reads" \
	"invalid bytes=9 chars=4 offset=9 len=2 error=short line=2 column=3" "$got"
(printf 'ab'; sleep 0.3; printf '\n\xff') | "$cli" >"$maps/out" &
pid=$!
sleep 0.1
kill -STOP $pid 2>/dev/null
sleep 0.1
kill -CONT $pid 2>/dev/null
wait $pid
rc=$?
expect "stopped and continued while it waits for a pipe: nothing lost" \
	"invalid bytes=3 chars=3 offset=3 len=1 error=bad-byte line=2 column=1 status 1" "$(cat "$maps/out") status $rc"
got=$(python3 -c '
import fcntl, os, subprocess, sys
r, w = os.pipe()
fcntl.fcntl(r, fcntl.F_SETFL, os.O_NONBLOCK)
p = subprocess.run([sys.argv[1]], stdin=r, capture_output=True)
print(p.returncode, p.stderr.decode().strip())' "$cli")
expect "standard input non-blocking with nothing in it: EAGAIN said, status 2" \
	"2 utf8val: -: Resource temporarily unavailable" "$got"

# The threads and mappings, under valgrind: nothing leaked, no error.
if command -v valgrind >/dev/null; then
	python3 -c 'import sys; sys.stdout.buffer.write(b"\xe4\xb8\xad\n" * (5 << 20) + b"\xff")' >"$maps/f"
	got=$(valgrind -q --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
		--error-exitcode=99 "$cli" --context "$maps/f" 2>&1; echo "status $?")
	expect "valgrind: a file checked in halves, the error in the second: no leak, no error" \
		"$maps/f: invalid bytes=$((20 << 20)) chars=$((10 << 20)) offset=$((20 << 20)) len=1 error=bad-byte line=$(( (5 << 20) + 1 )) column=1
  context: \"\" \\xff \"\"
status 1" "$got"
fi
rm -rf "$maps"

tap_done
