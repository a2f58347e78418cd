/* sc_fuzzjobs: fork, wait, merge. Every worker runs the same targets, so
 * pairs come in the same order from each. */
#include "sc_fuzzjobs.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sc_fs.h"

static void worker(struct sc_ctx *ctx, struct sc_target *t, int nt, const struct sc_fuzz_opts *o, int j,
		   const char *report, int cap)
{
	/* a worker stops (cleanly) when the parent dies, even by kill -9 */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		_exit(0);
	struct sc_fuzz_opts wo = *o;
	wo.no_replay = 1;
	wo.job = j + 1;
	wo.co.seed = o->co.seed + (uint64_t)j + 1;
	struct sc_result *wr = calloc((size_t)cap, sizeof *wr);
	int nw = 0;
	struct sc_err e;
	if (!wr || sc_fuzz_campaign(ctx, t, nt, &wo, wr, cap, &nw, &e) != SC_OK)
		_exit(2);
	char path[1200];
	snprintf(path, sizeof path, "%s/.job%d.res", report, j + 1);
	sc_fs_write_atomic(path, wr, sizeof *wr * (size_t)nw, &e);
	_exit(0);
}

/* Adds worker j's results into the first npairs of res. */
static void merge(const char *report, int j, struct sc_result *res, int npairs)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/.job%d.res", report, j + 1);
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	struct sc_result w;
	for (int i = 0; i < npairs && fread(&w, sizeof w, 1, f) == 1; i++) {
		struct sc_result *acc = &res[i];
		acc->cases += w.cases;
		if (w.seconds > acc->seconds)
			acc->seconds = w.seconds;
		if (w.verdict == SC_V_ERROR ||
		    (w.verdict == SC_V_FAIL && acc->verdict != SC_V_FAIL && acc->verdict != SC_V_ERROR)) {
			long cs = acc->cases;
			double sec = acc->seconds;
			*acc = w;
			acc->cases = cs;
			acc->seconds = sec;
		} else if (w.verdict == SC_V_PASS && acc->verdict == SC_V_SKIP) {
			acc->verdict = SC_V_PASS;
		}
	}
	fclose(f);
	remove(path);
}

enum sc_status sc_fuzz_jobs(struct sc_ctx *ctx, struct sc_target *t, int nt, const struct sc_fuzz_opts *o,
			    int jobs, const char *report, struct sc_result *res, int cap, int *nres,
			    struct sc_err *e)
{
	if (jobs < 1 || jobs > 256)
		return SC_ERR(e, SC_E_USAGE, "--jobs needs 1..256");
	struct sc_fuzz_opts r0 = *o;
	r0.seconds = 0;
	int nrep = 0;
	sc_fuzz_campaign(ctx, t, nt, &r0, res, cap, &nrep, e);
	pid_t pids[256];
	for (int j = 0; j < jobs; j++) {
		pids[j] = fork();
		if (pids[j] == 0)
			worker(ctx, t, nt, o, j, report, cap);
		SC_LOG(FUZZ, "job %d: pid %ld, seed %llu", j + 1, (long)pids[j], (unsigned long long)(o->co.seed + (uint64_t)j + 1));
	}
	for (int j = 0; j < jobs; j++) {
		int status;
		while (waitpid(pids[j], &status, 0) < 0 && errno == EINTR)
			if (o->stop && *o->stop)
				for (int k = 0; k < jobs; k++)
					kill(pids[k], SIGTERM);
	}
	int npairs = 0;
	for (int i = 0; i < nrep; i++)
		if (!res[i].tgt || !res[i].tgt->has_case)
			npairs = i + 1;
	for (int j = 0; j < jobs; j++)
		merge(report, j, res, npairs);
	*nres = nrep;
	return SC_OK;
}
