// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What utf8names is asked to do: its command line, and the settings it
 * gives the policy from --audit, --mount and --config FILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "loader.h"

/*
 * The command line into @rq: -1 to go on, or the exit status, having
 * printed --help or said what is wrong.
 */
int parse_options(int argc, char **argv, struct request *rq)
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
	bool settings;
	int opt;

	while ((opt = getopt_long(argc, argv, "am:c:pfsdrh", options, NULL)) != -1) {
		switch (opt) {
		case 'a':
			rq->audit = true;
			break;
		case 'm':
			if (rq->nr_mounts == UTF8NAMES_MOUNTS_MAX) {
				say("at most %d mounts\n", UTF8NAMES_MOUNTS_MAX);
				return 2;
			}
			rq->mounts[rq->nr_mounts++] = optarg;
			break;
		case 'c':
			rq->config = optarg;
			break;
		case 'p':
			rq->pin = true;
			break;
		case 'f':
			rq->follow = true;
			break;
		case 's':
			rq->status = true;
			break;
		case 'd':
			rq->detach = true;
			break;
		case 'r':
			rq->reload = true;
			break;
		case 'h':
			print_usage(false);
			return 0;
		default:
			print_usage(true);
			return 2;
		}
	}
	/* --status and --detach alone; --follow alone or with --pin; --reload with settings */
	settings = rq->audit || rq->nr_mounts || rq->config;
	if (optind != argc || rq->status + rq->detach + rq->reload > 1 ||
	    ((rq->status || rq->detach) && (settings || rq->pin || rq->follow)) ||
	    (rq->reload && (rq->pin || rq->follow)) ||
	    (rq->follow && !rq->pin && settings)) {
		print_usage(true);
		return 2;
	}
	return -1;
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
		say("%s: %s\n", dir, strerror(errno));
		return false;
	}
	if (!S_ISDIR(stx.stx_mode) || !(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    !(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) || !(stx.stx_mask & STATX_MNT_ID)) {
		say("%s is not a mount point\n", dir);
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
		say("%s: mount %llu is not in /proc/self/mountinfo\n",
		    dir, (unsigned long long)stx.stx_mnt_id);
		return false;
	}
	*dev = major << 20 | minor;
	return true;
}

static bool add_mount(struct settings *s, const char *dir)
{
	if (s->nr_mounts == UTF8NAMES_MOUNTS_MAX) {
		say("at most %d mounts\n", UTF8NAMES_MOUNTS_MAX);
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
		say("%s: %s\n", file, strerror(errno));
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
			say("%s:%u: not \"mode enforce\", \"mode audit\" or \"mount DIR\"\n",
			    file, n);
			ok = false;
		}
	}
	free(line);
	fclose(f);
	return ok;
}

/*
 * The settings @rq asks for into @s: its --config FILE, then --audit and
 * --mount over it. false, having said why, if they are wrong.
 */
bool settings_of(const struct request *rq, struct settings *s)
{
	int i;

	if (rq->config && !read_config(s, rq->config))
		return false;
	s->audit |= rq->audit;	/* the command line over the file */
	for (i = 0; i < rq->nr_mounts; i++)
		if (!add_mount(s, rq->mounts[i]))
			return false;
	return true;
}
