/* sc_check: the property loop: generate, check, shrink.
 *
 * Case i of (target, property) is decoded from a PRNG seeded by the run
 * seed, the target's name, the property's name and i, so a run seed
 * replays exactly and adding a target does not change another's cases. */
#include "sc_check.h"
#include "sc_clock.h"
#include "sc_exhaust.h"
#include "sc_history.h"

#include <limits.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Compute specs: the tolerance failure, from the merged counts. */
static void worst_message(struct sc_failure *f)
{
	if (!f->has_worst || !f->wrong || f->msg[0])
		return;
	char idx[160];
	sc_shape_format(f->worst_index, f->worst_ndim, idx, sizeof idx);
	snprintf(f->msg, sizeof f->msg,
		 "%lld of %lld elements exceed their error bound; worst: rank %d %s = %.9g, reference %.9g: "
		 "error %.3g > bound %.3g (ratio %.3g)",
		 (long long)f->wrong, (long long)f->compared, f->worst_rank, idx, f->worst_value, f->worst_reference,
		 f->worst_error, f->worst_bound, f->worst_ratio);
}

/* Every process checks its own ranks (a process outside the case's world
 * has none); the verdicts are combined, and the failure seen by the lowest
 * process that saw the worst verdict is shared, so every process continues
 * (shrinks) alike and process 0 can report it. */
enum sc_verdict sc_check_case(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
			      const struct sc_case *c, struct sc_failure *f)
{
	memset(f, 0, sizeof *f);
	/* a plugin's ranks run in a child process that writes the buffers */
	ctx->arena.shared = (t->ops->flags & SC_TARGET_HOST_ONLY) != 0;
	int first;
	const int mine = ctx->be->ops->local_ranks(ctx->be, c->world, &first) > 0;
	ctx->arena.over_limit = 0;
	enum sc_verdict v = mine ? p->check(ctx, t, c, f) : SC_V_SKIP;
	sc_batch_end(ctx); /* what a property left running ends with its case */
	/* a case over the memory limit says nothing about the target */
	ctx->limited = (v == SC_V_FAIL || v == SC_V_ERROR) && ctx->arena.over_limit;
	if (ctx->limited)
		v = SC_V_SKIP;
	if (!ctx->be->ops->combine) {
		if (v == SC_V_FAIL)
			worst_message(f);
		return v;
	}
	static const int sev[] = {[SC_V_SKIP] = 0, [SC_V_PASS] = 1, [SC_V_FAIL] = 2, [SC_V_ERROR] = 3};
	static const enum sc_verdict of[] = {SC_V_SKIP, SC_V_PASS, SC_V_FAIL, SC_V_ERROR};
	const int all = sc_backend_combine(ctx->be, 0, sev[v]);
	if (all == 3) {
		const int me = sc_backend_proc(ctx->be);
		const int owner = SC_MAX_WORLD - sc_backend_combine(ctx->be, 0, sev[v] == all ? SC_MAX_WORLD - me : 0);
		sc_backend_bcast(ctx->be, &ctx->err, sizeof ctx->err, owner);
		ctx->err.file = NULL;
	} else if (all == 2 && ctx->be->ops->gather) {
		/* merge: the first message, the sum of wrong elements, the first
		 * wrong elements in rank order (processes hold ascending ranks) */
		const int np = sc_backend_nprocs(ctx->be);
		struct sc_failure *fs = malloc(sizeof *fs * (size_t)np);
		if (!fs)
			return SC_V_ERROR;
		ctx->be->ops->gather(ctx->be, f, fs, sizeof *f);
		memset(f, 0, sizeof *f);
		/* an output of the wrong shape on some rank is the failure, as
		 * one process holding every rank reports it (it checks no values
		 * then): the other processes' wrong values are left out */
		int shapes = 0;
		for (int k = 0; k < np; k++)
			shapes |= fs[k].shape_rank != 0;
		for (int k = 0; k < np; k++) {
			if (shapes && !fs[k].shape_rank)
				continue;
			if (!f->shape_rank)
				f->shape_rank = fs[k].shape_rank;
			if (!f->msg[0] && fs[k].msg[0]) {
				memcpy(f->msg, fs[k].msg, sizeof f->msg);
				f->runtime_error = fs[k].runtime_error;
			}
			if (fs[k].has_worst && (!f->has_worst || fs[k].worst_ratio > f->worst_ratio)) {
				const int64_t c = f->compared;
				memcpy(&f->has_worst, &fs[k].has_worst,
				       sizeof *f - offsetof(struct sc_failure, has_worst));
				f->compared = c;
			}
			f->compared += fs[k].compared;
			f->wrong += fs[k].wrong;
			for (int i = 0; i < fs[k].nfirst && f->nfirst < SC_MAX_FIRST; i++)
				f->first[f->nfirst++] = fs[k].first[i];
		}
		free(fs);
	}
	if (of[all] == SC_V_FAIL)
		worst_message(f);
	return of[all];
}

/* sc_history's way to check a case: (ctx, t, p) of the check. */
struct checker {
	struct sc_ctx *ctx;
	struct sc_target *t;
	const struct sc_property *p;
};

static enum sc_verdict check_one(void *u, const struct sc_case *c, struct sc_failure *f)
{
	const struct checker *k = u;
	return sc_check_case(k->ctx, k->t, k->p, c, f);
}

void sc_check_prime(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
		    const struct sc_case *earlier, int n)
{
	struct checker k = {ctx, t, p};
	const struct sc_history_run r = {t, check_one, &k, NULL, 0, 1};
	sc_history_prime(&r, earlier, n);
}

enum sc_verdict sc_check_after(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
			       const struct sc_case *earlier, int n, const struct sc_case *c, struct sc_failure *f)
{
	struct checker k = {ctx, t, p};
	const struct sc_history_run r = {t, check_one, &k, NULL, 0, 1};
	return sc_history_replay(&r, earlier, n, c, f);
}

/* c failed in the warm worker after h's cases and passed alone: res gets
 * the shortest sequence found (sc_history_explain), a failure. */
static void stateful_failure(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
			     const struct sc_check_opts *o, const struct sc_history *h, const struct sc_case *c,
			     const struct sc_failure *f, struct sc_result *res)
{
	struct checker k = {ctx, t, p};
	const struct sc_history_run r = {t, check_one, &k, &o->gen, o->deadline, o->no_shrink};
	struct sc_history_found *found = malloc(sizeof *found);
	res->verdict = SC_V_FAIL;
	res->have_cx = 1;
	res->cx = *c;
	res->fail = *f;
	if (!found) /* the failure stands, unexplained */
		return;
	sc_history_explain(&r, h, c, f, found);
	res->cx = found->last;
	res->fail = found->fail;
	res->nearlier = found->nearlier;
	memcpy(res->earlier, found->earlier, sizeof res->earlier);
	res->shrink = found->shrink;
	res->shrink_cut = found->cut;
	res->shrink_seconds = found->seconds;
	free(found);
}

/* A failure of a target whose runs reuse a process (SC_TARGET_WARM) is
 * run again in a fresh process, which then also runs its shrinking: a
 * minimal case never depends on the cases before it. A failure the fresh
 * run does not repeat needs the earlier calls: *stateful is set, f keeps
 * the warm failure, and the verdict stays a failure (sc_history_explain
 * finds the calls); an error in the worker stays an error. */
static enum sc_verdict confirmed(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
				 const struct sc_case *c, enum sc_verdict v, struct sc_failure *f, int *stateful)
{
	*stateful = 0;
	if ((v != SC_V_FAIL && v != SC_V_ERROR) || !(t->ops->flags & SC_TARGET_WARM) || t->fresh)
		return v;
	t->fresh = 1;
	struct sc_failure alone;
	const struct sc_err warm_err = ctx->err;
	const enum sc_verdict again = sc_check_case(ctx, t, p, c, &alone);
	if (again == SC_V_FAIL || again == SC_V_ERROR) {
		*f = alone;
		return again;
	}
	t->fresh = 0;
	if (v == SC_V_ERROR) { /* an error in the worker stands: a fresh pass does not excuse it */
		ctx->err = warm_err;
		return v;
	}
	*stateful = again == SC_V_PASS;
	return *stateful ? SC_V_FAIL : again;
}

/* A case a warm target passed joins the worker's history; a full history
 * starts a new worker with the next case. */
static void remember(struct sc_target *t, struct sc_history *h, const struct sc_case *c)
{
	if (h && !t->fresh && !sc_history_push(h, c)) {
		sc_history_reset(h);
		t->restart = 1;
	}
}

struct pred {
	struct sc_ctx *ctx;
	struct sc_target *t;
	const struct sc_property *p;
	const struct sc_check_opts *o;
	int cut; /* the deadline passed while shrinking */
};

#define DRAWS_PER_CASE 20  /* draws per case asked for before a run stops short */
#define NO_CASE_DRAWS 2000  /* draws without one valid case before the target is an error */
#define LOOK_MS 200         /* how often the clock, --time and progress are looked at */

static int past(const struct sc_check_opts *o)
{
	return o->deadline > 0 && sc_clock_now() >= o->deadline;
}

static int still_fails(void *vp, const struct sc_case *c)
{
	struct pred *pr = vp;
	struct sc_failure f;
	if (pr->cut || past(pr->o)) { /* the rest of the shrink is given up: candidates "pass" */
		pr->cut = 1;
		return 0;
	}
	if (pr->o->on_case)
		pr->o->on_case(pr->o->on_case_ctx, pr->t, pr->p, c);
	struct sc_target *t = pr->t;
	if (t->fresh && t->costly_fresh) { /* the worker first; a failure there is confirmed in a new child */
		t->fresh = 0;
		const enum sc_verdict warm = sc_check_case(pr->ctx, t, pr->p, c, &f);
		t->fresh = 1;
		if (warm != SC_V_FAIL)
			return 0;
	}
	return sc_check_case(pr->ctx, t, pr->p, c, &f) == SC_V_FAIL;
}

/* Why no case could be drawn: when cases exist without --max-elems, the
 * limit is named with the smallest case found; else the generator's last
 * reason, and what bounds the draws. */
static void no_case_reason(struct sc_target *t, const struct sc_check_opts *o, uint64_t base, long draws,
			   const char *last, char *why, size_t n)
{
	struct sc_gen_opts g = o->gen;
	g.max_elems = INT64_MAX / 4;
	int64_t best = -1;
	struct sc_case small;
	for (long i = 0; i < NO_CASE_DRAWS; i++) {
		struct sc_choices ch;
		uint64_t st = base + (uint64_t)i;
		sc_choices_prng(&ch, sc_mix_next(&st));
		struct sc_case c;
		struct sc_err e;
		if (sc_gen_case(t, &g, &ch, &c, &e) != SC_OK)
			continue;
		const int64_t k = sc_case_numel(&c);
		if (best < 0 || k < best) {
			best = k;
			small = c;
		}
	}
	if (best > o->gen.max_elems) {
		char desc[256];
		sc_target_case_format(t, &small, desc, sizeof desc);
		char *dt = strstr(desc, " dtype="); /* the shape is what matters */
		if (dt)
			*dt = '\0';
		snprintf(why, n, "no case fits --max-elems %lld: the smallest case drawn without it has %lld elements (%s); "
			 "raise --max-elems", (long long)o->gen.max_elems, (long long)best, desc);
		return;
	}
	char ws[128];
	snprintf(why, n, "no valid case in %ld draws (last reason: %.300s); check the require lines, sizes and --world %s",
		 draws, last[0] ? last : "none given", sc_gen_world_text(&o->gen, ws, sizeof ws));
}

/* When to look at the clock (--time, the deadline, progress): about every
 * LOOK_MS, by a count of draws that every process agrees on (the combine
 * carries the slowest process's elapsed time, or its wish to stop). */
struct look {
	long next, every;
};

/* At draw i (== lk->next): 1 when the run must stop. */
static int look(struct sc_ctx *ctx, const struct sc_check_opts *o, struct look *lk, long i, double t0,
		const struct sc_target *t, const struct sc_property *p, long cases, long total)
{
	const int timed = o->seconds > 0 || o->deadline > 0; /* the same on every process */
	if (!timed && !o->progress) {
		lk->next = i + 256;
		return 0;
	}
	const double el = sc_clock_now() - t0;
	const int stop = (o->seconds > 0 && el > o->seconds) || past(o);
	const double elms = el * 1000 < INT_MAX - 1 ? el * 1000 : INT_MAX - 1;
	/* only a time limit needs the processes to agree (progress is the
	 * leader's alone: the others would never meet it in the combine) */
	const int ms = timed ? sc_backend_combine(ctx->be, 0, stop ? INT_MAX : (int)elms) : (int)elms;
	if (ms == INT_MAX)
		return 1;
	const long fit = (long)((double)LOOK_MS * (double)(i + 1) / (ms > 0 ? ms : 1));
	lk->every = fit < 1 ? 1 : fit > 2 * lk->every ? 2 * lk->every : fit > 256 ? 256 : fit;
	lk->next = i + lk->every;
	if (o->progress)
		o->progress(o->progress_ctx, t->name, p->name, cases, total, el);
	return 0;
}

struct exh {
	struct sc_ctx *ctx;
	struct sc_target *t;
	const struct sc_property *p;
	const struct sc_check_opts *o;
	struct sc_result *res;
	double t0;
	struct look lk;
	enum sc_verdict v;
	struct sc_history *hist; /* a warm target's cases in its worker, else NULL */
};

static int exh_case(void *vp, const struct sc_case *c)
{
	struct exh *x = vp;
	struct sc_result *res = x->res;
	if (res->cases == x->lk.next &&
	    look(x->ctx, x->o, &x->lk, res->cases, x->t0, x->t, x->p, res->cases, res->exhaustive_total)) {
		res->out_of_time = 1;
		return 1;
	}
	res->cases++;
	if (x->o->on_case)
		x->o->on_case(x->o->on_case_ctx, x->t, x->p, c);
	struct sc_failure f;
	enum sc_verdict v = sc_check_case(x->ctx, x->t, x->p, c, &f);
	int stateful;
	v = confirmed(x->ctx, x->t, x->p, c, v, &f, &stateful);
	if (stateful) {
		stateful_failure(x->ctx, x->t, x->p, x->o, x->hist, c, &f, res);
		x->v = SC_V_FAIL;
		return 1;
	}
	if (v == SC_V_PASS || v == SC_V_SKIP)
		remember(x->t, x->hist, c);
	if (v == SC_V_FAIL) {
		res->have_cx = 1;
		res->cx = *c;
		res->fail = f;
	}
	if (v == SC_V_ERROR)
		snprintf(res->error, sizeof res->error, "%s", x->ctx->err.msg);
	if (v == SC_V_SKIP)
		res->limited += x->ctx->limited;
	if (v == SC_V_FAIL || v == SC_V_ERROR) {
		x->v = v;
		return 1;
	}
	return 0;
}

/* --exhaustive: every case within the bounds in the shrinking order; the
 * first failure is the minimal case (nothing to shrink). */
static enum sc_status check_exhaustive(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
				       const struct sc_check_opts *o, struct sc_result *res, double t0,
				       struct sc_history *hist)
{
	struct sc_err e;
	long total = 0;
	if (sc_exhaust_walk(t, &o->gen, o->max_dim, NULL, NULL, &total, &e) != SC_OK) {
		res->verdict = SC_V_ERROR;
		snprintf(res->error, sizeof res->error, "%s", e.msg);
		res->seconds = sc_clock_now() - t0;
		return SC_OK;
	}
	res->exhaustive_total = total;
	struct exh x = {ctx, t, p, o, res, t0, {0, 1}, SC_V_PASS, hist};
	long visited = 0;
	if (sc_exhaust_walk(t, &o->gen, o->max_dim, exh_case, &x, &visited, &e) != SC_OK) {
		res->verdict = SC_V_ERROR;
		snprintf(res->error, sizeof res->error, "%s", e.msg);
	} else {
		res->verdict = x.v;
	}
	if (res->verdict == SC_V_PASS && total == 0) {
		res->verdict = SC_V_ERROR;
		snprintf(res->error, sizeof res->error, "--exhaustive: no valid case within the bounds");
	}
	res->seconds = sc_clock_now() - t0;
	return SC_OK;
}

static enum sc_status check_random(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
				   const struct sc_check_opts *o, struct sc_result *res, double t0,
				   struct sc_history *hist);

/* A .case file: exactly that case (after its earlier cases, in a new
 * process, when it has them), already minimal. */
static void check_fixed(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
			const struct sc_check_opts *o, struct sc_result *res, double t0)
{
	snprintf(res->target, sizeof res->target, "%s", t->case_path);
	res->cases = 1;
	res->cx = t->fixed;
	if (o->on_case) /* recorded before it runs, as every case is */
		o->on_case(o->on_case_ctx, t, p, &t->fixed);
	if (t->nearlier) {
		res->nearlier = t->nearlier < SC_CASE_MAX_EARLIER ? t->nearlier : SC_CASE_MAX_EARLIER;
		memcpy(res->earlier, t->earlier, sizeof *res->earlier * (size_t)res->nearlier);
		res->verdict = sc_check_after(ctx, t, p, t->earlier, t->nearlier, &t->fixed, &res->fail);
		if (res->verdict == SC_V_FAIL)
			sc_history_note_replay(&res->fail, t->nearlier);
	} else {
		t->fresh = 1; /* a replay: as its finding was confirmed */
		res->verdict = sc_check_case(ctx, t, p, &t->fixed, &res->fail);
		t->fresh = 0;
	}
	if (ctx->limited) {
		res->verdict = SC_V_ERROR;
		snprintf(res->error, sizeof res->error,
			 "the case went over the per-case memory limit (--case-memory %zu MiB)",
			 (ctx->arena.max_bytes ? ctx->arena.max_bytes : SC_ARENA_DEFAULT_MAX) >> 20);
	}
	if (res->verdict == SC_V_FAIL)
		res->have_cx = 1;
	if (res->verdict == SC_V_ERROR && !ctx->limited)
		snprintf(res->error, sizeof res->error, "%s", ctx->err.msg);
	res->seconds = sc_clock_now() - t0;
}

enum sc_status sc_check_run(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
			    const struct sc_check_opts *o, struct sc_result *res)
{
	memset(res, 0, sizeof *res);
	snprintf(res->target, sizeof res->target, "%s", t->name);
	snprintf(res->backend, sizeof res->backend, "%s", ctx->be->ops->name);
	res->property = p->name;
	res->tgt = t;
	res->expected = t->expect;
	const double t0 = sc_clock_now();
	if (!p->applies(t) || (t->has_case && strcmp(t->fixed_property, p->name) != 0)) {
		res->verdict = SC_V_SKIP;
		return SC_OK;
	}
	if (t->has_case) {
		check_fixed(ctx, t, p, o, res, t0);
		return SC_OK;
	}
	t->fresh = 0; /* a warm process until a failure (confirmed() sets it) */
	/* a warm target's check starts in a new worker, its cases recorded */
	struct sc_history hist = {NULL, NULL, NULL, 0, 0, 0}, *h = (t->ops->flags & SC_TARGET_WARM) ? &hist : NULL;
	t->restart = h != NULL;
	const enum sc_status st = o->exhaustive ? check_exhaustive(ctx, t, p, o, res, t0, h)
						: check_random(ctx, t, p, o, res, t0, h);
	t->fresh = 0;
	t->restart = 0;
	sc_history_free(&hist);
	return st;
}

/* Random cases: the first failure is shrunk. */
static enum sc_status check_random(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p,
				   const struct sc_check_opts *o, struct sc_result *res, double t0,
				   struct sc_history *hist)
{
	const long ncases = o->cases > 0 ? o->cases : 1000;
	uint64_t base = o->seed ^ sc_mix_str(t->name) ^ (sc_mix_str(p->name) << 1);
	res->verdict = SC_V_PASS;
	long skipped = 0;
	struct look lk = {0, 1};
	char last_reject[SC_ERR_MAX] = "";
	/* --cases counts checked cases: draws the constraints reject do not
	 * count, up to DRAWS_PER_CASE draws per case asked for */
	for (long i = 0; res->cases < ncases && i < ncases * DRAWS_PER_CASE; i++) {
		if (i == lk.next && look(ctx, o, &lk, i, t0, t, p, res->cases, ncases)) {
			res->out_of_time = past(o);
			break;
		}
		struct sc_choices ch;
		uint64_t st = base + (uint64_t)i;
		sc_choices_prng(&ch, sc_mix_next(&st));
		struct sc_case c;
		struct sc_err e;
		enum sc_status gs = sc_gen_case(t, &o->gen, &ch, &c, &e);
		if (gs == SC_E_NOCASE) {
			res->rejected++;
			snprintf(last_reject, sizeof last_reject, "%s", e.msg);
			if (res->cases == 0 && res->rejected >= NO_CASE_DRAWS)
				break; /* said below */
			continue;
		}
		if (gs != SC_OK) {
			res->verdict = SC_V_ERROR;
			snprintf(res->error, sizeof res->error, "%s", e.msg);
			break;
		}
		res->cases++;
		struct sc_failure f;
		if (o->on_case)
			o->on_case(o->on_case_ctx, t, p, &c);
		enum sc_verdict v = sc_check_case(ctx, t, p, &c, &f);
		int stateful;
		v = confirmed(ctx, t, p, &c, v, &f, &stateful);
		if (stateful) {
			stateful_failure(ctx, t, p, o, hist, &c, &f, res);
			break;
		}
		if (v == SC_V_PASS || v == SC_V_SKIP)
			remember(t, hist, &c);
		if (v == SC_V_SKIP) {
			skipped++;
			res->limited += ctx->limited;
			continue;
		}
		if (v == SC_V_ERROR) {
			res->verdict = SC_V_ERROR;
			snprintf(res->error, sizeof res->error, "%s", ctx->err.msg);
			break;
		}
		if (v == SC_V_FAIL) {
			res->verdict = SC_V_FAIL;
			res->have_cx = 1;
			res->cx = c;
			if (!o->no_shrink) {
				struct pred pr = {ctx, t, p, o, 0};
				double s0 = sc_clock_now();
				sc_shrink(t, &o->gen, &res->cx, still_fails, &pr, &res->shrink);
				res->shrink_seconds = sc_clock_now() - s0;
				res->shrink_cut = pr.cut;
			}
			sc_check_case(ctx, t, p, &res->cx, &res->fail);
			break;
		}
	}
	if (res->verdict == SC_V_PASS && res->cases > 0 && res->limited == res->cases) {
		res->verdict = SC_V_ERROR;
		snprintf(res->error, sizeof res->error,
			 "every case (%ld) went over the per-case memory limit (--case-memory %zu MiB): nothing was checked",
			 res->cases, (ctx->arena.max_bytes ? ctx->arena.max_bytes : SC_ARENA_DEFAULT_MAX) >> 20);
	}
	if (res->verdict == SC_V_PASS && res->cases > 0 && skipped == res->cases)
		res->verdict = SC_V_SKIP;
	if (res->verdict == SC_V_PASS && res->cases == 0 && res->rejected > 0 &&
	    !sc_gen_mesh_fits(t, &o->gen, res->error, sizeof res->error)) {
		res->verdict = SC_V_SKIP; /* a mesh that needs other worlds: nothing here to check */
	} else if (res->verdict == SC_V_PASS && res->cases == 0 && res->rejected > 0) {
		res->verdict = SC_V_ERROR;
		no_case_reason(t, o, base, res->rejected, last_reject, res->error, sizeof res->error);
	}
	res->seconds = sc_clock_now() - t0;
	return SC_OK;
}

