#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# What scripts/demo.sh shows inside the guest: the device at work.
dev=/dev/utf8val
show() {
	echo
	echo "guest# $1"
	sh -c "$1" 2>&1
}
echo "utf8val.ko is loaded on $(uname -r): $(ls -l $dev)"
show "printf 'caf\\303\\251 \\342\\202\\254\\n' > $dev && echo valid"
show "printf 'GET /..\\300\\257../etc/passwd' | dd of=$dev 2>&1 | head -n 1"
show "exec 3<>$dev; printf 'line one\\nline \\342\\202A' >&3; cat <&3"
show "exec 3<>$dev; printf 'tail \\360\\237\\230' >&3; cat <&3"
show "grep . /sys/class/misc/utf8val/bytes /sys/class/misc/utf8val/verdicts/*"
show "cat /sys/module/utf8val/parameters/simd    # the validation path in use"
show "insmod /lib/modules/utf8val_client.ko name=\"\$(printf 'caf\\303\\251')\"; rmmod utf8val_client"
show "insmod /lib/modules/utf8val_client.ko name=\"\$(printf '..\\300\\257..')\""
show "dmesg | grep utf8val_client"
if [ -x /bin/utf8names ]; then
	echo
	echo "== a BPF LSM policy on utf8val's kfuncs (tools/utf8names), on /srv"
	mkdir -p /srv && mount -t tmpfs tmpfs /srv
	mount -t securityfs securityfs /sys/kernel/security
	echo "guest# utf8names --mount /srv > /tmp/refusals &"
	utf8names --mount /srv >/tmp/refusals &
	policy=$!
	sleep 2
	show "mkdir /srv/\"\$(printf 'caf\\303\\251')\" && echo made"
	show "mkdir /srv/\"\$(printf 'caf\\351')\""
	show "touch /srv/\"\$(printf 'GET \\300\\257')\""
	show "ln -s \"\$(printf 'x\\355\\240\\200')\" /srv/link"
	echo
	echo "guest# kill %1; cat /tmp/refusals"
	kill $policy
	wait $policy
	cat /tmp/refusals
	show "mkdir /srv/\"\$(printf 'caf\\351')\" && echo made: the policy is gone"
fi
