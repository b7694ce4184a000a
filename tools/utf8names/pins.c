// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The policy pinned in PIN_DIR, where it outlives the process that
 * loaded it: pinned with no gap, found, checked whole, ended; and the
 * locks that make the commands which change it take turns.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader.h"
#include "utf8names.skel.h"

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
bool roots_alone(const struct stat *st)
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

int lock_pins(void)
{
	mkdir("/run", 0755);	/* (a bare initramfs may have none) */
	pins_lock = open(PIN_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (pins_lock < 0 || flock(pins_lock, LOCK_EX)) {
		say("%s: %s\n", PIN_LOCK, strerror(errno));
		return 1;
	}
	return 0;
}

/* --pin --follow: a --detach or --reload must not wait for the follower */
void unlock_pins(void)
{
	if (pins_lock >= 0)
		close(pins_lock);
	pins_lock = -1;
}

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
	say("removed %s, which uid %u made, not utf8names (every user may write in /sys/fs/bpf: mount it with mode=0700)\n",
	    PIN_DIR, (unsigned int)st.st_uid);
	remove_tree(AT_FDCWD, dir, 0);
}

/*
 * Policies a --pin killed before it moved them into place: ended. (Under
 * the lock: no other --pin is half way. What a user made is theirs.)
 */
void sweep_leftovers(void)
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
int pin(struct utf8names_bpf *skel, struct bpf_link **links, int nr)
{
	/* (bpffs takes no dot in a name) */
	char tmp[] = "/sys/fs/bpf/utf8names-new-XXXXXX", path[PATH_MAX];
	unsigned int i;
	int n, tries;

	sweep_leftovers();
	if (!mkdtemp(tmp)) {	/* (mode 0700) */
		say("cannot make %s: %s (is bpffs mounted on /sys/fs/bpf?)\n",
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
	say("%s: %s\n", path, strerror(errno));
	remove_tree(AT_FDCWD, tmp, 0);
	return 1;
}

/*
 * Whether a policy is pinned: 1, 0 (said why, exit 3), or -1 (said why,
 * exit 1: not root).
 */
int pin_state(void)
{
	struct stat st;

	if (lstat(PIN_DIR, &st)) {
		if (errno == EACCES || errno == EPERM) {
			say("%s: %s (needs root)\n", PIN_DIR,
			    strerror(errno));
			return -1;
		}
		say("no policy is pinned (%s: %s)\n", PIN_DIR,
		    strerror(errno));
		return 0;
	}
	if (!roots_alone(&st)) {
		say("no policy is pinned: %s is uid %u's, mode %o, not utf8names' (--pin removes it)\n",
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

int pinned_fd(const char *name)
{
	return pinned_fd_in(PIN_DIR, name);
}

/*
 * The pinned policy's state, if this build of utf8names pinned it: 1 (in
 * @state); 0 if another build did (its maps may be laid out otherwise:
 * nothing more of them is read); -1 if it has none (errno).
 */
int own_pinned_state(struct utf8names_bpf__bss *state)
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
 * and not detached, and each of its links pinned. Says why not, if @tell:
 * --pin replaces such a policy.
 */
bool pinned_whole(bool tell)
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
	if (why && tell)
		say("the policy in %s %s; utf8names --pin replaces it\n",
		    PIN_DIR, why);
	return !why;
}

/*
 * End the policy pinned in @dir and remove it; 0, or 1 having said why
 * not. The kernel frees a link whose pin is removed a little later, so
 * the programs are told first (detached, in their state map): the policy
 * ends as this returns.
 */
int end_pinned_in(const char *dir)
{
	int state, counts, ended;

	/* (a pin interrupted before its state was pinned has no links) */
	state = pinned_fd_in(dir, "state");
	if (state < 0 && errno != ENOENT) {
		say("%s/state: %s\n", dir, strerror(errno));
		return 1;
	}
	if (state >= 0) {
		counts = pinned_fd_in(dir, "counts");
		ended = counts >= 0 ? end_programs(state, counts, 0) : -1;
		if (ended)
			say("%s: not detached, the policy still enforces\n",
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
		say("stopped, but cannot remove %s: %s\n", dir,
		    strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * The ring buffer has one read position: two readers would each print
 * some of the reports. The one that follows holds a lock on PIN_DIR.
 */
int take_reader(void)
{
	int fd = open(PIN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
		say("%s\n", fd < 0 ? strerror(errno) :
		    "another utf8names follows the pinned policy already");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	return 0;	/* (held until this process ends) */
}

