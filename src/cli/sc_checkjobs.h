/* sc_checkjobs: `check --jobs N`, the (target, property) checks of a run
 * spread over N worker processes on the sim backend.
 *
 * Every check is seeded by the run seed, its target and its property
 * alone, so where it runs changes nothing: the workers take checks in the
 * run's order from a shared counter and leave each result in shared
 * memory; the caller takes them in that same order and prints, reports
 * and counts exactly as a one-process run does (only timings differ). */
#ifndef SC_CHECKJOBS_H
#define SC_CHECKJOBS_H

#include <signal.h>
#include <sys/types.h>

#include "sc_check.h"

struct sc_checkjobs;

/* One check of the run, in order. */
struct sc_checkjobs_pair {
	struct sc_target *t;
	const struct sc_property *p;
};

/* Forks n workers over the pairs (borrowed until sc_checkjobs_stop); each
 * runs sc_check_run with ctx (its copy) and co, and --time's share of what
 * is left. A worker dies with the caller (its parent-death signal), so
 * none outlives a run killed by SIGKILL. stop (may be NULL) is the
 * caller's interrupt flag: a wait ends when it is set. NULL when the
 * workers cannot be started: the caller then runs the checks itself. */
struct sc_checkjobs *sc_checkjobs_start(int n, struct sc_ctx *ctx, const struct sc_check_opts *co,
					const struct sc_checkjobs_pair *pairs, int npairs,
					const volatile sig_atomic_t *stop);

enum sc_checkjobs_got {
	SC_CHECKJOBS_DONE,    /* the result is in *res */
	SC_CHECKJOBS_NOT_RUN, /* --time was up before a worker reached it */
	SC_CHECKJOBS_STOPPED  /* the stop flag was set while it ran or waited */
};

/* Waits for check i. A worker that died while checking it gives an
 * error result that says so (DONE). */
enum sc_checkjobs_got sc_checkjobs_take(struct sc_checkjobs *j, int i, struct sc_result *res);
/* Check i's result when a worker has finished it (1), without waiting. */
int sc_checkjobs_peek(struct sc_checkjobs *j, int i, struct sc_result *res);
/* Kills the workers still running and reaps them; j's results stay. A
 * worker's plugins' sandboxes die with it (their parent-death signal). */
void sc_checkjobs_kill(struct sc_checkjobs *j);
/* After sc_checkjobs_kill: the case a worker was running for the first
 * check that was still running, in order: 1 with the pair and the case,
 * or 0. */
int sc_checkjobs_inflight(struct sc_checkjobs *j, struct sc_checkjobs_pair *pair, struct sc_case *cs);
/* The workers' process ids, *n of them (for a signal handler: valid
 * until sc_checkjobs_stop). */
const pid_t *sc_checkjobs_pids(const struct sc_checkjobs *j, const int **n);
/* Stops the workers (killed if still running) and frees j (NULL-safe). */
void sc_checkjobs_stop(struct sc_checkjobs *j);
/* The default number of workers: the processors this process may use. */
int sc_checkjobs_default(void);

#endif
