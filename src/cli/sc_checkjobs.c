/* sc_checkjobs: checks spread over worker processes (see the header).
 * Shared memory (an anonymous shared mapping made before the fork) holds a
 * counter the workers take checks from and one slot per check: its state
 * and, once done, its result. */
#define _GNU_SOURCE
#include "sc_checkjobs.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sc_clock.h"
#include "sc_sandbox.h"

#define MAX_WORKERS 256

enum { PENDING, CLAIMED, DONE, NOT_RUN };

struct slot {
	int state;
	int worker;
	struct sc_result res;
	int have_cur; /* the case running now (CLAIMED), for a run interrupted */
	struct sc_case cur;
};

struct shared {
	long next;
	struct slot slots[];
};

struct sc_checkjobs {
	struct shared *sh;
	size_t bytes;
	int n;       /* workers started */
	int planned; /* workers asked for (what a worker divides --time's rest by) */
	pid_t pid[MAX_WORKERS];
	int exited[MAX_WORKERS]; /* reaped: its wait status in status[] */
	int status[MAX_WORKERS];
	const struct sc_checkjobs_pair *pairs;
	int npairs;
	const volatile sig_atomic_t *stop;
};

int sc_checkjobs_default(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	const long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* The worker's on_case: the case goes to its slot before it runs. */
static void note_case(void *u, struct sc_target *t, const struct sc_property *p, const struct sc_case *c)
{
	struct slot *s = u;
	(void)t;
	(void)p;
	__atomic_store_n(&s->have_cur, 0, __ATOMIC_RELEASE);
	s->cur = *c;
	__atomic_store_n(&s->have_cur, 1, __ATOMIC_RELEASE);
}

/* A worker: checks from the counter until none is left, then exits. */
static void work(struct sc_checkjobs *j, int w, struct sc_ctx *ctx, struct sc_check_opts co, pid_t parent)
{
	/* dies with the parent, even by kill -9: no worker outlives its run */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	co.progress = NULL; /* the parent prints */
	co.on_case = note_case;
	const double deadline = co.deadline;
	const double share0 = co.seconds;
	for (;;) {
		const long i = __atomic_fetch_add(&j->sh->next, 1, __ATOMIC_SEQ_CST);
		if (i >= j->npairs)
			break;
		struct slot *s = &j->sh->slots[i];
		s->worker = w;
		co.on_case_ctx = s;
		__atomic_store_n(&s->state, CLAIMED, __ATOMIC_RELEASE);
		if (deadline > 0) { /* a fair share of what is left, as one process gives */
			const double rest = deadline - sc_clock_now();
			if (rest <= 0) {
				__atomic_store_n(&s->state, NOT_RUN, __ATOMIC_RELEASE);
				continue;
			}
			const long left = (j->npairs - i + j->planned - 1) / j->planned;
			co.seconds = rest / (double)(left > 0 ? left : 1);
		} else {
			co.seconds = share0;
		}
		sc_check_run(ctx, j->pairs[i].t, j->pairs[i].p, &co, &s->res);
		__atomic_store_n(&s->state, DONE, __ATOMIC_RELEASE);
	}
	sc_sandbox_workers_end(); /* plugins' workers: reaped here, not orphaned */
	_exit(0);
}

struct sc_checkjobs *sc_checkjobs_start(int n, struct sc_ctx *ctx, const struct sc_check_opts *co,
					const struct sc_checkjobs_pair *pairs, int npairs,
					const volatile sig_atomic_t *stop)
{
	if (n > npairs)
		n = npairs;
	if (n > MAX_WORKERS)
		n = MAX_WORKERS;
	if (n <= 1)
		return NULL;
	struct sc_checkjobs *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->bytes = sizeof(struct shared) + sizeof(struct slot) * (size_t)npairs;
	j->sh = mmap(NULL, j->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (j->sh == MAP_FAILED) {
		free(j);
		return NULL;
	}
	j->pairs = pairs;
	j->npairs = npairs;
	j->planned = n;
	j->stop = stop;
	fflush(NULL); /* nothing buffered is written twice */
	const pid_t parent = getpid();
	for (int w = 0; w < n; w++) {
		const pid_t pid = fork();
		if (pid == 0)
			work(j, w, ctx, *co, parent);
		if (pid < 0)
			break; /* fewer workers: the ones started do the work */
		j->pid[j->n++] = pid;
	}
	if (j->n == 0) {
		munmap(j->sh, j->bytes);
		free(j);
		return NULL;
	}
	return j;
}

static void reap(struct sc_checkjobs *j)
{
	for (int w = 0; w < j->n; w++)
		if (!j->exited[w] && waitpid(j->pid[w], &j->status[w], WNOHANG) == j->pid[w])
			j->exited[w] = 1;
}

static int all_exited(const struct sc_checkjobs *j)
{
	for (int w = 0; w < j->n; w++)
		if (!j->exited[w])
			return 0;
	return 1;
}

static void died(const struct sc_checkjobs *j, int i, int w, struct sc_result *res)
{
	memset(res, 0, sizeof *res);
	res->tgt = j->pairs[i].t;
	snprintf(res->target, sizeof res->target, "%s", j->pairs[i].t->name);
	res->property = j->pairs[i].p->name;
	res->expected = j->pairs[i].t->expect;
	res->verdict = SC_V_ERROR;
	if (w < 0)
		snprintf(res->error, sizeof res->error, "no worker process was left to check it");
	else if (WIFSIGNALED(j->status[w]))
		snprintf(res->error, sizeof res->error,
			 "the worker process checking it was killed by signal %d (%s); rerun with --jobs 1",
			 WTERMSIG(j->status[w]), strsignal(WTERMSIG(j->status[w])));
	else
		snprintf(res->error, sizeof res->error,
			 "the worker process checking it exited with status %d; rerun with --jobs 1",
			 WEXITSTATUS(j->status[w]));
}

enum sc_checkjobs_got sc_checkjobs_take(struct sc_checkjobs *j, int i, struct sc_result *res)
{
	struct slot *s = &j->sh->slots[i];
	long wait_ns = 20000; /* backs off to 5 ms: waiting costs the workers nothing */
	for (;;) {
		const int st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
		if (st == DONE) {
			*res = s->res;
			return SC_CHECKJOBS_DONE;
		}
		if (st == NOT_RUN)
			return SC_CHECKJOBS_NOT_RUN;
		if (j->stop && *j->stop) /* (before a death: ^C reaches the workers too) */
			return SC_CHECKJOBS_STOPPED;
		reap(j);
		if (st == CLAIMED && j->exited[s->worker] && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == CLAIMED) {
			died(j, i, s->worker, res);
			return SC_CHECKJOBS_DONE;
		}
		if (st == PENDING && all_exited(j) && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == PENDING) {
			died(j, i, -1, res);
			return SC_CHECKJOBS_DONE;
		}
		const struct timespec ts = {0, wait_ns};
		nanosleep(&ts, NULL);
		if (wait_ns < 5000000)
			wait_ns *= 2;
	}
}

int sc_checkjobs_peek(struct sc_checkjobs *j, int i, struct sc_result *res)
{
	struct slot *s = &j->sh->slots[i];
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != DONE)
		return 0;
	*res = s->res;
	return 1;
}

int sc_checkjobs_inflight(struct sc_checkjobs *j, struct sc_checkjobs_pair *pair, struct sc_case *cs)
{
	for (int i = 0; i < j->npairs; i++) {
		struct slot *s = &j->sh->slots[i];
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != CLAIMED ||
		    !__atomic_load_n(&s->have_cur, __ATOMIC_ACQUIRE))
			continue;
		*cs = s->cur;
		*pair = j->pairs[i];
		return 1;
	}
	return 0;
}

const pid_t *sc_checkjobs_pids(const struct sc_checkjobs *j, const int **n)
{
	*n = &j->n;
	return j->pid;
}

void sc_checkjobs_kill(struct sc_checkjobs *j)
{
	for (int w = 0; w < j->n; w++)
		if (!j->exited[w]) {
			kill(j->pid[w], SIGKILL);
			while (waitpid(j->pid[w], &j->status[w], 0) < 0 && errno == EINTR)
				;
			j->exited[w] = 1;
		}
}

void sc_checkjobs_stop(struct sc_checkjobs *j)
{
	if (!j)
		return;
	sc_checkjobs_kill(j);
	munmap(j->sh, j->bytes);
	free(j);
}
