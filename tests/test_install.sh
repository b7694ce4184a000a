#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# What "make install" gives a user: installed into a temporary DESTDIR,
# exactly the expected files; outside programs in C and C++, with a u64
# and __attribute__((noinline)) of their own, built with pkg-config
# against the shared and the static library; the shared library's soname
# and exports; the manuals; and "make uninstall" leaves nothing.
# Usage: test_install.sh (from the top of the tree; builds what it needs)
set -u
. "$(dirname "$0")/tap.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dest=$work/root
# a make of its own, not one with the variables of a make that runs this
# test (the package build's make check exports LIBDIR, CLI_LINK, ...)
fresh_make() {
	env -i PATH="$PATH" HOME="${HOME:-/}" make "$@"
}


# a build directory of its own: the tree's build/ may hold a package
# build's objects (dh_auto_test runs this), which it must not replace
out=$(fresh_make -s -C "$top" install BUILD="$work/build" DESTDIR="$dest" PREFIX=/usr 2>&1)
result $? "make install DESTDIR=... PREFIX=/usr" "$out"

want="usr/bin/utf8val
usr/include/linux/utf8val.h
usr/include/utf8val.h
usr/lib/libutf8val.a
usr/lib/libutf8val.so
usr/lib/libutf8val.so.1
usr/lib/libutf8val.so.1.1.0
usr/lib/pkgconfig/utf8val.pc
usr/share/bash-completion/completions/utf8val
usr/share/man/man1/utf8val.1
usr/share/man/man3/utf8val.3
usr/share/man/man4/utf8val.4"
got=$(cd "$dest" && find . ! -type d | sed 's|^\./||' | sort)
result "$([ "$got" = "$want" ]; echo $?)" "exactly the headers, both libraries, the .pc file, the command, its bash completion and three manuals" \
	"$(diff <(echo "$want") <(echo "$got"))"

soname=$(readelf -d "$dest/usr/lib/libutf8val.so.1.1.0" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
result "$([ "$soname" = libutf8val.so.1 ]; echo $?)" "the shared library's soname is libutf8val.so.1" "$soname"
bad=$(nm -D --defined-only "$dest/usr/lib/libutf8val.so" | awk '{ print $3 }' |
	sed 's/@.*//' | grep -v -x -e UTF8VAL_1 -e 'utf8val_[a-z_]*')
api=$(grep -o 'utf8val_[a-z_]*(' "$top/utf8val.h" | tr -d '(' | sort -u)
exported=$(nm -D --defined-only "$dest/usr/lib/libutf8val.so" | awk '{ print $3 }' |
	sed 's/@.*//' | grep '^utf8val_' | sort -u)
result "$([ -z "$bad" ] && [ "$api" = "$exported" ]; echo $?)" \
	"the shared library exports utf8val.h's functions and nothing else" \
	"$bad$(diff <(echo "$api") <(echo "$exported"))"
bad=$(nm -g --defined-only "$dest/usr/lib/libutf8val.a" | awk 'NF == 3 { print $3 }' |
	grep -v '^utf8val_')
result "$([ -z "$bad" ]; echo $?)" "the static library defines only utf8val_ symbols" "$bad"

# An outside program, as its author writes it.
cat >"$work/prog.c" <<'C'
#include <utf8val.h>
#include <linux/utf8val.h>
#include <stdio.h>
#include <string.h>

typedef struct { unsigned int hi, lo; } u64;	/* the program's own */
typedef int u8;

static __attribute__((noinline)) int bad_at(const char *s)
{
	struct utf8val_result res;

	if (!utf8val_validate(s, strlen(s), 0, &res))
		return -1;
	return (int)res.valid_up_to;
}

int main(void)
{
	u64 v = { 0, UTF8VAL_VERSION };
	u8 at = bad_at("caf\xc3\xa9 \xc0\xaf");
	char out[32];
	unsigned long long n = utf8val_replace("a\xff", 2, 0, out, sizeof(out));

	printf("%d %llu %s %s %zu\n", at, n, utf8val_version(),
	       v.lo == UTF8VAL_VERSION ? "ok" : "bad",
	       sizeof(struct utf8val_ioc_verdict));
	return 0;
}
C
cp "$work/prog.c" "$work/prog.cc"
export PKG_CONFIG_PATH=$dest/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest
cflags=$(pkg-config --cflags utf8val)
libs=$(pkg-config --libs utf8val)
result $? "pkg-config knows utf8val ($(pkg-config --modversion utf8val))"
want="6 4 1.1.0 ok 56"
for lang in c c++; do
	src=$work/prog.c
	cc="gcc -std=c99 -pedantic"
	if [ $lang = c++ ]; then
		src=$work/prog.cc
		cc="g++ -std=c++11 -pedantic"
	fi
	out=$($cc -Wall -Wextra -Werror $cflags -o "$work/shared" "$src" $libs 2>&1) &&
		got=$(LD_LIBRARY_PATH=$dest/usr/lib "$work/shared") &&
		readelf -d "$work/shared" | grep -q 'NEEDED.*libutf8val.so.1'
	result $? "a $lang program builds with pkg-config, links the shared library and runs" \
		"$out$(echo; echo "$got")"
	[ "${got:-}" = "$want" ] || result 1 "$lang program output" "want $want, got ${got:-}"
	out=$($cc -Wall -Wextra -Werror $cflags -o "$work/static" "$src" \
		-Wl,-Bstatic $libs -Wl,-Bdynamic 2>&1) &&
		got=$(env -u LD_LIBRARY_PATH "$work/static") &&
		! readelf -d "$work/static" | grep -q 'NEEDED.*libutf8val'
	result $? "a $lang program links the static library and runs without it" \
		"$out$(echo; echo "$got")"
	[ "${got:-}" = "$want" ] || result 1 "$lang static program output" "want $want, got ${got:-}"
done

got=$(printf 'a\xc0' | "$dest/usr/bin/utf8val")
result "$([ "$got" = "invalid bytes=1 chars=1 offset=1 len=1 error=overlong line=1 column=2" ]; echo $?)" \
	"the installed command runs" "$got"
warn=$(for m in 1 3 4; do
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$dest/usr/share/man/man$m/utf8val.$m" 2>&1 >/dev/null
done)
result "$([ -z "$warn" ]; echo $?)" "the manuals render without a warning (man --warnings)" "$warn"

out=$(fresh_make -s -C "$top" uninstall BUILD="$work/build" DESTDIR="$dest" PREFIX=/usr 2>&1)
left=$(cd "$dest" && find . ! -type d)
result "$([ -z "$left" ] && [ -z "$out" ]; echo $?)" "make uninstall removes every file" "$out$left"

tap_done
