#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# utf8val.h defines nothing outside utf8val_ and UTF8VAL_: no macro beyond
# those of the one header it includes (stddef.h), and no type,
# function, enumerator or variable. Usage: test_header.sh HEADER_DIR
set -u
. "$(dirname "$0")/tap.sh"
dir=$1

for lang in c c++; do
	macros() {
		printf '%s\n' "$@" | gcc -x $lang -dM -E -I"$dir" - | sort
	}
	extra=$(comm -23 <(macros '#include <utf8val.h>') \
			 <(macros '#include <stddef.h>') |
		awk '{ print $2 }' | grep -v '^_*UTF8VAL_')
	result "$([ -z "$extra" ]; echo $?)" \
		"utf8val.h as $lang defines no macro outside UTF8VAL_" "$extra"

	# Every declaration the header itself makes, from clang's AST.
	extra=$(echo '#include <utf8val.h>' |
		clang -x $lang -I"$dir" -fsyntax-only -Xclang -ast-dump=json - |
		python3 -c '
import json, re, sys
names = set()
def walk(node, file):
    # top-level declarations, and the enumerators inside enums
    for child in node.get("inner", []):
        loc = child.get("loc", {})
        file = loc.get("file", loc.get("expansionLoc", {}).get("file", file))
        if not file or not file.endswith("utf8val.h"):
            continue
        if child["kind"].endswith("Decl") and child.get("name"):
            names.add(child["name"])
        if child["kind"] in ("EnumDecl", "LinkageSpecDecl"):
            walk(child, file)
    return file
walk(json.load(sys.stdin), None)
bad = sorted(n for n in names if not re.match(r"(utf8val_|UTF8VAL_)", n))
print("\n".join(bad) if names else "(no declarations found: the check is broken)")
')
	result "$([ -z "$extra" ]; echo $?)" \
		"utf8val.h as $lang declares nothing outside utf8val_ and UTF8VAL_" "$extra"
done
tap_done
