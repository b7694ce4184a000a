#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The license story is exact: every SPDX line of the tree names licenses
# and exceptions whose texts are in LICENSES/, and debian/copyright gives
# each file the license its SPDX line says (a file without one gets the
# default, "Files: *"). TAP. Usage: test_licenses.sh TOP
set -u
. "$(dirname "$0")/tap.sh"
cd "$1" || exit 2

# the tree's files: git's list where the tree is git's, or (a package
# build, maybe below another git tree) every file but what a build makes
list_files() {
	if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
		git ls-files -z
	else
		find . -type f ! -path './build/*' ! -path './debian/*/*' \
			! -path './.cache/*' -printf '%P\0'
	fi
}
out=$(list_files | python3 -c '
import fnmatch, os, re, sys

# (the texts in LICENSES/ quote SPDX lines as examples)
names = [n for n in sys.stdin.read().split("\0")
         if n and os.path.isfile(n) and not n.startswith("LICENSES/")]
spdx = {}
for name in names:
    with open(name, "rb") as f:
        head = f.read(2048).decode("utf-8", "replace")
    m = re.search(r"SPDX-License-Identifier: ([A-Za-z0-9.+ -]+?)\s*(\*/|-->|$)",
                  head, re.M)
    if m:
        spdx[name] = m.group(1).strip()

bad = []
# every identifier has its text in LICENSES/
for name, expr in sorted(spdx.items()):
    for word in re.split(r"\s+", expr):
        if word in ("OR", "AND", "WITH"):
            continue
        if not (os.path.isfile("LICENSES/preferred/" + word) or
                os.path.isfile("LICENSES/exceptions/" + word)):
            bad.append("%s: %s has no text in LICENSES/" % (name, word))

# debian/copyright: the last Files stanza that matches a file is its own
debian = {
    "GPL-2.0": "GPL-2",
    "GPL-2.0 OR MIT": "GPL-2 or Expat",
    "GPL-2.0 WITH Linux-syscall-note OR MIT":
        "GPL-2 with Linux-syscall-note exception or Expat",
}
stanzas = []
for para in open("debian/copyright").read().split("\n\n"):
    fields = {}
    key = None
    for line in para.splitlines():
        if line[:1] in (" ", "\t") and key:
            fields[key] += " " + line.strip()
        elif ":" in line:
            key, value = line.split(":", 1)
            fields[key] = value.strip()
    if "Files" in fields:
        stanzas.append((fields["Files"].split(), fields.get("License", "")))
for name in names:
    have = None
    for patterns, lic in stanzas:
        if any(fnmatch.fnmatchcase(name, p) for p in patterns):
            have = lic
    want = debian.get(spdx.get(name, "GPL-2.0 OR MIT"))
    if want is None:
        bad.append("%s: no Debian name for %s" % (name, spdx[name]))
    elif have != want:
        bad.append("%s: SPDX says %s, debian/copyright %s" %
                   (name, spdx.get(name, "(none: the default)"), have))
print("\n".join(bad))
print("%d files, %d with an SPDX line" % (len(names), len(spdx)), file=sys.stderr)
' 2>"${TMPDIR:-/tmp}/licenses.$$")
counts=$(cat "${TMPDIR:-/tmp}/licenses.$$")
rm -f "${TMPDIR:-/tmp}/licenses.$$"
files=${counts%% files*}
result "$([ -z "$out" ] && [ "${files:-0}" -gt 100 ]; echo $?)" \
	"every SPDX line has its texts in LICENSES/, and debian/copyright agrees with it ($counts)" \
	"$out"
tap_done
