#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The main job on a fresh Debian 12 machine: build the core and show it
# validating real text and telling exactly what is wrong with bad bytes;
# then build the module, boot Debian's kernel in qemu with it loaded and
# show /dev/utf8val at work. --shell ends in the guest's shell instead.
# Usage: demo.sh [--shell]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps host guest
make -s lib cli
v=build/utf8val

show() {
	printf '\n$ %s\n' "$1"
	bash -c "$1" || true
}

echo "== utf8val core, built into build/libutf8val.a and $v"
for f in ../shared/corpus/*.txt; do
	[ -f "$f" ] && show "$v $f"
done
show "printf 'caf\\xc3\\xa9 \\xe2\\x82\\xac\\n' | $v"
show "printf 'GET /..\\xc0\\xaf../etc/passwd' | $v          # RFC 3629 section 10: overlong '/'"
show "printf 'x\\xed\\xa0\\x80' | $v                        # an encoded surrogate"
show "printf 'x\\xed\\xa0\\x80' | $v --surrogates           # ...accepted as WTF-8"
show "printf 'line one\\nline \\xe2\\x82\\x41two' | $v     # a truncated euro sign"
show "printf 'tail \\xf0\\x9f\\x98' | $v                     # input ends inside a character"
show "printf '\\xf8\\x88\\x80\\x80\\x80' | $v --rfc2279       # a 5-byte form, legacy mode only"
show "printf '\\xef\\xbb\\xbfhello' | $v --reject-bom"
[ -f ../shared/testdata/kuhn/UTF-8-test.txt ] &&
	show "$v ../shared/testdata/kuhn/UTF-8-test.txt"
echo
echo "Exit status is 0 only for valid input: '$v -q FILE && echo ok' is a complete check."
echo
echo "== the module in Debian's $(scripts/guest/fetch-kernel 6.12 | xargs basename) kernel, booted in qemu"
if [ "${1:-}" = --shell ]; then
	exec scripts/guest/run 6.12 shell
fi
scripts/guest/run 6.12 demo | grep -av '^ok - \|^# guest'
echo
echo "To try it yourself: scripts/demo.sh --shell"
