#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# build/utf8val as a script uses it: verdict lines (expected values worked
# out by hand from the bytes), exit status, options, errors. TAP output.
# Usage: test_cli.sh PATH_TO_UTF8VAL
set -u
cli=$1
n=0
failed=0

check() {	# check NAME EXPECTED_OUTPUT EXPECTED_STATUS BYTES [ARGS...]
	local name=$1 want=$2 want_rc=$3 bytes=$4 got rc
	shift 4
	got=$(printf "$bytes" | "$cli" "$@" 2>&1)
	rc=$?
	n=$((n + 1))
	if [ "$got" = "$want" ] && [ "$rc" -eq "$want_rc" ]; then
		echo "ok $n - cli: $name"
	else
		echo "not ok $n - cli: $name"
		echo "#   want ($want_rc): $want"
		echo "#   got  ($rc): $got"
		failed=$((failed + 1))
	fi
}

check "valid" "valid bytes=10 chars=7" 0 'caf\xc3\xa9 \xe2\x82\xac\n'
check "empty input" "valid bytes=0 chars=0" 0 ''
# "ab\n" is line 1; "c", "é", "d" are columns 1-3 of line 2; C0 is column 4
check "overlong on line 2" \
	"invalid bytes=9 chars=6 offset=7 len=1 error=overlong line=2 column=4" 1 \
	'ab\nc\xc3\xa9d\xc0\xaf'
check "truncated sequence" \
	"invalid bytes=20 chars=14 offset=14 len=2 error=short line=2 column=6" 1 \
	'line one\nline \xe2\x82\x41two'
check "incomplete tail" \
	"incomplete bytes=8 chars=5 offset=5 len=3 line=1 column=6" 1 \
	'tail \xf0\x9f\x98'
check "surrogate, strict" \
	"invalid bytes=4 chars=1 offset=1 len=1 error=surrogate line=1 column=2" 1 \
	'x\xed\xa0\x80'
check "surrogate, --surrogates" "valid bytes=4 chars=2" 0 'x\xed\xa0\x80' --surrogates
check "5-byte form, --rfc2279" "valid bytes=5 chars=1" 0 '\xf8\x88\x80\x80\x80' --rfc2279
check "BOM, --reject-bom" \
	"invalid bytes=8 chars=0 offset=0 len=3 error=bom line=1 column=1" 1 \
	'\xef\xbb\xbfhello' --reject-bom
check "NUL, --reject-nul" \
	"invalid bytes=3 chars=1 offset=1 len=1 error=nul line=1 column=2" 1 \
	'a\0b' --reject-nul
check "-q prints nothing" "" 1 '\xff' -q
check "unknown option" "usage: utf8val [-q] [--rfc2279] [--surrogates] [--reject-nul]
               [--reject-nonchar] [--reject-bom] [FILE...]" 2 '' --bogus
check "missing file" "utf8val: /nonexistent: No such file or directory" 2 '' /nonexistent

# A verdict spanning read() chunks: 200000 lines of "é\n", then C0.
big=$(mktemp)
for _ in $(seq 2000); do printf '\xc3\xa9\n%.0s' $(seq 100); done >"$big"
printf '\xc3\xa9\xc0' >>"$big"
n=$((n + 1))
got=$("$cli" "$big")
want="$big: invalid bytes=600003 chars=400001 offset=600002 len=1 error=overlong line=200001 column=2"
if [ "$got" = "$want" ]; then
	echo "ok $n - cli: line and column across read() chunks"
else
	echo "not ok $n - cli: line and column across read() chunks"
	echo "#   want: $want"
	echo "#   got:  $got"
	failed=$((failed + 1))
fi
rm -f "$big"

result() {	# result NAME WANT GOT
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n - cli: $1"
	else
		echo "not ok $n - cli: $1"
		echo "#   want: $2"
		echo "#   got:  $3"
		failed=$((failed + 1))
	fi
}

# A 3-byte character across the read() boundary of a pipe: 30000 euro
# signs in two writes (65537 bytes, then the rest and "\nab", C0, "x").
got=$( (printf '\xe2\x82\xac%.0s' $(seq 30000) | head -c 65537; sleep 0.2
	printf '\xe2\x82\xac%.0s' $(seq 30000) | tail -c +65538
	printf '\nab\xc0x') | "$cli")
result "a character split between two reads of a pipe" \
	"invalid bytes=90005 chars=30003 offset=90003 len=1 error=overlong line=2 column=3" \
	"$got"

# Random 1- to 4-byte text with newlines and one error, through a pipe
# in random pieces, against Python's decoder (an independent reference
# for the offset, line and column).
for seed in 1 2 3 4 5 6; do
	got=$(python3 - "$seed" <<'PY' | "$cli" | sed 's/.*offset=\([0-9]*\).* line=\([0-9]*\) column=\([0-9]*\)/\1 \2 \3/'
import os, random, sys, time
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
	result "random text in random pipe pieces, seed $seed: offset, line, column" "$want" "$got"
done
echo "1..$n"
[ "$failed" -eq 0 ]
