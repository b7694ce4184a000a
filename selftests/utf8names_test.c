// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The file name policy tools/utf8names, run as a user runs it, and
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
 *  - --audit allows and reports; --mount limits it to one file system;
 *  - names that land on a guarded file system through another one:
 *    overlayfs mounted by uid 1000 in a user namespace, an mqueue name
 *    whited out through overlayfs, btrfs's subvolume and snapshot ioctls,
 *    ocfs2's reflink ioctl; a mountinfo record crafted to make --mount
 *    guard another device;
 *  - a second thread flipping a byte of the name an ioctl carries, 1000
 *    times for each of those ioctls: no invalid name is made;
 *  - SIGTERM during a flood of refusals ends it while the flood goes on,
 *    and every refusal is printed or counted as not printed;
 *  - a pinned policy outlives its loader: --pin, --status, --follow,
 *    --detach; --reload changes it in place while invalid names flood
 *    in, every one refused; --status fails for a policy that is not
 *    whole, which --pin replaces; a folder a user made first where it
 *    pins does not stop --pin;
 *  - detaching restores the old behaviour; utf8val.ko cannot be unloaded
 *    while the policy uses its kfuncs, and can be after.
 * Usage: utf8names_test [--core] [LOADER [MODULE]] (default /bin/utf8names
 * and /lib/modules/utf8val.ko, which it loads again at the end). --core:
 * the errors, enforcing with every operation, the module held while the
 * policy uses it, a detach and a reload of the settings under a flood; one
 * skip for the rest (the emulated architectures' runs: what differs there
 * is attaching, calling the kfuncs and rewriting the trampolines).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/btrfs.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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
	char first[4096];	/* its messages up to "stop with..." */
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

/* Start the loader with @args (NULL-terminated, after its name). */
static bool start_argv(struct policy *p, const char *const *args)
{
	const char *argv[16] = { loader };
	int out[2], err[2];
	char *line = p->first, *rest, *msg;
	size_t len = 0, n;
	int shown = 0;

	for (n = 0; args[n] && n + 2 < ARRAY_SIZE(argv); n++)
		argv[n + 1] = args[n];
	/* when each run starts, for a guest's timing */
	{
		static struct timespec t0;
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (!t0.tv_sec)
			t0 = t;
		printf("# [%5.1f s] utf8names%s%s%s%s\n",
		       (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9,
		       args[0] ? " " : "", args[0] ? args[0] : "",
		       args[0] && args[1] ? " " : "", args[0] && args[1] ? args[1] : "");
	}

	if (pipe(out) || pipe(err))
		return false;
	p->pid = fork();
	if (p->pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		execv(loader, (char *const *)argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	p->out = out[0];
	p->err = err[0];
	/*
	 * Ready when it says so on stderr (after what it covers), or when it
	 * pinned the policy; or it exited.
	 */
	while (len < sizeof(p->first) - 1 && read(p->err, line + len, 1) == 1) {
		line[len + 1] = '\0';
		if (line[len++] == '\n' &&
		    (strstr(line, "stop with SIGINT or SIGTERM") ||
		     strstr(line, "until utf8names --detach")))
			break;
	}
	line[len] = '\0';
	p->early = NULL;
	if (strstr(line, "stop with SIGINT or SIGTERM") ||
	    strstr(line, "until utf8names --detach"))
		return true;
	printf("# %s did not start\n", loader);
	/* the rest of what it said, once it has exited */
	p->early = read_all(p->err);
	rest = malloc(strlen(line) + strlen(p->early) + 1);
	sprintf(rest, "%s%s", line, p->early);
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

static bool start_policy(struct policy *p, const char *arg1, const char *arg2)
{
	const char *const args[] = { arg1, arg2, NULL };

	return start_argv(p, args);
}

/* Run it with @args to its end: its exit status, output and messages. */
static int run_argv(const char *const *args, char **out, char **err)
{
	struct policy p;

	start_argv(&p, args);
	return stop(&p, 0, out, err);
}

static int run_args(const char *arg1, const char *arg2, char **err)
{
	const char *const args[] = { arg1, arg2, NULL };
	char *out;
	int status = run_argv(args, &out, err);

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
	tap_result(expected && !strcmp(out, expected),
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
	tap_result(!failed, "%s: valid names are created, renamed, linked and symlinked", what);
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
		tap_result(!wrong, "%s: %s names %s by every operation", what,
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
	tap_result(!wrong, "%s: every invalid name is made", what);
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

/* The first line of @path into @buf, or "" if it cannot be read. */
static void first_line(const char *path, char *buf, int size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, size, f))
			buf[0] = '\0';
		fclose(f);
	}
}

/* Is "bpf" in the active LSMs' list (securityfs mounted)? */
static bool bpf_lsm_listed(void)
{
	char list[512];

	first_line("/sys/kernel/security/lsm", list, sizeof(list));
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
	tap_result(!err, "an old invalid name can be exchanged and renamed over (%s)",
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
	tap_result(!bad,
		   "%d processes on one CPU, invalid names against valid: each its own verdict",
		   racers);
}

/* --- routes through other file systems ----------------------------------- */

#define BAD	"\xff\xc0\xaf"		/* the attack's bytes */
#define BAD_ESC	"\\xff\\xc0\\xaf"	/* as the loader prints them */

/* Did the loader print a refusal of @op_word for @escaped_name? */
static bool printed_refusal(const char *out, const char *op_word,
			    const char *escaped_name)
{
	char op[64], name[512];
	const char *line;

	snprintf(op, sizeof(op), "refused op=%s pid=", op_word);
	snprintf(name, sizeof(name), " name=%s offset=", escaped_name);
	for (line = out; line && *line; line = strchr(line, '\n'), line += !!line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *n = strstr(line, name);

		if (!strncmp(line, op, strlen(op)) && n && n < line + len)
			return true;
	}
	return false;
}

/* The names in @dir, for a diagnostic, and whether one is not UTF-8. */
static bool only_valid_names(const char *dir)
{
	struct dirent *ent;
	bool ok = true;
	DIR *d = opendir(dir);

	while (d && (ent = readdir(d))) {
		struct utf8val_result res;

		if (ref_validate((const u8 *)ent->d_name, strlen(ent->d_name), 0, &res)) {
			char esc[1024];

			escape(esc, ent->d_name);
			printf("# %s holds %s\n", dir, esc);
			ok = false;
		}
	}
	if (d)
		closedir(d);
	return ok;
}

static bool write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * In a child: become uid 1000, root of a user and mount namespace of its
 * own (as Debian lets any user). false if the kernel does not allow it.
 */
static bool unprivileged_namespace(void)
{
	if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) ||
	    setresuid(1000, 1000, 1000))
		return false;
	/* (a change of ids makes /proc/self root's, uid_map included) */
	if (prctl(PR_SET_DUMPABLE, 1) || unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return false;
	return write_file("/proc/self/setgroups", "deny") &&
	       write_file("/proc/self/uid_map", "0 1000 1") &&
	       write_file("/proc/self/gid_map", "0 1000 1");
}

/* A child's results: "word=errno ..." on a pipe, read back whole. */
struct child {
	pid_t pid;
	int fd;
};

static void child_says(int fd, const char *word, int err)
{
	dprintf(fd, "%s=%d ", word, err);
}

static int child_result(const char *said, const char *word)
{
	char key[64];
	const char *at;

	snprintf(key, sizeof(key), "%s=", word);
	at = strstr(said, key);
	return at ? atoi(at + strlen(key)) : -1;
}

static char *child_end(struct child *c)
{
	char *said = read_all(c->fd);

	close(c->fd);
	waitpid(c->pid, NULL, 0);
	return said;
}

static int errno_of(int ret)
{
	return ret < 0 ? errno : 0;
}

/*
 * Mount the overlay @opts on /tmp/ovl-merged, as uid 1000 in a user
 * namespace (@as_user) or as root, and make names through it; what each
 * call gave, as child_says() words.
 */
static char *overlay_child(const char *opts, bool as_user)
{
	struct child c;
	int fds[2];

	if (pipe(fds))
		return strdup("pipe");
	c.pid = fork();
	if (c.pid == 0) {
		char uopts[3 * PATH_MAX + 16];

		snprintf(uopts, sizeof(uopts), "%s,userxattr", opts);
		if (as_user && !unprivileged_namespace()) {
			child_says(fds[1], "userns", errno);
			_exit(3);
		}
		if (!as_user && unshare(CLONE_NEWNS)) {
			child_says(fds[1], "unshare", errno);
			_exit(3);
		}
		if (mount("overlay", "/tmp/ovl-merged", "overlay", 0, as_user ? uopts : opts)) {
			child_says(fds[1], "mount", errno);
			_exit(3);
		}
		if (!as_user)
			child_says(fds[1], "root", 1);
		child_says(fds[1], "create",
			   errno_of(open("/tmp/ovl-merged/ovl" BAD, O_CREAT | O_WRONLY, 0644)));
		child_says(fds[1], "copyup",
			   errno_of(open("/tmp/ovl-merged/old" BAD, O_WRONLY)));
		child_says(fds[1], "whiteout", errno_of(unlink("/tmp/ovl-merged/old" BAD)));
		child_says(fds[1], "mkdir", errno_of(mkdir("/tmp/ovl-merged/dir" BAD, 0755)));
		child_says(fds[1], "valid",
			   errno_of(open("/tmp/ovl-merged/fine", O_CREAT | O_WRONLY, 0644)));
		_exit(0);
	}
	close(fds[1]);
	c.fd = fds[0];
	return child_end(&c);
}

/*
 * overlayfs with its upper layer on the guarded tmpfs @guarded, mounted
 * by uid 1000 in a user namespace (by root before 5.11, which has no
 * unprivileged overlayfs): the overlay's own device is not guarded, the
 * names land on @guarded all the same. A new file, a copy-up and a
 * whiteout of a lower file with an invalid name, a directory: each
 * refused, nothing invalid in the upper layer; a valid name made.
 */
static void overlay_routes(const char *guarded, const char *out_of)
{
	char up[PATH_MAX], work[PATH_MAX], opts[3 * PATH_MAX];
	char *said;
	int fd;

	snprintf(up, sizeof(up), "%s/ovl-up", guarded);
	snprintf(work, sizeof(work), "%s/ovl-work", guarded);
	mkdir(up, 0755);
	mkdir(work, 0755);
	chown(up, 1000, 1000);
	chown(work, 1000, 1000);
	mkdir("/tmp/ovl-lower", 0755);
	mount("tmpfs", "/tmp/ovl-lower", "tmpfs", 0, "size=1m");
	fd = open("/tmp/ovl-lower/old" BAD, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	chown("/tmp/ovl-lower/old" BAD, 1000, 1000);
	chown("/tmp/ovl-lower", 1000, 1000);
	mkdir("/tmp/ovl-merged", 0777);
	snprintf(opts, sizeof(opts), "lowerdir=/tmp/ovl-lower,upperdir=%s,workdir=%s",
		 up, work);
	said = overlay_child(opts, true);
	if (child_result(said, "mount") >= 0 || child_result(said, "userns") >= 0) {
		/* no unprivileged overlayfs (before 5.11): root mounts it */
		printf("# overlayfs as uid 1000: %s\n", said);
		free(said);
		said = overlay_child(opts, false);
	}
	printf("# overlayfs (%s): %s\n", out_of, said);
	tap_result(child_result(said, "create") == EILSEQ &&
		   child_result(said, "copyup") == EILSEQ &&
		   child_result(said, "whiteout") == EILSEQ &&
		   child_result(said, "mkdir") == EILSEQ &&
		   child_result(said, "valid") == 0 && only_valid_names(up),
		   "%s: overlayfs with its upper layer on the guarded file system%s: a new file, a copy-up, a whiteout and a directory with invalid names refused, a valid name made",
		   out_of, child_result(said, "root") == 1 ?
		   " (mounted by root: no unprivileged overlayfs here)" : ", mounted by uid 1000");
	free(said);
	umount2("/tmp/ovl-lower", MNT_DETACH);
	system("rm -rf /tmp/un/ovl-up /tmp/un/ovl-work");
}

/*
 * mqueue names: checked where every file system is (mq_open() makes its
 * name through the inode hook); unchecked under --mount, but a whiteout
 * that would carry one into the guarded @guarded through overlayfs is
 * refused.
 */
static void mqueue_routes(const char *guarded, bool everywhere)
{
	char up[PATH_MAX], work[PATH_MAX], opts[3 * PATH_MAX];
	int fds[2];
	struct child c;
	char *said;

	snprintf(up, sizeof(up), "%s/mq-up", guarded);
	snprintf(work, sizeof(work), "%s/mq-work", guarded);
	mkdir(up, 0755);
	mkdir(work, 0755);
	mkdir("/tmp/mq", 0755);
	mkdir("/tmp/mq-merged", 0755);
	snprintf(opts, sizeof(opts), "lowerdir=/tmp/mq,upperdir=%s,workdir=%s", up, work);
	if (pipe(fds))
		return;
	c.pid = fork();
	if (c.pid == 0) {
		int q;

		if (unshare(CLONE_NEWNS | CLONE_NEWIPC) ||
		    mount("mqueue", "/tmp/mq", "mqueue", 0, NULL))
			_exit(3);
		q = syscall(SYS_mq_open, "mq" BAD, O_CREAT | O_RDWR, 0600, NULL);
		child_says(fds[1], "mq_open", errno_of(q));
		if (q >= 0 && !mount("overlay", "/tmp/mq-merged", "overlay", 0, opts))
			child_says(fds[1], "whiteout", errno_of(unlink("/tmp/mq-merged/mq" BAD)));
		_exit(0);
	}
	close(fds[1]);
	c.fd = fds[0];
	said = child_end(&c);
	printf("# mqueue: %s\n", said);
	if (everywhere)
		tap_result(child_result(said, "mq_open") == EILSEQ,
			   "every file system: mq_open() of an invalid name is refused");
	else
		tap_result(child_result(said, "mq_open") == 0 &&
			   child_result(said, "whiteout") == EILSEQ && only_valid_names(up),
			   "--mount: an mqueue name is not checked, but overlayfs cannot white it out into the guarded file system");
	free(said);
	system("rm -rf /tmp/un/mq-up /tmp/un/mq-work");
}

/*
 * Fork a child that is uid 1000, with no groups, and says its results
 * with child_says() on @fd (the write end); @dir, if any, is made first,
 * for everyone to write in. true in the child, false in the parent, which
 * reads them from c->fd (no child if c->pid < 0).
 */
static bool user_child(struct child *c, const char *dir, int *fd)
{
	int fds[2];

	if (dir) {
		mkdir(dir, 0777);
		chmod(dir, 0777);
	}
	c->pid = -1;
	c->fd = -1;
	if (pipe(fds))
		return false;
	c->pid = fork();
	if (c->pid == 0) {
		close(fds[0]);
		*fd = fds[1];
		if (setgroups(0, NULL) || setresgid(1000, 1000, 1000) ||
		    setresuid(1000, 1000, 1000))
			_exit(3);
		return true;
	}
	close(fds[1]);
	c->fd = fds[0];
	return false;
}

/* --- btrfs --------------------------------------------------------------- */

/* Attach @image to a free loop device; its path in @dev, or false. */
static bool loop_attach(const char *image, char *dev, size_t size)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	int n = ctl >= 0 ? ioctl(ctl, LOOP_CTL_GET_FREE) : -1;
	int img = open(image, O_RDWR | O_CLOEXEC), fd;
	bool ok;

	if (ctl >= 0)
		close(ctl);
	if (n < 0 || img < 0) {
		if (img >= 0)
			close(img);
		return false;
	}
	snprintf(dev, size, "/dev/loop%d", n);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	ok = fd >= 0 && !ioctl(fd, LOOP_SET_FD, img);
	if (fd >= 0)
		close(fd);
	close(img);
	return ok;
}

/* btrfs's subvolume and snapshot ioctls on the folder @dir; the errno */
static int btrfs_make(const char *dir, unsigned long cmd, const char *name,
		      const char *source)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), src = -1, err = 0;

	if (fd < 0)
		return errno;
	if (source) {
		src = open(source, O_RDONLY | O_DIRECTORY);
		if (src < 0) {
			err = errno;
			close(fd);
			return err;
		}
	}
	if (cmd == BTRFS_IOC_SUBVOL_CREATE || cmd == BTRFS_IOC_SNAP_CREATE) {
		struct btrfs_ioctl_vol_args a = { .fd = src };

		snprintf(a.name, sizeof(a.name), "%s", name);
		err = ioctl(fd, cmd, &a) ? errno : 0;
	} else {
		struct btrfs_ioctl_vol_args_v2 a = { .fd = src };

		snprintf(a.name, sizeof(a.name), "%s", name);
		err = ioctl(fd, cmd, &a) ? errno : 0;
	}
	if (src >= 0)
		close(src);
	close(fd);
	return err;
}

/*
 * btrfs makes subvolumes and snapshots without the hooks that see names:
 * as uid 1000, in a folder of a btrfs image, each ioctl that names one is
 * refused with an invalid name and makes one with a valid name; a
 * snapshot of the user's own subvolume too.
 */
static void btrfs_routes(const char *mnt, const char *sub, const char *what)
{
	static const struct {
		unsigned long cmd;
		const char *word;
		bool snapshot;
	} ioctls[] = {
		{ BTRFS_IOC_SUBVOL_CREATE, "SUBVOL_CREATE", false },
		{ BTRFS_IOC_SUBVOL_CREATE_V2, "SUBVOL_CREATE_V2", false },
		{ BTRFS_IOC_SNAP_CREATE, "SNAP_CREATE", true },
		{ BTRFS_IOC_SNAP_CREATE_V2, "SNAP_CREATE_V2", true },
	};
	char dir[PATH_MAX], own[PATH_MAX];
	int fds[2];
	struct child c;
	unsigned int i;
	char *said;

	snprintf(dir, sizeof(dir), "%s/%s", mnt, sub);
	snprintf(own, sizeof(own), "%s/%s/own", mnt, sub);
	if (user_child(&c, dir, &fds[1])) {
		char name[64];

		child_says(fds[1], "own", btrfs_make(dir, BTRFS_IOC_SUBVOL_CREATE, "own", NULL));
		/* refused by the file system's permissions first: nothing stays */
		child_says(fds[1], "denied",
			   btrfs_make(mnt, BTRFS_IOC_SUBVOL_CREATE, "no" BAD, NULL));
		child_says(fds[1], "then-open", errno_of(close(open(mnt, O_RDONLY))));
		for (i = 0; i < ARRAY_SIZE(ioctls); i++) {
			const char *src = ioctls[i].snapshot ? own : NULL;

			snprintf(name, sizeof(name), "bad%u" BAD, i);
			child_says(fds[1], ioctls[i].word,
				   btrfs_make(dir, ioctls[i].cmd, name, src));
			snprintf(name, sizeof(name), "fine%u", i);
			snprintf(name + 32, 32, "%s-valid", ioctls[i].word);
			child_says(fds[1], name + 32, btrfs_make(dir, ioctls[i].cmd, name, src));
		}
		_exit(0);
	}
	said = child_end(&c);
	printf("# btrfs (%s): %s\n", what, said);
	{
		bool ok = child_result(said, "own") == 0 &&
			  child_result(said, "denied") == EACCES &&
			  child_result(said, "then-open") == 0;
		char valid[64];

		for (i = 0; i < ARRAY_SIZE(ioctls); i++) {
			snprintf(valid, sizeof(valid), "%s-valid", ioctls[i].word);
			ok &= child_result(said, valid) == 0 &&
			      child_result(said, ioctls[i].word) == EILSEQ;
		}
		tap_result(ok && only_valid_names(dir),
			   "%s: btrfs subvolume and snapshot ioctls (v1 and v2) with invalid names refused for uid 1000, valid ones made",
			   what);
	}
	free(said);
}

/* --- ocfs2 --------------------------------------------------------------- */

/* fs/ocfs2/ocfs2_ioctl.h, which is not in the kernel's uapi headers */
struct reflink_arguments {
	__u64 old_path;
	__u64 new_path;
	__u64 preserve;
};

#define OCFS2_IOC_REFLINK	_IOW('o', 4, struct reflink_arguments)

/* ocfs2's reflink of @from as @to, through an ioctl on the folder @dir */
static int reflink(const char *dir, const char *from, const char *to, int preserve)
{
	struct reflink_arguments a = {
		.old_path = (unsigned long)from,
		.new_path = (unsigned long)to,
		.preserve = preserve,
	};
	int fd = open(dir, O_RDONLY | O_DIRECTORY), err;

	if (fd < 0)
		return errno;
	err = ioctl(fd, OCFS2_IOC_REFLINK, &a) ? errno : 0;
	close(fd);
	return err;
}

/*
 * ocfs2's reflink ioctl makes its name with no inode hook: as uid 1000,
 * in a folder of an ocfs2 image, a reflink of the user's own file is
 * refused with an invalid name and made with a valid one, the security
 * attributes preserved or not.
 */
static void ocfs2_routes(const char *mnt, const char *sub, const char *what)
{
	char dir[PATH_MAX], own[PATH_MAX + 8];
	int fds[2];
	struct child c;
	char *said;
	bool ok;

	snprintf(dir, sizeof(dir), "%s/%s", mnt, sub);
	snprintf(own, sizeof(own), "%s/own", dir);
	if (user_child(&c, dir, &fds[1])) {
		char to[PATH_MAX + 32], word[32];
		int fd, preserve;

		fd = open(own, O_CREAT | O_WRONLY, 0644);
		child_says(fds[1], "own", fd >= 0 && write(fd, "data", 4) == 4 ? 0 : errno);
		if (fd >= 0)
			close(fd);
		for (preserve = 0; preserve <= 1; preserve++) {
			snprintf(to, sizeof(to), "%s/bad%d" BAD, dir, preserve);
			snprintf(word, sizeof(word), "preserve%d", preserve);
			child_says(fds[1], word, reflink(dir, own, to, preserve));
			snprintf(to, sizeof(to), "%s/fine%d", dir, preserve);
			snprintf(word, sizeof(word), "preserve%d-valid", preserve);
			child_says(fds[1], word, reflink(dir, own, to, preserve));
		}
		/* one that fails before its lookup leaves nothing behind */
		snprintf(to, sizeof(to), "%s/never", dir);
		child_says(fds[1], "failed", reflink(dir, "/nonexistent", to, 0));
		snprintf(to, sizeof(to), "%s/after", dir);
		child_says(fds[1], "after-valid", errno_of(mkdir(to, 0755)));
		_exit(0);
	}
	said = child_end(&c);
	printf("# ocfs2 (%s): %s\n", what, said);
	ok = child_result(said, "own") == 0 &&
	     child_result(said, "failed") == ENOENT &&
	     child_result(said, "after-valid") == 0 &&
	     child_result(said, "preserve0") == EILSEQ &&
	     child_result(said, "preserve1") == EILSEQ &&
	     child_result(said, "preserve0-valid") == 0 &&
	     child_result(said, "preserve1-valid") == 0;
	tap_result(ok && only_valid_names(dir),
		   "%s: ocfs2 reflinks (preserve 0 and 1) with invalid names refused for uid 1000, valid ones made; a failed one leaves no refusal behind",
		   what);
	free(said);
}

/* --- a second thread that rewrites the name -------------------------------- */

/* the byte the flipping thread flips between 'a' and 0xff, until told */
static char *flip_at;
static bool flipping;

static void *flip(void *unused)
{
	unsigned int n = 0;

	/*
	 * One write a turn: an emulator that switches CPUs between blocks
	 * of instructions leaves either value behind.
	 */
	while (__atomic_load_n(&flipping, __ATOMIC_RELAXED))
		__atomic_store_n(flip_at, n++ & 1 ? 'a' : (char)0xff, __ATOMIC_RELAXED);
	return NULL;
}

enum flipped { FLIP_SUBVOLUME, FLIP_SNAPSHOT, FLIP_REFLINK };

/*
 * The attack on a hook that reads the name from the caller: one thread
 * makes a subvolume, snapshot or reflink named "rNNNN" and a last byte
 * that a second thread flips between 'a' and 0xff, TRIES times. Each try
 * must end refused (EILSEQ) or made with 'a' (then removed again): no
 * invalid name is made. Both ends must have come, or the race was not run.
 */
#define TRIES	1000

static void flip_race(enum flipped kind, const char *dir, const char *source,
		      const char *what)
{
	static struct btrfs_ioctl_vol_args v1;
	static struct btrfs_ioctl_vol_args_v2 v2;
	static char to[PATH_MAX];
	unsigned int refused = 0, made = 0, other = 0, bad_made = 0, i;
	int fd = open(dir, O_RDONLY | O_DIRECTORY), src = -1, err = 0, last;
	char *name;
	pthread_t t;

	if (kind == FLIP_SNAPSHOT)
		src = open(source, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || (kind == FLIP_SNAPSHOT && src < 0)) {
		tap_result(false, "%s: open %s: %s", what, dir, strerror(errno));
		return;
	}
	v2.fd = src;
	name = kind == FLIP_SUBVOLUME ? v1.name : kind == FLIP_SNAPSHOT ? v2.name : to;
	last = snprintf(name, kind == FLIP_REFLINK ? sizeof(to) : sizeof(v1.name), "%s%sr0000a",
			kind == FLIP_REFLINK ? dir : "", kind == FLIP_REFLINK ? "/" : "") - 1;
	flip_at = name + last;
	__atomic_store_n(&flipping, true, __ATOMIC_RELAXED);
	if (pthread_create(&t, NULL, flip, NULL)) {
		tap_result(false, "%s: start the flipping thread", what);
		close(fd);
		return;
	}
	for (i = 0; i < TRIES; i++) {
		char *num = name + last - 4, good[PATH_MAX + 16], bad[PATH_MAX + 16];

		/* (the flipper writes only the last byte) */
		num[0] = '0' + i / 1000 % 10;
		num[1] = '0' + i / 100 % 10;
		num[2] = '0' + i / 10 % 10;
		num[3] = '0' + i % 10;
		if (kind == FLIP_REFLINK)
			err = reflink(dir, source, to, 0);
		else if (kind == FLIP_SUBVOLUME)
			err = ioctl(fd, BTRFS_IOC_SUBVOL_CREATE, &v1) ? errno : 0;
		else
			err = ioctl(fd, BTRFS_IOC_SNAP_CREATE_V2, &v2) ? errno : 0;
		if (err == EILSEQ) {
			refused++;
			continue;
		}
		if (err) {
			if (!other++)
				printf("# %s: try %u: %s\n", what, i, strerror(err));
			continue;
		}
		made++;
		/* remove what was made, and count it if it is invalid */
		snprintf(good, sizeof(good), "%s/r%.4sa", dir, num);
		snprintf(bad, sizeof(bad), "%s/r%.4s\xff", dir, num);
		if (!access(bad, F_OK))
			bad_made++;
		if (kind == FLIP_REFLINK) {
			unlink(good);
			unlink(bad);
		} else {
			struct btrfs_ioctl_vol_args d = { 0 };

			snprintf(d.name, sizeof(d.name), "r%.4sa", num);
			ioctl(fd, BTRFS_IOC_SNAP_DESTROY, &d);
			snprintf(d.name, sizeof(d.name), "r%.4s\xff", num);
			ioctl(fd, BTRFS_IOC_SNAP_DESTROY, &d);
		}
	}
	__atomic_store_n(&flipping, false, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	close(fd);
	if (src >= 0)
		close(src);
	tap_result(!bad_made && !other && refused && made && only_valid_names(dir),
		   "%s: a second thread flipping the name between 'a' and 0xff: no invalid name in %u tries (%u refused, %u made with 'a', %u invalid, %u other errors)",
		   what, TRIES, refused, made, bad_made, other);
}

/* --- the loader under load ------------------------------------------------ */

/* The count the loader's summary in @err gives as "N @words", or 0. */
static unsigned long long summary_count(const char *err, const char *words)
{
	const char *at = strstr(err, words);

	if (!at || at == err || at[-1] != ' ')
		return 0;
	for (at--; at > err && at[-1] >= '0' && at[-1] <= '9'; at--)
		;
	return strtoull(at, NULL, 10);
}

/* What the loader said as it stopped, for the log. */
static void show_summary(const char *err)
{
	static const char *const words[] = {
		"not printed", "cannot write", "stopping the policy",
	};
	const char *line;
	size_t len, i;

	for (line = err; *line; line += len + (line[len] == '\n')) {
		len = strcspn(line, "\n");
		for (i = 0; i < ARRAY_SIZE(words); i++) {
			if (memmem(line, len, words[i], strlen(words[i]))) {
				printf("# %.*s\n", (int)len, line);
				break;
			}
		}
	}
}

/* The whole lines (a report cut short has no newline) in @out with @op. */
static unsigned long long whole_reports(const char *out, const char *op)
{
	unsigned long long n = 0;
	const char *end;

	for (; (end = strchr(out, '\n')); out = end + 1)
		n += !!memmem(out, end - out, op, strlen(op));
	return n;
}

/*
 * Processes making invalid names as fast as they can while the loader is
 * told to stop: it must stop while they go on (it used to take reports
 * as long as they came, which with three of them took 16 s; here the
 * flood stops on its own after 30 s, and the loader must have exited
 * before), and every refusal made until it detached must be printed or
 * counted as not printed, none left out.
 */
static void flood_during_sigterm(const char *dir)
{
	const int flooders = 3;
	unsigned long long refusals = 0, printed = 0, unprinted, unwritten;
	struct timespec t0, t1;
	struct policy p;
	pid_t pids[3];
	int fds[2], i, status;
	char *out, *err, line[64];
	double took;
	bool ready;
	FILE *f;

	/* the flooders' stop flag, in memory they share; [1]: set by the
	 * watchdog, which ends the flood after 30 s
	 */
	int *over = mmap(NULL, 2 * sizeof(int), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t watchdog;

	if (over == MAP_FAILED || pipe(fds)) {
		tap_result(false, "SIGTERM during a flood: mmap or pipe: %s", strerror(errno));
		tap_result(false, "every refusal made until it detached: not tried");
		return;
	}
	ready = start_policy(&p, NULL, NULL);
	for (i = 0; i < flooders; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			unsigned long long n = 0;
			char path[PATH_MAX];

			snprintf(path, sizeof(path), "%s/flood%d" BAD, dir, i);
			while (!__atomic_load_n(over, __ATOMIC_RELAXED)) {
				if (!mkdir(path, 0755))
					rmdir(path);	/* (after the detach) */
				else if (errno == EILSEQ)
					n++;
			}
			dprintf(fds[1], "%llu\n", n);
			_exit(0);
		}
	}
	close(fds[1]);
	usleep(1500000);
	watchdog = fork();
	if (watchdog == 0) {
		/*
		 * A hang's bound, not a slow stop's: an emulated arm64
		 * beside CI's other guests has taken 31 s to stop.
		 */
		sleep(120);
		__atomic_store_n(&over[1], 1, __ATOMIC_RELAXED);
		__atomic_store_n(over, 1, __ATOMIC_RELAXED);
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	status = stop(&p, SIGTERM, &out, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	__atomic_store_n(over, 1, __ATOMIC_RELAXED);
	kill(watchdog, SIGKILL);
	waitpid(watchdog, NULL, 0);
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f))
		refusals += strtoull(line, NULL, 10);
	if (f)
		fclose(f);
	for (i = 0; i < flooders; i++)
		waitpid(pids[i], NULL, 0);
	printed = whole_reports(out, "op=mkdir");
	unprinted = summary_count(err, "reports not printed");
	unwritten = summary_count(err, "not written");
	printf("# %d processes flooding: stopped %.2f s after SIGTERM; %llu refusals, %s\n",
	       flooders, took, refusals, "printed and counted as not printed below");
	show_summary(err);
	tap_result(ready && status == 0 && !__atomic_load_n(&over[1], __ATOMIC_RELAXED),
		   "SIGTERM during a flood of refusals ends it while the flood goes on (%.2f s)",
		   took);
	tap_result(ready && refusals > 0 && printed + unprinted + unwritten == refusals,
		   "every refusal made until it detached is printed or counted as not printed (%llu = %llu + %llu + %llu)",
		   refusals, printed, unprinted, unwritten);
	munmap(over, 2 * sizeof(int));
	free(out);
	free(err);
}

/*
 * A reader that takes nothing (a pipe never read, a pager left stopped)
 * while the loader is blocked writing to it: SIGTERM must still end it
 * within seconds, and every refusal must still be printed (what the pipe
 * holds) or counted as not printed or not written. 2000 reports fill a
 * 64 KiB pipe three times over and fit in the ring buffer.
 */
static void stuck_reader_at_sigterm(const char *dir)
{
	const unsigned int made = 2000;
	unsigned long long refusals = 0, printed = 0, unprinted, unwritten;
	char *out = NULL, *err = NULL, path[PATH_MAX];
	struct timespec t0, t1;
	int status = -1, i;
	bool ready, ended = false;
	struct policy p;
	double took;

	ready = start_policy(&p, NULL, NULL);
	for (i = 0; ready && i < (int)made; i++) {
		snprintf(path, sizeof(path), "%s/stuck%d" BAD, dir, i);
		refusals += mkdir(path, 0755) && errno == EILSEQ;
	}
	if (!ready) {
		tap_result(false,
			   "SIGTERM ends it while blocked on a stuck reader (it did not start)");
		return;
	}
	usleep(300000);		/* for it to fill the pipe and block */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(p.pid, SIGTERM);
	/* it gives the reader 5 s, then detaches: 30 s is a hang */
	for (i = 0; i < 600 && !ended; i++) {
		ended = waitpid(p.pid, &status, WNOHANG) == p.pid;
		if (!ended)
			usleep(50000);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (!ended) {
		kill(p.pid, SIGKILL);
		waitpid(p.pid, &status, 0);
	}
	out = read_all(p.out);
	err = read_all(p.err);
	close(p.out);
	close(p.err);
	printed = whole_reports(out, "op=mkdir");
	unprinted = summary_count(err, "reports not printed");
	unwritten = summary_count(err, "not written");
	show_summary(err);
	tap_result(ready && ended && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "SIGTERM ends it while it is blocked writing to a reader that takes nothing (%.2f s)",
		   took);
	tap_result(ready && refusals == made && unwritten > 0 &&
		   printed + unprinted + unwritten == refusals,
		   "with that reader, every refusal is printed or counted as not printed or not written (%llu = %llu + %llu + %llu)",
		   refusals, printed, unprinted, unwritten);
	free(p.early);
	free(out);
	free(err);
}

/*
 * --mount with a mount whose mountinfo record is longer than 4 KiB, made
 * before the guarded one: its mount point is crafted so that the text
 * after the first 4095 bytes of its record reads like the guarded mount's
 * record with another device ("\v" is not escaped in mountinfo, and is
 * white space to scanf()). Reading records in 4 KiB pieces, the loader
 * guarded device 0:999, and invalid names were made on the mount asked
 * for. Makes both mounts; the parent folder's new name in @renamed.
 */
static bool long_mountinfo_record(char *renamed, size_t room)
{
	char path[PATH_MAX + 8], parent[PATH_MAX], payload[64];
	char *line = NULL;
	size_t size = 0, depth, i;
	long where = -1;
	struct statx stx;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/deep");
	mkdir(path, 0755);
	/* components of 200 bytes, to about 4 KiB */
	for (depth = 0; depth < 20; depth++) {
		size_t n = strlen(path);

		path[n] = '/';
		memset(path + n + 1, 'd', 200);
		path[n + 201] = '\0';
		mkdir(path, 0755);
	}
	snprintf(parent, sizeof(parent), "%s/p", path);
	mkdir(parent, 0755);
	snprintf(path, sizeof(path), "%s/m", parent);
	mkdir(path, 0755);
	mkdir("/tmp/g2", 0755);
	if (mount("tmpfs", path, "tmpfs", 0, "size=1m") ||
	    mount("tmpfs", "/tmp/g2", "tmpfs", 0, "size=1m") ||
	    statx(AT_FDCWD, "/tmp/g2", 0, STATX_MNT_ID, &stx)) {
		tap_result(false, "a mount at a 4 KiB path, and one to guard: %s", strerror(errno));
		return false;
	}
	/* where the deep mount's record puts its parent folder's name */
	f = fopen("/proc/self/mountinfo", "r");
	while (f && getline(&line, &size, f) > 0)
		if (strstr(line, "/dddd") && strstr(line, "/p/m ")) {
			where = (strstr(line, "/p/m ") - line) + 1;
			break;
		}
	if (f)
		fclose(f);
	free(line);
	/* the parent's new name puts the fake record at byte 4095 */
	snprintf(payload, sizeof(payload), "%llu\v1\v0:999\v", (unsigned long long)stx.stx_mnt_id);
	if (where < 0 || where > 4095) {
		tap_result(false, "the deep mount's record is where it was meant to be (%ld)",
			   where);
		return false;
	}
	snprintf(renamed, room, "%.*s", (int)(strlen(parent) - 1), parent);
	for (i = where; i < 4095; i++)
		strcat(renamed, "q");
	strcat(renamed, payload);
	if (rename(parent, renamed)) {
		tap_result(false, "rename the deep mount's parent: %s", strerror(errno));
		return false;
	}
	return true;
}

static void long_mountinfo_gone(const char *renamed)
{
	char path[PATH_MAX + 8];

	snprintf(path, sizeof(path), "%s/m", renamed);
	umount(path);
	umount("/tmp/g2");
	system("rm -rf /tmp/deep");
}

/* --- a policy that outlives its loader --------------------------------------- */

static int pin_run(const char *a1, const char *a2, const char *a3, char **out, char **err)
{
	const char *const args[] = { a1, a2, a3, NULL };

	return run_argv(args, out, err);
}

/*
 * A message longer than the loader's line buffer (a path of 5000 bytes
 * past PATH_MAX) goes out whole: the prefix, all of the path, the reason,
 * one newline.
 */
static void long_config_said_whole(void)
{
	char path[5001], want[5100], *out, *err;
	int status;

	memcpy(path, "/tmp/", 5);
	memset(path + 5, 'n', sizeof(path) - 6);
	for (size_t i = 200; i < sizeof(path) - 1; i += 200)
		path[i] = '/';	/* components within NAME_MAX */
	path[sizeof(path) - 1] = '\0';
	snprintf(want, sizeof(want), "utf8names: %s: %s\n", path, strerror(ENAMETOOLONG));
	status = pin_run("--pin", "--config", path, &out, &err);
	tap_result(status == 2 && err && !strcmp(err, want),
		   "--config with a path of 5000 bytes: exit 2, one whole line naming it (%d, %zu of %zu bytes)",
		   status, err ? strlen(err) : 0, strlen(want));
	free(out);
	free(err);
}

/*
 * --pin leaves the policy enforcing after the loader exits; --status says
 * what it does; --follow prints its refusals and may come and go (killed
 * or not) while it stays; the module cannot go meanwhile; --detach ends
 * it, and then nothing is pinned.
 */
static void detach_at_exit(void)
{
	if (!access("/sys/fs/bpf/utf8names", F_OK)) {
		char *out, *err;

		pin_run("--detach", NULL, NULL, &out, &err);
		free(out);
		free(err);
	}
}

static void pinned_and_followed(void);

/*
 * bpffs where --pin pins, and a detach at exit: a policy pinned by a test
 * that failed half way must not stay. Before the first test that pins.
 */
static void ready_to_pin(void)
{
	mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700");
	atexit(detach_at_exit);
}

static void pinned_policy(const char *dir)
{
	struct policy p;
	char *out, *err, *out2, *err2, rm_err[64] = "";
	FILE *f;
	int status, refused;
	bool ready;

	ready_to_pin();
	f = fopen("/tmp/utf8names.conf", "w");
	if (f) {
		fprintf(f, "# the settings\nmode audit\n  mode enforce  # the last wins\n");
		fprintf(f, "\nmount %s\n", dir);
		fclose(f);
	}
	f = fopen("/tmp/bad.conf", "w");
	if (f) {
		fprintf(f, "mode enforce\nmount\n");
		fclose(f);
	}
	status = pin_run("--pin", "--config", "/tmp/bad.conf", &out, &err);
	tap_result(status == 2 && strstr(err, "/tmp/bad.conf:2:"),
		   "--config with a line it does not know exits 2 and names the line (%d)", status);
	free(out);
	free(err);
	long_config_said_whole();
	status = pin_run("--pin", "--config", "/tmp/utf8names.conf", &out, &err);
	tap_result(status == 0 && strstr(err, "pinned in /sys/fs/bpf/utf8names") &&
		   strstr(err, "does not check:"),
		   "--pin --config pins the policy and exits 0, having said what it covers (%d: %.200s)",
		   status, err);
	free(out);
	free(err);
	refused = make(dir, MKDIR, invalid[0].name) == EILSEQ &&
		  make(dir, CREATE, invalid[1].name) == EILSEQ;
	tap_result(refused, "with the loader gone, the pinned policy refuses invalid names");
	status = pin_run("--pin", NULL, NULL, &out, &err);
	tap_result(status == 1 && strstr(err, "pinned already"),
		   "--pin again exits 1: a policy is pinned already (%d)", status);
	free(out);
	free(err);
	status = pin_run("--status", NULL, NULL, &out, &err);
	tap_result(status == 0 && strstr(out, "mode=enforce") && strstr(out, dir) &&
		   strstr(out, "refused=2 ") && strstr(out, "since="),
		   "--status: mode, since when, the guarded mount, 2 refused (%d: %.200s)",
		   status, out);
	free(out);
	free(err);

	/* a reader comes, prints, and goes; another is killed */
	ready = start_policy(&p, "--follow", NULL);
	status = pin_run("--follow", NULL, NULL, &out2, &err2);
	tap_result(status == 1 && strstr(err2, "follows the pinned policy already"),
		   "a second --follow exits 1: one reader at a time (%d)", status);
	free(out2);
	free(err2);
	refused = make(dir, MKDIR, invalid[2].name) == EILSEQ;
	usleep(300000);
	status = stop(&p, SIGTERM, &out, &err);
	tap_result(ready && refused && status == 0 &&
		   printed_refusal(out, "mkdir", "euro\\xe2\\x82"),
		   "--follow prints the pinned policy's refusals until SIGTERM (%d)", status);
	free(out);
	free(err);
	ready = start_policy(&p, "--follow", NULL);
	stop(&p, SIGKILL, &out, &err);
	free(out);
	free(err);
	tap_result(ready && make(dir, SYMLINK_TARGET, invalid[3].name) == EILSEQ,
		   "a reader killed with SIGKILL leaves the policy enforcing");
	if (syscall(SYS_delete_module, "utf8val", O_NONBLOCK))
		snprintf(rm_err, sizeof(rm_err), "%s", strerror(errno));
	tap_result(*rm_err && (errno == EWOULDBLOCK || errno == EBUSY),
		   "utf8val.ko cannot be unloaded while a pinned policy uses it (%s)",
		   *rm_err ? rm_err : "it was unloaded");

	status = pin_run("--detach", NULL, NULL, &out, &err);
	tap_result(status == 0 && strstr(err, "detached") && !make(dir, MKDIR, invalid[0].name),
		   "--detach ends it: invalid names are made again (%d)", status);
	remove_made(dir, MKDIR, invalid[0].name);
	free(out);
	free(err);
	status = pin_run("--status", NULL, NULL, &out, &err);
	tap_result(status == 3 && strstr(err, "no policy is pinned"),
		   "--status with nothing pinned exits 3 and says so (%d)", status);
	free(out);
	free(err);
	pinned_and_followed();
}

/*
 * --pin --follow, as utf8names.service runs it: it tells systemd when the
 * policy enforces (NOTIFY_SOCKET), and while it follows it holds no lock,
 * so that --reload and --detach (ExecReload, ExecStop) do not wait for it.
 */
static void pinned_and_followed(void)
{
	const char *const args[] = { "--pin", "--follow", "--config", "/tmp/utf8names.conf", NULL };
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval wait = { .tv_sec = 30 };
	char said[64] = "", *out, *err;
	struct policy p;
	int sock, lock, status;
	ssize_t n = -1;
	bool ready, free_lock = false;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "/tmp/notify");
	unlink(addr.sun_path);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&addr, sizeof(addr)) ||
	    setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait))) {
		tap_result(false, "a socket for NOTIFY_SOCKET: %s", strerror(errno));
		return;
	}
	setenv("NOTIFY_SOCKET", addr.sun_path, 1);
	ready = start_argv(&p, args);
	unsetenv("NOTIFY_SOCKET");
	if (ready)
		n = recv(sock, said, sizeof(said) - 1, 0);
	close(sock);
	if (n > 0)
		said[n] = '\0';
	tap_result(ready && !strcmp(said, "READY=1"),
		   "--pin --follow tells NOTIFY_SOCKET READY=1 once the policy enforces (%s)",
		   n < 0 ? strerror(errno) : said);
	lock = open("/run/utf8names.lock", O_RDWR | O_CLOEXEC);
	if (lock >= 0) {
		free_lock = !flock(lock, LOCK_EX | LOCK_NB);
		close(lock);
	}
	tap_result(ready && free_lock,
		   "--pin --follow holds no lock once it follows: --reload and --detach need not wait");
	if (free_lock) {
		status = pin_run("--detach", NULL, NULL, &out, &err);
		tap_result(status == 0, "--detach while it follows: detached (%d)", status);
		free(out);
		free(err);
	} else {
		tap_result(false, "--detach while it follows: not tried, it would wait for ever");
	}
	status = stop(&p, SIGTERM, &out, &err);
	free(out);
	free(err);
}

/* write @text to the file @path; false if it could not */
static bool write_config(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(text, f) >= 0;

	return f && !fclose(f) && ok;
}

/*
 * Invalid names made in a folder by another process until told to stop,
 * counted (reload_in_place()), in memory both share: read and written
 * with atomics.
 */
struct flood {
	bool stop;
	unsigned int made, refused, tries;
};

#define SHARED_GET(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define SHARED_ADD(x)		__atomic_fetch_add(&(x), 1, __ATOMIC_SEQ_CST)

static pid_t start_flood(struct flood *fl, const char *dir)
{
	pid_t pid = fork();

	if (pid == 0) {
		char path[PATH_MAX];

		while (!SHARED_GET(fl->stop)) {
			snprintf(path, sizeof(path), "%s/flood%u" BAD, dir, SHARED_ADD(fl->tries));
			if (!mkdir(path, 0755)) {
				SHARED_ADD(fl->made);
				rmdir(path);
			} else if (errno == EILSEQ) {
				SHARED_ADD(fl->refused);
			}
		}
		_exit(0);
	}
	/* (until it has tried a few, the reload would not be during it) */
	while (pid > 0 && SHARED_GET(fl->tries) < 20)
		usleep(1000);
	return pid;
}

/* Tell the flood to stop, and wait for it. */
static void stop_flood(struct flood *fl, pid_t pid)
{
	__atomic_store_n(&fl->stop, true, __ATOMIC_SEQ_CST);
	waitpid(pid, NULL, 0);
}

/*
 * --reload gives the pinned policy new settings in place: a file system
 * added is guarded, audit mode taken and left, and invalid names made
 * all the while on a file system guarded before and after are every one
 * refused: no gap.
 */
static void reload_in_place(const char *dir, const char *other)
{
	struct flood *fl = mmap(NULL, sizeof(*fl), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char conf[256], *out, *err;
	int status, reloaded;
	pid_t flooder;
	bool made;

	snprintf(conf, sizeof(conf), "mount %s\n", dir);
	write_config("/tmp/reload.conf", conf);
	status = pin_run("--pin", "--config", "/tmp/reload.conf", &out, &err);
	free(out);
	free(err);
	made = !make(other, MKDIR, invalid[0].name);
	remove_made(other, MKDIR, invalid[0].name);
	if (fl == MAP_FAILED) {
		tap_result(false, "--reload: mmap: %s", strerror(errno));
		return;
	}
	memset(fl, 0, sizeof(*fl));
	flooder = start_flood(fl, dir);
	snprintf(conf, sizeof(conf), "mount %s\nmount %s\n", dir, other);
	write_config("/tmp/reload.conf", conf);
	reloaded = pin_run("--reload", "--config", "/tmp/reload.conf", &out, &err);
	free(out);
	free(err);
	usleep(100000);
	stop_flood(fl, flooder);
	tap_result(!status && made && !reloaded && !fl->made && fl->refused > 20 &&
		   make(other, MKDIR, invalid[1].name) == EILSEQ,
		   "--reload --config guards a file system more, while %u invalid names made in one guarded before are every one refused (%u made; pinned %d, reloaded %d)",
		   fl->refused, fl->made, status, reloaded);
	status = pin_run("--status", NULL, NULL, &out, &err);
	tap_result(!status && strstr(out, dir) && strstr(out, other) && strstr(out, "mode=enforce"),
		   "--status after --reload names both file systems (%d: %.200s)", status, out);
	free(out);
	free(err);

	memset(fl, 0, sizeof(*fl));
	flooder = start_flood(fl, dir);
	snprintf(conf, sizeof(conf), "mode audit\nmount %s\n", dir);
	write_config("/tmp/reload.conf", conf);
	reloaded = pin_run("--reload", "--config", "/tmp/reload.conf", &out, &err);
	free(out);
	free(err);
	stop_flood(fl, flooder);
	made = !make(dir, MKDIR, invalid[2].name) && !make(other, MKDIR, invalid[2].name);
	remove_made(dir, MKDIR, invalid[2].name);
	remove_made(other, MKDIR, invalid[2].name);
	status = pin_run("--status", NULL, NULL, &out, &err);
	tap_result(!reloaded && made && !status && strstr(out, "mode=audit"),
		   "--reload into audit mode lets invalid names be made, and --status says so (%d: %.100s)",
		   reloaded, out);
	free(out);
	free(err);
	reloaded = run_args("--reload", "--audit", &err);
	free(err);
	status = pin_run("--detach", NULL, NULL, &out, &err);
	free(out);
	free(err);
	reloaded = pin_run("--reload", NULL, NULL, &out, &err);
	tap_result(!status && reloaded == 3 && strstr(err, "no policy is pinned"),
		   "--reload with nothing pinned exits 3 and says so (%d)", reloaded);
	free(out);
	free(err);
	munmap(fl, sizeof(*fl));
}

/*
 * A policy pinned only in part (a --pin killed before its last link was
 * pinned: here, a link's pin removed) is not whole: --status exits 1 and
 * says so, and --pin replaces it with a whole one, no gap.
 */
static void partly_pinned(const char *dir)
{
	char *out, *err;
	int pinned, asked, again;

	pinned = pin_run("--pin", "--mount", dir, &out, &err);
	free(out);
	free(err);
	unlink("/sys/fs/bpf/utf8names/link-0");
	asked = pin_run("--status", NULL, NULL, &out, &err);
	tap_result(!pinned && asked == 1 && strstr(err, "not whole"),
		   "--status of a policy with a link's pin gone exits 1: not whole (%d: %.200s)",
		   asked, err);
	free(out);
	free(err);
	again = pin_run("--pin", "--mount", dir, &out, &err);
	free(out);
	free(err);
	asked = pin_run("--status", NULL, NULL, &out, &err);
	tap_result(!again && !asked && make(dir, MKDIR, invalid[3].name) == EILSEQ,
		   "--pin replaces it with a whole policy (%d, then --status %d)", again, asked);
	free(out);
	free(err);
	pin_run("--detach", NULL, NULL, &out, &err);
	free(out);
	free(err);
}

/* Policies a --pin moved aside and did not end (utf8names-new-*) */
static int leftovers(void)
{
	DIR *d = opendir("/sys/fs/bpf");
	struct dirent *ent;
	int n = 0;

	while (d && (ent = readdir(d)))
		n += !strncmp(ent->d_name, "utf8names-new-", 14);
	if (d)
		closedir(d);
	return n;
}

/*
 * Make the pinned policy look as one another build of the loader pinned
 * (an upgrade of the package, from the loader's side): change its object
 * id, the last 8 bytes of its state (policy.c keeps it there). 0, or
 * a negative errno.
 */
static int pose_as_another_build(void)
{
	const char *path = "/sys/fs/bpf/utf8names/state";
	struct bpf_map_info info = { 0 };
	union bpf_attr attr;
	unsigned char *value;
	int fd, i;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (unsigned long)path;
	fd = syscall(__NR_bpf, BPF_OBJ_GET, &attr, sizeof(attr));
	if (fd < 0)
		return -errno;
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (unsigned long)&info;
	if (syscall(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &attr, sizeof(attr))) {
		close(fd);
		return -errno;
	}
	if (info.value_size < 8) {
		close(fd);
		return -EINVAL;
	}
	value = mmap(NULL, info.value_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (value == MAP_FAILED)
		return -errno;
	for (i = 1; i <= 8; i++)
		value[info.value_size - i] ^= 0x5a;
	munmap(value, info.value_size);
	return 0;
}

/*
 * A policy pinned by another build of the loader (before a package
 * upgrade) may lay out its maps otherwise: --status, --reload and
 * --follow say so and touch nothing, it keeps enforcing meanwhile, and
 * --pin (what utf8names.service runs then) replaces it while invalid
 * names made all the while are every one refused: no gap.
 */
static void another_build_pinned(const char *dir)
{
	struct flood *fl = mmap(NULL, sizeof(*fl), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int pinned, posed, asked, reloaded, followed, again;
	struct policy p;
	char *out, *err;
	pid_t flooder;
	bool said;

	if (fl == MAP_FAILED) {
		tap_result(false, "another build's policy: mmap: %s", strerror(errno));
		return;
	}
	pinned = pin_run("--pin", "--mount", dir, &out, &err);
	free(out);
	free(err);
	posed = pose_as_another_build();
	asked = pin_run("--status", NULL, NULL, &out, &err);
	said = strstr(err, "another build") && strstr(err, "--pin replaces it");
	free(out);
	free(err);
	reloaded = pin_run("--reload", "--audit", NULL, &out, &err);
	said = said && strstr(err, "another build");
	free(out);
	free(err);
	/* (one that follows is stopped: 0) */
	start_policy(&p, "--follow", NULL);
	followed = stop(&p, SIGTERM, &out, &err);
	said = said && strstr(err, "another build");
	free(out);
	free(err);
	tap_result(!pinned && !posed && asked == 1 && reloaded == 1 && followed == 1 && said &&
		   make(dir, MKDIR, invalid[4].name) == EILSEQ,
		   "a policy another build pinned: --status, --reload and --follow exit 1 and say so; it still refuses (pin %d, pose %s, %d %d %d)",
		   pinned, strerror(-posed), asked, reloaded, followed);

	memset(fl, 0, sizeof(*fl));
	flooder = start_flood(fl, dir);
	again = pin_run("--pin", "--mount", dir, &out, &err);
	free(out);
	free(err);
	usleep(100000);
	stop_flood(fl, flooder);
	asked = pin_run("--status", NULL, NULL, &out, &err);
	free(out);
	free(err);
	tap_result(!again && !asked && !fl->made && fl->refused > 20 &&
		   make(dir, MKDIR, invalid[5].name) == EILSEQ && !leftovers(),
		   "--pin replaces it while %u invalid names are every one refused, and ends it (%u made; --pin %d, then --status %d; %d left in /sys/fs/bpf)",
		   fl->refused, fl->made, again, asked, leftovers());
	pin_run("--detach", NULL, NULL, &out, &err);
	free(out);
	free(err);
	munmap(fl, sizeof(*fl));
}

/*
 * On a bpffs mounted without mode= (every user may write in it), uid 1000
 * makes /sys/fs/bpf/utf8names first: --status says no policy is pinned,
 * and --pin pins nonetheless, in a folder of root's alone.
 */
static void pin_folder_taken(const char *dir)
{
	struct stat st = { 0 };
	int fds[2], asked, pinned;
	struct child c;
	char *said, *out, *err;

	umount2("/sys/fs/bpf", MNT_DETACH);
	mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL);
	if (user_child(&c, NULL, &fds[1])) {
		child_says(fds[1], "mkdir", errno_of(mkdir("/sys/fs/bpf/utf8names", 0777)));
		/* (deeper than any removal would go) */
		{
			char deep[PATH_MAX] = "/sys/fs/bpf/utf8names";
			int level;

			for (level = 0; level < 100; level++) {
				strcat(deep, "/a");
				if (mkdir(deep, 0777))
					break;
			}
			child_says(fds[1], "levels", level);
		}
		_exit(0);
	}
	said = child_end(&c);
	asked = pin_run("--status", NULL, NULL, &out, &err);
	tap_result(child_result(said, "mkdir") == 0 && asked == 3 &&
		   strstr(err, "uid 1000's"),
		   "--status with /sys/fs/bpf/utf8names made by uid 1000 exits 3: not utf8names' (%s; %d)",
		   said, asked);
	free(out);
	free(err);
	pinned = pin_run("--pin", "--mount", dir, &out, &err);
	lstat("/sys/fs/bpf/utf8names", &st);
	tap_result(!pinned && strstr(err, "which uid 1000 made") && !st.st_uid &&
		   (st.st_mode & 07777) == 0700 && make(dir, MKDIR, invalid[4].name) == EILSEQ,
		   "--pin moves the folder uid 1000 made (100 deep) away and pins in a 0700 folder of root's (%d: %.300s)",
		   pinned, err);
	free(out);
	free(err);
	free(said);
	pin_run("--detach", NULL, NULL, &out, &err);
	free(out);
	free(err);
	umount2("/sys/fs/bpf", MNT_DETACH);
	mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700");
}

static char btrfs_dev[64];	/* the loop device of the image */

/* The guest's btrfs image (scripts/guest/run), on /tmp/btr. */
static bool btrfs_image(void)
{
	const char *image = "/selftests/btrfs.img";
	char *dev = btrfs_dev;

	mkdir("/tmp/btr", 0755);
	if (!loop_attach(image, dev, sizeof(btrfs_dev)) ||
	    mount(dev, "/tmp/btr", "btrfs", 0, NULL)) {
		tap_result(false, "mount the btrfs image %s: %s", image, strerror(errno));
		return false;
	}
	return true;
}

static char ocfs2_dev[64];

/* The guest's ocfs2 image (scripts/guest/run), on /tmp/oc, a local mount. */
static bool ocfs2_image(void)
{
	const char *image = "/selftests/ocfs2.img";

	mkdir("/tmp/oc", 0755);
	if (!loop_attach(image, ocfs2_dev, sizeof(ocfs2_dev)) ||
	    mount(ocfs2_dev, "/tmp/oc", "ocfs2", 0, "heartbeat=none")) {
		tap_result(false, "mount the ocfs2 image %s: %s", image, strerror(errno));
		return false;
	}
	chmod("/tmp/oc", 01777);
	return true;
}

static void loop_detach(const char *mnt, const char *dev)
{
	int fd;

	umount(mnt);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		ioctl(fd, LOOP_CLR_FD, 0);
		close(fd);
	}
}

/*
 * The routes through other file systems, in one policy that guards
 * /tmp/un, the btrfs and ocfs2 images and the mount /tmp/g2 behind a
 * crafted mountinfo record.
 */
static void other_routes(bool btrfs, bool ocfs2)
{
	const char *const args[] = { "--mount", "/tmp/un", "--mount", "/tmp/g2",
				     "--mount", btrfs ? "/tmp/btr" : "/tmp/un",
				     "--mount", ocfs2 ? "/tmp/oc" : "/tmp/un", NULL };
	char renamed[PATH_MAX + 8], *out, *err;
	struct policy p;
	bool ready, deep;
	int status;

	deep = long_mountinfo_record(renamed, sizeof(renamed));
	ready = start_argv(&p, args);
	overlay_routes("/tmp/un", "--mount");
	mqueue_routes("/tmp/un", false);
	if (btrfs)
		btrfs_routes("/tmp/btr", "one", "--mount");
	if (ocfs2)
		ocfs2_routes("/tmp/oc", "one", "--mount");
	if (deep)
		tap_result(make("/tmp/g2", MKDIR, invalid[0].name) == EILSEQ,
			   "--mount guards the mount asked for, whatever a longer mountinfo record before it holds");
	status = stop(&p, SIGTERM, &out, &err);
	tap_result(ready && status == 0 && printed_refusal(out, "create", "ovl" BAD_ESC) &&
		   printed_refusal(out, "rename", "old" BAD_ESC) &&
		   printed_refusal(out, "mkdir", "dir" BAD_ESC) &&
		   printed_refusal(out, "rename", "mq" BAD_ESC),
		   "--mount: the overlayfs and mqueue refusals are printed (%d)", status);
	if (btrfs)
		tap_result(printed_refusal(out, "subvolume", "bad0" BAD_ESC) &&
			   printed_refusal(out, "snapshot", "bad3" BAD_ESC),
			   "the btrfs refusals are printed as subvolume and snapshot");
	if (ocfs2)
		tap_result(printed_refusal(out, "reflink", "bad0" BAD_ESC) &&
			   printed_refusal(out, "reflink", "bad1" BAD_ESC),
			   "the ocfs2 refusals are printed as reflink");
	free(out);
	free(err);
	if (deep)
		long_mountinfo_gone(renamed);
}

static bool mounted_tmpfs(const char *dir)
{
	mkdir(dir, 0755);
	return !mount("tmpfs", dir, "tmpfs", 0, "size=4m");
}

/*
 * Whether this kernel must take the whole attack: scripts/guest/run
 * writes "yes" where the README's table says the policy runs here.
 */
static bool attack_expected(void)
{
	char word[8];

	first_line("/selftests/utf8names.expect", word, sizeof(word));
	return !strncmp(word, "yes", 3);
}

/*
 * Whether scripts/guest/run expects the loader to refuse to start because
 * the kernel cannot give a task BPF storage (the README's table says why:
 * riscv64's 7.2 on qemu's CPU).
 */
static bool storage_refusal_expected(void)
{
	char line[160];

	first_line("/selftests/utf8names.expect", line, sizeof(line));
	return strstr(line, "task storage");
}

/*
 * The suite stops short of the attack, because @why: a skip, or a failure
 * where the attack was expected.
 */
static int no_attack(const char *why)
{
	if (attack_expected())
		tap_result(false, "the whole attack, which the README's table says runs here: %s",
			   why);
	else
		tap_result(true, "the attack # SKIP %s", why);
	return tap_finish();
}

/*
 * The policy's modes, the routes to a guarded file system, signals,
 * races, floods, pinning and reloading. Each case starts the loader,
 * about 20 s a start on an emulated arm64, where --core keeps of them
 * only a detach under a flood (the architecture's trampolines rewritten
 * while hooks run) and a reload of the settings under one, and leaves
 * the rest, the same code on every architecture, to amd64.
 */
static void modes_routes_and_pinning(void)
{
	struct policy p;
	char *out, *err;
	bool ready, btrfs, ocfs2;
	int status, refused;

	/* Audit: allowed, reported. */
	ready = start_policy(&p, "--audit", NULL);
	invalid_names("/tmp/un", "audit", true);
	status = stop(&p, SIGINT, &out, &err);
	tap_result(ready && status == 0, "utf8names --audit runs until SIGINT (%d)", status);
	check_output("audit", out);
	free(out);
	free(err);

	/* One mount only: refused on it, made elsewhere. */
	ready = start_policy(&p, "--mount", "/tmp/un");
	valid_names_pass("/tmp/un", "--mount");
	invalid_names("/tmp/un", "--mount, on its file system", false);
	no_policy("/tmp/other", "--mount, on another file system");
	status = stop(&p, SIGTERM, &out, &err);
	tap_result(ready && status == 0, "utf8names --mount DIR runs until SIGTERM (%d)", status);
	check_output("--mount", out);
	free(out);
	free(err);

	/* Names that land on a guarded file system through another one. */
	btrfs = btrfs_image();
	ocfs2 = ocfs2_image();
	other_routes(btrfs, ocfs2);

	/* Signals that must not end the policy: a closed terminal, a reader gone. */
	ready = start_policy(&p, NULL, NULL);
	kill(p.pid, SIGHUP);
	close(p.out);		/* its reports now have nowhere to go */
	p.out = open("/dev/null", O_RDONLY);
	usleep(300000);
	refused = make("/tmp/un", MKDIR, invalid[1].name) == EILSEQ &&
		  make("/tmp/un", CREATE, invalid[2].name) == EILSEQ;
	status = stop(&p, SIGTERM, &out, &err);
	tap_result(ready && refused && status == 0 && strstr(err, "cannot write reports") &&
		   strstr(err, "2 not written"),
		   "SIGHUP and a reader gone (SIGPIPE) do not end it; it counts what it could not write (%d)",
		   status);
	free(out);
	free(err);
	mkdir("/tmp/un/sub", 0755);
	status = run_args("--mount", "/tmp/un/sub", &err);
	tap_result(status == 2 && strstr(err, "is not a mount point"),
		   "--mount with a directory that is not a mount point exits 2 (%d)", status);
	free(err);

	/* Racing tasks on one CPU, each with its own name; then routes. */
	ready = start_policy(&p, NULL, NULL);
	/* (the routes first: the race's reports may fill what is not read) */
	if (btrfs)
		btrfs_routes("/tmp/btr", "two", "every file system");
	if (ocfs2)
		ocfs2_routes("/tmp/oc", "two", "every file system");
	mqueue_routes("/tmp/un", true);
	race_verdicts("/tmp/un");
	status = stop(&p, SIGTERM, &out, &err);
	tap_result(ready && status == 0, "the policy ran through the race (%d)", status);
	tap_result(printed_refusal(out, "create", "mq" BAD_ESC),
		   "every file system: the mq_open() refusal is printed");
	if (btrfs)
		tap_result(printed_refusal(out, "subvolume", "bad1" BAD_ESC),
			   "every file system: the btrfs refusals are printed");
	free(out);
	free(err);
	/*
	 * The second-thread attack, as root (who can remove subvolumes), in
	 * a policy of its own: its thousands of reports are not read.
	 */
	ready = start_policy(&p, NULL, NULL);
	if (btrfs) {
		mkdir("/tmp/btr/race", 0755);
		btrfs_make("/tmp/btr/race", BTRFS_IOC_SUBVOL_CREATE, "src", NULL);
		flip_race(FLIP_SUBVOLUME, "/tmp/btr/race", NULL, "btrfs subvolumes");
		flip_race(FLIP_SNAPSHOT, "/tmp/btr/race", "/tmp/btr/race/src",
			  "btrfs snapshots");
	}
	if (ocfs2) {
		mkdir("/tmp/oc/race", 0755);
		close(open("/tmp/oc/race/src", O_CREAT | O_WRONLY, 0644));
		flip_race(FLIP_REFLINK, "/tmp/oc/race", "/tmp/oc/race/src", "ocfs2 reflinks");
	}
	status = stop(&p, SIGTERM, &out, &err);
	tap_result(ready && status == 0,
		   "the policy ran through the second-thread attack (%d)", status);
	free(out);
	free(err);
	if (btrfs)
		loop_detach("/tmp/btr", btrfs_dev);
	if (ocfs2)
		loop_detach("/tmp/oc", ocfs2_dev);

	flood_during_sigterm("/tmp/un");
	stuck_reader_at_sigterm("/tmp/un");
	pinned_policy("/tmp/un");
	reload_in_place("/tmp/un", "/tmp/other");
	partly_pinned("/tmp/un");
	another_build_pinned("/tmp/un");
	pin_folder_taken("/tmp/un");
}

int main(int argc, char **argv)
{
	struct policy p;
	char *out, *err, *long_name;
	bool ready, core_only = false;
	int status, i, refused;
	long delete_rc;

	if (argc > 1 && !strcmp(argv[1], "--core")) {
		core_only = true;
		argc--;
		argv++;
	}
	if (argc > 1)
		loader = argv[1];
	if (argc > 2)
		module = argv[2];
	printf("TAP version 13\n");
	if (access(loader, X_OK))
		return no_attack("no loader (built where the module has kfuncs, x86-64 and arm64)");
	if (access("/sys/kernel/btf/utf8val", F_OK))
		return no_attack("utf8val.ko has no BTF, so no kfuncs, here");

	/* Its errors first: securityfs is not mounted yet. */
	umount("/sys/kernel/security");
	status = run(NULL, &err);
	tap_result(status == 1 && strstr(err, "is securityfs mounted?"),
		   "without securityfs it exits 1 and says to mount it (%d: %.100s)", status, err);
	free(err);
	mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
	/* booted without the BPF LSM (scripts/guest/run SERIES nolsm) */
	if (!bpf_lsm_listed()) {
		status = run(NULL, &err);
		tap_result(status == 1 && strstr(err, "the BPF LSM is not active") &&
			   strstr(err, "lsm="),
			   "without the BPF LSM it exits 1 and names lsm= (%d: %.150s)",
			   status, err);
		free(err);
		return no_attack("the BPF LSM is not active");
	}
	/* arm64 attaches BPF to LSM hooks from 6.4 (BPF trampolines) */
	if (!can_attach_lsm()) {
		status = run(NULL, &err);
		tap_result(status == 1 && strstr(err, "cannot attach BPF programs to LSM hooks"),
			   "where the kernel cannot attach LSM programs, it exits 1 and says so (%d: %.150s)",
			   status, err);
		free(err);
		return no_attack("BPF cannot attach to LSM hooks here");
	}
	/*
	 * Where a task cannot be given its storage, every hook would refuse
	 * every new name (ENOMEM): the loader asks first, and attaches
	 * nothing.
	 */
	if (storage_refusal_expected()) {
		ready = start_policy(&p, NULL, NULL);
		status = stop(&p, ready ? SIGTERM : 0, &out, &err);
		refused = make("/tmp", CREATE, invalid[NR_INVALID - 1].name);
		remove_made("/tmp", CREATE, invalid[NR_INVALID - 1].name);
		/* (the hooks it attaches, said after they are) */
		tap_result(!ready && status == 1 &&
			   strstr(err, "cannot give a task BPF storage") &&
			   strstr(err, "would refuse every new name") &&
			   !strstr(err, "checks: every new name") && !refused,
			   "where the kernel cannot give a task BPF storage, it exits 1 and says so, attaching nothing (%d, then %s: %.200s)",
			   status, strerror(refused), err);
		free(out);
		free(err);
		return no_attack("the kernel cannot give a task BPF storage here");
	}
	status = run("--bogus", &err);
	tap_result(status == 2 && strstr(err, "usage: utf8names"),
		   "an unknown option exits 2 with the usage (%d)", status);
	free(err);

	if (!mounted_tmpfs("/tmp/un") || !mounted_tmpfs("/tmp/other")) {
		tap_result(false, "mount two tmpfs: %s", strerror(errno));
		return 1;
	}
	no_policy("/tmp/un", "before the policy");
	close(open("/tmp/un/old\xc0\xaf", O_CREAT | O_WRONLY, 0644));

	/* Enforcing, everywhere. */
	ready = start_policy(&p, NULL, NULL);
	tap_result(ready, "utf8names starts enforcing");
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
	tap_result(refused, "a 255-byte name and a 4000-byte target are checked whole");
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
		tap_result(bind_refused, "bind() of a unix socket to an invalid name is refused");
	}
	old_names_stay("/tmp/un");

	/* The module stays while the policy calls it. */
	delete_rc = syscall(SYS_delete_module, "utf8val", O_NONBLOCK);
	tap_result(delete_rc == -1 && (errno == EWOULDBLOCK || errno == EBUSY) &&
		   make("/tmp/un", MKDIR, invalid[0].name) == EILSEQ,
		   "utf8val.ko cannot be unloaded while the policy uses it, which still refuses (%s)",
		   delete_rc ? strerror(errno) : "it was unloaded");
	expect("refused", MKDIR, invalid[0].name);

	status = stop(&p, SIGTERM, &out, &err);
	tap_result(status == 0 && strstr(err, "detached"),
		   "SIGTERM detaches it, status 0 (%d)", status);
	check_output("enforcing", out);
	free(out);
	free(err);
	no_policy("/tmp/un", "after SIGTERM");

	if (core_only) {
		/*
		 * A detach while hooks run, which rewrites the
		 * architecture's trampolines; a reload of the settings
		 * (maps only) under a flood
		 */
		flood_during_sigterm("/tmp/un");
		ready_to_pin();
		reload_in_place("/tmp/un", "/tmp/other");
		tap_result(true, "%s # SKIP --core: %s",
			   "--audit, --mount, the other routes, signals, races, a stuck reader, pinning's other cases",
			   "on amd64 only in the default run (scripts/test.sh --all runs them here)");
	} else {
		modes_routes_and_pinning();
	}

	/* After the policy: the module goes, and the loader says it is gone. */
	for (i = 0; i < 300; i++) {
		delete_rc = syscall(SYS_delete_module, "utf8val", O_NONBLOCK);
		if (!delete_rc || errno != EWOULDBLOCK)
			break;
		/*
		 * programs are freed after an RCU grace period (sleepable
		 * ones, RCU tasks trace: seconds in an emulated arm64)
		 */
		usleep(100000);
	}
	tap_result(!delete_rc, "utf8val.ko unloads once the policy is gone (%s)",
		   delete_rc ? strerror(errno) : "unloaded");
	status = run(NULL, &err);
	tap_result(status == 1 && strstr(err, "utf8val.ko is not loaded"),
		   "without utf8val.ko it exits 1 and says so (%d: %.100s)", status, err);
	free(err);
	{
		int fd = open(module, O_RDONLY | O_CLOEXEC);

		bool loaded = fd >= 0 && !syscall(SYS_finit_module, fd, "", 0);

		tap_result(loaded, "utf8val.ko loads again (%s)",
			   loaded ? "loaded" : strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	umount("/tmp/un");
	umount("/tmp/other");
	return tap_finish();
}
