# SPDX-License-Identifier: GPL-2.0 OR MIT
"""A whole Debian system in qemu, driven as an administrator drives one.

The firmware is OVMF with Secure Boot on and Microsoft's keys enrolled
(amd64), so Debian's signed shim, GRUB and kernel boot as on a shipped
PC. The serial console is read all the time (into a log, and for the
firmware's and MokManager's screens); commands run over ssh on qemu's
user-mode network, forwarded to a port of 127.0.0.1.
"""

import os
import shutil
import socket
import subprocess
import time

import pexpect

OVMF = "/usr/share/OVMF"
AAVMF = "/usr/share/AAVMF"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Machine:
    """One system: a copy-on-write disk over the cached image, its own
    firmware variables (enrolled keys persist across its reboots)."""

    def __init__(self, image, key, workdir, arch="amd64", secure_boot=True,
                 mem=2048, smp=2):
        self.arch = arch
        self.key = key
        self.workdir = workdir
        self.port = free_port()
        os.makedirs(workdir, exist_ok=True)
        self.serial_log = open(os.path.join(workdir, "serial.log"), "ab")
        self.proc = None
        self.disk = os.path.join(workdir, "disk.qcow2")
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw",
                        "-b", image, self.disk], check=True)
        self.vars = os.path.join(workdir, "vars.fd")
        net = ("user,id=n0,hostfwd=tcp:127.0.0.1:%d-:22" % self.port)
        if arch == "amd64":
            code = "OVMF_CODE_4M.secboot.fd" if secure_boot else "OVMF_CODE_4M.fd"
            shutil.copy(os.path.join(OVMF, "OVMF_VARS_4M.ms.fd" if secure_boot
                                     else "OVMF_VARS_4M.fd"), self.vars)
            self.argv = [
                "qemu-system-x86_64", "-machine", "q35,smm=on", "-accel", "tcg",
                "-cpu", "max", "-global", "ICH9-LPC.disable_s3=1",
                "-global", "driver=cfi.pflash01,property=secure,value=on",
                "-drive", "if=pflash,format=raw,unit=0,readonly=on,file="
                + os.path.join(OVMF, code),
                "-drive", "if=pflash,format=raw,unit=1,file=" + self.vars,
            ]
        else:
            code = os.path.join(AAVMF, "AAVMF_CODE.fd")
            shutil.copy(os.path.join(AAVMF, "AAVMF_VARS.fd"), self.vars)
            self.argv = [
                "qemu-system-aarch64", "-machine", "virt", "-accel", "tcg",
                "-cpu", "max",
                "-drive", "if=pflash,format=raw,unit=0,readonly=on,file=" + code,
                "-drive", "if=pflash,format=raw,unit=1,file=" + self.vars,
            ]
        self.argv += [
            "-m", str(mem), "-smp", str(smp), "-no-reboot",
            # (a throwaway disk: the guest's flushes, one per file dpkg
            # unpacks, need not reach the host's disk)
            "-drive", "if=none,id=d0,format=qcow2,cache=unsafe,file=" + self.disk,
            "-device", "virtio-blk-pci,drive=d0",
            "-netdev", net, "-device", "virtio-net-pci,netdev=n0",
            "-display", "none", "-monitor", "none", "-serial", "stdio",
        ]

    # the machine's power

    def start(self):
        """Power on. qemu runs with -no-reboot: a reboot is a power
        cycle here, so the firmware variables a reboot carries persist."""
        self.proc = pexpect.spawn(self.argv[0], self.argv[1:], timeout=None,
                                  echo=False, maxread=65536)
        self.proc.logfile_read = self.serial_log
        self.proc.delaybeforesend = None

    def expect(self, patterns, timeout):
        """Wait for one of the patterns on the serial console."""
        return self.proc.expect(patterns, timeout=timeout)

    def send(self, text):
        self.proc.send(text)

    def wait_off(self, timeout=300):
        """Wait for the machine to power off (or reset: -no-reboot)."""
        self.proc.expect(pexpect.EOF, timeout=timeout)
        self.proc.close()
        self.proc = None

    def kill(self):
        if self.proc is not None:
            self.proc.terminate(force=True)
            self.proc = None

    # commands over ssh

    def ssh_argv(self, user="root", tty=False):
        return ["ssh", "-q", "-i", self.key, "-p", str(self.port),
                "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null",
                "-o", "ConnectTimeout=10", "-o", "BatchMode=yes",
                "-o", "ServerAliveInterval=10",
                "-o", "ServerAliveCountMax=6"] + (["-tt"] if tty else []) + \
               ["%s@127.0.0.1" % user]

    def run(self, command, user="root", timeout=900, stdin=None):
        """Run a shell command; returns (status, stdout and stderr)."""
        try:
            r = subprocess.run(self.ssh_argv(user) + [command], input=stdin,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=timeout)
        except subprocess.TimeoutExpired as e:
            out = (e.output or b"").decode(errors="replace")
            return 124, out + "\n(timed out after %d s)" % timeout
        return r.returncode, r.stdout.decode(errors="replace")

    def wait_ssh(self, timeout=600):
        """Wait until the system is up and sshd answers; the serial
        console is read meanwhile (so that qemu never blocks on it)."""
        end = time.time() + timeout
        while time.time() < end:
            try:
                self.proc.expect(pexpect.TIMEOUT, timeout=5)
            except pexpect.EOF:
                return False
            status, _ = self.run("systemctl is-system-running --wait >/dev/null; true",
                                 timeout=120)
            if status == 0:
                return True
        return False

    def copy_in(self, files, dest):
        argv = ["scp", "-q", "-i", self.key, "-P", str(self.port),
                "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes"]
        subprocess.run(argv + list(files) + ["root@127.0.0.1:" + dest],
                       check=True, timeout=300)
