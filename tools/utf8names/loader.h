/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The parts of utf8names, the loader of the BPF LSM policy in
 * utf8names.bpf.c (which includes its own parts, kernel.bpf.h and
 * verdict.bpf.h), each a file of one concern:
 *
 *   main.c	the flow: options, signals, then one mode
 *   config.c	the command line and --config FILE, as settings
 *   modes.c	what each mode does: run, --pin, --status, --reload,
 *		--detach, --follow
 *   policy.c	the BPF object: loaded, attached, given settings, ended
 *   pins.c	the policy pinned in PIN_DIR, and the locks around it
 *   follow.c	the ring buffer read until a signal, and the counts
 *   report.c	every line it prints: reports, --status, messages
 */
#ifndef UTF8NAMES_LOADER_H
#define UTF8NAMES_LOADER_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <sys/stat.h>
#include <linux/types.h>

#include <bpf/libbpf.h>

#include "utf8val.h"
#include "utf8names.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* the most programs the object has (one link each) */
#define UTF8NAMES_MAX_PROGS	32

/* where --pin keeps the policy: a folder of root's alone */
#define PIN_DIR		"/sys/fs/bpf/utf8names"

struct utf8names_bpf;
struct utf8names_bpf__bss;

/* what the command line asks for (config.c) */
struct request {
	bool pin, follow, status, detach, reload, audit;
	const char *config;
	const char *mounts[UTF8NAMES_MOUNTS_MAX];
	int nr_mounts;
};

/* what the policy is to do: the request and its --config FILE, resolved */
struct settings {
	bool audit;
	const char *mounts[UTF8NAMES_MOUNTS_MAX];
	__u32 devs[UTF8NAMES_MOUNTS_MAX];
	int nr_mounts;
};

/* SIGINT or SIGTERM came: stop (main.c) */
extern volatile sig_atomic_t signalled;

/* config.c */
int parse_options(int argc, char **argv, struct request *rq);
bool settings_of(const struct request *rq, struct settings *s);

/* modes.c: each returns the exit status */
int run(const struct settings *s, bool pin_it, bool follow_it);
int status(void);
int reload(const struct settings *s);
int detach(void);
int follow_pinned(void);

/* policy.c */
bool able_to_load(void);
bool privileged(void);
struct utf8names_bpf *load(const struct settings *s);
int attach(struct utf8names_bpf *skel, struct bpf_link **links, int *nr);
int apply(const struct settings *s, int settings_fd, int guarded_fd);
int end_programs(int state_fd, int counts_fd, int seconds);
int map_info(int fd, struct bpf_map_info *info);
__u64 object_id(void);
unsigned long long counter(int counts_fd, __u32 which);
double seconds_now(void);

/* pins.c */
bool roots_alone(const struct stat *st);
int lock_pins(void);
void unlock_pins(void);
void sweep_leftovers(void);
int pin(struct utf8names_bpf *skel, struct bpf_link **links, int nr);
int pin_state(void);
int pinned_fd(const char *name);
int own_pinned_state(struct utf8names_bpf__bss *state);
bool pinned_whole(bool tell);
int end_pinned_in(const char *dir);
int take_reader(void);

/* follow.c */
int follow(int events_fd, int counts_fd, struct utf8names_bpf *skel,
	   struct bpf_link **links, int nr_links);

/* report.c */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void print_usage(bool error);
bool print_event(const void *data, size_t size);
bool past_stop_deadline(void);
void print_summary(unsigned long long not_printed);
int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args);
void print_coverage(void);
void print_enforcing(const struct settings *s, const char *until);
void print_status(const struct utf8names_settings *ro, time_t since,
		  const __u32 *devs, int nr_devs, unsigned long long reported,
		  unsigned long long lost, bool detached);

#endif /* UTF8NAMES_LOADER_H */
