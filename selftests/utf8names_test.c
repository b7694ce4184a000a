// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The BPF sample samples/bpf/utf8names, run as a user runs it, and
 * utf8val's kfuncs through it (TAP):
 *  - its clear errors: no securityfs, no utf8val.ko;
 *  - on a tmpfs, valid names are made, renamed and linked, while each kind
 *    of invalid name is refused with EILSEQ by every operation: open(O_CREAT),
 *    mkdir(), mknod(), rename(), link() and symlink() (name and target); each
 *    refusal is printed with the process, the name's bytes and the error
 *    the reference validator finds;
 *  - bind() of a unix socket is refused too; names that exist already (made
 *    before the policy) can still be renamed over and exchanged;
 *  - tasks racing on one CPU, invalid names against valid ones, each get
 *    their own verdict;
 *  - --audit allows and reports; --mount limits it to one file system; a flood
 *    of refusals is refused whole and printed or counted as not printed;
 *  - detaching restores the old behaviour; utf8val.ko cannot be unloaded
 *    while the policy uses its kfuncs, and can be after.
 * Usage: utf8names_test [LOADER [MODULE]] (default /bin/utf8names and
 * /lib/modules/utf8val.ko, which it loads again at the end).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dev_model.h"

static const char *loader = "/bin/utf8names";
static const char *module = "/lib/modules/utf8val.ko";

/* --- the loader, as a child process ------------------------------------- */

struct policy {
	pid_t pid;
	int out, err;		/* its standard output and error */
	char first[256];	/* the first line of its messages */
	char *early;		/* the rest, read early if it did not start */
};

static char *read_all(int fd)
{
	size_t size = 4096, len = 0;
	char *buf = malloc(size);
	ssize_t n;

	while (buf && (n = read(fd, buf + len, size - len - 1)) > 0) {
		len += n;
		if (size - len < 2) {
			size *= 2;
			buf = realloc(buf, size);
		}
	}
	if (buf)
		buf[len] = '\0';
	return buf;
}

static bool start_policy(struct policy *p, const char *arg1, const char *arg2)
{
	int out[2], err[2];
	char *line = p->first, *rest, *msg;
	size_t len = 0;
	int shown = 0;

	if (pipe(out) || pipe(err))
		return false;
	p->pid = fork();
	if (p->pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		execl(loader, loader, arg1, arg2, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	p->out = out[0];
	p->err = err[0];
	/* ready when it says so on stderr; or it exited */
	while (len < sizeof(p->first) - 1 && read(p->err, line + len, 1) == 1)
		if (line[len++] == '\n')
			break;
	line[len] = '\0';
	p->early = NULL;
	if (strstr(line, "stop with SIGINT or SIGTERM"))
		return true;
	printf("# %s did not start: %s", loader, line);
	/* the rest of what it said, once it has exited */
	p->early = read_all(p->err);
	rest = strdup(p->early);
	for (msg = rest + strlen(rest); msg > rest && shown < 40; msg--)
		shown += msg[-1] == '\n';	/* its last 40 lines */
	for (msg = strtok(msg, "\n"); msg; msg = strtok(NULL, "\n"))
		printf("# %s\n", msg);
	free(rest);
	return false;
}

/* Stop it with @sig; its exit status, output and messages. */
static int stop(struct policy *p, int sig, char **out, char **err)
{
	char *rest;
	int status;

	if (sig)
		kill(p->pid, sig);
	*out = read_all(p->out);
	rest = read_all(p->err);
	*err = malloc(strlen(p->first) + (p->early ? strlen(p->early) : 0) +
		      strlen(rest) + 1);
	sprintf(*err, "%s%s%s", p->first, p->early ? p->early : "", rest);
	free(p->early);
	free(rest);
	close(p->out);
	close(p->err);
	if (waitpid(p->pid, &status, 0) != p->pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Run it to its end: its exit status and messages. */
static int run_args(const char *arg1, const char *arg2, char **err)
{
	struct policy p;
	char *out;
	int status;

	start_policy(&p, arg1, arg2);
	status = stop(&p, 0, &out, err);
	free(out);
	return status;
}

static int run(const char *arg, char **err)
{
	return run_args(arg, NULL, err);
}

/* --- the names --------------------------------------------------------- */

static const struct {
	const char *kind;
	const char *name;
} invalid[] = {
	{ "overlong", "slash\xc0\xaf" },
	{ "surrogate", "\xed\xa0\x80-half" },
	{ "truncated", "euro\xe2\x82" },
	{ "truncated inside", "e\xe2\x82uro" },
	{ "lone continuation", "\x80lone" },
	{ "above U+10FFFF", "big\xf4\x90\x80\x80" },
	{ "Latin-1", "caf\xe9" },
};

#define NR_INVALID	ARRAY_SIZE(invalid)

enum op { CREATE, MKDIR, MKNOD, RENAME, LINK, SYMLINK, SYMLINK_TARGET, NR_OPS };

static const char *const op_names[NR_OPS] = {
	"open(O_CREAT)", "mkdir", "mknod", "rename", "link", "symlink",
	"symlink (target)",
};

/* as the loader prints them */
static const char *const op_words[NR_OPS] = {
	"create", "mkdir", "mknod", "rename", "link", "symlink",
	"symlink target",
};

/*
 * The path @op makes for @name in @dir: the name itself, or for a symlink
 * to @name, a link named after the target's length.
 */
static void made_path(char *path, size_t size, const char *dir, enum op op,
		      const char *name)
{
	if (op == SYMLINK_TARGET)
		snprintf(path, size, "%s/to-%u", dir, (unsigned int)strlen(name));
	else
		snprintf(path, size, "%s/%s", dir, name);
}

/* Make @name in @dir by @op; 0 or the errno. */
static int make(const char *dir, enum op op, const char *name)
{
	char path[PATH_MAX], from[PATH_MAX];
	int fd, err = 0;

	made_path(path, sizeof(path), dir, op, name);
	snprintf(from, sizeof(from), "%s/.source", dir);
	switch (op) {
	case CREATE:
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd >= 0)
			close(fd);
		return fd < 0 ? errno : 0;
	case MKDIR:
		return mkdir(path, 0755) ? errno : 0;
	case MKNOD:
		return mknod(path, S_IFIFO | 0644, 0) ? errno : 0;
	case RENAME:
	case LINK:
		fd = open(from, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			return errno;
		close(fd);
		if (op == RENAME)
			err = rename(from, path) ? errno : 0;
		else
			err = link(from, path) ? errno : 0;
		unlink(from);
		return err;
	case SYMLINK:
		return symlink("target", path) ? errno : 0;
	case SYMLINK_TARGET:
		return symlink(name, path) ? errno : 0;
	default:
		abort();
	}
}

/* Is there nothing left of what make() would have made? */
static bool absent(const char *dir, enum op op, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	made_path(path, sizeof(path), dir, op, name);
	return lstat(path, &st) && errno == ENOENT;
}

static void remove_made(const char *dir, enum op op, const char *name)
{
	char path[PATH_MAX];

	made_path(path, sizeof(path), dir, op, name);
	if (remove(path))
		unlink(path);
}

/* The bytes as the loader prints them: printable ASCII, else \xHH. */
static void escape(char *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c > ' ' && c < 0x7f && c != '\\')
			*out++ = c;
		else
			out += sprintf(out, "\\x%02x", c);
	}
	*out = '\0';
}

/* The line the loader must print for @name, from the reference validator. */
static void expected_line(char *line, size_t size, const char *verdict,
			  enum op op, const char *name)
{
	char comm[17] = "", escaped[PATH_MAX * 4], ecomm[64];
	struct utf8val_result res;

	ref_validate((const u8 *)name, strlen(name), 0, &res);
	escape(escaped, name);
	prctl(PR_GET_NAME, comm);
	escape(ecomm, comm);
	snprintf(line, size,
		 "%s op=%s pid=%d uid=%u comm=%s name=%s offset=%llu len=%u error=%s\n",
		 verdict, op_words[op], getpid(), getuid(), ecomm, escaped,
		 res.valid_up_to, res.error_len, model_error_name(res.error));
}

static char *expected;	/* the lines due, in order */
static size_t expected_len;

static void expect(const char *verdict, enum op op, const char *name)
{
	char line[PATH_MAX * 5];

	expected_line(line, sizeof(line), verdict, op, name);
	expected = realloc(expected, expected_len + strlen(line) + 1);
	memcpy(expected + expected_len, line, strlen(line) + 1);
	expected_len += strlen(line);
}

/* The loader printed exactly what was due; says where it differs. */
static void check_output(const char *what, const char *out)
{
	size_t i = 0;

	while (expected && out[i] && out[i] == expected[i])
		i++;
	tap_ok(expected && !strcmp(out, expected),
	       "%s: every refusal printed, as the reference validator sees it", what);
	if (!expected || strcmp(out, expected)) {
		while (i && out[i - 1] != '\n')
			i--;
		printf("# first difference, expected: %.200s",
		       expected ? expected + i : "(none)\n");
		printf("# got: %.200s\n", out + i);
	}
	free(expected);
	expected = NULL;
	expected_len = 0;
}

/* --- the suites ----------------------------------------------------------- */

static void valid_names_pass(const char *dir, const char *what)
{
	static const char *const names[] = {
		"plain", "caf\xc3\xa9", "\xe2\x82\xac-euro", "\xf0\x9f\x98\x80",
		"\xef\xbf\xbd", "\xf4\x8f\xbf\xbf",
	};
	int failed = 0;
	char name[64];
	unsigned int i;
	int op;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		for (op = 0; op < NR_OPS; op++) {
			snprintf(name, sizeof(name), "%s%d", names[i], op);
			if (make(dir, op, name)) {
				printf("# %s of %s: %s\n", op_names[op], name, strerror(errno));
				failed++;
			}
			remove_made(dir, op, name);
		}
	tap_ok(!failed, "%s: valid names are created, renamed, linked and symlinked", what);
}

/*
 * Each invalid name by each operation: refused with EILSEQ (or, in audit
 * mode, made and reported).
 */
static void invalid_names(const char *dir, const char *what, bool audit)
{
	unsigned int i;
	int op, err;

	for (i = 0; i < NR_INVALID; i++) {
		int wrong = 0;

		for (op = 0; op < NR_OPS; op++) {
			err = make(dir, op, invalid[i].name);
			if (audit ? err != 0 : err != EILSEQ || !absent(dir, op, invalid[i].name)) {
				printf("# %s: %s of a %s name: %s\n", what, op_names[op],
				       invalid[i].kind, err ? strerror(err) : "made");
				wrong++;
			}
			if (!err)
				remove_made(dir, op, invalid[i].name);
			expect(audit ? "audited" : "refused", op, invalid[i].name);
		}
		tap_ok(!wrong, "%s: %s names %s by every operation", what,
		       invalid[i].kind,
		       audit ? "are made (audit)" : "are refused with EILSEQ");
	}
}

/* Without a policy, invalid names are made (what the policy changes). */
static void no_policy(const char *dir, const char *what)
{
	unsigned int i;
	int wrong = 0, op, err;

	for (i = 0; i < NR_INVALID; i++)
		for (op = 0; op < NR_OPS; op++) {
			err = make(dir, op, invalid[i].name);
			if (err) {
				printf("# %s of a %s name: %s\n", op_names[op],
				       invalid[i].kind, strerror(err));
				wrong++;
			}
			remove_made(dir, op, invalid[i].name);
		}
	tap_ok(!wrong, "%s: every invalid name is made", what);
}

/* Can this kernel attach BPF to LSM hooks (a BPF trampoline)? */
static bool can_attach_lsm(void)
{
	struct utsname u;
	unsigned int major, minor;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return true;
	return strcmp(u.machine, "aarch64") || major > 6 || (major == 6 && minor >= 4);
}

/* Is "bpf" in the active LSMs' list (securityfs mounted)? */
static bool bpf_lsm_listed(void)
{
	char list[512] = "";
	FILE *f = fopen("/sys/kernel/security/lsm", "r");

	if (f) {
		if (!fgets(list, sizeof(list), f))
			list[0] = '\0';
		fclose(f);
	}
	printf("# active LSMs: %s\n", list);
	return strstr(list, "bpf");
}

/* Names made before the policy: renamed over and exchanged, not new. */
static void old_names_stay(const char *dir)
{
	char old[PATH_MAX], other[PATH_MAX];
	int fd, err = 0;

	snprintf(old, sizeof(old), "%s/old\xc0\xaf", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	fd = open(other, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	if (access(old, F_OK))
		err = -1;
	else if (syscall(SYS_renameat2, AT_FDCWD, other, AT_FDCWD, old, RENAME_EXCHANGE))
		err = errno;
	else if (rename(other, old))
		err = errno;
	tap_ok(!err, "an old invalid name can be exchanged and renamed over (%s)",
	       err > 0 ? strerror(err) : err ? "it was not made before the policy" : "done");
	unlink(old);
	unlink(other);
}

/*
 * Processes pinned to one CPU make invalid and valid names as fast as
 * they can, each in its own directory (one directory's lock would order
 * them): none may get the other's verdict.
 */
static void race_verdicts(const char *dir)
{
	const int seconds = 3, racers = 4;
	int i, fds[2], bad = 0;
	pid_t pids[4];
	char line[160];
	FILE *f;

	if (pipe(fds))
		return;
	for (i = 0; i < racers; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			bool valid = i % 2;
			time_t end = time(NULL) + seconds;
			char sub[64], path[PATH_MAX], name[256];
			cpu_set_t cpu;
			int wrong = 0, n = 0;

			CPU_ZERO(&cpu);
			CPU_SET(0, &cpu);
			sched_setaffinity(0, sizeof(cpu), &cpu);
			snprintf(sub, sizeof(sub), "%s/race%d", dir, i);
			mkdir(sub, 0755);
			memset(name, valid ? 'v' : 'x', 255);
			name[255] = '\0';
			if (!valid)
				name[0] = '\xff';
			while (time(NULL) < end) {
				int err;

				snprintf(path, sizeof(path), "%s/%s", sub, name);
				err = mkdir(path, 0755) ? errno : 0;
				if (valid ? err != 0 : err != EILSEQ)
					wrong++;
				if (!err)
					rmdir(path);
				n++;
			}
			snprintf(line, sizeof(line), "%s %d of %d wrong\n",
				 valid ? "valid" : "invalid", wrong, n);
			if (write(fds[1], line, strlen(line)) < 0)
				_exit(1);
			_exit(0);
		}
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		printf("# racing: %s", line);
		bad += !strstr(line, " 0 of ");
	}
	if (f)
		fclose(f);
	for (i = 0; i < racers; i++)
		waitpid(pids[i], NULL, 0);
	tap_ok(!bad, "%d processes on one CPU, invalid names against valid: each its own verdict",
	       racers);
}

static bool mounted_tmpfs(const char *dir)
{
	mkdir(dir, 0755);
	return !mount("tmpfs", dir, "tmpfs", 0, "size=4m");
}

int main(int argc, char **argv)
{
	struct policy p;
	char *out, *err, *long_name;
	bool ready;
	int status, i, refused;
	long delete_rc;

	if (argc > 1)
		loader = argv[1];
	if (argc > 2)
		module = argv[2];
	printf("TAP version 13\n");
	if (access(loader, X_OK)) {
		printf("ok 1 # SKIP no %s (the BPF sample is built for x86-64)\n", loader);
		return 0;
	}
	if (access("/sys/kernel/btf/utf8val", F_OK)) {
		printf("ok 1 # SKIP utf8val.ko has no BTF, so no kfuncs, here\n");
		return 0;
	}

	/* Its errors first: securityfs is not mounted yet. */
	umount("/sys/kernel/security");
	status = run(NULL, &err);
	tap_ok(status == 1 && strstr(err, "is securityfs mounted?"),
	       "without securityfs it exits 1 and says to mount it (%d: %.100s)", status, err);
	free(err);
	mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
	/* booted without the BPF LSM (scripts/guest/run SERIES nolsm) */
	if (!bpf_lsm_listed()) {
		status = run(NULL, &err);
		tap_ok(status == 1 && strstr(err, "the BPF LSM is not active") &&
		       strstr(err, "lsm="),
		       "without the BPF LSM it exits 1 and names lsm= (%d: %.150s)",
		       status, err);
		free(err);
		return tap_plan();
	}
	/* arm64 attaches BPF to LSM hooks from 6.4 (BPF trampolines) */
	if (!can_attach_lsm()) {
		status = run(NULL, &err);
		tap_ok(status == 1 && strstr(err, "cannot attach BPF programs to LSM hooks"),
		       "where the kernel cannot attach LSM programs, it exits 1 and says so (%d: %.150s)",
		       status, err);
		free(err);
		return tap_plan();
	}
	status = run("--bogus", &err);
	tap_ok(status == 2 && strstr(err, "usage: utf8names"),
	       "an unknown option exits 2 with the usage (%d)", status);
	free(err);

	if (!mounted_tmpfs("/tmp/un") || !mounted_tmpfs("/tmp/other")) {
		tap_ok(false, "mount two tmpfs: %s", strerror(errno));
		return 1;
	}
	no_policy("/tmp/un", "before the policy");
	close(open("/tmp/un/old\xc0\xaf", O_CREAT | O_WRONLY, 0644));

	/* Enforcing, everywhere. */
	ready = start_policy(&p, NULL, NULL);
	tap_ok(ready, "utf8names starts enforcing");
	valid_names_pass("/tmp/un", "enforcing");
	invalid_names("/tmp/un", "enforcing", false);
	/* the longest names: 255 bytes, the error at the end; a target of 4000 */
	long_name = malloc(4096);
	memset(long_name, 'a', 253);
	long_name[253] = '\xc3';
	long_name[254] = '\0';
	refused = make("/tmp/un", CREATE, long_name) == EILSEQ;
	expect("refused", CREATE, long_name);
	memset(long_name, 'b', 254);
	long_name[254] = '\0';
	refused = refused && !make("/tmp/un", CREATE, long_name);
	remove_made("/tmp/un", CREATE, long_name);
	memset(long_name, 'c', 4000);
	long_name[3999] = '\xff';
	long_name[4000] = '\0';
	refused = refused && make("/tmp/un", SYMLINK_TARGET, long_name) == EILSEQ;
	expect("refused", SYMLINK_TARGET, long_name);
	tap_ok(refused, "a 255-byte name and a 4000-byte target are checked whole");
	free(long_name);

	/* bind() of a unix socket makes a name too */
	{
		struct sockaddr_un addr = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		bool bind_refused;

		snprintf(addr.sun_path, sizeof(addr.sun_path), "/tmp/un/sock\xf0\x80");
		bind_refused = bind(fd, (struct sockaddr *)&addr, sizeof(addr)) &&
			       errno == EILSEQ;
		close(fd);
		expect("refused", MKNOD, "sock\xf0\x80");
		tap_ok(bind_refused, "bind() of a unix socket to an invalid name is refused");
	}
	old_names_stay("/tmp/un");

	/* The module stays while the policy calls it. */
	delete_rc = syscall(SYS_delete_module, "utf8val", O_NONBLOCK);
	tap_ok(delete_rc == -1 && (errno == EWOULDBLOCK || errno == EBUSY) &&
	       make("/tmp/un", MKDIR, invalid[0].name) == EILSEQ,
	       "utf8val.ko cannot be unloaded while the policy uses it, which still refuses (%s)",
	       delete_rc ? strerror(errno) : "it was unloaded");
	expect("refused", MKDIR, invalid[0].name);

	status = stop(&p, SIGTERM, &out, &err);
	tap_ok(status == 0 && strstr(err, "detached"),
	       "SIGTERM detaches it, status 0 (%d)", status);
	check_output("enforcing", out);
	free(out);
	free(err);
	no_policy("/tmp/un", "after SIGTERM");

	/* Audit: allowed, reported. */
	ready = start_policy(&p, "--audit", NULL);
	invalid_names("/tmp/un", "audit", true);
	status = stop(&p, SIGINT, &out, &err);
	tap_ok(ready && status == 0, "utf8names --audit runs until SIGINT (%d)", status);
	check_output("audit", out);
	free(out);
	free(err);

	/* One mount only: refused on it, made elsewhere. */
	ready = start_policy(&p, "--mount", "/tmp/un");
	valid_names_pass("/tmp/un", "--mount");
	invalid_names("/tmp/un", "--mount, on its file system", false);
	no_policy("/tmp/other", "--mount, on another file system");
	status = stop(&p, SIGTERM, &out, &err);
	tap_ok(ready && status == 0, "utf8names --mount DIR runs until SIGTERM (%d)", status);
	check_output("--mount", out);
	free(out);
	free(err);

	/* A flood: every one refused, each printed or counted as lost. */
	ready = start_policy(&p, NULL, NULL);
	refused = 0;
	for (i = 0; i < 5000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "flood%d\xc0\x80", i);
		refused += make("/tmp/un", MKDIR, name) == EILSEQ;
	}
	status = stop(&p, SIGTERM, &out, &err);
	{
		const char *s = out, *lost = strstr(err, "reports not printed");
		unsigned long long printed = 0, unprinted = 0;

		while ((s = strstr(s, "op=mkdir")))
			printed++, s++;
		if (lost) {
			while (lost > err && lost[-1] != ':')
				lost--;
			unprinted = strtoull(lost + 1, NULL, 10);
		}
		tap_ok(ready && status == 0 && refused == 5000 && printed + unprinted == 5000,
		       "5000 refusals in a burst: all refused, %llu printed, %llu counted as not printed",
		       printed, unprinted);
	}
	free(out);
	free(err);

	/* Signals that must not end the policy: a closed terminal, a reader gone. */
	ready = start_policy(&p, NULL, NULL);
	kill(p.pid, SIGHUP);
	close(p.out);		/* its reports now have nowhere to go */
	p.out = open("/dev/null", O_RDONLY);
	usleep(300000);
	refused = make("/tmp/un", MKDIR, invalid[1].name) == EILSEQ &&
		  make("/tmp/un", CREATE, invalid[2].name) == EILSEQ;
	status = stop(&p, SIGTERM, &out, &err);
	tap_ok(ready && refused && status == 0 && strstr(err, "cannot write reports") &&
	       strstr(err, "2 not written"),
	       "SIGHUP and a reader gone (SIGPIPE) do not end it; it counts what it could not write (%d)",
	       status);
	free(out);
	free(err);
	mkdir("/tmp/un/sub", 0755);
	status = run_args("--mount", "/tmp/un/sub", &err);
	tap_ok(status == 2 && strstr(err, "is not a mount point"),
	       "--mount with a directory that is not a mount point exits 2 (%d)", status);
	free(err);

	/* Racing tasks on one CPU, each with its own name. */
	ready = start_policy(&p, NULL, NULL);
	race_verdicts("/tmp/un");
	status = stop(&p, SIGTERM, &out, &err);
	tap_ok(ready && status == 0, "the policy ran through the race (%d)", status);
	free(out);
	free(err);

	/* After the policy: the module goes, and the loader says it is gone. */
	for (i = 0; i < 50; i++) {
		delete_rc = syscall(SYS_delete_module, "utf8val", O_NONBLOCK);
		if (!delete_rc || errno != EWOULDBLOCK)
			break;
		usleep(100000);	/* the program is freed after an RCU grace period */
	}
	tap_ok(!delete_rc, "utf8val.ko unloads once the policy is gone (%s)",
	       delete_rc ? strerror(errno) : "unloaded");
	status = run(NULL, &err);
	tap_ok(status == 1 && strstr(err, "utf8val.ko is not loaded"),
	       "without utf8val.ko it exits 1 and says so (%d: %.100s)", status, err);
	free(err);
	{
		int fd = open(module, O_RDONLY | O_CLOEXEC);

		bool loaded = fd >= 0 && !syscall(SYS_finit_module, fd, "", 0);

		tap_ok(loaded, "utf8val.ko loads again (%s)", loaded ? "loaded" : strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	umount("/tmp/un");
	umount("/tmp/other");
	return tap_plan();
}
