/* sc_check: runs properties over generated cases, shrinks failures, and
 * collects results; the CLI and the tests drive it. */
#ifndef SC_CHECK_H
#define SC_CHECK_H

#include "sc_property.h"
#include "sc_shrink.h"

struct sc_check_opts {
	struct sc_gen_opts gen;
	long cases;      /* per target and property; 0: 1000 */
	double seconds;  /* per target and property; 0: no limit */
	double deadline; /* sc_clock_now() time by which generating and shrinking stop; 0: none */
	uint64_t seed;
	int no_shrink;
	/* --exhaustive: every case within the bounds in the shrinking order
	 * (sc_exhaust), each dim up to max_dim (0: 8), instead of drawn ones */
	int exhaustive;
	int max_dim;
	/* called about every 200 ms while a check runs (may be NULL) */
	void (*progress)(void *u, const char *target, const char *property, long cases, long total,
			 double elapsed);
	void *progress_ctx;
	/* called before every case is checked, shrinking included (may be NULL) */
	void (*on_case)(void *u, struct sc_target *t, const struct sc_property *p, const struct sc_case *c);
	void *on_case_ctx;
};

struct sc_result {
	struct sc_target *tgt; /* borrowed: names the dims of cx */
	char target[512];
	const char *property;
	enum sc_verdict verdict;
	int expected; /* -1 none, 0 pass, 1 fail */
	long cases;
	long rejected;
	long limited;      /* cases skipped: over --case-memory */
	/* a failure that needs earlier calls in the same process (a plugin's
	 * worker keeps state between calls): cx fails after earlier[0..n),
	 * run in that order in a just-started process, and passes alone */
	int nearlier;
	struct sc_case earlier[SC_CASE_MAX_EARLIER];
	long exhaustive_total; /* --exhaustive: the cases within the bounds (cases: those run) */
	int shrink_cut;    /* shrinking stopped at the deadline: the case may not be minimal */
	int out_of_time;   /* the deadline came before the cases were done */
	int stale;         /* a finding that cannot be replayed (verdict skip; error says why) */
	double seconds;
	int have_cx;
	struct sc_case cx;
	struct sc_failure fail;
	struct sc_shrink_stats shrink;
	double shrink_seconds;
	char error[SC_ERR_MAX];
	char case_file[600]; /* written failures/NAME.case, or empty */
	char backend[8];     /* the backend it ran on (a plugin's replay names it) */
	/* what holds for every wrong element of cx ("dims b and h swapped"),
	 * from its picture (sc_svg); "" when nothing does or none is drawn */
	char diagnosis[256];
	int diagnosed; /* looked for */
	/* gate --sanitize: compute-sanitizer's report of cx run again under
	 * it (malloc'd, owned by whoever owns the result; NULL: not run), its
	 * tool, and the errors it counted (-1: it gave no summary) */
	char *sanitizer;
	char sanitizer_tool[16];
	int sanitizer_errors;
};

/* Runs property p on target t; fills res. Returns SC_OK unless the run
 * itself broke (then res->verdict is SC_V_ERROR and res->error says why). */
enum sc_status sc_check_run(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
			    const struct sc_check_opts *o, struct sc_result *res);

/* Checks one explicit case (no generation); verdict returned, f filled. */
enum sc_verdict sc_check_case(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
			      const struct sc_case *c, struct sc_failure *f);

/* A case that fails only after earlier calls in its process (a plugin
 * target's .case file with `earlier` lines): sc_check_prime runs
 * earlier[0..n) in a new worker and leaves t warm in it (the next run
 * continues there); sc_check_after then checks c there too. */
void sc_check_prime(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
		    const struct sc_case *earlier, int n);
enum sc_verdict sc_check_after(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
			       const struct sc_case *earlier, int n, const struct sc_case *c, struct sc_failure *f);


#endif
