// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The policy's BPF object (utf8names.skel.h): whether this system can
 * run it, loaded with the hooks this kernel has, attached, given its
 * settings, and ended; its counts.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "loader.h"
#include "utf8names.skel.h"

#ifdef __riscv
#define IS_RISCV	true
#else
#define IS_RISCV	false
#endif

/* May this process load a BPF LSM program? Says why not, if not. */
bool privileged(void)
{
	struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 };

	if (syscall(SYS_capget, &head, data))
		return true;	/* let the kernel say */
	if ((data[CAP_MAC_ADMIN / 32].effective & (1u << (CAP_MAC_ADMIN % 32))) &&
	    ((data[CAP_BPF / 32].effective & (1u << (CAP_BPF % 32))) ||
	     (data[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32)))))
		return true;
	say("needs root (CAP_MAC_ADMIN, and CAP_BPF or CAP_SYS_ADMIN)\n");
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
		say("cannot read %s (%s): is securityfs mounted?\n",
		    lsm_path, strerror(errno));
		say("(mount -t securityfs none /sys/kernel/security)\n");
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
	say("the BPF LSM is not active (active: %s): boot with lsm=%s%sbpf\n",
	    list, list, *list ? "," : "");
	return false;
}

/* Are utf8val's kfuncs there? Says why not, if not. */
static bool kfuncs_present(void)
{
	if (!access("/sys/kernel/btf/utf8val", F_OK))
		return true;
	if (access("/sys/module/utf8val", F_OK)) {
		say("utf8val.ko is not loaded\n");
		say("(modprobe utf8val, or insmod utf8val.ko)\n");
	} else {
		say("utf8val.ko has no BTF, so no kfuncs\n");
		say("(UTF8VAL_BPF=n, or no module BTF in this kernel)\n");
	}
	return false;
}

/* Can this process load the policy here? Says why not, if not. */
bool able_to_load(void)
{
	return privileged() && bpf_lsm_active() && kfuncs_present();
}

double seconds_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec + now.tv_nsec / 1e9;
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
unsigned long long counter(int counts_fd, __u32 which)
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

/* @fd's map's description; 0, or -1 (errno) */
int map_info(int fd, struct bpf_map_info *info)
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
 * flag until its refusal is counted (verdict.bpf.h, in_flight()), with
 * no migration in between. A CPU's count seen 0 once after the flag was
 * set is enough: a hook that comes later reads the flag set (the fences
 * on both sides). Waits up to @seconds; if 0, until a signal, saying so
 * every 5 s, and a signal then sets the flag back: the policy goes on as
 * it was. 0, or -1 with errno set (ETIMEDOUT: hooks still run; EINTR).
 */
int end_programs(int state_fd, int counts_fd, int seconds)
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
				say("interrupted, and the policy could not be set going again: %s\n",
				    strerror(errno));
			errno = EINTR;
			goto out;
		}
		if (seconds_now() - said >= 5) {
			said = seconds_now();
			say("waiting for hooks still running on %d CPUs\n",
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
int apply(const struct settings *s, int settings_fd, int guarded_fd)
{
	struct utf8names_settings now = { .audit = s->audit, .some_fs = s->nr_mounts > 0 };
	__u32 key = 0, dev, next;
	bool wanted;
	int i, n = 0;
	__u8 one = 1;

	for (i = 0; i < s->nr_mounts; i++)
		if (bpf_map_update_elem(guarded_fd, &s->devs[i], &one, BPF_ANY)) {
			say("cannot guard %s: %s\n", s->mounts[i],
			    strerror(errno));
			return 1;
		}
	if (bpf_map_update_elem(settings_fd, &key, &now, BPF_ANY)) {
		say("cannot change the policy's settings: %s%s\n",
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

/* object_id()'s answer, once it is hashed */
static __u64 id;

/*
 * This build's BPF object, hashed (FNV-1a): the identity of the policies
 * it loads. One pinned by another build (before an upgrade, or after a
 * downgrade) may lay out its maps otherwise: it is replaced, never read.
 */
__u64 object_id(void)
{
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

/* detached begins the state: a loader ends another version's policy by it */
static_assert(offsetof(struct utf8names_bpf__bss, detached) == 0, "detached first");
/* the object id ends the state: the guest tests change it there */
static_assert(offsetof(struct utf8names_bpf__bss, object_id) + sizeof(__u64) ==
	      sizeof(struct utf8names_bpf__bss), "object_id last");
/* the in-flight count where every version keeps it (utf8names.h) */
static_assert(UTF8NAMES_INFLIGHT == 2, "counts in their order");

/*
 * Whether the kernel gives a task the policy's storage (verdict.bpf.h's
 * scratch record, which every hook takes), asked for this task's own and
 * dropped again: the allocation the hooks make. Where it cannot, every
 * hook would refuse every new name with ENOMEM: Linux 7.2 allocates BPF
 * task storage with kmalloc_nolock(), which needs a 16-byte
 * compare-and-exchange that a RISC-V CPU without the Zacas extension
 * lacks (qemu 7.2's). kmalloc_nolock() does not reclaim and may find a
 * lock taken, so a failure that may pass (ENOMEM, EAGAIN, EBUSY) is
 * asked again before it counts. Says why not, if not; where it cannot
 * ask, it says so and goes on.
 */
static bool task_storage_works(int map)
{
	static const struct utf8names_event zero;
	int pidfd = syscall(SYS_pidfd_open, getpid(), 0), err = 0, tries;

	if (pidfd < 0) {
		say("cannot check that this kernel gives tasks BPF storage (pidfd_open: %s)\n",
		    strerror(errno));
		return true;
	}
	for (tries = 0; tries < 3; tries++) {
		if (tries)
			usleep(10000);
		err = 0;
		if (!bpf_map_update_elem(map, &pidfd, &zero, BPF_NOEXIST))
			break;
		err = errno;
		if (err != ENOMEM && err != EAGAIN && err != EBUSY)
			break;	/* not one that may pass */
	}
	if (!err)
		bpf_map_delete_elem(map, &pidfd);
	close(pidfd);
	if (!err)
		return true;
	say("this kernel cannot give a task BPF storage: %s\n", strerror(err));
	say("(every hook would refuse every new name: nothing is attached)\n");
	if (IS_RISCV && err == ENOMEM)
		say("(Linux 7.2 on riscv64 needs Zacas, in the CPU and in the kernel)\n");
	return false;
}

/* Open and load the program with @s, leaving out a hook the kernel lacks. */
struct utf8names_bpf *load(const struct settings *s)
{
	struct utf8names_bpf *skel;
	struct bpf_program *prog;
	struct btf *vmlinux;
	unsigned int i;
	int err;

	skel = utf8names_bpf__open();
	if (!skel) {
		say("cannot open the BPF program: %s\n", strerror(errno));
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
			say("this kernel has no %s(): %s are refused (EPERM)\n",
			    copies[i].funcs[0], copies[i].blind);
	}
	btf__free(vmlinux);
	err = utf8names_bpf__load(skel);
	if (err) {
		say("the kernel refused the BPF program: %s\n",
		    strerror(-err));
		goto fail;
	}
	if (!task_storage_works(bpf_map__fd(skel->maps.scratch)))
		goto fail;
	if (apply(s, bpf_map__fd(skel->maps.settings), bpf_map__fd(skel->maps.guarded)))
		goto fail;
	return skel;
fail:
	utf8names_bpf__destroy(skel);
	return NULL;
}

/* room for a link for each program of the object */
static_assert(sizeof(((struct utf8names_bpf *)0)->progs) / sizeof(struct bpf_program *) <=
	      UTF8NAMES_MAX_PROGS, "a link for each program");

/* Attach every loaded program; its links in @links. 0 or the error. */
int attach(struct utf8names_bpf *skel, struct bpf_link **links, int *nr)
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

