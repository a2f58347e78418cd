/* sc_history: the cases a warm process (a plugin's worker) ran before a
 * case, and the shortest sequence of them after which the case fails.
 *
 * A warm target's check records each case it ran in the current worker.
 * When a case fails there and passes in a fresh process, the transform
 * keeps state between calls: the failure is replayed from a just-started
 * worker after the recorded cases, the sequence is cut down (one earlier
 * case alone, most recent first, then chunks removed, halving), then the
 * failing case is shrunk (earlier cases of its shape follow its sizes)
 * and each earlier case after it. A failure that the replay does not
 * repeat still fails, saying so: a gate never turns a failure into a
 * pass. */
#ifndef SC_HISTORY_H
#define SC_HISTORY_H

#include "sc_check.h"

/* Cases recorded in one worker before it is restarted: bounds the
 * sequence a failure is replayed after. */
#define SC_HISTORY_MAX 512

struct sc_history {
	struct sc_case *c;
	int n;
};

/* Forgets the cases (memory kept); sc_history_free frees it. */
void sc_history_reset(struct sc_history *h);
void sc_history_free(struct sc_history *h);
/* Records c; 0 when h is full (the caller restarts the worker and resets h). */
int sc_history_push(struct sc_history *h, const struct sc_case *c);

/* Runs earlier[0..n) in a just-started worker (verdicts ignored), leaving
 * t warm: the next run continues in that worker. */
void sc_history_prime(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
		      const struct sc_case *earlier, int n);
/* Runs earlier[0..n) then c in one just-started worker (the earlier
 * cases' verdicts ignored); c's verdict, f filled. */
enum sc_verdict sc_history_replay(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
				  const struct sc_case *earlier, int n, const struct sc_case *c, struct sc_failure *f);

/* f's message led by "fails after the n earlier cases of the case file,
 * run first in the same process" (a replay's failure). */
void sc_history_note_replay(struct sc_failure *f, int n);

/* c failed after h's cases (warm failure f) and passed alone: fills res
 * (verdict FAIL, cx, earlier, fail, shrink stats) with the shortest
 * sequence found, each case shrunk unless o->no_shrink. */
void sc_history_explain(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
			const struct sc_check_opts *o, const struct sc_history *h, const struct sc_case *c,
			const struct sc_failure *f, struct sc_result *res);

#endif
