/* sc_fuzzjobs: fork, wait, merge. Every worker runs the same targets, so
 * pairs come in the same order from each. Workers hand their results back
 * through shared memory (nothing is written to disk that a killed run
 * could leave behind) and share the table of failures seen, so each bug is
 * announced and saved once. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "sc_fuzzjobs.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sc_clock.h"
#include "sc_sandbox.h"

/* What the workers hand back: per worker, a count and cap results. */
struct handback {
	int n[256];
	struct sc_result res[];
};

static void worker(struct sc_ctx *ctx, struct sc_target *t, int nt, const struct sc_fuzz_opts *o, int j,
		   struct handback *hb, int cap)
{
	/* a worker stops (cleanly) when the parent dies, even by kill -9 */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		_exit(0);
	struct sc_fuzz_opts wo = *o;
	wo.no_replay = 1;
	wo.job = j + 1;
	wo.co.seed = o->co.seed + (uint64_t)j + 1;
	int nw = 0;
	struct sc_err e;
	if (sc_fuzz_campaign(ctx, t, nt, &wo, hb->res + (size_t)j * (size_t)cap, cap, &nw, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: job %d: %s\n", j + 1, e.msg);
		sc_sandbox_workers_end();
		_exit(2);
	}
	hb->n[j] = nw;
	sc_sandbox_workers_end(); /* plugins' workers: reaped here, not orphaned */
	_exit(0);
}

/* Adds worker j's results into the first npairs of res. */
static void merge(const struct sc_result *w, int nw, struct sc_result *res, int npairs)
{
	for (int i = 0; i < npairs && i < nw; i++) {
		struct sc_result *acc = &res[i];
		acc->cases += w[i].cases;
		if (w[i].seconds > acc->seconds)
			acc->seconds = w[i].seconds;
		if (w[i].verdict == SC_V_ERROR ||
		    (w[i].verdict == SC_V_FAIL && acc->verdict != SC_V_FAIL && acc->verdict != SC_V_ERROR)) {
			long cs = acc->cases;
			double sec = acc->seconds;
			*acc = w[i];
			acc->cases = cs;
			acc->seconds = sec;
		} else if (w[i].verdict == SC_V_PASS && acc->verdict == SC_V_SKIP) {
			acc->verdict = SC_V_PASS;
		}
	}
}

enum sc_status sc_fuzz_jobs(struct sc_ctx *ctx, struct sc_target *t, int nt, const struct sc_fuzz_opts *o,
			    int jobs, struct sc_result *res, int cap, int *nres, struct sc_err *e)
{
	if (jobs < 1 || jobs > 256)
		return SC_ERR(e, SC_E_USAGE, "--jobs needs 1..256");
	if (!o->sigs)
		return SC_ERR(e, SC_E_INTERNAL, "parallel jobs need a shared table of failures (o->sigs)");
	struct sc_fuzz_opts r0 = *o, jo = *o;
	r0.replay_only = 1; /* the findings first, here, within --time */
	int nrep = 0;
	const double t0 = sc_clock_now();
	SC_CHECK(sc_fuzz_campaign(ctx, t, nt, &r0, res, cap, &nrep, e));
	jo.seconds = o->seconds - (sc_clock_now() - t0); /* the jobs get what the replay left */
	if (jo.seconds < 0)
		jo.seconds = 0;
	const size_t bytes = sizeof(struct handback) + sizeof(struct sc_result) * (size_t)cap * (size_t)jobs;
	struct handback *hb = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (hb == MAP_FAILED)
		return SC_ERR(e, SC_E_NOMEM, "out of memory for %d jobs' results", jobs);
	pid_t pids[256];
	fflush(NULL);
	for (int j = 0; j < jobs; j++) {
		pids[j] = fork();
		if (pids[j] == 0)
			worker(ctx, t, nt, &jo, j, hb, cap);
		SC_LOG(FUZZ, "job %d: pid %ld, seed %llu", j + 1, (long)pids[j], (unsigned long long)(o->co.seed + (uint64_t)j + 1));
	}
	for (int j = 0; j < jobs; j++) {
		int status;
		while (pids[j] > 0 && waitpid(pids[j], &status, 0) < 0 && errno == EINTR)
			if (o->stop && *o->stop)
				for (int k = 0; k < jobs; k++)
					if (pids[k] > 0)
						kill(pids[k], SIGTERM);
	}
	int npairs = 0; /* the pairs come first, then the replayed findings */
	while (npairs < nrep && res[npairs].tgt && !res[npairs].tgt->has_case && !res[npairs].stale)
		npairs++;
	for (int j = 0; j < jobs; j++)
		merge(hb->res + (size_t)j * (size_t)cap, hb->n[j], res, npairs);
	munmap(hb, bytes);
	*nres = nrep;
	return SC_OK;
}
