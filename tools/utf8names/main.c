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
 * printed (the ring buffer was full) or not written (report.c, emit()). The
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
#include <signal.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "loader.h"

volatile sig_atomic_t signalled;

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

/*
 * SIGINT and SIGTERM stop it, with no SA_RESTART: a write to a stopped
 * reader must not hold a signal off. SIGHUP and SIGPIPE are ignored.
 */
static void take_signals(void)
{
	struct sigaction stopping = { .sa_handler = on_signal };
	sigset_t ours;

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
}

int main(int argc, char **argv)
{
	struct request rq = { 0 };
	struct settings s = { 0 };
	int ret;

	ret = parse_options(argc, argv, &rq);
	if (ret >= 0)
		return ret;
	take_signals();
	libbpf_set_print(print_libbpf);
	if (rq.status)
		return status();
	if (rq.detach)
		return detach();
	if (rq.follow && !rq.pin)
		return follow_pinned();
	if (!settings_of(&rq, &s))
		return 2;
	if (rq.reload)
		return reload(&s);
	return run(&s, rq.pin, rq.follow);
}
