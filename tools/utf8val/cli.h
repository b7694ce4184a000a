/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * utf8val(1)'s parts: what they share. Each file owns one concern:
 *
 *	main.c		the program's flow
 *	options.c	the options, their checks and --help
 *	input.c		one input checked: chunks, positions, --context
 *	position.c	lines and columns of valid text
 *	map.c		a regular file's valid start checked through mappings
 *	operands.c	FILE operands and --files-from's names
 *	walk.c		-r and -R, --include, --exclude, --exclude-dir, --names
 *	pool.c		the threads: -r's workers (with -l or -q), map.c's helper
 *	report.c	what is printed about an input or a name
 *	replace.c	--replace's output
 */
#ifndef UTF8VAL_CLI_H
#define UTF8VAL_CLI_H

#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "utf8val.h"

static_assert(sizeof(off_t) == 8, "built with _FILE_OFFSET_BITS=64 (Makefile)");

#define CHUNK		(256u << 10)	/* read() size: fits in L2 */
#define FFFD_LEN	3
#define CONTEXT_MAX	64	/* --context=N: bytes each side, at most */
#define CONTEXT_DEFAULT	16
/* carried to the next read: an open character, or an error and its context */
#define CARRY_MAX	(2 * UTF8VAL_MAX_SEQ + CONTEXT_MAX)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define SKIPPED	(-1)	/* check_input(): not checked, not listed */

enum format { FORMAT_KV, FORMAT_GNU, FORMAT_JSON };

struct options {
	unsigned int flags;
	bool quiet, all, replace;
	bool list, invert, null, no_messages;	/* isutf8's -l, -i; -0, -s */
	unsigned long long max_errors;		/* with --all; 0: no limit */
	int recursive;			/* 0, 'r' (grep -r) or 'R' (-R) */
	bool skip_binary;		/* --binary-files=without-match */
	bool names;			/* --names: the names, not the contents */
	unsigned int context;		/* --context: bytes each side; 0: none */
	bool color;			/* --color: SGR escapes in kv and gnu */
	const char *include[32], *exclude[32], *exclude_dir[32];
	int nr_include, nr_exclude, nr_exclude_dir;
	enum format format;
	struct stat out;		/* standard output, if a regular file */
	bool out_is_file;
	const char *files_from;		/* --files-from's list, or NULL */
};

/* Where the text read so far ends, in lines and characters. */
struct position {
	unsigned long long line;	/* 1-based */
	unsigned long long column;	/* characters since the line began */
	unsigned long long display;	/* --format=gnu: GCC's display columns */
};

/* a thread beside this one (pool.c's helper_start()) */
struct helper {
	pthread_t thread;
	void *(*fn)(void *arg);
	void *arg;
	cpu_set_t cpus;		/* where it may run once it has started */
};

/* What checking an input needs of its own, one per thread. */
struct scratch {
	/* text read again for its lines, or read by a window (map.c) */
	unsigned char again[CHUNK];
	unsigned char buf[CARRY_MAX + CHUNK];
	bool hold;		/* keep a failure's message back ... */
	const char *held;	/* ... here, for the walk to say in order */
};

/* One input being checked. */
struct input {
	const char *name;		/* as given; NULL for standard input */
	const struct options *opt;
	struct scratch *scratch;
	int fd;
	off_t start;			/* file offset of byte 0, if @reread */
	off_t end;			/* a regular file's size when opened, or 0 */
	bool reread;			/* a regular file: lines can be counted later */
	struct position pos;		/* as of @tracked */
	unsigned long long tracked;	/* bytes the position covers */
	unsigned long long chars;	/* so far, each error counting as one */
	unsigned long long errors;
	struct utf8val_result first;	/* the first error; the verdict */
	bool stopped;			/* at an error (or a failure): no more */
	bool cut_short;			/* stopped with bytes left, or unseen */
	const char *failed;		/* why reading it failed, or NULL */
	/* --context: the bytes before the buffer, for an error at its start */
	unsigned char history[CONTEXT_MAX];
	size_t history_len;
};

/* --context: the text around an error, within its line. */
struct context {
	unsigned char before[CONTEXT_MAX];
	const unsigned char *bad, *after;
	size_t before_len, bad_len, after_len;
};

/*
 * A directory a walk holds open, for its files to be opened in it, by
 * the walk or a worker: the last to let go closes it.
 */
struct dir_ref {
	int fd;
	int refs;
};

extern const char *const progname;

static inline bool continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/* Whether each input gets a report: not with -q, --replace or -l. */
static inline bool reports(const struct options *opt)
{
	return !opt->quiet && !opt->replace && !opt->list;
}

/* options.c */
int parse_options(int argc, char **argv, struct options *opt);

/* position.c */
unsigned long long count_newlines(const unsigned char *s, size_t n);
const unsigned char *move_position(struct position *pos,
				   const unsigned char *s, size_t n);
unsigned long long display_column(const unsigned char *s, size_t n,
				  unsigned long long col);
size_t open_tail(const unsigned char *s, size_t n);

/* input.c */
int check_input(const char *name, int fd, const struct options *opt,
		struct scratch *scratch);
int check_and_list(const char *name, int fd, const struct options *opt);
bool is_output(const struct stat *st, const struct options *opt);
void input_failed(struct input *in, const char *why);
size_t keep_last(unsigned char *buf, size_t room, size_t len,
		 const unsigned char *s, size_t n);
void keep_history(struct input *in, const unsigned char *s, size_t n);

/* map.c */
void map_setup(void);
bool mappable(const struct input *in);
unsigned long long map_checked(struct input *in, unsigned char *buf,
			       size_t *have);

/* operands.c */
int check_operand(const char *name, const struct options *opt);
int check_names_from(const char *list, const struct options *opt);

/* walk.c */
int walk(const char *dir, const struct options *opt);
int check_file(const char *path, int fd, const struct options *opt);
int check_name(const char *path, const struct options *opt);
struct dir_ref *dir_get(struct dir_ref *dir);
void dir_put(struct dir_ref *dir);
int open_found(const struct dir_ref *dir, const char *name,
	       const struct options *opt);
bool replaced(int err);

/* pool.c */
bool pool_start(const struct options *opt);
void pool_add(const char *path, struct dir_ref *dir, const char *name,
	      const char *why, int rc);
void pool_drain(void);
int pool_end(void);
bool helper_start(struct helper *h, void *(*fn)(void *), void *arg,
		  const cpu_set_t *cpus);
void helper_join(struct helper *h);

/* report.c */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void print_version(void);
void die(const char *what) __attribute__((noreturn));
void say(const struct options *opt, const char *name, const char *why);
void report_error(struct input *in, const struct utf8val_result *err,
		  unsigned long long total, const struct context *ctx);
void report_end(const struct input *in, unsigned long long total);
void report_name(const struct options *opt, const char *path,
		 const struct utf8val_result *r);
void list(const char *name, int rc, const struct options *opt);
int finish_stdout(int status);

/* replace.c */
void out_put(const void *p, size_t n);
void out_flush(void);

#endif
