/* sc_interp: the loop over a spec's steps, the helpers step families
 * share, and provenance merging. The step semantics themselves live in
 * the families (sc_steps_view.c, sc_steps_coll.c), transcribed from ATen
 * and torch.distributed.
 *
 * In a language-1 spec all ranks run the same steps on tensors of the same
 * shape, so shape checks are made once, on the first local rank; a spec
 * whose shapes may vary (s->varies) runs every local step per rank. */
#include "sc_interp.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "sc_devmem.h"
#include "sc_step.h"

enum sc_status sc_interp_fail(struct sc_err *e, const struct sc_step *st, const char *fmt, ...)
{
	char msg[SC_ERR_MAX - 128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (st->src[0]) /* a traced spec's step: the code it came from too */
		return SC_ERR(e, SC_E_RUNTIME, "line %d (%s) `%s`: %s", st->line, st->src, st->text, msg);
	return SC_ERR(e, SC_E_RUNTIME, "line %d `%s`: %s", st->line, st->text, msg);
}

enum sc_status sc_interp_arena_fail(const struct sc_exec *x, struct sc_err *e)
{
	if (x->arena->over_limit)
		return SC_ERR(e, SC_E_RUNTIME, "the per-case memory limit (%zu MiB) was exceeded",
			      (x->arena->max_bytes ? x->arena->max_bytes : SC_ARENA_DEFAULT_MAX) >> 20);
	return SC_ERR(e, SC_E_NOMEM, "out of memory");
}

/* The arena, with new buffers going to local rank r's device. */
struct sc_arena *sc_interp_on(struct sc_exec *x, int r)
{
	sc_arena_on(x->arena, sc_interp_rank(x, r));
	return x->arena;
}

unsigned sc_interp_esize(const struct sc_exec *x)
{
	return x->compute ? 16u : x->prov ? 8u : (unsigned)sc_dtype_size(x->dtype);
}

/* ATen maybe_wrap_dim: a 0-dim tensor wraps as if it had 1 dim. */
enum sc_status sc_interp_wrap_dim(const struct sc_step *st, int d, int ndim, int *out,
			       struct sc_err *e)
{
	int n = ndim > 0 ? ndim : 1;
	if (d < -n || d > n - 1)
		return sc_interp_fail(e, st, "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
			  -n, n - 1, d);
	*out = d < 0 ? d + n : d;
	return SC_OK;
}

enum sc_status sc_interp_contiguous(struct sc_exec *x, struct sc_tensor *t, struct sc_err *e)
{
	struct sc_tensor n;
	sc_arena_on(x->arena, t->buf->rank);
	SC_CHECK(sc_tensor_empty(x->arena, t->shape, t->ndim, sc_interp_esize(x), &n, e));
	sc_tensor_copy(&n, t);
	*t = n;
	return SC_OK;
}

struct sc_tensor *sc_interp_named(struct sc_exec *x, int name, int r)
{
	return name == x->cur ? &x->t[r] : &x->slots[(size_t)name * (size_t)x->nlocal + (size_t)r];
}

/* Makes name the current tensors (the current ones go to their slots). */
static void switch_to(struct sc_exec *x, int name)
{
	if (name == x->cur)
		return;
	memcpy(&x->slots[(size_t)x->cur * (size_t)x->nlocal], x->t, sizeof(struct sc_tensor) * (size_t)x->nlocal);
	memcpy(x->t, &x->slots[(size_t)name * (size_t)x->nlocal], sizeof(struct sc_tensor) * (size_t)x->nlocal);
	x->cur = name;
}

enum sc_status sc_interp_agree(struct sc_exec *x, const struct sc_step *st, enum sc_status rc, struct sc_err *e)
{
	if (!x->be || !x->be->ops->combine)
		return rc; /* one process holds every rank */
	const int any = sc_backend_combine(x->be, x->world, rc == SC_OK ? 0 : 1);
	if (!any)
		return rc;
	/* every process takes the first failing rank's status and message, as
	 * one process holding every rank would report it */
	struct msg {
		int32_t status;
		char text[SC_ERR_MAX];
	};
	struct msg *all = calloc((size_t)x->world, sizeof *all), mine;
	if (!all)
		return rc != SC_OK ? rc : SC_ERR(e, SC_E_NOMEM, "out of memory");
	memset(&mine, 0, sizeof mine);
	mine.status = rc;
	if (rc != SC_OK)
		snprintf(mine.text, sizeof mine.text, "%s", e->msg);
	void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD];
	for (int r = 0; r < x->nlocal; r++) {
		send[r] = &mine;
		recv[r] = all;
	}
	struct sc_err ge;
	enum sc_status out = x->be->ops->all_gather(x->be, x->world, send, recv, sizeof mine, &ge);
	for (int r = 0; out == SC_OK && r < x->world; r++)
		if (all[r].status != SC_OK) {
			out = SC_ERR(e, (enum sc_status)all[r].status, "%s", all[r].text);
			break;
		}
	if (out == SC_OK) /* cannot be: some process failed */
		out = sc_interp_fail(e, st, "failed on another process");
	free(all);
	return out;
}

const char *sc_interp_rank_text(const struct sc_exec *x, int r, char *buf, size_t n)
{
	if (x->ranks)
		snprintf(buf, n, "rank %d (index %d of its group)", sc_interp_rank(x, r), x->first + r);
	else
		snprintf(buf, n, "rank %d", sc_interp_rank(x, r));
	return buf;
}

struct sc_expr_env sc_interp_env(const struct sc_exec *x, int r, const int64_t *sizes)
{
	struct sc_expr_env v = sc_expr_env_global(sizes, x->all ? x->all : x->world);
	v.rank = x->ref ? -1 : sc_interp_rank(x, r);
	v.counts = x->counts;
	v.shape = x->t[r].shape;
	v.ndim = x->t[r].ndim;
	v.nloops = x->nloops;
	memcpy(v.loop, x->loop_k, sizeof v.loop[0] * (size_t)x->nloops);
	return v;
}

enum sc_status sc_interp_eval(const struct sc_spec *s, const struct sc_step *st, const struct sc_expr_env *env,
			      int node, int64_t *out, struct sc_err *e)
{
	struct sc_err inner;
	sc_err_clear(&inner);
	int64_t v;
	enum sc_status rc = sc_expr_eval_in(s, node, env, &v, &inner);
	if (rc == SC_E_RUNTIME)
		return sc_interp_fail(e, st, "on rank %lld: %s", (long long)env->rank, inner.msg);
	if (rc != SC_OK)
		return SC_ERR(e, rc, "%s", inner.msg);
	*out = v;
	return SC_OK;
}

void sc_interp_fill_pad(struct sc_exec *x, struct sc_tensor *t)
{
	sc_interp_fill_bytes(x, t, x->prov ? SC_PROV_PAD_BYTE : 0);
}

void sc_interp_fill_bytes(struct sc_exec *x, struct sc_tensor *t, int byte)
{
	const size_t bytes = (size_t)sc_tensor_numel(t) * sc_interp_esize(x);
	unsigned char *p = t->buf->data + (size_t)t->offset * sc_interp_esize(x);
	if (!bytes)
		return;
	if (t->buf->dm) {
		struct sc_devmem *dm = t->buf->dm;
		sc_devmem_fail(dm, dm->ops->memset(dm, t->buf->rank, p, byte, bytes), "memset", t->buf->rank);
		return;
	}
	memset(p, byte, bytes);
}

void sc_interp_narrow(struct sc_tensor *t, int dim, int64_t start, int64_t len)
{
	t->offset += start * t->stride[dim];
	t->shape[dim] = len;
}

enum sc_status sc_prov_merge_rank(struct sc_exec *x, int r, void *mx, void *mn, size_t count, struct sc_err *e)
{
	struct sc_devmem *dm = x->arena->use_dm ? x->arena->dm : NULL;
	if (dm) {
		const int rank = sc_interp_rank(x, r);
		sc_devmem_fail(dm, dm->ops->prov_merge(dm, rank, mx, mn, count), "merge", rank);
		return sc_devmem_status(dm, 0, e);
	}
	uint64_t *v = mx;
	const uint64_t *n = mn;
	for (size_t i = 0; i < count; i++)
		if (v[i] != n[i])
			v[i] = SC_PROV_MIXED;
	return SC_OK;
}

enum sc_status sc_prov_merge(struct sc_exec *x, void *const *mx, void *const *mn, size_t count, struct sc_err *e)
{
	for (int r = 0; r < x->nlocal; r++)
		SC_CHECK(sc_prov_merge_rank(x, r, mx[r], mn[r], count, e));
	return SC_OK;
}

/* Runs fn over each local rank's count u64s: into fresh copies (outs),
 * or in place (outs NULL); on the host, a device buffer going down and
 * back up. */
static enum sc_status prov_map(struct sc_exec *x, void *const *bufs, void **outs, size_t count,
			       void (*fn)(uint64_t *v, const uint64_t *mn, size_t n), void *const *mn,
			       struct sc_err *e)
{
	struct sc_devmem *dm = x->arena->use_dm ? x->arena->dm : NULL;
	uint64_t *h = NULL, *m = NULL;
	if (dm && (!(h = malloc(count * 8 + 8)) || (mn && !(m = malloc(count * 8 + 8))))) {
		free(h);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	enum sc_status rc = SC_OK;
	for (int r = 0; r < x->nlocal && rc == SC_OK; r++) {
		void *dst = bufs[r];
		const int rank = sc_interp_rank(x, r);
		if (outs) {
			struct sc_buf *b = sc_arena_buf(sc_interp_on(x, r), (int64_t)count, 8);
			if (!b) {
				rc = sc_interp_arena_fail(x, e);
				break;
			}
			dst = outs[r] = b->data;
		}
		if (!dm) {
			if (dst != bufs[r])
				memcpy(dst, bufs[r], count * 8);
			fn(dst, mn ? mn[r] : NULL, count);
			continue;
		}
		sc_devmem_fail(dm, dm->ops->download(dm, h, bufs[r], count * 8), "download", rank);
		if (m)
			sc_devmem_fail(dm, dm->ops->download(dm, m, mn[r], count * 8), "download", rank);
		rc = sc_devmem_status(dm, 1, e);
		if (rc != SC_OK)
			break;
		fn(h, m, count);
		sc_devmem_fail(dm, dm->ops->upload(dm, dst, h, count * 8), "upload", rank);
		rc = sc_devmem_status(dm, 1, e);
	}
	free(h);
	free(m);
	return rc;
}

static void unpad_fn(uint64_t *v, const uint64_t *mn, size_t n)
{
	(void)mn;
	for (size_t i = 0; i < n; i++)
		if (v[i] == SC_PROV_PAD)
			v[i] = 0;
}

static void repad_fn(uint64_t *v, const uint64_t *mn, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (mn[i] == SC_PROV_PAD)
			v[i] = SC_PROV_PAD;
}

enum sc_status sc_prov_unpad(struct sc_exec *x, void *const *send, void **out, size_t count, struct sc_err *e)
{
	return prov_map(x, send, out, count, unpad_fn, NULL, e);
}

enum sc_status sc_prov_repad(struct sc_exec *x, void *const *mx, void *const *mn, size_t count, struct sc_err *e)
{
	return prov_map(x, mx, NULL, count, repad_fn, mn, e);
}

enum sc_status sc_interp_scratch(enum sc_scratch k, struct sc_exec **out, struct sc_err *e)
{
	/* per thread, allocated on first use: a struct sc_exec in static TLS
	 * would make every thread's start clear it (plugin ranks are threads) */
	static _Thread_local struct sc_exec *slot[SC_SCRATCH_COUNT];
	if (!slot[k] && !(slot[k] = malloc(sizeof *slot[k])))
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	*out = slot[k];
	return SC_OK;
}

/* A local step on ranks whose shapes differ runs on each rank alone, so
 * that every shape it computes (flatten, reshape's -1, squeeze, chunk)
 * is that rank's own. */
static enum sc_status exec_per_rank(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				    const int64_t *sizes, struct sc_err *e)
{
	struct sc_exec *one = NULL;
	SC_CHECK(sc_interp_scratch(SC_SCRATCH_PER_RANK, &one, e));
	for (int r = 0; r < x->nlocal; r++) {
		memcpy(one, x, offsetof(struct sc_exec, t));
		one->first = x->first + r;
		one->nlocal = 1;
		one->t[0] = x->t[r];
		SC_CHECK(st->def->exec(one, s, st, sizes, e));
		x->t[r] = one->t[0];
	}
	return SC_OK;
}

/* The collectives here need every rank's tensor of one shape, as torch's
 * do (the sized forms check their own): a spec whose shapes vary can reach
 * one with ranks that differ, which fails the step rather than moving
 * bytes that are not there. Every rank's shape is gathered (across
 * processes too), so every process fails alike with the same message. */
static enum sc_status same_shapes(struct sc_exec *x, const struct sc_step *st, struct sc_err *e)
{
	enum { LEN = 2 + SC_MAX_DIMS }; /* ndim, shape, and whether it is contiguous */
	int64_t mine[SC_MAX_WORLD][LEN];
	int64_t *all = malloc(sizeof(int64_t) * LEN * (size_t)x->world);
	if (!all)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	void *send[SC_MAX_WORLD], *recv[SC_MAX_WORLD];
	for (int r = 0; r < x->nlocal; r++) {
		memset(mine[r], 0, sizeof mine[r]);
		mine[r][0] = x->t[r].ndim;
		memcpy(&mine[r][1], x->t[r].shape, sizeof(int64_t) * (size_t)x->t[r].ndim);
		mine[r][1 + SC_MAX_DIMS] = sc_tensor_is_contig(&x->t[r]);
		send[r] = mine[r];
		recv[r] = all;
	}
	enum sc_status rc = x->be->ops->all_gather(x->be, x->world, send, recv, sizeof(int64_t) * LEN, e);
	int k = 0;
	for (int r = 1; rc == SC_OK && r < x->world && !k; r++)
		if (memcmp(all + (size_t)r * LEN, all, sizeof(int64_t) * (1 + SC_MAX_DIMS)) != 0)
			k = r;
	if (rc == SC_OK && k) {
		char a[160], b[160];
		sc_shape_format(all + 1, (int)all[0], a, sizeof a);
		sc_shape_format(all + (size_t)k * LEN + 1, (int)all[(size_t)k * LEN], b, sizeof b);
		rc = sc_interp_fail(e, st, "ranks hold tensors of different shapes (rank 0 %s, rank %d %s): this collective needs one shape on every rank, as torch's does",
				    a, k, b);
	}
	/* a dim-0 collective on a strided input, decided for every rank alike */
	for (int r = 0; rc == SC_OK && r < x->world && (st->def->flags & SC_STEP_NEEDS_CONTIG) && !st->raw; r++)
		if (!all[(size_t)r * LEN + 1 + SC_MAX_DIMS])
			rc = sc_interp_fail(e, st, "Tensors must be contiguous (rank %d's is not; torch.distributed rejects a non-contiguous input; transcribe a missing .contiguous() with the 'raw' suffix)",
					    r);
	free(all);
	return rc;
}

/* The step on the ranks of x (all of them, or one group's). */
static enum sc_status exec_body(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, struct sc_err *e)
{
	/* only specs whose shapes may vary run per rank (the fast path is
	 * language 1's: one shape everywhere) */
	const unsigned f = st->def->flags | st->flags;
	if (s->varies && (f & SC_STEP_COLLECTIVE) && !(f & SC_STEP_OWN_SHAPES))
		SC_CHECK(same_shapes(x, st, e));
	if (s->varies && !(f & (SC_STEP_COLLECTIVE | SC_STEP_NAMED)) && x->nlocal > 1)
		return exec_per_rank(x, s, st, sizes, e);
	return st->def->exec(x, s, st, sizes, e);
}

/* group=[E, ...] (or pp[E, ...]): each group of gs cut to the listed
 * indices, its ranks in ascending order (torch.distributed.new_group
 * sorts the ranks it is given); the ranks left out are in no group
 * (color -1) and skip the step. The indices are the whole case's: out of
 * the group or listed twice, the step fails as new_group raises. */
static enum sc_status listed_groups(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				   const int64_t *sizes, struct sc_groups *gs, struct sc_err *e)
{
	struct sc_expr_env v = sc_expr_env_global(sizes, x->all ? x->all : x->world);
	v.counts = x->counts;
	v.nloops = x->nloops; /* the loops' indices: the same on every rank */
	memcpy(v.loop, x->loop_k, sizeof v.loop[0] * (size_t)x->nloops);
	int64_t idx[SC_STEP_MAX_GLIST];
	uint64_t key = gs->key;
	for (int k = 0; k < st->nglist; k++) {
		SC_CHECK(sc_interp_eval(s, st, &v, st->glist[k], &idx[k], e));
		if (idx[k] < 0 || idx[k] >= gs->size)
			return sc_interp_fail(e, st, "group=[...]: rank %lld is not among the group's %d ranks", (long long)idx[k],
					      gs->size);
		for (int j = 0; j < k; j++)
			if (idx[j] == idx[k])
				return sc_interp_fail(e, st, "group=[...]: rank %lld listed twice", (long long)idx[k]);
		key = (key ^ (uint64_t)(idx[k] + 1)) * 1099511628211ULL;
	}
	int member[SC_MAX_WORLD];
	for (int r = 0; r < gs->world && r < SC_MAX_WORLD; r++)
		gs->color[r] = gs->index[r] = -1;
	for (int g = 0; g < gs->n; g++) {
		int *mem = &member[g * st->nglist];
		for (int k = 0; k < st->nglist; k++) { /* in ascending rank, as new_group sorts its ranks */
			const int r = gs->member[g * gs->size + idx[k]];
			int j = k;
			for (; j > 0 && mem[j - 1] > r; j--)
				mem[j] = mem[j - 1];
			mem[j] = r;
		}
		for (int k = 0; k < st->nglist; k++) {
			gs->color[mem[k]] = g;
			gs->index[mem[k]] = k;
		}
	}
	memcpy(gs->member, member, sizeof(int) * (size_t)(gs->n * st->nglist));
	gs->size = st->nglist;
	gs->key = key ^ 0x9e3779b97f4a7c15ULL; /* not any partition's */
	return SC_OK;
}

/* A step with group=: run within each group of its mesh dims that has
 * ranks here, through the backend's handle for that group, with world the
 * group's size and ranks numbered within it. */
static enum sc_status exec_grouped(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				   const int64_t *sizes, struct sc_err *e)
{
	static _Thread_local struct sc_groups gs;
	struct sc_exec *one = NULL;
	SC_CHECK(sc_interp_scratch(SC_SCRATCH_GROUPED, &one, e));
	const struct sc_mesh m = sc_spec_mesh(s, sizes, x->world);
	const struct sc_mesh_group all = sc_mesh_all(&m);
	sc_mesh_groups(&m, st->group.n ? &st->group : &all, &gs);
	if (st->nglist)
		SC_CHECK(listed_groups(x, s, st, sizes, &gs, e));
	int here = 0; /* groups with ranks of this process */
	for (int g = 0; g < gs.n; g++) {
		const int *mem = &gs.member[g * gs.size];
		int lo = -1, n = 0;
		for (int i = 0; i < gs.size; i++)
			if (mem[i] >= x->first && mem[i] < x->first + x->nlocal) {
				if (lo < 0)
					lo = i;
				n++;
			}
		if (!n)
			continue;
		here++;
		for (int i = lo; i < lo + n; i++)
			if (i >= gs.size || mem[i] < x->first || mem[i] >= x->first + x->nlocal)
				return SC_ERR(e, SC_E_INTERNAL, "group %d: the ranks held here are not consecutive in it", g);
		struct sc_backend *sub;
		SC_CHECK(sc_backend_group(x->be, &gs, g, &sub, e));
		memcpy(one, x, offsetof(struct sc_exec, t));
		one->be = sub;
		one->world = gs.size;
		one->first = lo;
		one->nlocal = n;
		one->ranks = mem;
		one->all = x->world;
		for (int i = 0; i < n; i++)
			one->t[i] = x->t[mem[lo + i] - x->first];
		enum sc_status rc = exec_body(one, s, st, sizes, e);
		for (int i = 0; i < n; i++)
			x->t[mem[lo + i] - x->first] = one->t[i];
		SC_CHECK(rc);
	}
	if (!here && x->nlocal) /* every rank here skips the step: the backend learns the groups all the same */
		return sc_backend_group_idle(x->be, &gs, e);
	return SC_OK;
}

/* A local step with `when COND`: run rank by rank, each alone, where
 * COND holds; the other ranks keep their tensor. (Named tensors are
 * switched before, over every rank: the step itself reads x->t only.) */
static enum sc_status exec_when(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				const int64_t *sizes, struct sc_err *e)
{
	const int first = x->first, nlocal = x->nlocal;
	struct sc_tensor keep[SC_MAX_WORLD];
	memcpy(keep, x->t, sizeof keep[0] * (size_t)nlocal);
	enum sc_status rc = SC_OK;
	for (int r = 0; r < nlocal && rc == SC_OK; r++) {
		const struct sc_expr_env v = sc_interp_env(x, r, sizes);
		int64_t holds;
		if ((rc = sc_interp_eval(s, st, &v, st->when1 - 1, &holds, e)) != SC_OK || !holds)
			continue;
		x->first = first + r;
		x->nlocal = 1;
		x->t[0] = keep[r];
		rc = exec_body(x, s, st, sizes, e);
		keep[r] = x->t[0];
		x->first = first;
		x->nlocal = nlocal;
	}
	memcpy(x->t, keep, sizeof keep[0] * (size_t)nlocal);
	return rc;
}

enum sc_status sc_exec_step(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
			    const int64_t *sizes, struct sc_err *e)
{
	if (st->src1 && x->slots)
		switch_to(x, st->src1 - 1);
	if (st->dst1 && x->slots && st->dst1 - 1 != x->cur) /* the source keeps its tensors */
		memcpy(&x->slots[(size_t)x->cur * (size_t)x->nlocal], x->t, sizeof(struct sc_tensor) * (size_t)x->nlocal);
	enum sc_status rc = st->when1			 ? exec_when(x, s, st, sizes, e)
			     : st->group.n || st->nglist ? exec_grouped(x, s, st, sizes, e)
							 : exec_body(x, s, st, sizes, e);
	/* shapes that vary: a step may fail on one process's ranks only; every
	 * process learns it here, so none goes on into a collective alone */
	if (s->varies)
		rc = sc_interp_agree(x, st, rc, e);
	SC_CHECK(rc);
	if (st->dst1 && x->slots)
		x->cur = st->dst1 - 1; /* the result is that name (the old one is gone) */
	if (sc_log_on(SC_LOG_INTERP)) {
		char shape[160];
		sc_shape_format(x->t[0].shape, x->t[0].ndim, shape, sizeof shape);
		SC_LOG(INTERP, "line %d `%s`: rank %d holds %s%s", st->line, st->text, x->first, shape,
		       sc_tensor_is_contig(&x->t[0]) ? "" : " (strided view)");
	}
	return SC_OK;
}

/* The step after the loop whose `for` is steps[i] (its `end`'s index + 1),
 * or whose `end` is steps[i] when back (the `for`'s index + 1): the
 * matching one, loops inside skipped. */
static int loop_jump(const struct sc_step *steps, int n, int i, int back)
{
	int depth = 0;
	for (int j = i + (back ? -1 : 1); j >= 0 && j < n; j += back ? -1 : 1) {
		if (!(steps[j].def->flags & SC_STEP_CONTROL))
			continue;
		const int opens = steps[j].def->keyword[0] == 'f';
		if (opens == (back != 0) && depth-- == 0)
			return j + 1;
		if (opens != (back != 0))
			depth++;
	}
	return n;
}


/* " (j = 1 in line 9 `for j in ...`; i = 0 in line 8 `for i in ...`)":
 * the iteration each running loop was at, innermost first. */
static void loop_where(const struct sc_exec *x, struct sc_err *e)
{
	for (int l = x->nloops - 1; l >= 0; l--) {
		const struct sc_step *loop = x->loop_st[l];
		const char *name = loop->text + 3;
		name += strspn(name, " \t");
		const int nl = (int)strcspn(name, " \t");
		const size_t len = strlen(e->msg);
		snprintf(e->msg + len, sizeof e->msg - len, "%s%.*s = %lld in line %d `%s`%s", l == x->nloops - 1 ? " (" : "; ",
			 nl, name, (long long)x->loop_k[l], loop->line, loop->text, l == 0 ? ")" : "");
	}
}

enum sc_status sc_exec_steps(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *steps, int n,
			     const int64_t *sizes, struct sc_err *e)
{
	enum sc_status rc = SC_OK;
	int64_t iterations = 0;
	x->nloops = 0;
	for (int i = 0; i < n && rc == SC_OK;) {
		const struct sc_step *st = &steps[i];
		if (st->def->flags & SC_STEP_CONTROL) {
			if (st->def->keyword[0] == 'f') { /* for NAME in LO..HI: the same on every rank */
				struct sc_expr_env v = sc_expr_env_global(sizes, x->all ? x->all : x->world);
				v.counts = x->counts; /* drawn per case, the same on every rank (len(L), L(0)) */
				v.nloops = x->nloops; /* the indices of the loops around it */
				memcpy(v.loop, x->loop_k, sizeof v.loop[0] * (size_t)x->nloops);
				int64_t lo, hi;
				if ((rc = sc_interp_eval(s, st, &v, st->args[0], &lo, e)) != SC_OK ||
				    (rc = sc_interp_eval(s, st, &v, st->args[1], &hi, e)) != SC_OK)
					break;
				int64_t span;
				if (hi >= lo && (__builtin_sub_overflow(hi, lo, &span) || span >= SC_LOOP_MAX)) {
					rc = sc_interp_fail(e, st, "a loop over %lld..%lld (at most %d iterations)", (long long)lo,
							    (long long)hi, SC_LOOP_MAX);
					break;
				}
				if (hi < lo) { /* no iteration */
					i = loop_jump(steps, n, i, 0);
					continue;
				}
				if (x->nloops >= SC_LOOP_NEST) { /* (the parser refuses deeper loops) */
					rc = sc_interp_fail(e, st, "loops nest at most %d deep", SC_LOOP_NEST);
					break;
				}
				x->loop_k[x->nloops] = lo;
				x->loop_hi[x->nloops] = hi;
				x->loop_st[x->nloops++] = st;
			} else if (x->nloops && x->loop_k[x->nloops - 1] < x->loop_hi[x->nloops - 1]) { /* end: the next iteration */
				x->loop_k[x->nloops - 1]++;
				if (++iterations > SC_LOOP_MAX_ALL) {
					rc = sc_interp_fail(e, st, "the loops run more than %d iterations in all", SC_LOOP_MAX_ALL);
					break;
				}
				i = loop_jump(steps, n, i, 1);
				continue;
			} else if (x->nloops) {
				x->nloops--;
			}
			if (st->def->keyword[0] == 'f' && ++iterations > SC_LOOP_MAX_ALL) {
				rc = sc_interp_fail(e, st, "the loops run more than %d iterations in all", SC_LOOP_MAX_ALL);
				break;
			}
			i++;
			continue;
		}
		rc = sc_exec_step(x, s, st, sizes, e);
		if (rc != SC_OK && x->nloops) /* which iterations: "(i = 2 in line 8 `for i in 1..P-1`)" */
			loop_where(x, e);
		if (rc == SC_OK && x->on_step)
			x->on_step(x, s, st, x->on_step_ctx);
		i++;
	}
	x->nloops = 0;
	return rc;
}

enum sc_status sc_exec_spec(struct sc_exec *x, const struct sc_spec *s, const int64_t *sizes,
			    struct sc_err *e)
{
	x->pads = s->pads;
	x->cur = 0;
	x->slots = NULL;
	if (s->ntnames > 0 && !(x->slots = calloc((size_t)s->ntnames * (size_t)x->nlocal, sizeof *x->slots)))
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	enum sc_status rc = sc_exec_steps(x, s, s->steps, s->nsteps, sizes, e);
	free(x->slots); /* the result is the current tensors: the last named */
	x->slots = NULL;
	return rc;
}
