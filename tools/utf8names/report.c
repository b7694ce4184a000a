// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Every line utf8names prints: a report per refusal on standard output,
 * --status's line, and its messages on standard error.
 *
 * A report's name and comm keep printable ASCII, every other byte (a
 * space and "\" too) as \xHH. That is not utf8val(1)'s rule, which keeps
 * valid UTF-8 as it is, and on purpose: a report is fields split at
 * spaces, read from the journal by scripts, and its offset= and len=
 * count the name's bytes, which this form shows one by one.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "loader.h"

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

/* one report: the name's and comm's bytes escaped take 4 characters each */
static char report[(UTF8NAMES_NAME_MAX + 16) * 4 + 256];
static size_t report_len;
/* a report was cut short: no line after it */
static bool cut;
/* reports that could not be written to standard output */
static unsigned long long unwritten;
/* when the reports' time after a signal is up (0: not started) */
static double deadline;

/*
 * "utf8names: " and a message, on standard error in one write; a message
 * longer than a path and its words (a path the kernel refused as too
 * long) in two, whole. (print_enforcing() adds to its line, and libbpf's
 * own lines have no prefix.)
 */
void say(const char *fmt, ...)
{
	static const char prefix[] = "utf8names: ";
	const size_t at = sizeof(prefix) - 1;
	char line[PATH_MAX + 512];
	va_list args, again;
	int n;

	memcpy(line, prefix, at);
	va_start(args, fmt);
	va_copy(again, args);
	n = vsnprintf(line + at, sizeof(line) - at, fmt, args);
	if (n >= 0 && (size_t)n < sizeof(line) - at) {
		fputs(line, stderr);
	} else {
		fputs(prefix, stderr);
		vfprintf(stderr, fmt, again);
	}
	va_end(again);
	va_end(args);
}

/* --help's text, on standard output; or after a usage @error, on standard error */
void print_usage(bool error)
{
	fprintf(error ? stderr : stdout,
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

/* Whether the reports' time is up; the first call after a signal starts it. */
bool past_stop_deadline(void)
{
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
		say("cannot write reports: %s\n", why);
	if (len && some)
		cut = true;
}

/*
 * Print the refusal in the ring buffer's record @data of @size bytes;
 * false, having said so, if the record is malformed.
 */
bool print_event(const void *data, size_t size)
{
	const struct utf8names_event *e = data;
	const size_t head = offsetof(struct utf8names_event, name);

	if (size < head || size < head + e->len || e->op >= UTF8NAMES_NR_OPS) {
		say("a malformed record (%zu bytes)\n", size);
		return false;
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
	return true;
}

/* The reports the ring buffer dropped (@not_printed) or emit() could not write */
void print_summary(unsigned long long not_printed)
{
	if (unwritten)
		say("%llu reports not printed (the ring buffer was full), %llu not written\n",
		    not_printed, unwritten);
	else if (not_printed)
		say("%llu reports not printed (the ring buffer was full)\n", not_printed);
}

/* libbpf's messages: warnings and errors only, they explain failures */
int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
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
	"  - spu_create() on PowerPC Cell: no LSM hook that may refuse sees its names\n"
	"  - a file system mounted again under --mount: it is known by its device\n"
	"    number, which a new mount may get\n"
	"reports wrongly: open(O_CREAT) of an existing file not in the dentry cache\n"
	"  with an invalid name is reported (refused, or audited), and opens; a task\n"
	"  the kernel cannot give its storage has every new name refused (ENOMEM)\n";

void print_coverage(void)
{
	const char *line = coverage, *end;

	for (; *line; line = end + 1) {
		end = strchr(line, '\n');
		say("%.*s\n", (int)(end - line), line);
	}
}

/* "utf8names: refusing names not UTF-8 on ...; @until" */
void print_enforcing(const struct settings *s, const char *until)
{
	int i;

	say("%s names not UTF-8 on %s",
	    s->audit ? "reporting" : "refusing",
	    !s->nr_mounts ? "every file system" :
	    s->nr_mounts == 1 ? "the file system of " : "the file systems of ");
	for (i = 0; i < s->nr_mounts; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", s->mounts[i]);
	fprintf(stderr, "; %s\n", until);
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

/*
 * --status's line: the settings @ro, pinned @since, the file systems
 * @devs it guards, its counts.
 */
void print_status(const struct utf8names_settings *ro, time_t since,
		  const __u32 *devs, int nr_devs, unsigned long long reported,
		  unsigned long long lost, bool detached)
{
	char when[64];
	int i;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&since));
	printf("mode=%s since=%s mounts=", ro->audit ? "audit" : "enforce", when);
	if (!ro->some_fs)
		printf("all");
	for (i = 0; i < nr_devs; i++) {
		if (i)
			printf(";");
		printf("%u:%u=", devs[i] >> 20, devs[i] & 0xfffff);
		print_mounts_of(devs[i]);
	}
	printf(" %s=%llu lost=%llu%s\n", ro->audit ? "audited" : "refused",
	       reported, lost, detached ? " detached" : "");
}
