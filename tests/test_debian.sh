#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The Debian packages, as a user gets them: dpkg-buildpackage builds
# libutf8val1, libutf8val-dev, utf8val, utf8names, utf8val-dkms and
# utf8val-doc, running the host tests (make check); lintian finds nothing,
# even pedantic; each holds what it should; the user-space ones install on this
# machine (and are purged again), where a program builds against them with
# pkg-config; and DKMS builds the module from utf8val-dkms's source
# against a Debian kernel's headers, in private trees, and through apt
# when a kernel's headers are installed (no kernel is installed on the
# host). TAP. Needs root for dpkg -i.
set -u
. "$(dirname "$0")/tap.sh"
TAP_PREFIX="deb: "
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^utf8val (\([^)]*\)).*/\1/p;q' "$top/debian/changelog")
arch=$(dpkg --print-architecture)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
work=$top/build/deb

purged=		# what the last purge said
purge() {	# (dpkg takes no turn: while another suite's apt or dpkg
		# holds its lock, try again, for up to 15 minutes)
	local i

	for i in $(seq 300); do
		purged=$(LC_ALL=C dpkg --purge utf8names utf8val libutf8val-dev \
			 libutf8val1 2>&1) && return 0
		case $purged in
		*"was locked by another process"*) sleep 3 ;;
		*)	return 1 ;;
		esac
	done
	return 1
}

rm -rf "$work" "$top/build/dkms"
mkdir -p "$work/utf8val-$version"
# the tree as it stands: tracked files and new ones not ignored
git -C "$top" ls-files -z --cached --others --exclude-standard |
	(cd "$top" && xargs -0 cp --parents -t "$work/utf8val-$version")
# (its make check runs the shared test vectors, from beside this tree or
# where UTF8VAL_SHARED says)
out=$(cd "$work/utf8val-$version" &&
      UTF8VAL_SHARED=${UTF8VAL_SHARED:-$(cd "$top/.." && pwd)/shared} \
      dpkg-buildpackage -us -uc -b 2>&1)
built=$?
# (what failed in make check, then the end of what the build said
# without make's and dpkg's own lines: scripts/test.sh's summary shows a
# failure's last lines)
result $built "dpkg-buildpackage -us -uc -b builds the six packages" \
	"$(grep '^not ok' <<<"$out" | head -5
	   grep -v -e '^make\(\[[0-9]*\]\)\?: ' -e '^dpkg-buildpackage: error: debian/rules' \
		<<<"$out" | tail -6)"
# (the system test, scripts/test.sh's, starts on the packages from here)
[ $built -ne 0 ] || touch "$work/.built"
ran=$(grep '^ok - ' <<<"$out" | grep -vic '# *skip')
# (scripts/test.sh runs the programs run-host-tests runs after the
# variants only here, on what the packages ship: each must have run)
missing=
for name in $(sed -n 's/^run \([a-z_]*\) .*/\1/p' "$top/scripts/run-host-tests"); do
	grep -qx "# ---- $name" <<<"$out" || missing+=" $name"
done
result "$([ "$ran" -gt 150 ] && [ -z "$missing" ] &&
	  ! grep -q -e '^not ok' -e '# SKIP UTF8VAL_SHARED' <<<"$out"; echo $?)" \
	"the package build ran the host tests, the command's and the install's among them: $ran passed, none failed or skipped the shared vectors" \
	"$(grep '^not ok' <<<"$out" | sed -n '2,4p'
	   awk '/^not ok/ { n++ } n == 1 && /^(not ok|#)/ && !/^# ---- /' <<<"$out" | head -10)${missing:+
not run:$missing}"
# and what they skipped is this suite's skips, counted as such
# (in this shell: skip counts them)
while IFS= read -r line; do
	skip "make check: $(sed 's/^ok - //; s/ *# *[Ss][Kk][Ii][Pp].*//' <<<"$line")" \
		"$(sed 's/.*# *[Ss][Kk][Ii][Pp]:* *//' <<<"$line")"
done < <(grep '^ok - ' <<<"$out" | grep -i '# *skip')

# (but for lintian's word on running as root)
out=$(lintian --fail-on error,warning,info,pedantic,experimental -I -E --pedantic \
	"$work"/utf8val_"${version}"_"$arch".changes 2>&1)
rc=$?
out=$(grep -v '^running with root privileges is not recommended!$' <<<"$out")
result "$([ $rc -eq 0 ] && [ -z "$out" ]; echo $?)" \
	"lintian -I -E --pedantic says nothing" "$out"

# the source package too (a clean copy: dpkg-source -b)
rm -rf "$work/src"
mkdir -p "$work/src/utf8val-$version"
git -C "$top" ls-files -z --cached --others --exclude-standard |
	(cd "$top" && xargs -0 cp --parents -t "$work/src/utf8val-$version")
out=$(cd "$work/src" && dpkg-source -b "utf8val-$version" 2>&1 &&
      lintian --fail-on error,warning,info,pedantic,experimental -I -E --pedantic \
	"$work/src/utf8val_$version.dsc" 2>&1)
rc=$?
out=$(grep -v '^running with root privileges is not recommended!$' <<<"$out" |
	grep -v '^dpkg-source: ')
result "$([ $rc -eq 0 ] && [ -z "$out" ]; echo $?)" \
	"the source package builds, and lintian -I -E --pedantic says nothing of it" "$out"

contents() {	# contents PACKAGE: the files in its .deb, docs aside
	local deb
	deb=$(ls "$work/$1"_"$version"_*.deb)
	dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' |
		grep -v '^/usr/share/doc/' | sort
}
expect_files() {	# expect_files PACKAGE FILES
	local got
	got=$(contents "$1")
	result "$([ "$got" = "$2" ]; echo $?)" "$1 holds exactly what it should" \
		"$(diff <(echo "$2") <(echo "$got"))"
}
expect_files libutf8val1 "/usr/lib/$triplet/libutf8val.so.1
/usr/lib/$triplet/libutf8val.so.1.1.0"
expect_files libutf8val-dev "/usr/include/linux/utf8val.h
/usr/include/utf8val.h
/usr/lib/$triplet/libutf8val.a
/usr/lib/$triplet/libutf8val.so
/usr/lib/$triplet/pkgconfig/utf8val.pc
/usr/share/man/man3/utf8val.3.gz"
expect_files utf8val "/usr/bin/utf8val
/usr/share/bash-completion/completions/utf8val
/usr/share/man/man1/utf8val.1.gz"
needed=$(dpkg-deb --fsys-tarfile "$work"/utf8val_"$version"_"$arch".deb |
	tar -xO ./usr/bin/utf8val >"$work/utf8val.bin" &&
	readelf -d "$work/utf8val.bin" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
depends=$(dpkg-deb -f "$work"/utf8val_"$version"_"$arch".deb Depends)
result "$([[ $needed == *libutf8val.so.1* ]] && [[ $depends == *"libutf8val1 (>= "* ]]; echo $?)" \
	"the command links libutf8val.so.1, and utf8val depends on libutf8val1" \
	"NEEDED: $needed; Depends: $depends"
prerm=$(dpkg-deb -I "$work"/utf8names_"$version"_"$arch".deb prerm 2>&1)
result "$(grep -q 'utf8names --detach' <<<"$prerm" && grep -q 'stop utf8names.service' <<<"$prerm"; echo $?)" \
	"removing utf8names stops its unit and detaches a pinned policy" "$prerm"
doc=$(dpkg-deb -c "$work"/utf8val-doc_"$version"_all.deb | awk '{ print $6 }' | grep 'rst')
# (dh_installdocs puts a -doc package's files in the source's folder)
result "$([ "$doc" = ./usr/share/doc/utf8val/utf8val.rst.gz ]; echo $?)" \
	"utf8val-doc holds utf8val.rst, where the manuals say" "$doc"
expect_files utf8names "/etc/utf8names.conf
/lib/systemd/system/utf8names.service
/usr/sbin/utf8names
/usr/share/lintian/overrides/utf8names
/usr/share/man/man8/utf8names.8.gz"
dkms_files=$(cd "$top" && printf '%s\n' $(scripts/module/module-files) \
	samples/utf8val_client.c dkms.conf | sed "s|^|/usr/src/utf8val-$version/|")
expect_files utf8val-dkms "$(printf '%s\n' "$dkms_files" /usr/share/man/man4/utf8val.4.gz \
	/usr/lib/modules-load.d/utf8val.conf | sort)"

# The user-space packages on this machine, then gone again.
purge
trap purge EXIT
out=$(dpkg -i "$work"/libutf8val1_"$version"_*.deb "$work"/libutf8val-dev_"$version"_*.deb \
	"$work"/utf8val_"$version"_*.deb "$work"/utf8names_"$version"_*.deb 2>&1)
result $? "dpkg -i libutf8val1 libutf8val-dev utf8val utf8names" "$out"
listed=$(dpkg -L libutf8val1 libutf8val-dev utf8val utf8names | grep -v -e '^/usr/share/doc' -e '^$' |
	while read -r f; do [ -d "$f" ] || echo "$f"; done | sort)
want=$( (contents libutf8val1; contents libutf8val-dev; contents utf8val; contents utf8names) | sort)
result "$([ -n "$want" ] && [ "$listed" = "$want" ]; echo $?)" "dpkg -L lists the files of the four packages, all present" \
	"$(diff <(echo "$want") <(echo "$listed"))"
cat >"$work/prog.c" <<'C'
#include <stdio.h>
#include <utf8val.h>

int main(void)
{
	char out[16];
	unsigned long long n = utf8val_replace("a\xc0", 2, 0, out, sizeof(out));

	printf("%llu %s\n", n, utf8val_version());
	return 0;
}
C
out=$(gcc -Wall -Werror -o "$work/prog" "$work/prog.c" $(pkg-config --cflags --libs utf8val) 2>&1 &&
	"$work/prog")
result "$([ "$out" = "4 $version" ]; echo $?)" "a program builds against the installed packages with pkg-config and runs" "$out"
out=$(printf 'x\xed\xa0\x80' | /usr/bin/utf8val; man -w utf8val 2>&1)
result "$([ "$out" = "invalid bytes=1 chars=1 offset=1 len=1 error=surrogate line=1 column=2
/usr/share/man/man1/utf8val.1.gz" ]; echo $?)" "the installed command runs, and man finds its manual" "$out"
# (the policy itself needs a kernel with the BPF LSM: the guests test it)
out=$(/usr/sbin/utf8names --help | head -n 1; man -w 8 utf8names 2>&1;
      systemctl is-enabled utf8names 2>&1 || true)
result "$(echo "$out" | grep -q '^usage: utf8names' &&
	  echo "$out" | grep -qx /usr/share/man/man8/utf8names.8.gz &&
	  ! echo "$out" | grep -qx enabled; echo $?)" \
	"the installed utf8names runs against the shared libbpf, man finds its manual, the unit is not enabled" "$out"
purge
trap - EXIT
left=$(ls /usr/lib/"$triplet"/libutf8val* /usr/include/utf8val.h /usr/bin/utf8val 2>/dev/null)
result "$([ -z "$left" ]; echo $?)" "dpkg --purge leaves nothing behind" "$left
$purged"

# DKMS from the package's own source, in private trees.
root=$work/dkms-root
dpkg-deb -x "$work"/utf8val-dkms_"$version"_all.deb "$root"
scripts=$(dpkg-deb -I "$work"/utf8val-dkms_"$version"_all.deb postinst 2>&1) &&
	grep -q 'DKMS_NAME=utf8val' <<<"$scripts" &&
	grep -q 'common.postinst' <<<"$scripts" &&
	dpkg-deb -f "$work"/utf8val-dkms_"$version"_all.deb Depends | grep -qw dkms
result $? "utf8val-dkms depends on dkms, and its postinst hands the module to it" "$scripts"
kernel=$("$top/scripts/guest/fetch-kernel" 6.12)
abi=$(basename "$kernel")
# The kfuncs need the kernel's BTF as vmlinux in the build tree. Debian's
# 6.12 headers ship one (its BTF alone); 6.1's ship none, nor
# resolve_btfids. DKMS builds against 6.12 as it is; against 6.1 it builds
# the module without kfuncs and says what to set (in the settings file, as
# a user of DKMS would), then builds with them.
dkms_build() {	# dkms_build TREE KERNEL [ENV...]: dkms add and build into TREE
	local tree=$1 kernel=$2
	shift 2
	mkdir -p "$tree"
	dkms add -m utf8val -v "$version" --sourcetree "$root/usr/src" --dkmstree "$tree" 2>&1 &&
		env UTF8VAL_DKMS_SETTINGS=/nonexistent "$@" dkms build -m utf8val -v "$version" \
			-k "$(basename "$kernel")" --kernelsourcedir "$(readlink -f "$kernel/build")" \
			--sourcetree "$root/usr/src" --dkmstree "$tree" 2>&1
	# (the build's log: in build/ after a failure, in log/ after success)
	cat "$tree/utf8val/$version/build/make.log" \
		"$tree/utf8val/$version"/*/*/log/make.log 2>/dev/null
}
has_btf() {	# has_btf TREE: the module DKMS built there has its BTF
	local ko
	ko=$(find "$1" -name utf8val.ko)
	[ -n "$ko" ] && modinfo -F version "$ko" | grep -qx "$version" &&
		readelf -S "$ko" | grep -q '\.BTF '
}
out=$(dkms_build "$work/dkms-tree" "$kernel")
result "$(has_btf "$work/dkms-tree"; echo $?)" \
	"DKMS builds utf8val.ko $version with its BTF from the package's source against $abi" "$out"
# The kernel gives its vector paths 4 KiB at least, and no whole() takes
# more than 1 KiB: the module is built without them.
dkms_ko=$(find "$work/dkms-tree" -name utf8val.ko)
whole=$(nm "$dkms_ko" 2>&1 | grep -e 'utf8val_[a-z0-9]*_whole[0-9]*$')
result "$([ -n "$dkms_ko" ] && [ -z "$whole" ]; echo $?)" \
	"the module DKMS built has no whole() function, which no call in the kernel reaches" \
	"$whole"
kernel61=$("$top/scripts/guest/fetch-kernel" 6.1)
resolve=$(ls "$kernel"/root/usr/lib/linux-kbuild-*/tools/bpf/resolve_btfids/resolve_btfids)
kfuncs() {	# kfuncs TREE: modinfo's kfuncs of the module DKMS built there
	local ko
	ko=$(find "$1" -name utf8val.ko)
	[ -n "$ko" ] && modinfo -F kfuncs "$ko"
}
# Where the kfuncs cannot be built, DKMS still builds the module, without
# them, and says why and what to set.
out=$(dkms_build "$work/dkms61-none" "$kernel61" UTF8VAL_BTF_SOURCE="$kernel61/vmlinuz")
result "$(kfuncs "$work/dkms61-none" | grep -q '^absent: ' &&
	  grep -q 'no tools/bpf/resolve_btfids' <<<"$out" && grep -q 'RESOLVE_BTFIDS=' <<<"$out"; echo $?)" \
	"against Debian's 6.1, without resolve_btfids, DKMS builds it without kfuncs and says what to set" "$out"
out=$(dkms_build "$work/dkms61-no-btf" "$kernel61" RESOLVE_BTFIDS="$resolve")
result "$(kfuncs "$work/dkms61-no-btf" | grep -q '^absent: the kernel.s BTF' &&
	  grep -q 'no BTF for 6.1' <<<"$out" && grep -q 'UTF8VAL_BTF_SOURCE=' <<<"$out"; echo $?)" \
	"against Debian's 6.1, without the kernel's BTF, DKMS builds it without kfuncs and says how to give it" "$out"
printf 'RESOLVE_BTFIDS=%s\nUTF8VAL_BTF_SOURCE=%s\n' "$resolve" \
	"$(dirname "$kernel61")/%k/vmlinuz" >"$work/settings"
out=$(dkms_build "$work/dkms61" "$kernel61" UTF8VAL_DKMS_SETTINGS="$work/settings")
result "$(has_btf "$work/dkms61" && kfuncs "$work/dkms61" | grep -q '^bpf_utf8val_check'; echo $?)" \
	"against Debian's 6.1, with both in the settings file (%k for the release), DKMS builds it with kfuncs" "$out"
# the guest's DKMS run boots 6.1's, built with no settings (scripts/guest/run
# 6.1 dkms; 6.12 with DKMS's module boots in scripts/system/test); 6.12's
# for a run by hand
mkdir -p "$top/build/dkms"
find "$work/dkms61-none" -name utf8val.ko -exec cp {} "$top/build/dkms/utf8val-6.1.ko" \;
find "$work/dkms-tree" -name utf8val.ko -exec cp {} "$top/build/dkms/utf8val-6.12.ko" \;
out=$(dkms_build "$work/dkms-no-bpf" "$kernel61" UTF8VAL_BPF=no)
ko=$(find "$work/dkms-no-bpf" -name utf8val.ko)
result "$([ -n "$ko" ] && ! readelf -S "$ko" | grep -q '\.BTF_ids' &&
	  kfuncs "$work/dkms-no-bpf" | grep -q 'UTF8VAL_BPF=n'; echo $?)" \
	"with UTF8VAL_BPF=no, DKMS builds it without kfuncs, even against 6.1" "$out"

# As a user upgrades: utf8val-dkms installed, then a kernel's headers
# whose kfuncs cannot be built (6.1's: no BTF, no resolve_btfids). The
# headers' DKMS hook builds the module without kfuncs, and nothing is left
# unconfigured. (Headers only: no kernel is installed on the host. The
# packages come from the private apt state the kernel came from; only
# what this test installed is purged again.)
abi61=$(basename "$kernel61")
headers=linux-headers-$abi61
installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q ' installed$'; }
if [ -z "$abi61" ] || [ ! -d "$kernel61" ]; then
	result 1 "fetch Debian's 6.1 headers for the DKMS install test" ""
elif [ "$abi61" = "$(uname -r)" ] || installed "$headers"; then
	skip "DKMS through apt" "$headers is already installed here (the test would remove it)"
else
	debs=$work/headers-debs
	mkdir -p "$debs"
	before=$(dpkg-query -W -f='${Package}\n' | sort)
	out=$(cd "$debs" && "$top/scripts/apt-foreign" amd64 apt-get download -q "$headers" \
		"$(sed -n 's|^include .*/\(linux-headers-[^/]*-common\)/Makefile|\1|p' "$kernel61/build/Makefile")" \
		"$(basename "$(ls -d "$kernel61"/root/usr/lib/linux-kbuild-*)")" 2>&1 &&
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		"$work"/utf8val-dkms_"$version"_all.deb 2>&1 &&
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$debs"/*.deb 2>&1)
	result $? "apt-get installs utf8val-dkms, then $headers" "$out"
	added=$(comm -13 <(echo "$before") <(dpkg-query -W -f='${Package}\n' | sort))
	audit=$(dpkg --audit 2>&1)
	result "$([ -z "$audit" ]; echo $?)" "dpkg --audit reports nothing after that" "$audit"
	ko=$(find "/lib/modules/$abi61/updates" -name 'utf8val.ko*' 2>/dev/null | head -n 1)
	result "$([ -n "$ko" ] && modinfo -F kfuncs "$ko" | grep -q '^absent:'; echo $?)" \
		"DKMS installed $headers's utf8val.ko, without kfuncs ($(modinfo -F kfuncs "$ko" 2>/dev/null))" \
		"$(cat /var/lib/dkms/utf8val/"$version"/*/*/log/make.log 2>/dev/null | tail -20)"
	# shellcheck disable=SC2086
	out=$(apt-get purge -y -qq $added 2>&1)
	left=$(dpkg -l utf8val-dkms "$headers" 2>/dev/null | grep '^[ih]')
	result "$([ -z "$left" ] && [ ! -e /var/lib/dkms/utf8val ] &&
		  [ ! -e "/lib/modules/$abi61/updates" ]; echo $?)" \
		"apt-get purge takes what the test installed away: utf8val-dkms, its DKMS tree, the headers" "$left
$out"
fi

tap_done
