// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8names: load the utf8names BPF LSM policy (utf8names.bpf.c), which
 * refuses new file names that are not strict UTF-8 with EILSEQ.
 *
 *   utf8names [--audit] [--mount DIR]... [--config FILE]
 *	the policy lives as long as this process, which prints each
 *	refusal until SIGINT or SIGTERM, then detaches it
 *   utf8names --pin [--follow] [--audit] [--mount DIR]... [--config FILE]
 *	the policy stays (pinned in /sys/fs/bpf/utf8names) after this
 *	process ends; --follow prints refusals meanwhile, as below
 *   utf8names --follow	print a pinned policy's refusals until a signal
 *   utf8names --status	what a pinned policy does, and its counts
 *   utf8names --reload [--audit] [--mount DIR]... [--config FILE]
 *	give the pinned policy these settings, in place: no gap
 *   utf8names --detach	end a pinned policy
 *
 * --mount DIR limits it to the file system mounted at DIR (and so to each
 * of its mounts: bind mounts share it); it may be given up to 64 times.
 * FILE holds "mode enforce" or "mode audit" and "mount DIR" lines.
 * SIGHUP and SIGPIPE are ignored, so that neither a closed terminal nor a
 * reader that went away ends it.
 *
 * One line per refusal on standard output, such as
 *   refused op=mkdir pid=42 uid=0 comm=sh name=caf\xc3 offset=3 len=1 error=incomplete
 * ("audited" in audit mode). Messages go to standard error, starting with
 * what the policy checks and what it cannot, ending with the refusals not
 * printed (the ring buffer was full) or not written (see emit()). The
 * exit status is 0 after a signal or a done --pin, --reload or --detach,
 * or --status of a whole policy (every link pinned, not detached); 1 when
 * the policy cannot be loaded (no BPF LSM, utf8val.ko or its kfuncs
 * missing), is pinned or followed already, is not whole (--status,
 * --reload) or another build's (--status, --reload, --follow: --pin
 * replaces it), or the caller is not root, when hooks still ran 5 s after
 * the stop (the counts may miss refusals), or --detach was interrupted;
 * 2 on a usage error (a bad configuration file too); 3 when --status,
 * --follow, --reload or --detach find no pinned policy.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <time.h>
#include <linux/capability.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
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
	[UTF8NAMES_SUBVOLUME] = "subvolume",
	[UTF8NAMES_SNAPSHOT] = "snapshot",
	[UTF8NAMES_REFLINK] = "reflink",
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* the most programs the object has (one link each) */
#define UTF8NAMES_MAX_PROGS	32

/* SIGINT or SIGTERM came: stop */
static volatile sig_atomic_t signalled;
/* taking the last reports, after a signal */
static bool draining;
/* reports that could not be written to standard output */
static unsigned long long unwritten;

/*
 * From the first SIGINT or SIGTERM on, SIGALRM every second: no write
 * (to a stuck reader, a tty, standard error) blocks longer while
 * stopping, since none of these handlers restarts what it interrupts.
 */
static void on_signal(int sig)
{
	if (sig != SIGALRM)
		signalled = 1;
	if (signalled)
		alarm(1);
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: utf8names [--pin [--follow]] [--audit] [--mount DIR]... [--config FILE]\n"
		"       utf8names --reload [--audit] [--mount DIR]... [--config FILE]\n"
		"       utf8names --follow | --status | --detach\n"
		"Refuse new file names that are not strict UTF-8 (RFC 3629) with EILSEQ,\n"
		"and print each refusal, until SIGINT or SIGTERM.\n"
		"  --audit        allow them, only print them (\"audited\")\n"
		"  --mount DIR    only names made on the file system mounted at DIR (repeatable)\n"
		"  --config FILE  \"mode enforce\" or \"mode audit\", and \"mount DIR\" lines\n"
		"  --pin          keep the policy after this process ends (/sys/fs/bpf/utf8names)\n"
		"  --follow       print the pinned policy's refusals until SIGINT or SIGTERM\n"
		"  --status       print what the pinned policy does, since when, and its counts\n"
		"  --reload       give the pinned policy these settings, with no gap\n"
		"  --detach       end the pinned policy\n"
		"One line per refusal on standard output:\n"
		"  refused op=mkdir pid=42 uid=0 comm=sh name=caf\\xe9 offset=3 len=1 error=incomplete\n"
		"Needs root, utf8val.ko with its kfuncs and the BPF LSM (\"bpf\" in lsm=).\n"
		"Exit status: 0 after SIGINT or SIGTERM, or a done --pin, --reload or --detach,\n"
		"or --status of a whole policy; 1 if the policy cannot be loaded, is pinned\n"
		"or followed already, or the caller is not root (--status, --follow,\n"
		"--reload, --detach), if the pinned policy is not whole (--status, --reload)\n"
		"or another build's (--status, --reload, --follow: --pin replaces it),\n"
		"if hooks still ran 5 s after a signal (the counts may miss refusals), or\n"
		"--detach was interrupted; 2 for a usage error or a DIR that is not a mount\n"
		"point; 3 if no policy is pinned (--follow, --status, --reload, --detach).\n");
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
 * mount's record in /proc/self/mountinfo, found by its mount id. The
 * record's first three fields are the kernel's numbers, before any text a
 * user chose; records are read whole, whatever their length.
 */
static bool fs_dev_of(const char *dir, __u32 *dev)
{
	unsigned int id, major, minor;
	struct statx stx;
	char *line = NULL;
	size_t size = 0;
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
	while (f && !found && getline(&line, &size, f) > 0)
		found = sscanf(line, "%u %*u %u:%u ", &id, &major, &minor) == 3 &&
			id == stx.stx_mnt_id;
	free(line);
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

/* one report: the name's and comm's bytes escaped take 4 characters each */
static char report[(UTF8NAMES_NAME_MAX + 16) * 4 + 256];
static size_t report_len;

static void add(const char *fmt, ...)
{
	size_t room = sizeof(report) - report_len;
	va_list args;
	int n;

	va_start(args, fmt);
	n = vsnprintf(report + report_len, room, fmt, args);
	va_end(args);
	if (n > 0)
		report_len += (size_t)n < room ? (size_t)n : room - 1;
}

/* printable ASCII as it is, every other byte (and \) as \xHH */
static void add_bytes(const unsigned char *s, unsigned int len)
{
	static const char hex[] = "0123456789abcdef";
	unsigned int i;

	for (i = 0; i < len && report_len + 4 < sizeof(report); i++) {
		if (s[i] > ' ' && s[i] < 0x7f && s[i] != '\\') {
			report[report_len++] = s[i];
			continue;
		}
		report[report_len++] = '\\';
		report[report_len++] = 'x';
		report[report_len++] = hex[s[i] >> 4];
		report[report_len++] = hex[s[i] & 15];
	}
}

/* seconds that the reports left get after a signal, all of them */
#define STOP_WRITE_SECONDS	5

static double seconds_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec + now.tv_nsec / 1e9;
}

/* Whether the reports' time is up; the first call after a signal starts it. */
static bool past_stop_deadline(void)
{
	static double deadline;

	if (!deadline)
		deadline = seconds_now() + STOP_WRITE_SECONDS;
	return seconds_now() >= deadline;
}

/*
 * Write one report whole, or count it as not written. Until a signal, as
 * a blocking write does: a slow reader slows the reports down (the ring
 * buffer counts those that overflow). A signal must neither lose the
 * report it interrupts nor wait on the reader for ever: the writes go on
 * (SIGALRM interrupts each one within a second) until STOP_WRITE_SECONDS
 * after the signal; what is left then is counted as not written. A
 * report cut short there has no newline: only whole lines are reports.
 */
static void emit(const char *s, size_t len)
{
	struct pollfd out = { .fd = STDOUT_FILENO, .events = POLLOUT };
	static bool cut;	/* a report was cut short: no line after it */
	const char *why = "a report before was cut short";
	bool some = false;
	ssize_t n;

	while (len && !cut) {
		if (signalled && past_stop_deadline()) {
			why = "the reader is too slow for the time left after the signal";
			break;
		}
		n = write(STDOUT_FILENO, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {	/* non-blocking, as inherited */
			poll(&out, 1, 1000);
			continue;
		}
		if (n <= 0) {
			why = n ? strerror(errno) : "it took nothing";
			break;
		}
		s += n;
		len -= n;
		some = true;
	}
	if (len && !unwritten++)
		fprintf(stderr, "utf8names: cannot write reports: %s\n", why);
	if (len && some)
		cut = true;
}

/* what a reader has done with the reports it took */
static unsigned long long printed;

static int on_event(void *ctx, void *data, size_t size)
{
	const struct utf8names_event *e = data;
	const size_t head = offsetof(struct utf8names_event, name);

	(void)ctx;
	printed++;
	if (size < head || size < head + e->len || e->op >= UTF8NAMES_NR_OPS) {
		fprintf(stderr, "utf8names: a malformed record (%zu bytes)\n", size);
		return 0;
	}
	report_len = 0;
	add("%s op=%s%s pid=%u uid=%u comm=", e->verdict ? "refused" : "audited",
	    op_names[e->op], e->target ? " target" : "", e->pid, e->uid);
	add_bytes((const unsigned char *)e->comm, strnlen(e->comm, sizeof(e->comm)));
	add(" name=");
	add_bytes(e->name, e->len);
	add(" offset=%llu len=%u error=%s\n", e->res.valid_up_to, e->res.error_len,
	    utf8val_error_name(e->res.error));
	emit(report, report_len);
	/*
	 * A signal: stop taking reports now (this one is taken), or a flood
	 * of them would keep ring_buffer__poll() from ever returning.
	 */
	return signalled && !draining ? -EINTR : 0;
}

/* libbpf's messages: warnings and errors only, they explain failures */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/*
 * The program's counter @which on each CPU, into @per_cpu (room for
 * libbpf_num_possible_cpus()); the number of CPUs, or -1 with errno set.
 */
static int per_cpu_counts(int counts_fd, __u32 which, __u64 *per_cpu)
{
	int ncpus = libbpf_num_possible_cpus();

	if (ncpus <= 0) {
		errno = -ncpus;
		return -1;
	}
	return bpf_map_lookup_elem(counts_fd, &which, per_cpu) ? -1 : ncpus;
}

/* The program's counter @which, summed over the CPUs (0 if unreadable). */
static unsigned long long counter(int counts_fd, __u32 which)
{
	int ncpus = libbpf_num_possible_cpus(), i;
	unsigned long long sum = 0;
	__u64 *per_cpu;

	per_cpu = ncpus > 0 ? calloc(ncpus, sizeof(*per_cpu)) : NULL;
	ncpus = per_cpu ? per_cpu_counts(counts_fd, which, per_cpu) : -1;
	for (i = 0; i < ncpus; i++)
		sum += per_cpu[i];
	free(per_cpu);
	return sum;
}

/* Says so when reports were lost since the last time. */
static void report_lost(int counts_fd, unsigned long long *seen)
{
	unsigned long long now = counter(counts_fd, UTF8NAMES_LOST);

	if (now > *seen)
		fprintf(stderr, "utf8names: %llu reports lost so far (the ring buffer was full)\n",
			now);
	*seen = now;
}

/*
 * Take every report still in the ring buffer of a program this process
 * loaded, once it refuses nothing more: each refusal was counted before
 * its report was sent, so all are in when the reports taken and the ones
 * lost add up to the refusals, and the count has stayed still for 10 ms;
 * a second at most.
 */
static void drain(struct ring_buffer *rb, int counts_fd)
{
	unsigned long long last = ~0ull;
	int i;

	draining = true;	/* take them all now */
	for (i = 0; i < 100; i++) {
		unsigned long long reported = counter(counts_fd, UTF8NAMES_REPORTED);

		ring_buffer__consume(rb);
		if (printed + counter(counts_fd, UTF8NAMES_LOST) >= reported &&
		    reported == last)
			return;
		last = reported;
		usleep(10000);
	}
}

static void summary(unsigned long long not_printed)
{
	if (not_printed || unwritten)
		fprintf(stderr, "utf8names: %llu reports not printed (the ring buffer was full)%s",
			not_printed, unwritten ? "" : "\n");
	if (unwritten)
		fprintf(stderr, ", %llu not written\n", unwritten);
}

/* @fd's map's description; 0, or -1 (errno) */
static int map_info(int fd, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return bpf_obj_get_info_by_fd(fd, info, &len);
}

/*
 * Set or clear the detached flag of the policy whose state map is @fd,
 * whichever version of utf8names pinned it: the flag is the state's first
 * byte in each. One byte stored through the map's mapping, so that the
 * counts the programs keep beside it are not written back stale. 0, or
 * -1 (errno).
 */
static int set_detached(int fd, bool on)
{
	struct bpf_map_info info;
	unsigned char *value;
	__u32 key = 0;
	size_t size;
	int ret = -1;

	if (map_info(fd, &info))
		return -1;
	if (!info.value_size || info.max_entries != 1) {
		errno = EINVAL;
		return -1;
	}
	size = info.value_size;
	if (info.map_flags & BPF_F_MMAPABLE) {
		value = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (value == MAP_FAILED)
			return -1;
		__atomic_store_n(value, on, __ATOMIC_SEQ_CST);
		munmap(value, size);
		return 0;
	}
	/* (a state map without a mapping: no count beside the flag) */
	value = calloc(1, size);
	if (value && !bpf_map_lookup_elem(fd, &key, value)) {
		value[0] = on;
		ret = bpf_map_update_elem(fd, &key, value, BPF_ANY);
	}
	free(value);
	return ret;
}

/*
 * End the programs: set their detached flag in their state map
 * @state_fd, then wait until none that read it before is still running.
 * From then on they refuse nothing, though still attached: unlinking
 * them would not do, a CPU already in the old trampoline may run a
 * program after any grace period user space can wait for.
 *
 * Each hook counts itself in flight on its CPU, from before it reads the
 * flag until its refusal is counted (utf8names.bpf.c, in_flight()), with
 * no migration in between. A CPU's count seen 0 once after the flag was
 * set is enough: a hook that comes later reads the flag set (the fences
 * on both sides). Waits up to @seconds; if 0, until a signal, saying so
 * every 5 s, and a signal then sets the flag back: the policy goes on as
 * it was. 0, or -1 with errno set (ETIMEDOUT: hooks still run; EINTR).
 */
static int end_programs(int state_fd, int counts_fd, int seconds)
{
	int ncpus = libbpf_num_possible_cpus(), waiting = ncpus, i;
	double start = seconds_now(), said = start;
	struct bpf_map_info counts_info;
	__u64 *per_cpu = NULL;
	bool *seen = NULL;
	int ret = -1;

	if (ncpus <= 0) {
		errno = -ncpus;
		return -1;
	}
	/* (another version's policy: its counts as this one keeps them) */
	if (map_info(counts_fd, &counts_info))
		return -1;
	if (counts_info.value_size != sizeof(*per_cpu)) {
		errno = EPROTO;
		return -1;
	}
	per_cpu = calloc(ncpus, sizeof(*per_cpu));
	seen = calloc(ncpus, sizeof(*seen));
	if (!per_cpu || !seen)
		goto out;
	if (set_detached(state_fd, true))
		goto out;
	/* the flag set before the counts are read, as the programs do it */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (;;) {
		if (per_cpu_counts(counts_fd, UTF8NAMES_INFLIGHT, per_cpu) < 0) {
			/* pinned by a utf8names that kept no such count */
			if (errno == ENOENT && waiting == ncpus)
				break;
			goto out;
		}
		for (i = 0; i < ncpus; i++) {
			if (!seen[i] && !per_cpu[i]) {
				seen[i] = true;
				waiting--;
			}
		}
		if (!waiting)
			break;
		if (seconds && seconds_now() - start >= seconds) {
			errno = ETIMEDOUT;
			goto out;
		}
		if (!seconds && signalled) {
			if (set_detached(state_fd, false))
				fprintf(stderr,
					"utf8names: interrupted, and the policy could not be set going again: %s\n",
					strerror(errno));
			errno = EINTR;
			goto out;
		}
		if (seconds_now() - said >= 5) {
			said = seconds_now();
			fprintf(stderr, "utf8names: waiting for hooks still running on %d CPUs\n",
				waiting);
		}
		usleep(1000);
	}
	/* and read before the counts that follow */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ret = 0;
out:
	free(per_cpu);
	free(seen);
	return ret;
}

/*
 * Under systemd (Type=notify), say that the policy is in force and its
 * refusals are read: units ordered after this one, user logins among them,
 * start only then. The protocol is one datagram; no libsystemd needed.
 */
static void notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(addr.sun_path))
		return;
	memcpy(addr.sun_path, path, len);
	if (path[0] == '@')	/* an abstract socket's name */
		addr.sun_path[0] = 0;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, "READY=1", 7, 0, (struct sockaddr *)&addr,
		   offsetof(struct sockaddr_un, sun_path) + len) < 0)
		fprintf(stderr, "utf8names: cannot tell systemd it is ready: %s\n",
			strerror(errno));
	close(fd);
}

/*
 * Print reports from @events_fd until a signal; 0, or 1 on an error.
 * With @skel and its @links (a policy this process loaded and did not
 * pin), end it then, and account for every refusal it made.
 */
static int follow(int events_fd, int counts_fd, struct utf8names_bpf *skel,
		  struct bpf_link **links, int nr_links)
{
	unsigned long long lost = counter(counts_fd, UTF8NAMES_LOST), lost0 = lost;
	struct ring_buffer *rb;
	int err, i, status = 0;

	rb = ring_buffer__new(events_fd, on_event, NULL, NULL);
	if (!rb) {
		fprintf(stderr, "utf8names: cannot map the ring buffer: %s\n", strerror(errno));
		return 1;
	}
	notify_ready();
	while (!signalled) {
		err = ring_buffer__poll(rb, 200);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "utf8names: reading the ring buffer: %s\n", strerror(-err));
			ring_buffer__free(rb);
			return 1;
		}
		report_lost(counts_fd, &lost);
	}
	past_stop_deadline();	/* the reports' time starts now */
	if (skel) {
		unsigned long long reported;

		if (end_programs(bpf_map__fd(skel->maps.bss), counts_fd, 5)) {
			fprintf(stderr, "utf8names: stopping the policy: %s: %s\n",
				errno == ETIMEDOUT ? "hooks still ran after 5 s" : strerror(errno),
				"the counts may miss refusals");
			status = 1;
		}
		drain(rb, counts_fd);
		reported = counter(counts_fd, UTF8NAMES_REPORTED);
		summary(reported > printed ? reported - printed : 0);
		for (i = 0; i < nr_links; i++) {
			bpf_link__destroy(links[i]);
			links[i] = NULL;
		}
	} else {
		draining = true;
		ring_buffer__consume(rb);	/* what came before the signal */
		summary(counter(counts_fd, UTF8NAMES_LOST) - lost0);
	}
	ring_buffer__free(rb);
	return status;
}

/* --- loading ------------------------------------------------------------ */

struct settings {
	bool audit;
	const char *mounts[UTF8NAMES_MOUNTS_MAX];
	__u32 devs[UTF8NAMES_MOUNTS_MAX];
	int nr_mounts;
};

/* The hooks a kernel may lack (32-bit callers then come through file_ioctl) */
static const char *const optional[][2] = {
	{ "utf8names_file_ioctl_compat", "bpf_lsm_file_ioctl_compat" },
};

/*
 * The kernel functions of the policy's tracing programs (utf8names.bpf.c,
 * "the kernel's copies"), by the names kernels give them (6.18 renamed
 * one; the system calls' have their CPU's prefix): each program attaches
 * to the first this kernel has. Without the function that shows a copy,
 * the ioctls that make names with it are refused (@blind); without the
 * end of the ioctl system call, what an ioctl armed ends at the task's
 * next ioctl.
 */
static const struct {
	const char *prog, *funcs[3];
	const char *blind;	/* what is refused without it */
} copies[] = {
	{ "utf8names_path_created", { "filename_create" },
	  "ocfs2 reflinks and bcachefs subvolumes" },
	{ "utf8names_looked_up", { "start_creating_killable", "lookup_one" },
	  "btrfs subvolumes and snapshots" },
	{ "utf8names_ioctl_done", { "__x64_sys_ioctl", "__arm64_sys_ioctl" } },
	{ "utf8names_ioctl_compat_done",
	  { "__ia32_compat_sys_ioctl", "__arm64_compat_sys_ioctl" } },
};

/* Is @func (a BPF LSM hook's attach point) in the kernel's BTF @vmlinux? */
static bool kernel_has(const struct btf *vmlinux, const char *func)
{
	return vmlinux && btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC) > 0;
}

/*
 * Give the policy behind @settings_fd and @guarded_fd the settings @s,
 * leaving no moment in which it checks less than both the old and the
 * new: the new file systems are guarded first, those no longer guarded
 * let go last. 0, or 1 having said why.
 */
static int apply(const struct settings *s, int settings_fd, int guarded_fd)
{
	struct utf8names_settings now = { .audit = s->audit, .some_fs = s->nr_mounts > 0 };
	__u32 key = 0, dev, next;
	bool wanted;
	int i, n = 0;
	__u8 one = 1;

	for (i = 0; i < s->nr_mounts; i++)
		if (bpf_map_update_elem(guarded_fd, &s->devs[i], &one, BPF_ANY)) {
			fprintf(stderr, "utf8names: cannot guard %s: %s\n", s->mounts[i],
				strerror(errno));
			return 1;
		}
	if (bpf_map_update_elem(settings_fd, &key, &now, BPF_ANY)) {
		fprintf(stderr, "utf8names: cannot change the policy's settings: %s%s\n",
			strerror(errno), errno == EPERM ?
			" (pinned by an older utf8names: detach it and pin it again)" : "");
		return 1;
	}
	/* (deleting the key in hand: start the walk again after each) */
	while (!bpf_map_get_next_key(guarded_fd, n ? &dev : NULL, &next)) {
		dev = next;
		n++;
		for (wanted = false, i = 0; i < s->nr_mounts; i++)
			wanted |= s->devs[i] == dev;
		if (!wanted && !bpf_map_delete_elem(guarded_fd, &dev))
			n = 0;
	}
	return 0;
}

/*
 * This build's BPF object, hashed (FNV-1a): the identity of the policies
 * it loads. One pinned by another build (before an upgrade, or after a
 * downgrade) may lay out its maps otherwise: it is replaced, never read.
 */
static __u64 object_id(void)
{
	static __u64 id;
	const unsigned char *p;
	size_t len, i;

	if (id)
		return id;
	p = utf8names_bpf__elf_bytes(&len);
	id = 0xcbf29ce484222325ULL;
	for (i = 0; i < len; i++)
		id = (id ^ p[i]) * 0x100000001b3ULL;
	return id;
}

/* the object id ends the state: the guest tests change it there */
static_assert(offsetof(struct utf8names_bpf__bss, object_id) + sizeof(__u64) ==
	      sizeof(struct utf8names_bpf__bss), "object_id last");
/* the in-flight count where every version keeps it (utf8names.h) */
static_assert(UTF8NAMES_INFLIGHT == 2, "counts in their order");

/* Open and load the program with @s, leaving out a hook the kernel lacks. */
static struct utf8names_bpf *load(const struct settings *s)
{
	struct utf8names_bpf *skel;
	struct bpf_program *prog;
	struct btf *vmlinux;
	unsigned int i;
	int err;

	skel = utf8names_bpf__open();
	if (!skel) {
		fprintf(stderr, "utf8names: cannot open the BPF program: %s\n", strerror(errno));
		return NULL;
	}
	skel->bss->object_id = object_id();
	/* the kernel's BTF, parsed once for every lookup below: megabytes */
	vmlinux = btf__load_vmlinux_btf();
	for (i = 0; i < ARRAY_SIZE(optional); i++) {
		prog = bpf_object__find_program_by_name(skel->obj, optional[i][0]);
		if (prog && !kernel_has(vmlinux, optional[i][1]))
			bpf_program__set_autoload(prog, false);
	}
	for (i = 0; i < ARRAY_SIZE(copies); i++) {
		const char *func = NULL;
		unsigned int f;

		for (f = 0; !func && f < ARRAY_SIZE(copies[i].funcs) && copies[i].funcs[f]; f++)
			if (kernel_has(vmlinux, copies[i].funcs[f]))
				func = copies[i].funcs[f];
		prog = bpf_object__find_program_by_name(skel->obj, copies[i].prog);
		if (func) {
			bpf_program__set_attach_target(prog, 0, func);
			continue;
		}
		bpf_program__set_autoload(prog, false);
		if (prog == skel->progs.utf8names_path_created)
			skel->rodata->path_blind = true;
		if (prog == skel->progs.utf8names_looked_up)
			skel->rodata->lookup_blind = true;
		if (copies[i].blind)
			fprintf(stderr,
				"utf8names: this kernel has no %s(): %s are refused (EPERM)\n",
				copies[i].funcs[0], copies[i].blind);
	}
	btf__free(vmlinux);
	err = utf8names_bpf__load(skel);
	if (err) {
		fprintf(stderr, "utf8names: the kernel refused the BPF program: %s\n",
			strerror(-err));
		goto fail;
	}
	if (apply(s, bpf_map__fd(skel->maps.settings), bpf_map__fd(skel->maps.guarded)))
		goto fail;
	return skel;
fail:
	utf8names_bpf__destroy(skel);
	return NULL;
}

/* Attach every loaded program; its links in @links. 0 or the error. */
static int attach(struct utf8names_bpf *skel, struct bpf_link **links, int *nr)
{
	struct bpf_program *prog;
	int err;

	*nr = 0;
	bpf_object__for_each_program(prog, skel->obj) {
		if (!bpf_program__autoload(prog))
			continue;
		links[*nr] = bpf_program__attach(prog);
		err = libbpf_get_error(links[*nr]);
		if (err) {
			links[*nr] = NULL;
			return err;
		}
		(*nr)++;
	}
	skel->bss->nr_links = *nr;	/* what --status counts the pins of */
	return 0;
}

/*
 * What the policy checks, and what it cannot: Documentation/utf8val.rst
 * has the same list, word for word.
 */
static const char coverage[] =
	"checks: every new name made by open(O_CREAT), creat(), mknod(), bind() of a unix\n"
	"  socket, mkdir(), symlink() (its name and target), link(), rename() and\n"
	"  mq_open(), by any process or kernel thread (nfsd and ksmbd are refused with\n"
	"  EACCES), through io_uring or overlayfs (into its upper layer); btrfs\n"
	"  subvolumes and snapshots, ocfs2 reflinks and bcachefs subvolumes, judged on\n"
	"  the kernel's own copy of the name\n"
	"does not check:\n"
	"  - names that exist already: made before the policy, renamed over or\n"
	"    exchanged, on a disk mounted later, or served by a FUSE or network file\n"
	"    system's server\n"
	"  - names the kernel makes without the VFS, some of which root in a user\n"
	"    namespace chooses: network interfaces (in sysfs and /proc/sys/net),\n"
	"    binderfs devices, binfmt_misc entries, xt_recent and hashlimit tables\n"
	"    (/proc/net), debugfs and tracefs entries; and memfd_create() names, which\n"
	"    are in no directory\n"
	"  - spu_create() on PowerPC Cell, which asks for no permission to refuse at\n"
	"  - a file system mounted again under --mount: it is known by its device\n"
	"    number, which a new mount may get\n"
	"reports wrongly: open(O_CREAT) of an existing file not in the dentry cache\n"
	"  with an invalid name is reported (refused, or audited), and opens; a task\n"
	"  the kernel cannot give its storage has every new name refused (ENOMEM)\n";

static void print_coverage(void)
{
	const char *line = coverage, *end;

	for (; *line; line = end + 1) {
		end = strchr(line, '\n');
		fprintf(stderr, "utf8names: %.*s\n", (int)(end - line), line);
	}
}

/* --- pinning ------------------------------------------------------------ */

#define PIN_DIR		"/sys/fs/bpf/utf8names"

static const char *const pinned_maps[] = { "events", "counts", "guarded", "settings", "state" };

static int map_fd_by_name(struct utf8names_bpf *skel, const char *name)
{
	if (!strcmp(name, "events"))
		return bpf_map__fd(skel->maps.events);
	if (!strcmp(name, "counts"))
		return bpf_map__fd(skel->maps.counts);
	if (!strcmp(name, "guarded"))
		return bpf_map__fd(skel->maps.guarded);
	if (!strcmp(name, "state"))
		return bpf_map__fd(skel->maps.bss);
	return bpf_map__fd(skel->maps.settings);
}

/* Remove @name in @dirfd and all under it, following no symlink. */
static void remove_tree(int dirfd, const char *name, int depth)
{
	struct dirent *ent;
	DIR *d;
	int fd;

	if (!unlinkat(dirfd, name, 0) || errno == ENOENT || depth > 64)
		return;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	while (d && (ent = readdir(d)))
		if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, ".."))
			remove_tree(fd, ent->d_name, depth + 1);
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

/*
 * Whether PIN_DIR is a folder root made and no one else can change: a
 * bpffs mounted without mode=0700 (busybox, OpenRC, many containers; not
 * systemd) lets every user make the name first.
 */
static bool roots_alone(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && !st->st_uid && !(st->st_mode & 077);
}

/*
 * The commands that change what is pinned (--pin, --reload, --detach) take
 * turns: a lock in /run, where no user can make or hold the file. Held
 * until the change is made (unlock_pins()) or the process ends; 0, or 1
 * having said why not.
 */
#define PIN_LOCK	"/run/utf8names.lock"

static int pins_lock = -1;

static int lock_pins(void)
{
	mkdir("/run", 0755);	/* (a bare initramfs may have none) */
	pins_lock = open(PIN_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (pins_lock < 0 || flock(pins_lock, LOCK_EX)) {
		fprintf(stderr, "utf8names: %s: %s\n", PIN_LOCK, strerror(errno));
		return 1;
	}
	return 0;
}

/* --pin --follow: a --detach or --reload must not wait for the follower */
static void unlock_pins(void)
{
	if (pins_lock >= 0)
		close(pins_lock);
	pins_lock = -1;
}

static int end_pinned_in(const char *dir);

/*
 * What was at PIN_DIR before this policy, now at @dir: a policy not
 * whole (ended), or what a user made (removed).
 */
static void clear_away(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st))
		return;
	if (roots_alone(&st)) {
		end_pinned_in(dir);
		return;
	}
	fprintf(stderr,
		"utf8names: removed %s, which uid %u made, not utf8names (every user may write in /sys/fs/bpf: mount it with mode=0700)\n",
		PIN_DIR, (unsigned int)st.st_uid);
	remove_tree(AT_FDCWD, dir, 0);
}

/*
 * Policies a --pin killed before it moved them into place: ended. (Under
 * the lock: no other --pin is half way. What a user made is theirs.)
 */
static void sweep_leftovers(void)
{
	DIR *d = opendir("/sys/fs/bpf");
	char path[PATH_MAX];
	struct dirent *ent;
	struct stat st;

	while (d && (ent = readdir(d))) {
		if (strncmp(ent->d_name, "utf8names-new-", 14))
			continue;
		snprintf(path, sizeof(path), "/sys/fs/bpf/%s", ent->d_name);
		if (!lstat(path, &st) && roots_alone(&st))
			end_pinned_in(path);
	}
	if (d)
		closedir(d);
}

/*
 * Pin the links and the maps in a folder of this process's own, then
 * move it into place at PIN_DIR: if something is there (a policy that is
 * not whole, or a folder a user made first on a bpffs every user may
 * write in), the two are exchanged, and what was there ended or removed.
 * The new policy enforces all the while: no gap. 0, or 1 with nothing
 * pinned.
 */
static int pin(struct utf8names_bpf *skel, struct bpf_link **links, int nr)
{
	/* (bpffs takes no dot in a name) */
	char tmp[] = "/sys/fs/bpf/utf8names-new-XXXXXX", path[PATH_MAX];
	unsigned int i;
	int n, tries;

	sweep_leftovers();
	if (!mkdtemp(tmp)) {	/* (mode 0700) */
		fprintf(stderr,
			"utf8names: cannot make %s: %s (is bpffs mounted on /sys/fs/bpf?)\n",
			tmp, strerror(errno));
		return 1;
	}
	/* the maps first: a pinned link is a policy --detach must find */
	for (i = 0; i < ARRAY_SIZE(pinned_maps); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, pinned_maps[i]);
		if (bpf_obj_pin(map_fd_by_name(skel, pinned_maps[i]), path))
			goto fail;
	}
	for (n = 0; n < nr; n++) {
		snprintf(path, sizeof(path), "%s/link-%d", tmp, n);
		if (bpf_link__pin(links[n], path))
			goto fail;
	}
	snprintf(path, sizeof(path), "%s", PIN_DIR);
	for (tries = 0; tries < 10; tries++) {
		if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, PIN_DIR, RENAME_NOREPLACE))
			return 0;
		if (errno != EEXIST)
			goto fail;
		if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, PIN_DIR, RENAME_EXCHANGE)) {
			clear_away(tmp);
			return 0;
		}
		if (errno != ENOENT)	/* (gone in between: try again) */
			goto fail;
	}
fail:
	fprintf(stderr, "utf8names: %s: %s\n", path, strerror(errno));
	remove_tree(AT_FDCWD, tmp, 0);
	return 1;
}

/*
 * Whether a policy is pinned: 1, 0 (said why, exit 3), or -1 (said why,
 * exit 1: not root).
 */
static int pin_state(void)
{
	struct stat st;

	if (lstat(PIN_DIR, &st)) {
		if (errno == EACCES || errno == EPERM) {
			fprintf(stderr, "utf8names: %s: %s (needs root)\n", PIN_DIR,
				strerror(errno));
			return -1;
		}
		fprintf(stderr, "utf8names: no policy is pinned (%s: %s)\n", PIN_DIR,
			strerror(errno));
		return 0;
	}
	if (!roots_alone(&st)) {
		fprintf(stderr,
			"utf8names: no policy is pinned: %s is uid %u's, mode %o, not utf8names' (--pin removes it)\n",
			PIN_DIR, (unsigned int)st.st_uid, (unsigned int)st.st_mode & 07777);
		return 0;
	}
	return 1;
}

static int pinned_fd_in(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return bpf_obj_get(path);
}

static int pinned_fd(const char *name)
{
	return pinned_fd_in(PIN_DIR, name);
}

/*
 * The pinned policy's state, if this build of utf8names pinned it: 1 (in
 * @state); 0 if another build did (its maps may be laid out otherwise:
 * nothing more of them is read); -1 if it has none (errno).
 */
static int own_pinned_state(struct utf8names_bpf__bss *state)
{
	int fd = pinned_fd("state"), own = -1;
	struct bpf_map_info info;
	__u32 key = 0;

	if (fd < 0)
		return -1;
	if (!map_info(fd, &info)) {
		own = 0;
		if (info.value_size == sizeof(*state) && info.max_entries == 1)
			own = bpf_map_lookup_elem(fd, &key, state) ? -1 :
			      state->object_id == object_id();
	}
	close(fd);
	return own;
}

/*
 * Whether the pinned policy is this build's and whole: its state pinned
 * and not detached, and each of its links pinned. Says why not, if @say:
 * --pin replaces such a policy.
 */
static bool pinned_whole(bool say)
{
	struct utf8names_bpf__bss state = { 0 };
	int own = own_pinned_state(&state), fd;
	const char *why = NULL;
	char name[32];
	__u32 n;

	if (own < 0)
		why = "is not whole: it lacks its state (a --pin was interrupted)";
	else if (!own)
		why = "was pinned by another build of utf8names (an upgrade): its maps go unread";
	else if (state.detached)
		why = "is not whole: it is detached (a --detach was interrupted)";
	for (n = 0; !why && n < state.nr_links; n++) {
		snprintf(name, sizeof(name), "link-%u", n);
		fd = pinned_fd(name);
		if (fd < 0)
			why = "is not whole: it lacks some of its links (a --pin was interrupted)";
		else
			close(fd);
	}
	if (why && say)
		fprintf(stderr, "utf8names: the policy in %s %s; utf8names --pin replaces it\n",
			PIN_DIR, why);
	return !why;
}

/* The mount points of the file system @dev, from mountinfo, or "?" */
static void print_mounts_of(__u32 dev)
{
	unsigned int major, minor;
	char *line = NULL, point[PATH_MAX];
	size_t size = 0;
	int shown = 0;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	while (f && getline(&line, &size, f) > 0)
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &major, &minor, point) == 3 &&
		    (major << 20 | minor) == dev)
			printf("%s%s", shown++ ? "," : "", point);
	if (!shown)
		printf("?");
	free(line);
	if (f)
		fclose(f);
}

/* --status: what a pinned policy does; 0, or 3 if none is pinned. */
static int status(void)
{
	struct utf8names_bpf__bss state = { 0 };
	int settings, counts, guarded, n = 0, ret = 1;
	struct utf8names_settings ro;
	__u32 key = 0, next;
	struct stat st;
	char since[64];

	int is = pin_state();

	if (is <= 0)
		return is ? 1 : 3;
	if (own_pinned_state(&state) != 1) {
		pinned_whole(true);	/* (says why not) */
		return 1;
	}
	settings = pinned_fd("settings");
	counts = pinned_fd("counts");
	guarded = pinned_fd("guarded");
	if (settings < 0 || counts < 0 || guarded < 0 || stat(PIN_DIR, &st)) {
		fprintf(stderr, "utf8names: %s: %s\n", PIN_DIR, strerror(errno));
		goto out;
	}
	if (bpf_map_lookup_elem(settings, &key, &ro)) {
		fprintf(stderr, "utf8names: cannot read %s/settings: %s\n", PIN_DIR,
			strerror(errno));
		goto out;
	}
	strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%SZ", gmtime(&st.st_mtime));
	printf("mode=%s since=%s mounts=", ro.audit ? "audit" : "enforce", since);
	if (!ro.some_fs)
		printf("all");
	while (ro.some_fs && !bpf_map_get_next_key(guarded, n ? &key : NULL, &next)) {
		if (n++)
			printf(";");
		printf("%u:%u=", next >> 20, next & 0xfffff);
		print_mounts_of(next);
		key = next;
	}
	printf(" %s=%llu lost=%llu%s\n", ro.audit ? "audited" : "refused",
	       counter(counts, UTF8NAMES_REPORTED), counter(counts, UTF8NAMES_LOST),
	       state.detached ? " detached" : "");
	if (ro.some_fs && !n)
		fprintf(stderr, "utf8names: the pinned policy guards no file system\n");
	else
		ret = pinned_whole(true) ? 0 : 1;
out:
	if (settings >= 0)
		close(settings);
	if (counts >= 0)
		close(counts);
	if (guarded >= 0)
		close(guarded);
	return ret;
}

/*
 * End the policy pinned in @dir and remove it; 0, or 1 having said why
 * not. The kernel frees a link whose pin is removed a little later, so
 * the programs are told first (detached, in their state map): the policy
 * ends as this returns.
 */
static int end_pinned_in(const char *dir)
{
	int state, counts, ended;

	/* (a pin interrupted before its state was pinned has no links) */
	state = pinned_fd_in(dir, "state");
	if (state < 0 && errno != ENOENT) {
		fprintf(stderr, "utf8names: %s/state: %s\n", dir, strerror(errno));
		return 1;
	}
	if (state >= 0) {
		counts = pinned_fd_in(dir, "counts");
		ended = counts >= 0 ? end_programs(state, counts, 0) : -1;
		if (ended)
			fprintf(stderr, "utf8names: %s: not detached, the policy still enforces\n",
				errno == EINTR ? "interrupted while hooks still ran" :
				strerror(errno));
		if (counts >= 0)
			close(counts);
		close(state);
		if (ended)
			return 1;
	}
	remove_tree(AT_FDCWD, dir, 0);
	if (!access(dir, F_OK)) {
		fprintf(stderr, "utf8names: stopped, but cannot remove %s: %s\n", dir,
			strerror(errno));
		return 1;
	}
	return 0;
}

/* --detach: end the pinned policy; 0, or 3 if none is pinned. */
static int detach(void)
{
	int is;

	if (lock_pins())
		return 1;
	sweep_leftovers();
	is = pin_state();
	if (is <= 0)
		return is ? 1 : 3;
	if (end_pinned_in(PIN_DIR))
		return 1;
	fprintf(stderr, "utf8names: detached\n");
	return 0;
}

/*
 * The ring buffer has one read position: two readers would each print
 * some of the reports. The one that follows holds a lock on PIN_DIR.
 */
static int take_reader(void)
{
	int fd = open(PIN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr, "utf8names: %s\n", fd < 0 ? strerror(errno) :
			"another utf8names follows the pinned policy already");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	return 0;	/* (held until this process ends) */
}

/* --follow: print a pinned policy's reports until a signal. */
static int follow_pinned(void)
{
	struct utf8names_bpf__bss state;
	int is = pin_state(), events, counts;

	if (is <= 0)
		return is ? 1 : 3;
	if (own_pinned_state(&state) != 1) {
		pinned_whole(true);	/* (says why not) */
		return 1;
	}
	if (take_reader())
		return 1;
	events = pinned_fd("events");
	counts = pinned_fd("counts");
	if (events < 0 || counts < 0) {
		fprintf(stderr, "utf8names: %s: %s\n", PIN_DIR, strerror(errno));
		return 1;
	}
	fprintf(stderr,
		"utf8names: following the pinned policy; stop with SIGINT or SIGTERM\n");
	return follow(events, counts, NULL, NULL, 0);
}

/* "utf8names: refusing names not UTF-8 on ...; @until" */
static void print_enforcing(const struct settings *s, const char *until)
{
	int i;

	fprintf(stderr, "utf8names: %s names not UTF-8 on %s",
		s->audit ? "reporting" : "refusing",
		!s->nr_mounts ? "every file system" :
		s->nr_mounts == 1 ? "the file system of " : "the file systems of ");
	for (i = 0; i < s->nr_mounts; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", s->mounts[i]);
	fprintf(stderr, "; %s\n", until);
}

/* --- settings ----------------------------------------------------------- */

static bool add_mount(struct settings *s, const char *dir)
{
	if (s->nr_mounts == UTF8NAMES_MOUNTS_MAX) {
		fprintf(stderr, "utf8names: at most %d mounts\n", UTF8NAMES_MOUNTS_MAX);
		return false;
	}
	s->mounts[s->nr_mounts] = dir;
	if (!fs_dev_of(dir, &s->devs[s->nr_mounts]))
		return false;
	s->nr_mounts++;
	return true;
}

/*
 * --config FILE: lines "mode enforce" or "mode audit", "mount DIR";
 * blank lines and #comments. false, having said where, on anything else.
 */
static bool read_config(struct settings *s, const char *file)
{
	char *line = NULL, *word, *arg, *end;
	size_t size = 0;
	unsigned int n = 0;
	bool ok = true;
	FILE *f = fopen(file, "r");

	if (!f) {
		fprintf(stderr, "utf8names: %s: %s\n", file, strerror(errno));
		return false;
	}
	while (ok && getline(&line, &size, f) > 0) {
		n++;
		line[strcspn(line, "#\n")] = '\0';
		word = line + strspn(line, " \t");
		if (!*word)
			continue;
		arg = word + strcspn(word, " \t");
		if (*arg)
			*arg++ = '\0';
		arg += strspn(arg, " \t");
		for (end = arg + strlen(arg); end > arg && (end[-1] == ' ' || end[-1] == '\t'); )
			*--end = '\0';
		if (!strcmp(word, "mode") &&
		    (!strcmp(arg, "enforce") || !strcmp(arg, "audit"))) {
			s->audit = !strcmp(arg, "audit");
		} else if (!strcmp(word, "mount") && *arg) {
			ok = add_mount(s, strdup(arg));
		} else {
			fprintf(stderr,
				"utf8names: %s:%u: not \"mode enforce\", \"mode audit\" or \"mount DIR\"\n",
				file, n);
			ok = false;
		}
	}
	free(line);
	fclose(f);
	return ok;
}

/*
 * --reload: give the pinned policy the settings @s in place, so that no
 * name goes unchecked meanwhile; 0, 1, or 3 if none is pinned.
 */
static int reload(const struct settings *s)
{
	int is, settings, guarded, ret = 1;

	if (!privileged())
		return 1;
	is = pin_state();
	if (is <= 0)
		return is ? 1 : 3;
	if (lock_pins() || !pinned_whole(true))
		return 1;
	settings = pinned_fd("settings");
	guarded = pinned_fd("guarded");
	if (settings < 0 || guarded < 0)
		fprintf(stderr, "utf8names: %s: %s\n", PIN_DIR, strerror(errno));
	else
		ret = apply(s, settings, guarded);
	if (settings >= 0)
		close(settings);
	if (guarded >= 0)
		close(guarded);
	if (!ret)
		print_enforcing(s, "reloaded, pinned in " PIN_DIR);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "audit", no_argument, NULL, 'a' },
		{ "mount", required_argument, NULL, 'm' },
		{ "config", required_argument, NULL, 'c' },
		{ "pin", no_argument, NULL, 'p' },
		{ "follow", no_argument, NULL, 'f' },
		{ "status", no_argument, NULL, 's' },
		{ "detach", no_argument, NULL, 'd' },
		{ "reload", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct bpf_link *links[UTF8NAMES_MAX_PROGS];
	const char *mounts[UTF8NAMES_MOUNTS_MAX], *config = NULL;
	bool pinning = false, following = false, asking = false, detaching = false;
	bool reloading = false, replacing = false, audit = false;
	struct sigaction stopping = { .sa_handler = on_signal };
	struct stat st;
	sigset_t ours;
	struct settings s = { 0 };
	struct utf8names_bpf *skel;
	int opt, err, nr_mounts = 0, nr_links = 0, i, ret = 1;

	while ((opt = getopt_long(argc, argv, "am:c:pfsdrh", options, NULL)) != -1) {
		switch (opt) {
		case 'a':
			audit = true;
			break;
		case 'm':
			if (nr_mounts == UTF8NAMES_MOUNTS_MAX) {
				fprintf(stderr, "utf8names: at most %d mounts\n",
					UTF8NAMES_MOUNTS_MAX);
				return 2;
			}
			mounts[nr_mounts++] = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'p':
			pinning = true;
			break;
		case 'f':
			following = true;
			break;
		case 's':
			asking = true;
			break;
		case 'd':
			detaching = true;
			break;
		case 'r':
			reloading = true;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	/* --status and --detach alone; --follow alone or with --pin; --reload with settings */
	if (optind != argc || asking + detaching + reloading > 1 ||
	    ((asking || detaching) && (audit || nr_mounts || config || pinning || following)) ||
	    (reloading && (pinning || following)) ||
	    (following && !pinning && (audit || nr_mounts || config))) {
		print_usage(stderr);
		return 2;
	}
	/* no SA_RESTART: a write to a stopped reader must not hold a signal off */
	sigemptyset(&ours);
	sigaddset(&ours, SIGINT);
	sigaddset(&ours, SIGTERM);
	sigaddset(&ours, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &ours, NULL);	/* a mask is inherited */
	sigaction(SIGINT, &stopping, NULL);
	sigaction(SIGTERM, &stopping, NULL);
	sigaction(SIGALRM, &stopping, NULL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	libbpf_set_print(libbpf_print);
	if (asking)
		return status();
	if (detaching)
		return detach();
	if (following && !pinning)
		return follow_pinned();

	if (config && !read_config(&s, config))
		return 2;
	s.audit |= audit;	/* the command line over the file */
	for (i = 0; i < nr_mounts; i++)
		if (!add_mount(&s, mounts[i]))
			return 2;
	if (reloading)
		return reload(&s);
	if (!privileged() || !bpf_lsm_active() || !kfuncs_present())
		return 1;
	if (pinning && lock_pins())
		return 1;
	/* one that is not whole is replaced, once the new one enforces */
	if (pinning && !lstat(PIN_DIR, &st) && roots_alone(&st)) {
		if (pinned_whole(false)) {
			fprintf(stderr,
				"utf8names: a policy is pinned already (--status says what; --detach ends it)\n");
			return 1;
		}
		replacing = true;
	}
	skel = load(&s);
	if (!skel)
		return 1;
	if (signalled) {	/* stopped while loading: nothing to detach */
		ret = 0;
		goto out;
	}
	err = attach(skel, links, &nr_links);
	if (err == -ENOTSUPP) {
		fprintf(stderr, "utf8names: this kernel cannot attach BPF programs to LSM hooks\n");
		fprintf(stderr, "utf8names: (no BPF trampoline for this CPU: arm64 from 6.4)\n");
		goto out;
	}
	if (err) {
		fprintf(stderr, "utf8names: cannot attach to the LSM hooks: %s\n", strerror(-err));
		goto out;
	}
	print_coverage();
	if (pinning) {
		if (replacing)
			pinned_whole(true);
		if (pin(skel, links, nr_links))
			goto out;
		print_enforcing(&s, "pinned in " PIN_DIR " until utf8names --detach");
		unlock_pins();
		ret = 0;
		if (following)
			ret = take_reader() ? 1 : follow(bpf_map__fd(skel->maps.events),
							 bpf_map__fd(skel->maps.counts),
							 NULL, NULL, 0);
		goto out;
	}
	print_enforcing(&s, "stop with SIGINT or SIGTERM");
	ret = follow(bpf_map__fd(skel->maps.events), bpf_map__fd(skel->maps.counts),
		     skel, links, nr_links);
	if (!ret)
		fprintf(stderr, "utf8names: detached\n");
out:
	for (i = 0; i < nr_links; i++)
		bpf_link__destroy(links[i]);
	utf8names_bpf__destroy(skel);
	return ret;
}
