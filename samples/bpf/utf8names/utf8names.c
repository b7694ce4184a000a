// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8names: load the utf8names BPF LSM policy (utf8names.bpf.c), which
 * refuses new file names that are not strict UTF-8 with EILSEQ, and print
 * each refusal until SIGINT or SIGTERM; then detach it, which restores
 * the old behaviour.
 *
 *   utf8names [--audit] [--mount DIR]
 *
 * --mount DIR limits it to the file system mounted at DIR (and so to each
 * of its mounts: bind mounts share it). The policy lives as long as this
 * process: SIGHUP and SIGPIPE are ignored, so that neither a closed
 * terminal nor a reader that went away ends it.
 *
 * One line per refusal on standard output, such as
 *   refused op=mkdir pid=42 uid=0 comm=sh name=caf\xc3 offset=3 len=1 error=incomplete
 * ("audited" in audit mode). Messages go to standard error; the exit
 * status is 0 after a signal, 1 when the policy cannot be loaded (no BPF
 * LSM, utf8val.ko or its kfuncs missing), 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "utf8val.h"
#include "utf8names.h"
#include "utf8names.skel.h"

/* the kernel's "operation not supported" (not user space's ENOTSUP) */
#define ENOTSUPP	524

static const char *const op_names[UTF8NAMES_NR_OPS] = {
	[UTF8NAMES_CREATE] = "create",
	[UTF8NAMES_MKNOD] = "mknod",
	[UTF8NAMES_MKDIR] = "mkdir",
	[UTF8NAMES_SYMLINK] = "symlink",
	[UTF8NAMES_LINK] = "link",
	[UTF8NAMES_RENAME] = "rename",
};

static volatile sig_atomic_t stop;
/* reports that could not be written to standard output */
static unsigned long long unwritten;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: utf8names [--audit] [--mount DIR]\n"
		"Refuse new file names that are not strict UTF-8 (RFC 3629) with EILSEQ,\n"
		"and print each refusal, until SIGINT or SIGTERM.\n"
		"  --audit      allow them, only print them (\"audited\")\n"
		"  --mount DIR  only names made on the file system mounted at DIR\n"
		"One line per refusal on standard output:\n"
		"  refused op=mkdir pid=42 uid=0 comm=sh name=caf\\xe9 offset=3 len=1 error=incomplete\n"
		"Needs root, utf8val.ko with its kfuncs and the BPF LSM (\"bpf\" in lsm=).\n"
		"Exit status: 0 after SIGINT or SIGTERM, 1 if the policy cannot be loaded,\n"
		"2 for a usage error or a DIR that is not a mount point.\n");
}

/* May this process load a BPF LSM program? Says why not, if not. */
static bool privileged(void)
{
	struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &head, data))
		return true;	/* let the kernel say */
	if ((data[CAP_MAC_ADMIN / 32].effective & (1u << (CAP_MAC_ADMIN % 32))) &&
	    ((data[CAP_BPF / 32].effective & (1u << (CAP_BPF % 32))) ||
	     (data[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32)))))
		return true;
	fprintf(stderr, "utf8names: needs root (CAP_MAC_ADMIN, and CAP_BPF or CAP_SYS_ADMIN)\n");
	return false;
}

/* Is "bpf" one of the active LSMs? Says why not, if not. */
static bool bpf_lsm_active(void)
{
	static const char lsm_path[] = "/sys/kernel/security/lsm";
	char list[512], names[512], *tok, *save;
	ssize_t n;
	int fd;

	fd = open(lsm_path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "utf8names: cannot read %s (%s): is securityfs mounted?\n",
			lsm_path, strerror(errno));
		fprintf(stderr, "utf8names: (mount -t securityfs none /sys/kernel/security)\n");
		return false;
	}
	n = read(fd, list, sizeof(list) - 1);
	close(fd);
	list[n > 0 ? n : 0] = '\0';
	list[strcspn(list, "\n")] = '\0';
	memcpy(names, list, sizeof(names));	/* strtok_r() cuts it up */
	for (tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, "bpf"))
			return true;
	fprintf(stderr,
		"utf8names: the BPF LSM is not active (active: %s): boot with lsm=%s%sbpf\n",
		list, list, *list ? "," : "");
	return false;
}

/* Are utf8val's kfuncs there? Says why not, if not. */
static bool kfuncs_present(void)
{
	if (!access("/sys/kernel/btf/utf8val", F_OK))
		return true;
	if (access("/sys/module/utf8val", F_OK)) {
		fprintf(stderr, "utf8names: utf8val.ko is not loaded\n");
		fprintf(stderr, "utf8names: (modprobe utf8val, or insmod utf8val.ko)\n");
	} else {
		fprintf(stderr, "utf8names: utf8val.ko has no BTF, so no kfuncs\n");
		fprintf(stderr, "utf8names: (UTF8VAL_BPF=n, or no module BTF in this kernel)\n");
	}
	return false;
}

/*
 * The device number of the file system mounted at DIR, as the kernel
 * keeps it (super_block.s_dev: major in the top 12 bits, minor in the low
 * 20). Not stat()'s st_dev, which on btrfs is the subvolume's: the
 * mount's line in /proc/self/mountinfo, found by its mount id.
 */
static bool fs_dev_of(const char *dir, __u32 *dev)
{
	unsigned int id, major, minor;
	struct statx stx;
	char line[4096];
	bool found = false;
	FILE *f;

	if (statx(AT_FDCWD, dir, 0, STATX_TYPE | STATX_MNT_ID, &stx)) {
		fprintf(stderr, "utf8names: %s: %s\n", dir, strerror(errno));
		return false;
	}
	if (!S_ISDIR(stx.stx_mode) || !(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    !(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) || !(stx.stx_mask & STATX_MNT_ID)) {
		fprintf(stderr, "utf8names: %s is not a mount point\n", dir);
		return false;
	}
	f = fopen("/proc/self/mountinfo", "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%u %*u %u:%u", &id, &major, &minor) == 3 &&
			id == stx.stx_mnt_id;
	if (f)
		fclose(f);
	if (!found) {
		fprintf(stderr, "utf8names: %s: mount %llu is not in /proc/self/mountinfo\n",
			dir, (unsigned long long)stx.stx_mnt_id);
		return false;
	}
	*dev = major << 20 | minor;
	return true;
}

/* printable ASCII as it is, every other byte (and \) as \xHH */
static void print_bytes(const unsigned char *s, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++) {
		if (s[i] > ' ' && s[i] < 0x7f && s[i] != '\\')
			putchar(s[i]);
		else
			printf("\\x%02x", s[i]);
	}
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct utf8names_event *e = data;
	const size_t head = offsetof(struct utf8names_event, name);

	(void)ctx;
	if (size < head || size < head + e->len || e->op >= UTF8NAMES_NR_OPS) {
		fprintf(stderr, "utf8names: a malformed record (%zu bytes)\n", size);
		return 0;
	}
	printf("%s op=%s%s pid=%u uid=%u comm=",
	       e->verdict ? "refused" : "audited", op_names[e->op],
	       e->target ? " target" : "", e->pid, e->uid);
	print_bytes((const unsigned char *)e->comm, strnlen(e->comm, sizeof(e->comm)));
	printf(" name=");
	print_bytes(e->name, e->len);
	printf(" offset=%llu len=%u error=%s\n", e->res.valid_up_to,
	       e->res.error_len, utf8val_error_name(e->res.error));
	if (fflush(stdout) || ferror(stdout)) {
		if (!unwritten++)
			fprintf(stderr, "utf8names: cannot write reports: %s\n", strerror(errno));
		clearerr(stdout);
	}
	return 0;
}

/* libbpf's messages: warnings and errors only, they explain failures */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static unsigned long long lost_events(struct utf8names_bpf *skel)
{
	int ncpus = libbpf_num_possible_cpus();
	unsigned long long sum = 0;
	__u64 *per_cpu;
	__u32 key = 0;
	int i;

	if (ncpus <= 0)
		return 0;
	per_cpu = calloc(ncpus, sizeof(*per_cpu));
	if (per_cpu &&
	    !bpf_map_lookup_elem(bpf_map__fd(skel->maps.lost), &key, per_cpu))
		for (i = 0; i < ncpus; i++)
			sum += per_cpu[i];
	free(per_cpu);
	return sum;
}

/* Says so when reports were lost since the last time. */
static void report_lost(struct utf8names_bpf *skel, unsigned long long *seen)
{
	unsigned long long now = lost_events(skel);

	if (now > *seen)
		fprintf(stderr, "utf8names: %llu reports lost so far (the ring buffer was full)\n",
			now);
	*seen = now;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "audit", no_argument, NULL, 'a' },
		{ "mount", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ring_buffer *rb = NULL;
	struct utf8names_bpf *skel;
	const char *mount = NULL;
	bool audit = false;
	unsigned long long lost = 0;
	int opt, err, status = 1;
	__u32 fs_dev = 0;

	while ((opt = getopt_long(argc, argv, "am:h", options, NULL)) != -1) {
		switch (opt) {
		case 'a':
			audit = true;
			break;
		case 'm':
			mount = optarg;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		print_usage(stderr);
		return 2;
	}
	if (mount && !fs_dev_of(mount, &fs_dev))
		return 2;
	if (!privileged() || !bpf_lsm_active() || !kfuncs_present())
		return 1;

	libbpf_set_print(libbpf_print);
	skel = utf8names_bpf__open();
	if (!skel) {
		fprintf(stderr, "utf8names: cannot open the BPF program: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->audit = audit;
	skel->rodata->one_fs = mount;
	skel->rodata->fs_dev = fs_dev;
	err = utf8names_bpf__load(skel);
	if (err) {
		fprintf(stderr, "utf8names: the kernel refused the BPF program: %s\n",
			strerror(-err));
		goto out_destroy;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, NULL, NULL);
	if (!rb) {
		fprintf(stderr, "utf8names: cannot map the ring buffer: %s\n", strerror(errno));
		goto out_destroy;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	err = utf8names_bpf__attach(skel);
	if (err == -ENOTSUPP) {
		fprintf(stderr, "utf8names: this kernel cannot attach BPF programs to LSM hooks\n");
		fprintf(stderr, "utf8names: (no BPF trampoline for this CPU: arm64 from 6.4)\n");
		goto out_free_rb;
	}
	if (err) {
		fprintf(stderr, "utf8names: cannot attach to the LSM hooks: %s\n", strerror(-err));
		goto out_free_rb;
	}
	fprintf(stderr, "utf8names: %s names not UTF-8 on %s%s; stop with SIGINT or SIGTERM\n",
		audit ? "reporting" : "refusing",
		mount ? "the file system of " : "every file system",
		mount ? mount : "");
	while (!stop) {
		err = ring_buffer__poll(rb, 200);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "utf8names: reading the ring buffer: %s\n", strerror(-err));
			goto out_free_rb;
		}
		report_lost(skel, &lost);
	}
	/* what arrived before the signal */
	ring_buffer__consume(rb);
	status = 0;
	report_lost(skel, &lost);
	if (lost || unwritten)
		fprintf(stderr, "utf8names: %llu reports not printed (the ring buffer was full)%s",
			lost, unwritten ? "" : "\n");
	if (unwritten)
		fprintf(stderr, ", %llu not written\n", unwritten);
out_free_rb:
	ring_buffer__free(rb);
out_destroy:
	utf8names_bpf__destroy(skel);
	if (!status)
		fprintf(stderr, "utf8names: detached\n");
	return status;
}
