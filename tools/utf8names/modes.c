// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What each mode of utf8names does, from the checks it needs to its exit
 * status: 0 done, 1 failed (having said why), 3 no policy is pinned.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader.h"
#include "utf8names.skel.h"

/* the kernel's "operation not supported" (not user space's ENOTSUP) */
#define ENOTSUPP	524

/*
 * The policy with the settings @s, until a signal; or, with @pin, pinned
 * until utf8names --detach, and with @follow its reports printed until a
 * signal.
 */
int run(const struct settings *s, bool pin_it, bool follow_it)
{
	struct bpf_link *links[UTF8NAMES_MAX_PROGS];
	struct utf8names_bpf *skel;
	bool replacing = false;
	int err, nr_links = 0, i, ret = 1;
	struct stat st;

	if (!able_to_load())
		return 1;
	if (pin_it && lock_pins())
		return 1;
	/* one that is not whole is replaced, once the new one enforces */
	if (pin_it && !lstat(PIN_DIR, &st) && roots_alone(&st)) {
		if (pinned_whole(false)) {
			say("a policy is pinned already (--status says what; --detach ends it)\n");
			return 1;
		}
		replacing = true;
	}
	skel = load(s);
	if (!skel)
		return 1;
	if (signalled) {	/* stopped while loading: nothing to detach */
		ret = 0;
		goto out;
	}
	err = attach(skel, links, &nr_links);
	if (err == -ENOTSUPP) {
		say("this kernel cannot attach BPF programs to LSM hooks\n");
		say("(no BPF trampoline for this CPU: arm64 from 6.4)\n");
		goto out;
	}
	if (err) {
		say("cannot attach to the LSM hooks: %s\n", strerror(-err));
		goto out;
	}
	print_coverage();
	if (pin_it) {
		if (replacing)
			pinned_whole(true);
		if (pin(skel, links, nr_links))
			goto out;
		print_enforcing(s, "pinned in " PIN_DIR " until utf8names --detach");
		unlock_pins();
		ret = 0;
		if (follow_it)
			ret = take_reader() ? 1 : follow(bpf_map__fd(skel->maps.events),
							 bpf_map__fd(skel->maps.counts),
							 NULL, NULL, 0);
		goto out;
	}
	print_enforcing(s, "stop with SIGINT or SIGTERM");
	ret = follow(bpf_map__fd(skel->maps.events), bpf_map__fd(skel->maps.counts),
		     skel, links, nr_links);
	if (!ret)
		say("detached\n");
out:
	for (i = 0; i < nr_links; i++)
		bpf_link__destroy(links[i]);
	utf8names_bpf__destroy(skel);
	return ret;
}

/* --status: what a pinned policy does. */
int status(void)
{
	struct utf8names_bpf__bss state = { 0 };
	int settings, counts, guarded, is, n = 0, ret = 1;
	__u32 devs[UTF8NAMES_MOUNTS_MAX], key = 0, next;
	struct utf8names_settings ro;
	struct stat st;

	is = pin_state();
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
		say("%s: %s\n", PIN_DIR, strerror(errno));
		goto out;
	}
	if (bpf_map_lookup_elem(settings, &key, &ro)) {
		say("cannot read %s/settings: %s\n", PIN_DIR, strerror(errno));
		goto out;
	}
	/* (the map holds UTF8NAMES_MOUNTS_MAX at most) */
	while (ro.some_fs && n < UTF8NAMES_MOUNTS_MAX &&
	       !bpf_map_get_next_key(guarded, n ? &key : NULL, &next)) {
		devs[n++] = next;
		key = next;
	}
	print_status(&ro, st.st_mtime, devs, n, counter(counts, UTF8NAMES_REPORTED),
		     counter(counts, UTF8NAMES_LOST), state.detached);
	if (ro.some_fs && !n)
		say("the pinned policy guards no file system\n");
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
 * --reload: give the pinned policy the settings @s in place, so that no
 * name goes unchecked meanwhile; 0, 1, or 3 if none is pinned.
 */
int reload(const struct settings *s)
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
		say("%s: %s\n", PIN_DIR, strerror(errno));
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

/* --detach: end the pinned policy; 0, or 3 if none is pinned. */
int detach(void)
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
	say("detached\n");
	return 0;
}

/* --follow: print a pinned policy's reports until a signal. */
int follow_pinned(void)
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
		say("%s: %s\n", PIN_DIR, strerror(errno));
		return 1;
	}
	say("following the pinned policy; stop with SIGINT or SIGTERM\n");
	return follow(events, counts, NULL, NULL, 0);
}
