#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Every C example of the documentation compiles, as C and as C++, the way
# a reader would copy it: the README's ```c blocks (a fragment goes into
# a function that has buf and len; the BPF one is built for BPF) and the
# EXAMPLES of utf8val(3) (a whole program: built, linked and run). TAP.
# Usage: test_doc_examples.sh TOP LIBUTF8VAL_A
set -u
. "$(dirname "$0")/tap.sh"
top=$1
lib=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The ```c blocks of a markdown file, one file each: $tmp/md-N.c
awk -v dir="$tmp" '
	/^```c$/ { n++; file = dir "/md-" n ".c"; inside = 1; next }
	/^```/ { inside = 0; next }
	inside { print > file }
' "$top/README.md"

# A fragment in a function that has what the README's examples name.
wrap() {	# wrap FILE: a whole program on standard output
	grep '^#include' "$1"
	echo '#include <stdio.h>'
	echo 'int example(const void *buf, size_t len);'
	echo 'int example(const void *buf, size_t len)'
	echo '{'
	grep -v '^#include' "$1"
	echo 'return 0;'
	echo '}'
}

count=0
for f in "$tmp"/md-*.c; do
	[ -e "$f" ] || continue
	count=$((count + 1))
	if grep -q 'bpf_helpers.h' "$f"; then
		# a BPF program's body: name and len are its own memory
		{
			echo '#include <linux/bpf.h>'
			grep '^#include' "$f" | grep -v vmlinux.h
			echo '#define EILSEQ 84'
			echo 'int example(const __u8 *name, __u32 len);'
			echo 'int example(const __u8 *name, __u32 len)'
			echo '{'
			grep -v '^#include' "$f"
			echo '	return 0;'
			echo '}'
		} >"$f.bpf.c"
		out=$(clang -O2 -Wall -Werror -target bpf \
			-I/usr/include/"$(gcc -dumpmachine)" -I"$top" \
			-c "$f.bpf.c" -o "$f.o" 2>&1)
		result $? "README.md example $count (BPF) builds with clang -target bpf" "$out"
		continue
	fi
	wrap "$f" >"$f.c"
	for lang in c c++; do
		out=$(gcc -x $lang -Wall -Wextra -Werror -I"$top" -c "$f.c" \
			-o "$f.$lang.o" 2>&1)
		result $? "README.md example $count builds as $lang" "$out"
	done
done
result "$([ $count -ge 2 ]; echo $?)" "README.md has its C examples ($count)"

# utf8val(3)'s EXAMPLES: from .nf to .fi, troff's escapes undone.
sed -n '/^\.SH EXAMPLES/,/^\.SH/p' "$top/Documentation/man/utf8val.3" |
	sed -n '/^\.nf/,/^\.fi/p' | sed -e '/^\.nf/d' -e '/^\.fi/d' \
	-e 's/\\-/-/g' -e 's/\\e/\\/g' >"$tmp/man3.c"
for lang in c c++; do
	out=$(gcc -x $lang -Wall -Wextra -Werror -I"$top" "$tmp/man3.c" -x none \
		"$lib" -o "$tmp/man3-$lang" 2>&1) &&
		out=$("$tmp/man3-$lang" 2>&1) &&
		[ "$out" = "overlong at byte 6 (1 bytes)" ]
	result $? "utf8val(3)'s example builds as $lang and prints what it says" "$out"
done
# utf8names' coverage list, which Documentation/utf8val.rst says it
# gives "word for word": the C string's lines against the literal block.
out=$(python3 - "$top" <<'PY'
import ast, re, sys
top = sys.argv[1]
c = open(top + "/tools/utf8names/report.c").read()
body = re.search(r"static const char coverage\[\] =\n(.*?);\n", c, re.S).group(1)
said = "".join(ast.literal_eval(l.strip()) for l in body.splitlines()).splitlines()
rst = open(top + "/Documentation/utf8val.rst").read().split("word for word::\n\n", 1)[1]
doc = []
for line in rst.splitlines():
    if not line.startswith("  "):
        break
    doc.append(line[2:])
if said != doc:
    for a, b in zip(said + ["(none)"] * len(doc), doc + ["(none)"] * len(said)):
        if a != b:
            print("loader: " + a + "\ndoc:    " + b)
            break
    sys.exit(1)
print(len(said), "lines")
PY
)
result $? "utf8names' coverage list is the documentation's, word for word ($out)" "$out"
tap_done
