/* sc_compute: reference and program evaluation with per-element bounds.
 *
 * Invariant: every pair tensor's v is exactly representable in its dtype
 * (program) or is a double (reference), and e >= |v - exact value of the
 * same program on the same inputs|, up to second-order terms the safety
 * factor covers. */
#include "sc_compute.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sc_cops.h"
#include "sc_counts.h"
#include "sc_expr.h"
#include "sc_layout.h"
#include "sc_mix.h"
#include "sc_step.h"

/* ---- inputs ---- */

/* X_i[g]: uniform in [-1, 1), exactly representable in the case's dtype */
static double input_value(const struct sc_compute_case *c, int tensor, uint64_t g)
{
	const uint64_t h = sc_mix64(sc_mix64(c->seed ^ 0x243f6a8885a308d3ULL) ^ ((uint64_t)tensor << 40) ^ g);
	const double u = (double)(h >> 11) * ldexp(1.0, -53) * 2 - 1;
	return sc_fp_round(c->dtype, u);
}

/* an index tensor's X_i[g]: an integer in [0, n) */
static double index_value(const struct sc_compute_case *c, int tensor, uint64_t g, int64_t n)
{
	const uint64_t h = sc_mix64(sc_mix64(c->seed ^ 0x13198a2e03707344ULL) ^ ((uint64_t)tensor << 40) ^ g);
	return n > 0 ? (double)(h % (uint64_t)n) : 0;
}

/* Tensor placement l of a program's tensor (sizes ts) on rank: its index
 * map (over the case's mesh in a mesh spec), and whether the rank holds
 * zeros (a partial sum's summand other than the first). */
static void place(const struct sc_spec *s, const struct sc_compute_case *c, const struct sc_layout *l,
		  const int64_t *ts, int nd, int rank, struct sc_map *m, int *zero)
{
	if (!s->nmesh) {
		sc_layout_map(l, ts, nd, c->world, rank, m);
		*zero = l->kind == SC_PARTIAL && rank != 0;
		return;
	}
	struct sc_mesh mesh;
	const struct sc_layout_ctx lc = sc_layout_ctx_case(s, c->counts, c->sizes, c->world, &mesh);
	sc_layout_map_in(l, &lc, ts, nd, c->world, rank, m);
	*zero = 0;
	for (int i = 0; i < l->nent; i++)
		if (l->ent[i].kind == SC_PARTIAL && sc_mesh_group_index(&mesh, &l->ent[i].g, rank) != 0)
			*zero = 1;
}

static enum sc_status fill_inputs(const struct sc_spec *s, const struct sc_compute_case *c, struct sc_exec *x,
				  int reference, struct sc_cenv *env, struct sc_err *e)
{
	for (int i = 0; i < s->ntensors; i++) {
		const struct sc_tdecl *d = &s->tensors[i];
		env->dt[i] = d->index_dim >= 0 ? SC_I64 : c->dtype;
		if (!d->input)
			continue;
		int64_t ts[SC_MAX_DIMS];
		for (int k = 0; k < d->ndims; k++)
			ts[k] = c->sizes[d->dims[k]];
		for (int r = 0; r < x->nlocal; r++) {
			const int rank = x->first + r;
			struct sc_map m;
			int zero = 0; /* partial sum: the first rank of each partial group holds X, the others zeros */
			if (reference) {
				struct sc_layout l = d->place; /* the whole tensor */
				l.kind = SC_REPLICATE;
				l.nent = 0;
				sc_layout_map(&l, ts, d->ndims, 1, rank, &m);
			} else {
				place(s, c, &d->place, ts, d->ndims, rank, &m, &zero);
			}
			struct sc_tensor *t = &env->t[i][r];
			SC_CHECK(sc_tensor_empty(x->arena, m.lshape, m.lndim, 16, t, e));
			struct sc_iter it;
			sc_iter_init(&it, m.shape, m.stride, m.ndim, m.offset);
			struct sc_pair *p = sc_cx_pairs(t);
			for (int64_t k = 0; k < sc_tensor_numel(t); k++) {
				p[k].v = zero ? 0
					 : d->index_dim >= 0 ? index_value(c, i, (uint64_t)it.off, c->sizes[d->index_dim])
							     : input_value(c, i, (uint64_t)it.off);
				p[k].e = 0;
				sc_iter_next(&it);
			}
		}
		env->defined[i] = 1;
	}
	return SC_OK;
}

static enum sc_dtype promote(enum sc_dtype a, enum sc_dtype b)
{
	if (a == b)
		return a;
	if (a == SC_F64 || b == SC_F64)
		return SC_F64;
	if (a == SC_F32 || b == SC_F32)
		return SC_F32;
	if ((a == SC_F16 && b == SC_BF16) || (a == SC_BF16 && b == SC_F16))
		return SC_F32;
	return sc_fp_unit(a) < sc_fp_unit(b) ? a : b;
}

/* An existing step on tensor st->dst (every rank). */
static enum sc_status run_step(const struct sc_spec *s, const struct sc_compute_case *c, struct sc_exec *x,
			       int reference, struct sc_cenv *env, const struct sc_stmt *st, struct sc_err *e)
{
	const struct sc_step *step = &s->steps[st->step];
	if (!env->defined[st->dst])
		return SC_ERR(e, SC_E_RUNTIME, "line %d: '%s' has no value yet", st->line, s->tensors[st->dst].name);
	const int coll = (step->def->flags & SC_STEP_COLLECTIVE) != 0;
	if (reference && coll)
		return SC_ERR(e, SC_E_SPEC, "line %d: the reference runs on one device: no collectives", st->line);
	for (int r = 0; r < x->nlocal; r++)
		x->t[r] = env->t[st->dst][r];
	x->dtype = env->dt[st->dst];
	x->compute = 1;
	x->pair_reduce = sc_compute_reduce;
	const int w = x->world;
	if (reference)
		x->world = 1;
	enum sc_status ss = sc_exec_step(x, s, step, c->sizes, e); /* (a `when` after it: the step's own) */
	x->world = w;
	SC_CHECK(ss);
	for (int r = 0; r < x->nlocal; r++)
		env->t[st->dst][r] = x->t[r];
	return SC_OK;
}

/* The dtype an op's result has: its operands' promotion (PyTorch's), or
 * as its row in the op table says (the cast's dtype, an operand's). */
static enum sc_dtype result_dtype(const struct sc_cop_def *def, const struct sc_cenv *env, const struct sc_stmt *st)
{
	const unsigned f = def ? def->flags : SC_COP_RES_A; /* a copy */
	if (f & SC_COP_DTYPE)
		return st->dtype;
	if ((f & SC_COP_RES_A) || st->b < 0)
		return env->dt[st->a];
	if (f & SC_COP_RES_B)
		return env->dt[st->b];
	/* a 0-d tensor does not promote a dimensioned one of the same category */
	const int za = env->t[st->a][0].ndim == 0, zb = env->t[st->b][0].ndim == 0;
	if (za != zb)
		return za ? env->dt[st->b] : env->dt[st->a];
	return promote(env->dt[st->a], env->dt[st->b]);
}

/* Ops whose operands must have one dtype (matmul, linear, layernorm), as
 * ATen's kernels check. */
static enum sc_status same_dtype(const struct sc_spec *s, const struct sc_cop_def *def, const struct sc_cenv *env,
				 const struct sc_stmt *st, struct sc_err *e)
{
	if (!def || !(def->flags & SC_COP_SAME))
		return SC_OK;
	const int args[3] = {st->a, st->b, st->c};
	for (int i = 1; i < 3; i++)
		if (args[i] >= 0 && env->dt[args[i]] != env->dt[st->a])
			return SC_ERR(e, SC_E_RUNTIME, "line %d: expected both operands to have the same dtype, but got %s ('%s') and %s ('%s')",
				      st->line, sc_dtype_name(env->dt[st->a]), s->tensors[st->a].name,
				      sc_dtype_name(env->dt[args[i]]), s->tensors[args[i]].name);
	return SC_OK;
}

/* What the case's expressions see at a statement: the dims, the world,
 * the counts, the micro-batch and the loops running (no rank yet). */
static struct sc_expr_env case_env(const struct sc_compute_case *c, const struct sc_exec *x, const struct sc_cenv *env)
{
	struct sc_expr_env v = sc_expr_env_global(c->sizes, c->world);
	v.counts = c->counts;
	if (env->micro >= 0) {
		v.bound = 1u << SC_VAR_K;
		v.var[SC_VAR_K] = env->micro;
	}
	v.nloops = x->nloops;
	memcpy(v.loop, x->loop_k, sizeof v.loop[0] * (size_t)x->nloops);
	return v;
}

/* A compute statement on each of x's ranks (where its `when` holds). */
static enum sc_status run_op(const struct sc_spec *s, const struct sc_compute_case *c, struct sc_exec *x,
			     int reference, struct sc_cenv *env, const struct sc_stmt *st, struct sc_err *e)
{
	const struct sc_cop_def *def = sc_cop_get(st->op);
	SC_CHECK(same_dtype(s, def, env, st, e));
	struct sc_cx k = {reference, result_dtype(def, env, st), SC_F32, x->arena, e, st->line};
	k.acc = k.d == SC_F64 ? SC_F64 : SC_F32;
	if (st->when >= 0 && (!env->defined[st->dst] || env->dt[st->dst] != k.d))
		return SC_ERR(e, SC_E_RUNTIME, "line %d: '%s' must have a value of the result's dtype (%s) on every rank before a statement with 'when'",
			      st->line, s->tensors[st->dst].name, sc_dtype_name(k.d));
	struct sc_tensor out[SC_MAX_WORLD];
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_expr_env v = case_env(c, x, env);
		v.rank = reference ? -1 : x->first + r;
		if (st->when >= 0) {
			int64_t holds;
			SC_CHECK(sc_expr_eval_in(s, st->when, &v, &holds, e));
			if (!holds) {
				out[r] = env->t[st->dst][r];
				continue;
			}
		}
		if (!def) { /* a copy */
			out[r] = env->t[st->a][r];
			continue;
		}
		struct sc_cargs a = {st, {NULL, NULL, NULL}, 0, 1e-5, 0, 0, 0};
		const int args[3] = {st->a, st->b, st->c};
		for (int i = 0; i < 3; i++)
			a.t[i] = args[i] >= 0 ? &env->t[args[i]][r] : NULL;
		if (st->scalar >= 0)
			SC_CHECK(sc_expr_eval_real(s, st->scalar, &v, &a.scalar, e));
		if (st->eps >= 0)
			SC_CHECK(sc_expr_eval_real(s, st->eps, &v, &a.eps, e));
		if (st->start >= 0)
			SC_CHECK(sc_expr_eval_in(s, st->start, &v, &a.start, e));
		if (st->diag >= 0)
			SC_CHECK(sc_expr_eval_in(s, st->diag, &v, &a.diag, e));
		if (st->fill >= 0)
			SC_CHECK(sc_expr_eval_real(s, st->fill, &v, &a.fill, e));
		SC_CHECK(def->run(&k, &a, &out[r]));
	}
	for (int r = 0; r < x->nlocal; r++)
		env->t[st->dst][r] = out[r];
	env->dt[st->dst] = k.d;
	env->defined[st->dst] = 1;
	return SC_OK;
}

/* dst += a: an add, or a's value when dst has none yet (a gradient's
 * first accumulation). */
static enum sc_status run_acc(const struct sc_spec *s, const struct sc_compute_case *c, struct sc_exec *x,
			      int reference, struct sc_cenv *env, const struct sc_stmt *st, struct sc_err *e)
{
	struct sc_stmt add = *st;
	add.op = env->defined[st->dst] ? SC_C_ADD : SC_C_COPY;
	if (env->defined[st->dst]) {
		add.a = st->dst;
		add.b = st->a;
	}
	return run_op(s, c, x, reference, env, &add, e);
}

static enum sc_status run_stmts(const struct sc_spec *s, const struct sc_compute_case *c, struct sc_exec *x,
				int reference, struct sc_cenv *env, int from, int to, struct sc_err *e);

/* Input tensor i of the current micro-batch (full: the whole batch's),
 * on each of x's ranks: the micro-batch's rows of the split dim. */
static void cut_input(const struct sc_spec *s, const struct sc_compute_case *c, const struct sc_exec *x,
		      struct sc_cenv *env, struct sc_tensor *const *full, int i)
{
	const int m = sc_spec_micro(s), n = s->counts[m].sum_dim;
	const struct sc_tdecl *d = &s->tensors[i];
	int j = -1;
	for (int q = 0; q < d->ndims; q++)
		if (d->dims[q] == n)
			j = q;
	if (j < 0 || !d->input)
		return;
	int64_t first, rows;
	sc_counts_span(c->counts, m, (int)env->micro, &first, &rows);
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_tensor t = full[i][r];
		t.offset += first * t.stride[j];
		t.shape[j] = rows;
		env->t[i][r] = t;
	}
}

/* A microbatch block (header at prog[at]) over each micro-batch. */
static enum sc_status run_micro(const struct sc_spec *s, const struct sc_compute_case *c, struct sc_exec *x,
				struct sc_cenv *env, int at, struct sc_err *e)
{
	const int m = sc_spec_micro(s);
	if (!c->counts || m < 0)
		return SC_ERR(e, SC_E_SPEC, "line %d: a microbatch block needs the case's micro-batches", s->prog[at].line);
	struct sc_tensor *full[SC_MAX_TENSORS];
	for (int i = 0; i < s->ntensors; i++) { /* the whole batch's inputs, kept */
		struct sc_buf *b = sc_arena_buf(x->arena, (int64_t)(sizeof(struct sc_tensor) * (size_t)(x->nlocal ? x->nlocal : 1)), 1);
		if (!b)
			return SC_ERR(e, SC_E_NOMEM, "out of memory");
		full[i] = (struct sc_tensor *)(void *)b->data;
		memcpy(full[i], env->t[i], sizeof(struct sc_tensor) * (size_t)x->nlocal);
	}
	const int64_t g = c->sizes[s->counts[m].len_dim];
	for (env->micro = 0; env->micro < g; env->micro++) {
		for (int i = 0; i < s->ntensors; i++)
			cut_input(s, c, x, env, full, i);
		SC_CHECK(run_stmts(s, c, x, 0, env, at + 1, s->prog[at].step, e));
	}
	env->micro = -1;
	for (int i = 0; i < s->ntensors; i++)
		if (s->tensors[i].input)
			memcpy(env->t[i], full[i], sizeof(struct sc_tensor) * (size_t)x->nlocal);
	return SC_OK;
}

/* A loop (header at prog[at]): its statements once per value of its
 * index, LO..HI, the same on every rank. */
static enum sc_status run_loop(const struct sc_spec *s, const struct sc_compute_case *c, struct sc_exec *x,
			       int reference, struct sc_cenv *env, int at, struct sc_err *e)
{
	const struct sc_stmt *st = &(reference ? s->ref : s->prog)[at];
	const struct sc_expr_env v = case_env(c, x, env);
	int64_t lo, hi, span;
	SC_CHECK(sc_expr_eval_in(s, st->lo, &v, &lo, e));
	SC_CHECK(sc_expr_eval_in(s, st->hi, &v, &hi, e));
	if (hi >= lo && (__builtin_sub_overflow(hi, lo, &span) || span >= SC_LOOP_MAX))
		return SC_ERR(e, SC_E_RUNTIME, "line %d: a loop over %lld..%lld (at most %d iterations)", st->line, (long long)lo,
			      (long long)hi, SC_LOOP_MAX);
	if (x->nloops != st->dim || x->nloops >= SC_LOOP_NEST)
		return SC_ERR(e, SC_E_INTERNAL, "line %d: a loop at level %d run at level %d", st->line, st->dim, x->nloops);
	const int level = x->nloops++;
	enum sc_status rc = SC_OK;
	for (int64_t k = lo; k <= hi && rc == SC_OK; k++) {
		if (++env->iterations > SC_LOOP_MAX_ALL) {
			rc = SC_ERR(e, SC_E_RUNTIME, "line %d: the loops run more than %d iterations in all", st->line, SC_LOOP_MAX_ALL);
			break;
		}
		x->loop_k[level] = k;
		rc = run_stmts(s, c, x, reference, env, at + 1, st->step, e);
		if (rc != SC_OK) { /* which iteration: "(i = 2 in line 7)" */
			const size_t len = strlen(e->msg);
			snprintf(e->msg + len, sizeof e->msg - len, " (%s = %lld in line %d)", st->var, (long long)k, st->line);
		}
	}
	x->nloops = level;
	return rc;
}

static enum sc_status run_stmts(const struct sc_spec *s, const struct sc_compute_case *c, struct sc_exec *x,
				int reference, struct sc_cenv *env, int from, int to, struct sc_err *e)
{
	const struct sc_stmt *prog = reference ? s->ref : s->prog;
	for (int i = from; i < to; i++) {
		const struct sc_stmt *st = &prog[i];
		const int args[3] = {st->a, st->b, st->c};
		for (int k = 0; k < 3; k++)
			if (args[k] >= 0 && !env->defined[args[k]])
				return SC_ERR(e, SC_E_RUNTIME, "line %d: '%s' is used before it has a value", st->line,
					      s->tensors[args[k]].name);
		if (st->op == SC_C_MICRO) {
			SC_CHECK(run_micro(s, c, x, env, i, e));
			i = st->step; /* its end */
		} else if (st->op == SC_C_LOOP) {
			SC_CHECK(run_loop(s, c, x, reference, env, i, e));
			i = st->step;
		} else if (st->op == SC_C_STEP) {
			SC_CHECK(run_step(s, c, x, reference, env, st, e));
		} else if (st->op == SC_C_ACC) {
			SC_CHECK(run_acc(s, c, x, reference, env, st, e));
		} else if (st->op != SC_C_END) {
			SC_CHECK(run_op(s, c, x, reference, env, st, e));
		}
	}
	return SC_OK;
}

enum sc_status sc_compute_run(const struct sc_spec *s, const struct sc_compute_case *c, struct sc_exec *x,
			      int reference, struct sc_cenv *env, struct sc_err *e)
{
	memset(env, 0, sizeof *env);
	env->n = s->ntensors;
	for (int i = 0; i < s->ntensors; i++) {
		struct sc_buf *b = sc_arena_buf(x->arena, (int64_t)(sizeof(struct sc_tensor) * (size_t)(x->nlocal ? x->nlocal : 1)), 1);
		if (!b)
			return SC_ERR(e, SC_E_NOMEM, "out of memory");
		env->t[i] = (struct sc_tensor *)(void *)b->data;
	}
	SC_CHECK(fill_inputs(s, c, x, reference, env, e));
	env->micro = -1;
	x->nloops = 0;
	SC_CHECK(run_stmts(s, c, x, reference, env, 0, reference ? s->nref : s->nprog, e));
	x->compute = 0;
	return SC_OK;
}

enum sc_status sc_compute_reduce(struct sc_exec *x, int scatter, void **send, void **recv, size_t count,
				 enum sc_redop op, struct sc_err *e)
{
	const int P = x->world;
	const size_t per = scatter ? (size_t)P * count : count; /* pairs each rank sends */
	void *gat[SC_MAX_WORLD];
	for (int r = 0; r < x->nlocal; r++) {
		struct sc_buf *b = sc_arena_buf(x->arena, (int64_t)(per * (size_t)P), 16);
		if (!b)
			return SC_ERR(e, SC_E_NOMEM, "out of memory");
		gat[r] = b->data;
	}
	SC_CHECK(x->be->ops->all_gather(x->be, P, send, gat, per * 16, e));
	const enum sc_dtype d = x->dtype;
	for (int r = 0; r < x->nlocal; r++) {
		const struct sc_pair *g = gat[r];
		struct sc_pair *o = recv[r];
		const size_t base = scatter ? (size_t)(x->first + r) * count : 0;
		for (size_t j = 0; j < count; j++) {
			struct sc_pair a = g[base + j];
			for (int q = 1; q < P; q++) {
				const struct sc_pair b = g[(size_t)q * per + base + j];
				switch (op) {
				case SC_SUM: {
					const double v = sc_fp_round(d, a.v + b.v);
					a.e = a.e + b.e + sc_fp_rbound(d, v);
					a.v = v;
					break;
				}
				case SC_PROD: {
					const double v = sc_fp_round(d, a.v * b.v);
					a.e = fabs(a.v) * b.e + fabs(b.v) * a.e + a.e * b.e + sc_fp_rbound(d, v);
					a.v = v;
					break;
				}
				case SC_MAX:
					a.v = a.v > b.v ? a.v : b.v;
					a.e = a.e > b.e ? a.e : b.e;
					break;
				case SC_MIN:
					a.v = a.v < b.v ? a.v : b.v;
					a.e = a.e > b.e ? a.e : b.e;
					break;
				default: break;
				}
			}
			o[j] = a;
		}
	}
	return SC_OK;
}

enum sc_status sc_compute_compare(const struct sc_spec *s, const struct sc_compute_case *c, const struct sc_exec *x,
				  const struct sc_cenv *penv, const struct sc_cenv *renv,
				  struct sc_compute_worst *w, int64_t *nover, struct sc_err *e)
{
	const int o = s->out_tensor;
	const struct sc_tdecl *d = &s->tensors[o];
	int64_t ts[SC_MAX_DIMS];
	for (int k = 0; k < d->ndims; k++)
		ts[k] = c->sizes[d->dims[k]];
	memset(w, 0, sizeof *w);
	w->ratio = -1;
	/* the reference output, row-major over the output's dims */
	const struct sc_tensor *rt0 = &renv->t[o][0];
	int same = rt0->ndim == d->ndims;
	for (int k = 0; same && k < d->ndims; k++)
		same = rt0->shape[k] == ts[k];
	if (!same) {
		char a[128], b[128];
		sc_shape_format(rt0->shape, rt0->ndim, a, sizeof a);
		sc_shape_format(ts, d->ndims, b, sizeof b);
		return SC_ERR(e, SC_E_SPEC, "the reference computes '%s' with shape %s, but it is declared %s", d->name, a, b);
	}
	if (d->place.kind == SC_PARTIAL) {
		return SC_ERR(e, SC_E_SPEC, "a compute output must be shard or replicate");
	}
	int64_t over = 0;
	for (int r = 0; r < x->nlocal; r++) {
		const int rank = x->first + r;
		if (!sc_layout_checks(s, &d->place, c->sizes, c->world, rank))
			continue; /* `only E`: another rank's result */
		struct sc_map m;
		int zero;
		place(s, c, &d->place, ts, d->ndims, rank, &m, &zero);
		const struct sc_tensor *t = &penv->t[o][r];
		int ok = t->ndim == m.lndim;
		for (int k = 0; ok && k < m.lndim; k++)
			ok = t->shape[k] == m.lshape[k];
		if (!ok) {
			char a[128], b[128];
			sc_shape_format(t->shape, t->ndim, a, sizeof a);
			sc_shape_format(m.lshape, m.lndim, b, sizeof b);
			return SC_ERR(e, SC_E_RUNTIME, "rank %d output '%s' has shape %s, but the output placement needs %s",
				      rank, d->name, a, b);
		}
		struct sc_iter mi, ti;
		sc_iter_init(&mi, m.shape, m.stride, m.ndim, m.offset);
		sc_iter_init(&ti, t->shape, t->stride, t->ndim, t->offset);
		const struct sc_pair *pt = (const struct sc_pair *)(const void *)t->buf->data;
		const struct sc_pair *pr = (const struct sc_pair *)(const void *)rt0->buf->data;
		for (int64_t k = 0; k < sc_tensor_numel(t); k++) {
			/* global index g (row-major over ts) -> the reference's element */
			int64_t g = mi.off, roff = rt0->offset;
			for (int q = d->ndims - 1; q >= 0; q--) {
				roff += (g % ts[q]) * rt0->stride[q];
				g /= ts[q];
			}
			const struct sc_pair a = pt[ti.off], b = pr[roff];
			if (isnan(b.v)) {
				char ix[128];
				sc_shape_format(ti.idx, t->ndim, ix, sizeof ix);
				return SC_ERR(e, SC_E_SPEC,
					      "the reference's '%s' is not a number at rank %d %s: an op outside its domain (sqrt, log, rsqrt or a fractional pow of a negative value, 0/0)",
					      d->name, rank, ix);
			}
			const double err = fabs(a.v - b.v), bound = a.e + b.e;
			const int bad = !(err <= bound);
			over += bad;
			w->compared++;
			/* the worst element: the largest error/bound (an element over its
			 * bound has a ratio above 1; NaN counts as infinite) */
			double ratio = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0);
			if (isnan(err) || isnan(bound) || isnan(ratio))
				ratio = INFINITY;
			if (ratio > w->ratio) {
				w->rank = rank;
				w->ndim = t->ndim;
				memcpy(w->index, ti.idx, sizeof(int64_t) * (size_t)t->ndim);
				w->value = a.v;
				w->reference = b.v;
				w->error = err;
				w->bound = bound;
				w->ratio = ratio;
			}
			w->over = over;
			sc_iter_next(&mi);
			sc_iter_next(&ti);
		}
	}
	*nover = over;
	return SC_OK;
}
