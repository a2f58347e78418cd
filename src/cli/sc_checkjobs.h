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

#include "sc_check.h"

struct sc_checkjobs;

/* One check of the run, in order. */
struct sc_checkjobs_pair {
	struct sc_target *t;
	const struct sc_property *p;
};

/* Forks n workers over the pairs (borrowed until sc_checkjobs_stop); each
 * runs sc_check_run with ctx (its copy) and co, and --time's share of what
 * is left. NULL when the workers cannot be started: the caller then runs
 * the checks itself. */
struct sc_checkjobs *sc_checkjobs_start(int n, struct sc_ctx *ctx, const struct sc_check_opts *co,
					const struct sc_checkjobs_pair *pairs, int npairs);
/* Waits for check i: 1 with its result in *res; 0 when --time was up
 * before a worker reached it (not run). A worker that died while checking
 * it gives an error result that says so. */
int sc_checkjobs_take(struct sc_checkjobs *j, int i, struct sc_result *res);
/* Stops the workers (killed if still running) and frees j (NULL-safe). */
void sc_checkjobs_stop(struct sc_checkjobs *j);
/* The default number of workers: the processors this process may use. */
int sc_checkjobs_default(void);

#endif
