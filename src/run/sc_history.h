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

#include "sc_property.h"
#include "sc_shrink.h"

/* Cases recorded in one worker before it is restarted: bounds the
 * sequence a failure is replayed after. */
#define SC_HISTORY_MAX 4096

/* Kept compact, a push per case costs about a hundred bytes: a case's
 * bytes before its counts, and the counts of the cases that have them. */
struct sc_history {
	unsigned char *head; /* SC_HISTORY_MAX × offsetof(struct sc_case, counts) */
	int *counts_at;      /* per case: its index in counts, -1: none */
	struct sc_countv *counts;
	int n, ncounts, counts_cap;
};

/* Forgets the cases (memory kept); sc_history_free frees it. */
void sc_history_reset(struct sc_history *h);
void sc_history_free(struct sc_history *h);
/* Records c; 0 when h is full (the caller restarts the worker and resets
 * h) or memory is short (likewise: the history then starts again). */
int sc_history_push(struct sc_history *h, const struct sc_case *c);
/* Case i of h (0 <= i < h->n). */
void sc_history_get(const struct sc_history *h, int i, struct sc_case *out);

/* How the caller checks one case of t (its property): c's verdict, f filled. */
typedef enum sc_verdict (*sc_history_check_fn)(void *u, const struct sc_case *c, struct sc_failure *f);

struct sc_history_run {
	struct sc_target *t;
	sc_history_check_fn check;
	void *u;
	const struct sc_gen_opts *gen; /* the bounds shrinking keeps to */
	double deadline;               /* sc_clock_now() time to stop cutting and shrinking; 0: none */
	int no_shrink;
};

/* Runs earlier[0..n) in a just-started worker (verdicts ignored), leaving
 * t warm: the next run continues in that worker. */
void sc_history_prime(const struct sc_history_run *r, const struct sc_case *earlier, int n);
/* Runs earlier[0..n) then c in one just-started worker (the earlier
 * cases' verdicts ignored); c's verdict, f filled. */
enum sc_verdict sc_history_replay(const struct sc_history_run *r, const struct sc_case *earlier, int n,
				  const struct sc_case *c, struct sc_failure *f);

/* f's message led by "fails after the n earlier cases of the case file,
 * run first in the same process" (a replay's failure). */
void sc_history_note_replay(struct sc_failure *f, int n);

/* What a warm failure needs: the shortest sequence found (its last
 * SC_CASE_MAX_EARLIER earlier cases, in order, then the failing case),
 * each case shrunk unless no_shrink; fail's message leads with it. */
struct sc_history_found {
	struct sc_case last;
	int nearlier;
	struct sc_case earlier[SC_CASE_MAX_EARLIER];
	struct sc_failure fail;
	struct sc_shrink_stats shrink;
	int cut; /* the deadline stopped the cutting or the shrinking */
	double seconds;
};

/* c failed after h's cases (warm failure f) and passed alone: *out. */
void sc_history_explain(const struct sc_history_run *r, const struct sc_history *h, const struct sc_case *c,
			const struct sc_failure *f, struct sc_history_found *out);

#endif
