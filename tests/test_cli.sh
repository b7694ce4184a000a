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
echo "1..$n"
[ "$failed" -eq 0 ]
