// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The worker threads of -r with -l or -q, where a file's answer is a name
 * or nothing: the files are checked on every CPU (opening, reading and
 * closing 90000 small files is system time a single thread waits out),
 * and the answers and the messages given in the walk's order, as one
 * thread would. Here too the one helper thread map.c asks for, for a
 * big file's second half: this is the only file that makes threads. A
 * worker touches the jobs it took, its own struct scratch, the
 * directory references (atomic counts) and what check_input() reaches
 * from there (map.c's setup is done before any starts), and says nothing:
 * the walk's thread says the answers, in order, with the pool's lock
 * held. check_input() writes nothing to standard output then (-l and -q
 * give no report, which is why workers need them, in pool_start(); the
 * file's name is listed by the walk) and keeps its messages in the
 * scratch.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "cli.h"

#define POOL_JOBS	256	/* each holds its directory open */
#define POOL_THREADS	8
#define POOL_BATCH	32	/* jobs that wake a worker: wake-ups cost */
/*
 * Jobs not yet taken that wake the walk where it waits for room in the
 * ring: it then has the room of the answers said since, most of the
 * ring where the workers keep up, to fill at once. (Woken after every
 * batch, with room for one batch, it slept 2700 times over 86631 files,
 * and the workers' CPUs switched threads twice as often. One worker
 * fewer, the walk taking batches itself where the ring is full, took
 * the switches from 1600 to 100, and the walk's time no lower.)
 */
#define POOL_REFILL	(POOL_JOBS / 4)
/*
 * The most jobs a worker takes at a time: a share of the ring for each of
 * as many workers as there may be. (Taken 8 at a time, the two workers of
 * a 2-CPU machine waited for the lock in 40000 futex() calls over 86631
 * files, and used 6-10 % more CPU time than at 32, with 11000.)
 */
#define POOL_TAKE	(POOL_JOBS / POOL_THREADS)
static_assert(POOL_TAKE >= 1, "a job for each worker in the ring");

struct job {
	char *path;		/* the file */
	struct dir_ref *dir;	/* the directory it is in, and its name */
	const char *name;	/* there (the end of @path) */
	const char *why;	/* the message to say about it, or NULL */
	int rc;
	bool done;
};

static struct pool {
	pthread_mutex_t lock;
	pthread_cond_t work, done;	/* to start; answered */
	struct job ring[POOL_JOBS];
	unsigned long said;	/* jobs before it said, in order */
	unsigned long started;	/* jobs before it taken by a worker */
	unsigned long queued;	/* jobs before it in the ring */
	bool closing;
	int idle;		/* workers waiting for work */
	bool waiting;		/* the walk waits for an answer */
	const struct options *opt;
	int status;		/* the worst answer said */
	int ways;		/* workers wanted, to share the jobs among */
	int threads;		/* started */
	pthread_t tid[POOL_THREADS];
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

static void *pool_worker(void *arg)
{
	struct scratch *scratch = arg;
	const struct options *opt = pool.opt;
	unsigned long first, take, i;
	bool mine[POOL_TAKE];
	struct job *j;

	pthread_mutex_lock(&pool.lock);
	for (;;) {
		while (!pool.closing && pool.started == pool.queued) {
			pool.idle++;
			pthread_cond_wait(&pool.work, &pool.lock);
			pool.idle--;
		}
		if (pool.started == pool.queued)
			break;
		/*
		 * A worker's share of the jobs waiting, POOL_TAKE at most:
		 * the lock is contended where many wait, and a few left to
		 * one worker would check a small tree, or a walk's last
		 * files, on one CPU. The messages among them are the walk's
		 * to say, at once, and their slots may be taken again before
		 * this batch ends: only the files are this worker's, noted
		 * now.
		 */
		first = pool.started;
		take = (pool.queued - first + pool.ways - 1) / pool.ways;
		if (take > POOL_TAKE)
			take = POOL_TAKE;
		pool.started += take;
		for (i = 0; i < take; i++)
			mine[i] = !pool.ring[(first + i) % POOL_JOBS].done;
		pthread_mutex_unlock(&pool.lock);
		for (i = first; i < first + take; i++) {
			j = &pool.ring[i % POOL_JOBS];
			if (!mine[i - first])
				continue;
			int fd = open_found(j->dir, j->name, opt);

			scratch->hold = true;
			scratch->held = NULL;
			if (fd < 0 && replaced(errno)) {
				j->rc = SKIPPED;
				j->why = NULL;
			} else if (fd < 0) {
				j->rc = 2;
				j->why = strerror(errno);
			} else {
				j->rc = check_input(j->path, fd, opt, scratch);
				j->why = scratch->held;
			}
			dir_put(j->dir);
		}
		pthread_mutex_lock(&pool.lock);
		for (i = first; i < first + take; i++)
			if (mine[i - first])
				pool.ring[i % POOL_JOBS].done = true;
		if (pool.waiting && pool.queued - pool.started <= POOL_REFILL)
			pthread_cond_signal(&pool.done);
	}
	pthread_mutex_unlock(&pool.lock);
	return scratch;
}

/* Say the answers that are ready, in order; with @pool.lock held. */
static void pool_say(void)
{
	struct job *j;

	while (pool.said < pool.queued &&
	       (j = &pool.ring[pool.said % POOL_JOBS])->done) {
		if (j->why)
			say(pool.opt, j->path, j->why);
		else
			list(j->path, j->rc, pool.opt);
		if (j->rc > pool.status)
			pool.status = j->rc;
		free(j->path);
		pool.said++;
		/*
		 * A message no worker has come to yet: none may, as its
		 * slot is free for the next job.
		 */
		if (pool.started < pool.said)
			pool.started = pool.said;
	}
}

/* Wait for a worker to answer; with @pool.lock held. */
static void pool_wait(void)
{
	if (pool.idle && pool.queued != pool.started)	/* a last batch */
		pthread_cond_broadcast(&pool.work);
	pool.waiting = true;
	pthread_cond_wait(&pool.done, &pool.lock);
	pool.waiting = false;
}

/*
 * Start the workers, one per CPU it may run on up to POOL_THREADS: false
 * if that is one, or none starts (the walk then checks each file itself).
 */
bool pool_start(const struct options *opt)
{
	struct scratch *scratch;
	cpu_set_t set;
	int cpus;

	cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
	if (cpus < 2 || !(opt->list || opt->quiet) || opt->names)
		return false;
	pool.opt = opt;
	pool.status = 0;
	pool.closing = false;
	pool.ways = cpus < POOL_THREADS ? cpus : POOL_THREADS;
	for (pool.threads = 0; pool.threads < pool.ways; pool.threads++) {
		scratch = malloc(sizeof(*scratch));
		if (!scratch)
			break;
		if (pthread_create(&pool.tid[pool.threads], NULL, pool_worker,
				   scratch)) {
			free(scratch);
			break;
		}
	}
	return pool.threads > 0;
}

/*
 * A file for the workers to check (@path, named @name in @dir, which the
 * job holds), or a message about one (@path, @why; @rc the status it
 * means; @dir NULL), after what came before it.
 */
void pool_add(const char *path, struct dir_ref *dir, const char *name,
	      const char *why, int rc)
{
	struct job *j;
	char *copy = strdup(path);

	if (!copy)
		die(NULL);
	pthread_mutex_lock(&pool.lock);
	while (pool.queued - pool.said == POOL_JOBS) {
		pool_say();
		if (pool.queued - pool.said == POOL_JOBS)
			pool_wait();
	}
	j = &pool.ring[pool.queued++ % POOL_JOBS];
	*j = (struct job){ .path = copy, .why = why, .rc = rc, .done = !!why };
	if (dir) {
		j->dir = dir_get(dir);
		j->name = copy + strlen(copy) - strlen(name);
	}
	if (pool.idle && pool.queued - pool.started >= POOL_BATCH)
		pthread_cond_signal(&pool.work);
	pool_say();
	pthread_mutex_unlock(&pool.lock);
}

/* Wait for every answer and say them: the jobs hold nothing after. */
void pool_drain(void)
{
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		pool_say();
		if (pool.said == pool.queued)
			break;
		pool_wait();
	}
	pthread_mutex_unlock(&pool.lock);
}

/* Wait for every answer, say them, end the workers: the worst status. */
int pool_end(void)
{
	void *scratch;
	int i;

	pool_drain();
	pthread_mutex_lock(&pool.lock);
	pool.closing = true;
	pthread_cond_broadcast(&pool.work);
	pthread_mutex_unlock(&pool.lock);
	for (i = 0; i < pool.threads; i++) {
		pthread_join(pool.tid[i], &scratch);
		free(scratch);
	}
	return pool.status;
}

/* A helper, running: on any of its CPUs from now on, then its function */
static void *helper_run(void *helper)
{
	struct helper *h = helper;

	sched_setaffinity(0, sizeof(h->cpus), &h->cpus);
	return h->fn(h->arg);
}

/*
 * Run @fn(@arg) on a thread of its own, started on one of the CPUs of
 * @cpus other than this thread's (a new thread starts on its creator's
 * CPU, where the scheduler of a machine of two left it for milliseconds,
 * measured: as long as map.c's half takes); once it runs, on any of
 * @cpus. false if none starts. @h must outlive the thread.
 */
bool helper_start(struct helper *h, void *(*fn)(void *), void *arg,
		  const cpu_set_t *cpus)
{
	cpu_set_t others = *cpus;
	pthread_attr_t attr;
	int cpu = sched_getcpu();
	bool started;

	if (pthread_attr_init(&attr))
		return false;
	if (cpu >= 0 && cpu < CPU_SETSIZE)
		CPU_CLR(cpu, &others);
	if (CPU_COUNT(&others))
		pthread_attr_setaffinity_np(&attr, sizeof(others), &others);
	h->fn = fn;
	h->arg = arg;
	h->cpus = *cpus;
	started = !pthread_create(&h->thread, &attr, helper_run, h);
	pthread_attr_destroy(&attr);
	return started;
}

/* Wait for the helper helper_start() started to end. */
void helper_join(struct helper *h)
{
	pthread_join(h->thread, NULL);
}
