# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Sourced by the guest scripts: what a kernel series means beyond its
# kernel. Sets, from $series:
#   arch     Debian's name of the guest's architecture (amd64, arm64, i386,
#            riscv64)
#   karch    the kernel's ARCH= for building the module
#   cross    the cross compiler's prefix for the module and the guest's
#            programs (empty: the host's gcc)
#   cross32  the prefix that builds the guest's 32-bit (compat) programs,
#            empty where the guest is 32-bit itself
#   qemu     the qemu-system binary and its machine arguments
#   ttys     the consoles: kernel messages, then the TAP results
#   results_dev  qemu's device for the TAP results, if not a second UART
case $series in
arm64-*)
	arch=arm64 karch=arm64 cross=aarch64-linux-gnu-
	cross32=arm-linux-gnueabihf-
	qemu=(qemu-system-aarch64 -M virt -cpu max)
	# virt has one UART (PL011); the results go to a virtio console
	ttys=(ttyAMA0 hvc0)
	results_dev=(-device virtio-serial-pci -device virtconsole,chardev=results)
	;;
riscv64-*)
	# the vector extension (RVV 1.0), 128-bit registers
	arch=riscv64 karch=riscv cross=riscv64-linux-gnu- cross32=
	qemu=(qemu-system-riscv64 -M virt -cpu rv64,v=true,vlen=128,vext_spec=v1.0)
	# virt has one UART (16550); the results go to a virtio console
	ttys=(ttyS0 hvc0)
	results_dev=(-device virtio-serial-pci -device virtconsole,chardev=results)
	;;
i386-*)
	arch=i386 karch=x86 cross=i686-linux-gnu- cross32=
	# Debian's i386 kernel warns under qemu's "max" CPU without a vendor
	qemu=(qemu-system-i386 -cpu max,vendor=GenuineIntel)
	ttys=(ttyS0 ttyS1)
	results_dev=()
	;;
*)
	arch=amd64 karch=x86 cross= cross32=i686-linux-gnu-
	qemu=(qemu-system-x86_64 -cpu max)
	ttys=(ttyS0 ttyS1)
	results_dev=()
	;;
esac
