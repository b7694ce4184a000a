// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The policy's refusals, read from its ring buffer and printed until a
 * signal; then, for a policy this process loaded, every one of them
 * accounted for before it ends.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "loader.h"
#include "utf8names.skel.h"

/* taking the last reports, after a signal */
static bool draining;
/* what a reader has done with the reports it took */
static unsigned long long printed;

static int on_event(void *ctx, void *data, size_t size)
{
	(void)ctx;
	printed++;
	if (!print_event(data, size))
		return 0;	/* (said so) */
	/*
	 * A signal: stop taking reports now (this one is taken), or a flood
	 * of them would keep ring_buffer__poll() from ever returning.
	 */
	return signalled && !draining ? -EINTR : 0;
}

/* Says so when reports were lost since the last time. */
static void report_lost(int counts_fd, unsigned long long *seen)
{
	unsigned long long now = counter(counts_fd, UTF8NAMES_LOST);

	if (now > *seen)
		say("%llu reports lost so far (the ring buffer was full)\n",
		    now);
	*seen = now;
}

/*
 * Take every report still in the ring buffer of a program this process
 * loaded, once it refuses nothing more: each refusal was counted before
 * its report was sent, so all are in when the reports taken and the ones
 * lost add up to the refusals, and the count has stayed still for 10 ms;
 * a second at most.
 */
static void drain(struct ring_buffer *rb, int counts_fd)
{
	unsigned long long last = ~0ull;
	int i;

	draining = true;	/* take them all now */
	for (i = 0; i < 100; i++) {
		unsigned long long reported = counter(counts_fd, UTF8NAMES_REPORTED);

		ring_buffer__consume(rb);
		if (printed + counter(counts_fd, UTF8NAMES_LOST) >= reported &&
		    reported == last)
			return;
		last = reported;
		usleep(10000);
	}
}

/*
 * Under systemd (Type=notify), say that the policy is in force and its
 * refusals are read: units ordered after this one, user logins among them,
 * start only then. The protocol is one datagram; no libsystemd needed.
 */
static void notify_ready(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(addr.sun_path))
		return;
	memcpy(addr.sun_path, path, len);
	if (path[0] == '@')	/* an abstract socket's name */
		addr.sun_path[0] = 0;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, "READY=1", 7, 0, (struct sockaddr *)&addr,
		   offsetof(struct sockaddr_un, sun_path) + len) < 0)
		say("cannot tell systemd it is ready: %s\n",
		    strerror(errno));
	close(fd);
}

/*
 * Print reports from @events_fd until a signal; 0, or 1 on an error.
 * With @skel and its @links (a policy this process loaded and did not
 * pin), end it then, and account for every refusal it made.
 */
int follow(int events_fd, int counts_fd, struct utf8names_bpf *skel,
	   struct bpf_link **links, int nr_links)
{
	unsigned long long lost = counter(counts_fd, UTF8NAMES_LOST), lost0 = lost;
	struct ring_buffer *rb;
	int err, i, status = 0;

	rb = ring_buffer__new(events_fd, on_event, NULL, NULL);
	if (!rb) {
		say("cannot map the ring buffer: %s\n", strerror(errno));
		return 1;
	}
	notify_ready();
	while (!signalled) {
		err = ring_buffer__poll(rb, 200);
		if (err < 0 && err != -EINTR) {
			say("reading the ring buffer: %s\n", strerror(-err));
			ring_buffer__free(rb);
			return 1;
		}
		report_lost(counts_fd, &lost);
	}
	past_stop_deadline();	/* the reports' time starts now */
	if (skel) {
		unsigned long long reported;

		if (end_programs(bpf_map__fd(skel->maps.bss), counts_fd, 5)) {
			say("stopping the policy: %s: %s\n",
			    errno == ETIMEDOUT ? "hooks still ran after 5 s" : strerror(errno),
			    "the counts may miss refusals");
			status = 1;
		}
		drain(rb, counts_fd);
		reported = counter(counts_fd, UTF8NAMES_REPORTED);
		print_summary(reported > printed ? reported - printed : 0);
		for (i = 0; i < nr_links; i++) {
			bpf_link__destroy(links[i]);
			links[i] = NULL;
		}
	} else {
		draining = true;
		ring_buffer__consume(rb);	/* what came before the signal */
		print_summary(counter(counts_fd, UTF8NAMES_LOST) - lost0);
	}
	ring_buffer__free(rb);
	return status;
}
