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
import tempfile
import time

import pexpect

OVMF = "/usr/share/OVMF"
AAVMF = "/usr/share/AAVMF"


def secure_boot(arch):
    """Whether the machine of ARCH boots with Secure Boot on: amd64, with
    Microsoft's keys, as PCs ship. arm64 boots Debian's signed shim too,
    with Secure Boot off (AAVMF_VARS.fd): issue 34 asks for no more."""
    return arch == "amd64"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Machine:
    """One system: a copy-on-write disk over the cached image, its own
    firmware variables (enrolled keys persist across its reboots)."""

    # One emulated CPU. qemu runs each in a host thread of its own, and
    # one that waits on another (a lock it holds, an IPI, a TLB
    # shootdown) spins while the host has preempted that one: beside the
    # test command's other suites, which leave this machine about one
    # host CPU (qemu has a session of its own, and so its own autogroup),
    # two took 2,202 CPU-seconds, where alone they took 1,403 (1,104 s).
    # One has none to wait on: 1,591 CPU-seconds alone (1,576 s). (The
    # guest suites test the module on two CPUs.)
    def __init__(self, image, key, workdir, arch="amd64", mem=2048, smp=1):
        self.secure_boot = secure_boot(arch)
        self.arch = arch
        self.key = key
        self.workdir = workdir
        self.port = free_port()
        # ssh's shared connections (in /tmp, whatever TMPDIR says: a
        # socket's path is bounded), for the Machine's life (close())
        self.mux = tempfile.mkdtemp(prefix="utf8val-ssh-", dir="/tmp")
        os.makedirs(workdir, exist_ok=True)
        self.serial_log = open(os.path.join(workdir, "serial.log"), "ab")
        self.proc = None
        self.boots = 0      # the systems booted up to ssh (wait_ssh())
        self.ssh_log = os.path.join(self.mux, "ssh.log")
        self.unreachable = False    # a probe failed since the last answer
        self.disk = os.path.join(workdir, "disk.qcow2")
        subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw",
                        "-b", image, self.disk], check=True)
        self.vars = os.path.join(workdir, "vars.fd")
        net = ("user,id=n0,hostfwd=tcp:127.0.0.1:%d-:22" % self.port)
        if arch == "amd64":
            code = "OVMF_CODE_4M.secboot.fd"
            shutil.copy(os.path.join(OVMF, "OVMF_VARS_4M.ms.fd"), self.vars)
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
                # (pointer authentication by qemu's own hash: its
                # documentation's advice for speed; QARMA is slow emulated)
                "-cpu", "max,pauth-impdef=on",
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

    def reboot(self):
        """systemctl reboot, and wait until the machine is off (-no-reboot:
        the connection's drop is expected, run() need not explain it)."""
        self.run("systemctl reboot", timeout=30, explain=False)
        self.wait_off()

    def kill(self):
        """Power off at once (the machine can be started again)."""
        if self.proc is not None:
            self.proc.terminate(force=True)
            self.proc = None

    def close(self):
        """Power off for good, and end ssh's shared connections."""
        self.kill()
        for user in ("root", "user"):
            try:
                subprocess.run(self.ssh_options() + ["-O", "exit", "%s@127.0.0.1" % user],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               timeout=10)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(self.mux, ignore_errors=True)

    # commands over ssh

    def ssh_options(self, program="ssh"):
        """Every command of a user shares one connection while the
        machine is up: a new one costs the emulated machine more than a
        second of its CPU (the key exchange), a shared one a tenth.
        ssh's own words (its errors, a master's "not responding") go to
        a log of their own, never into a command's output; run() shows
        its end where a connection failed."""
        # (scp's output is never compared: its errors, and those of
        # the ssh it runs, on its stderr)
        said = (["-o", "LogLevel=ERROR"] if program == "scp" else
                ["-E", self.ssh_log, "-o", "LogLevel=INFO"])
        return [program] + said + self.connection_options(program) + [
            "-o", "ControlMaster=auto",
            "-o", "ControlPath=" + os.path.join(self.mux, "%r"),
            "-o", "ControlPersist=120"]

    def connection_options(self, program="ssh"):
        return ["-i", self.key,
                "-p" if program == "ssh" else "-P", str(self.port),
                "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null",
                "-o", "ConnectTimeout=10", "-o", "BatchMode=yes",
                "-o", "ServerAliveInterval=10",
                "-o", "ServerAliveCountMax=6"]

    def ssh_argv(self, user="root", tty=False):
        return self.ssh_options() + (["-tt"] if tty else []) + \
               ["%s@127.0.0.1" % user]

    def drain(self, seconds):
        """Read the serial console for SECONDS, into the log. Unread, its
        pty fills, qemu holds the guest's UART, and a guest writing to its
        console (the kernel, systemd at boot) stalls: so it is read while
        the test waits on the machine, ssh commands included."""
        end = time.time() + seconds
        while self.proc is not None and time.time() < end:
            try:
                self.proc.read_nonblocking(65536, timeout=max(0.0, end - time.time()))
            except pexpect.TIMEOUT:
                return
            except pexpect.EOF:
                break
        time.sleep(max(0.0, end - time.time()))

    def wait_for(self, p, timeout):
        """Wait for the host's process P, reading the console; kill it
        after TIMEOUT seconds. Returns whether it ended by itself."""
        end = time.time() + timeout
        try:
            while p.poll() is None and time.time() < end:
                self.drain(0.2)
            return p.poll() is not None
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()

    def run(self, command, user="root", timeout=900, stdin=None, explain=True):
        """Run a shell command; returns (status, stdout and stderr).
        With EXPLAIN, a command that ended with 255 (ssh's failure, or
        the command's own) says what ssh and the console said last and
        what one new connection meets: a stopped guest, a refusing sshd
        and a broken shared connection each end differently. (Not where
        a failure is expected: a reboot, the wait for a booting machine.)"""
        started = time.time()
        logged = self.ssh_log_size()
        with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as out:
            given.write(stdin or b"")
            given.seek(0)
            p = subprocess.Popen(self.ssh_argv(user) + [command], stdin=given,
                                 stdout=out, stderr=subprocess.STDOUT)
            timed_out = not self.wait_for(p, timeout)
            out.seek(0)
            text = out.read().decode(errors="replace")
        if self.proc is not None and not self.proc.isalive():
            text += ("\n" + self.serial_tail(1500) +
                     "\n(qemu has exited: the machine is off)\n")
        elif explain and not timed_out and p.returncode == 255:
            took = time.time() - started
            if self.unreachable:    # (each probe of a dead machine costs a minute)
                probe = "failed before, not tried again"
            else:
                probe = self.probe(user)
                self.unreachable = not probe.startswith("status 0 ")
            # (last what ssh saw: a failure's summary shows its last lines)
            text += ("\n(status 255, ssh's or the command's, after %d s; the console's end:)\n"
                     "%s\n(ssh said:)\n%s\n(a new connection: %s)\n"
                     % (took, self.serial_tail(1500), self.ssh_log_since(logged), probe))
        elif not timed_out and p.returncode != 255:
            self.unreachable = False
        if timed_out:
            return 124, text + "\n(timed out after %d s)" % timeout
        return p.returncode, text

    def probe(self, user):
        """One new connection, unshared, its words on stdout: its status,
        time and last word."""
        argv = (["ssh", "-o", "LogLevel=DEBUG1", "-o", "ControlMaster=no",
                 "-o", "ControlPath=none"] + self.connection_options() +
                ["%s@127.0.0.1" % user, "true"])
        started = time.time()
        with tempfile.TemporaryFile() as out:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=subprocess.STDOUT)
            ended = self.wait_for(p, 60)
            out.seek(0)
            said = out.read().decode(errors="replace").strip().splitlines()
        return "%s after %d s: %s" % ("status %d" % p.returncode if ended else "no end",
                                      time.time() - started,
                                      said[-1] if said else "nothing")

    def ssh_log_size(self):
        try:
            return os.path.getsize(self.ssh_log)
        except OSError:
            return 0

    def ssh_log_since(self, offset, lines=6):
        """The last LINES ssh logged since OFFSET (a master's words
        too, and any other client's meanwhile)."""
        try:
            with open(self.ssh_log, "rb") as f:
                f.seek(offset)
                said = f.read().decode(errors="replace").splitlines()
        except OSError:
            said = []
        return "\n".join(said[-lines:])

    def serial_tail(self, size=3000):
        """The end of the serial console's log: what the machine said last."""
        self.serial_log.flush()
        with open(self.serial_log.name, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - size))
            return f.read().decode(errors="replace")

    def wait_ssh(self, timeout=600):
        """Wait until the system is up and sshd answers (run() reads
        the serial console meanwhile)."""
        end = time.time() + timeout
        while time.time() < end:
            if self.proc is None or not self.proc.isalive():
                self.drain(1)  # (what qemu said last, into the log)
                return False
            status, _ = self.run("systemctl is-system-running --wait >/dev/null; true",
                                 timeout=max(1, min(120, end - time.time())),
                                 explain=False)
            if status == 0:
                self.boots += 1
                return True
            self.drain(max(0, min(5, end - time.time())))
        return False

    def copy_in(self, files, dest):
        argv = self.ssh_options("scp")
        with tempfile.TemporaryFile() as out:
            p = subprocess.Popen(argv + list(files) + ["root@127.0.0.1:" + dest],
                                 stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=subprocess.STDOUT)
            if not self.wait_for(p, 300) or p.returncode != 0:
                out.seek(0)
                raise RuntimeError("scp to %s failed (%s): %s"
                                   % (dest, p.returncode,
                                      out.read().decode(errors="replace")))
