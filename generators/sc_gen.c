/* sc_gen: the one decoder from choices to a valid case, and the one
 * definition of a valid case.
 *
 * A pass of the decoder either draws every parameter from a choice stream
 * (generation, libFuzzer) or checks the parameters of a given case (the
 * shrinker's candidates, case files, eval), with the same predicates: a
 * world is valid when world_ok holds, a size when size_ok holds, and so on.
 * Drawing enumerates the values a predicate admits in a generation range
 * (a dim's `sizes` hint, else 1..8, or P..4P for a sharded dim) and picks
 * one, biased to the edges; checking asks the predicate of the given value
 * with the validity range (a hint binds unless hints_guide_only: eval and
 * case files take any case the spec admits; default ranges only guide
 * generation). The first choice of every draw is the smallest admitted
 * value, so an all-zero or exhausted stream decodes to the smallest case. */
#include "sc_gen.h"
#include "sc_gen_routes.h"

#include "sc_counts.h"
#include "sc_expr.h"
#include "sc_layout.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define MAX_CAND 4096

/* One pass: drawing from ch, or (ch NULL) checking want. */
struct dec {
	struct sc_target *t;
	const struct sc_gen_opts *o;
	struct sc_choices *ch;
	const struct sc_case *want;
	char *why;
	size_t nwhy;
	enum sc_gen_part part; /* checking: what is being checked (the part a reject blames) */
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	int derived_known; /* the sizes= dims are set (requires on them may be checked) */
};

static enum sc_status reject(struct dec *d, struct sc_err *e, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* A case the choices or the given parameters admit none of: SC_E_NOCASE
 * with the reason (in why when checking, in e when drawing). */
static enum sc_status reject(struct dec *d, struct sc_err *e, const char *fmt, ...)
{
	char msg[SC_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (d->why)
		snprintf(d->why, d->nwhy, "%s", msg);
	SC_LOG(GEN, "%s: %s", d->ch ? "no case" : "invalid case", msg);
	return SC_ERR(e, SC_E_NOCASE, "%s", msg);
}

/* What a sharded dim's size must be a multiple of, in worlds: 0 any
 * size, 1 the world (even shards), 2 twice the world (zigzag). */
static int sharded(const struct dec *d, int dim)
{
	int m = 0;
	for (int i = 0; i < d->ns; i++)
		if ((d->s[i]->zigzag_mask >> dim) & 1u)
			m = 2;
		else if (sc_spec_sharded(d->s[i], dim) && m < 1)
			m = 1;
	return m;
}

/* What dim's size must be a multiple of in this case: the world or twice
 * it for a flat world's even and zigzag shards, a mesh placement's
 * product of its groups' sizes (sc_layout_granule); 1 any size. */
static int64_t granule(const struct dec *d, int dim, const int64_t *sizes, int world)
{
	int64_t g = 1;
	for (int i = 0; i < d->ns; i++) {
		const struct sc_spec *s = d->s[i];
		if (!s->nmesh) {
			const int64_t k = (int64_t)((s->zigzag_mask >> dim) & 1u ? 2 : sc_spec_sharded(s, dim) ? 1 : 0) * world;
			if (k > g)
				g = k; /* (one world: the multiples nest) */
			continue;
		}
		/* X's placements, or a compute spec's tensors over the dim */
		const int nl = s->compute ? s->ntensors : s->ref_line ? 1 : 2;
		for (int k = 0; k < nl; k++) {
			const struct sc_tdecl *t = s->compute ? &s->tensors[k] : NULL;
			int at = t ? -1 : dim; /* the dim's place in the placement's tensor */
			for (int j = 0; t && j < t->ndims; j++)
				if (t->dims[j] == dim)
					at = j;
			if (at < 0)
				continue;
			const int64_t m = sc_layout_granule(s, t ? &t->place : k ? &s->out : &s->in, at, sizes, world);
			int64_t a = g, b = m; /* lcm */
			while (b) {
				const int64_t r = a % b;
				a = b;
				b = r;
			}
			g = g / a * m;
		}
	}
	return g;
}

/* Sharded by a chunk or split placement only: any size, drawn at the edges. */
static int uneven(const struct dec *d, int dim)
{
	for (int i = 0; i < d->ns; i++)
		if ((d->s[i]->uneven_mask >> dim) & 1u)
			return !sharded(d, dim);
	return 0;
}

/* The dtypes a case may take: the options', within the specs' `dtypes`;
 * compute specs only take floating-point types. */
static uint32_t dtype_mask(const struct dec *d)
{
	uint32_t m = d->o ? d->o->dtypes : (1u << SC_NDTYPES) - 1;
	for (int i = 0; i < d->ns; i++) {
		if (d->s[i]->dtype_mask)
			m &= d->s[i]->dtype_mask;
		if (d->s[i]->compute)
			for (int k = 0; k < SC_NDTYPES; k++)
				if (!sc_dtype_is_float((enum sc_dtype)k))
					m &= ~(1u << k);
	}
	return m;
}

static void say(char *why, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* A reason into why, cut to n bytes (a long require text is cut, not an error). */
static void say(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
}

#define ALL_CONDS (-2)

/* Whether node reads one of the dims in mask. */
static int uses_dims(const struct sc_spec *s, int node, uint32_t mask)
{
	if (node < 0 || !mask)
		return 0;
	const struct sc_expr *x = &s->nodes[node];
	if (x->kind == SC_EX_DIM && ((mask >> x->dim) & 1u))
		return 1;
	return uses_dims(s, x->a, mask) || uses_dims(s, x->b, mask) || uses_dims(s, x->c, mask);
}

/* The requires whose last-mentioned dim is `last` (-1: only the world;
 * ALL_CONDS: every one);
 * when one fails and why is not NULL, why names it: file, line and text. */
static int conds_hold(const struct dec *d, int last, const int64_t *sizes, int world, char *why, size_t n)
{
	for (int i = 0; i < d->ns; i++)
		for (int k = 0; k < d->s[i]->nconds; k++) {
			const struct sc_cond *q = &d->s[i]->conds[k];
			if (!d->derived_known && uses_dims(d->s[i], q->node, d->s[i]->derived_mask))
				continue; /* checked once the sizes= dims are known */
			if ((q->last_dim != last && last != ALL_CONDS) || sc_expr_cond_holds(d->s[i], q, sizes, world))
				continue;
			if (why) {
				char c[192];
				sc_expr_format(d->s[i], q->node, c, sizeof c);
				say(why, n, "require at %s:%d does not hold: %s", d->s[i]->path, q->line, c);
			}
			return 0;
		}
	return 1;
}

/* Hinted range of dim; 0 none, 1 set, -1 the hint cannot be evaluated. */
static int hint_range(const struct dec *d, int dim, const int64_t *sizes, int world, int64_t *lo,
		      int64_t *hi)
{
	for (int i = 0; i < d->ns; i++)
		if (d->s[i]->hint[dim].lo >= 0) {
			if (sc_expr_eval(d->s[i], d->s[i]->hint[dim].lo, sizes, world, lo, NULL) != SC_OK ||
			    sc_expr_eval(d->s[i], d->s[i]->hint[dim].hi, sizes, world, hi, NULL) != SC_OK)
				return -1;
			if (*lo < 1)
				*lo = 1;
			return 1;
		}
	return 0;
}

/* ---- world ---- */

static int world_ok(const struct dec *d, int w, char *why, size_t n)
{
	if (w < 1 || w > SC_MAX_WORLD) {
		snprintf(why, n, "world %d out of range 1..%d", w, SC_MAX_WORLD);
		return 0;
	}
	if (d->o && !sc_gen_world_allowed(d->o, w)) {
		char ws[128];
		snprintf(why, n, "world %d outside --world %s", w, sc_gen_world_text(d->o, ws, sizeof ws));
		return 0;
	}
	return 1;
}

/* A world --world and (a target whose spec is known before its
 * parameters) the requires of the world alone allow (`require P >= 2`);
 * the others are checked once the specs are known (decode_sizes). */
static int world_fits(const struct dec *d, const struct sc_spec *fs, int w)
{
	if (!sc_gen_world_allowed(d->o, w))
		return 0;
	static const int64_t none[SC_MAX_DIMS];
	for (int k = 0; fs && k < fs->nconds; k++)
		if (fs->conds[k].last_dim < 0 && !sc_expr_cond_holds(fs, &fs->conds[k], none, w))
			return 0;
	return 1;
}

/* World draws: 1, 2, 3 and the lowest fitting world often; else uniform. */
static enum sc_status decode_world(struct dec *d, struct sc_case *c, struct sc_err *e)
{
	char why[160];
	if (!d->ch) {
		if (!world_ok(d, d->want->world, why, sizeof why))
			return reject(d, e, "%s", why);
		c->world = d->want->world;
		return SC_OK;
	}
	const int wlo = d->o->world_lo, whi = d->o->world_hi;
	uint64_t k = sc_choice(d->ch, 8);
	int w = wlo;
	const struct sc_spec *fs = sc_target_fixed_spec(d->t, 0);
	while (w < whi && !world_fits(d, fs, w))
		w++;
	if (k >= 1 && k <= 3 && world_fits(d, fs, (int)k)) {
		w = (int)k;
	} else if (k >= 4) { /* uniform over the fitting worlds (a range: the same draw as before) */
		int n = 0;
		for (int v = wlo; v <= whi; v++)
			n += world_fits(d, fs, v);
		int i = n ? (int)sc_choice(d->ch, (uint64_t)n) : 0;
		for (int v = wlo; v <= whi; v++)
			if (world_fits(d, fs, v) && i-- == 0) {
				w = v;
				break;
			}
	}
	c->world = w;
	return SC_OK;
}

/* ---- a mesh ---- */

/* A mesh size's range: its `sizes` range (binding unless hints only
 * guide), else 1..4 when drawing and any size when checking; a fixed
 * size is itself. 0 when the range cannot be evaluated. */
static int mesh_range(const struct dec *d, const struct sc_spec *s, int m, const int64_t *sizes, int64_t *lo,
		      int64_t *hi)
{
	if (s->mesh_fixed[m]) {
		*lo = *hi = s->mesh_fixed[m];
		return 1;
	}
	*lo = 1;
	*hi = d->ch ? 4 : SC_MAX_WORLD;
	if (s->mesh_hint[m].lo < 0 || (!d->ch && d->o && d->o->hints_guide_only))
		return 1;
	if (sc_expr_eval(s, s->mesh_hint[m].lo, sizes, 0, lo, NULL) != SC_OK ||
	    sc_expr_eval(s, s->mesh_hint[m].hi, sizes, 0, hi, NULL) != SC_OK)
		return 0;
	if (*lo < 1)
		*lo = 1;
	return 1;
}

/* The last mesh dim a require of the mesh alone reads (its sizes, and the
 * world as the product of them all: the last dim); -1 when it reads none,
 * SC_MAX_MESH when it reads anything else (a dim or a parameter). */
static int mesh_last(const struct sc_spec *s, int node)
{
	if (node < 0)
		return -1;
	const struct sc_expr *x = &s->nodes[node];
	int m = -1;
	if (x->kind == SC_EX_WORLD)
		m = s->nmesh - 1;
	else if (x->kind == SC_EX_DIM)
		m = x->dim >= sc_spec_mesh_slot(s, 0) ? x->dim - sc_spec_mesh_slot(s, 0) : SC_MAX_MESH;
	const int kids[3] = {x->a, x->b, x->c};
	for (int i = 0; i < 3; i++) {
		const int k = mesh_last(s, kids[i]);
		if (k > m)
			m = k;
	}
	return m;
}

/* Whether the requires of the mesh alone that end at mesh dim m hold for
 * the sizes drawn so far (the world, once m is the last dim, their
 * product): `require A >= 3` steers A's draw, as requires of the world
 * alone steer the world's. */
static int mesh_conds_hold(const struct sc_spec *s, int m, const int64_t *sizes, int64_t prod)
{
	for (int k = 0; k < s->nconds; k++)
		if (s->conds[k].last_dim < 0 && mesh_last(s, s->conds[k].node) == m &&
		    !sc_expr_cond_holds(s, &s->conds[k], sizes, (int)prod))
			return 0;
	return 1;
}

/* The mesh sizes (after the dims in sizes[]) and the world, their
 * product: each drawn in its range so that the product can still land in
 * --world and the requires of the mesh alone can hold, 1, 2 and 3 often
 * (1 x N, N x 1, non-powers of two); or checked. */
static enum sc_status decode_mesh(struct dec *d, const struct sc_spec *s, struct sc_case *c, struct sc_err *e)
{
	const int wlo = d->o ? d->o->world_lo : 1, whi = d->o ? d->o->world_hi : SC_MAX_WORLD;
	int64_t prod = 1;
	for (int m = 0; m < s->nmesh; m++) {
		int64_t lo, hi;
		if (!mesh_range(d, s, m, c->sizes, &lo, &hi))
			return reject(d, e, "the size range of mesh dim '%s' cannot be evaluated", s->mesh_dim[m]);
		if (!d->ch) {
			const int64_t v = d->want->sizes[sc_spec_mesh_slot(s, m)];
			if (v < lo || v > hi)
				return reject(d, e, "mesh dim '%s' is %lld, outside %lld..%lld", s->mesh_dim[m], (long long)v,
					      (long long)lo, (long long)hi);
			c->sizes[sc_spec_mesh_slot(s, m)] = v;
			prod *= v;
			continue;
		}
		/* the smallest and largest products the later mesh dims can make */
		int64_t rest_lo = 1, rest_hi = 1;
		for (int k = m + 1; k < s->nmesh; k++) {
			rest_lo *= s->mesh_fixed[k] ? s->mesh_fixed[k] : 1;
			rest_hi *= s->mesh_fixed[k] ? s->mesh_fixed[k] : whi;
		}
		int64_t cand[64];
		int n = 0;
		for (int64_t v = lo; v <= hi && n < 64; v++) {
			if (!(prod * v * rest_lo <= whi && prod * v * rest_hi >= wlo &&
			      (m + 1 < s->nmesh || !d->o || sc_gen_world_allowed(d->o, (int)(prod * v)))))
				continue;
			c->sizes[sc_spec_mesh_slot(s, m)] = v;
			if (mesh_conds_hold(s, m, c->sizes, prod * v))
				cand[n++] = v;
		}
		if (!n) {
			char ws[128];
			return reject(d, e, "no size of mesh dim '%s' keeps the mesh within --world %s and the requires of the mesh", s->mesh_dim[m],
				      d->o ? sc_gen_world_text(d->o, ws, sizeof ws) : "1..256");
		}
		const uint64_t k = sc_choice(d->ch, 8);
		int64_t v = cand[k >= 4 ? sc_choice(d->ch, (uint64_t)n) : 0];
		for (int i = 0; k >= 1 && k <= 3 && i < n; i++)
			if (cand[i] == (int64_t)k)
				v = cand[i];
		c->sizes[sc_spec_mesh_slot(s, m)] = v;
		prod *= v;
	}
	if (!d->ch && prod != d->want->world)
		return reject(d, e, "the mesh's sizes make %lld ranks, the world is %d", (long long)prod, d->want->world);
	char why[160];
	if (!world_ok(d, (int)prod, why, sizeof why))
		return reject(d, e, "%s", why);
	c->world = (int)prod;
	return SC_OK;
}

/* ---- the target's own parameters (built-ins) ---- */

static int param_ok(const struct sc_case_param *p, const struct sc_case_param *all, int ndims, int v)
{
	switch (p->kind) {
	case SC_PARAM_DIM: return v >= 0 && v < ndims;
	case SC_PARAM_OTHER_DIM: return v >= 0 && v < ndims && v != all[p->other].value;
	case SC_PARAM_OP: return v >= 0 && v < SC_NREDOPS;
	case SC_PARAM_CHOICE: return v >= 0 && v < p->other;
	}
	return 0;
}

/* Draw of one parameter: a dim index uniformly; a second dim index from
 * the others; an op uniformly. */
static int param_draw(struct sc_choices *ch, const struct sc_case_param *p,
		      const struct sc_case_param *all, int ndims)
{
	switch (p->kind) {
	case SC_PARAM_DIM: return (int)sc_choice(ch, (uint64_t)ndims);
	case SC_PARAM_OTHER_DIM: {
		int v = (int)sc_choice(ch, (uint64_t)(ndims - 1));
		return v >= all[p->other].value ? v + 1 : v;
	}
	case SC_PARAM_OP: return (int)sc_choice(ch, SC_NREDOPS);
	case SC_PARAM_CHOICE: return (int)sc_choice(ch, (uint64_t)p->other);
	}
	return 0;
}

static enum sc_status decode_params(struct dec *d, struct sc_case *c, struct sc_err *e)
{
	int lo, hi;
	if (!sc_target_ndims_range(d->t, &lo, &hi))
		return SC_OK;
	if (d->ch) {
		/* small ranks are more likely: half the draws take lo or lo+1 */
		c->ndims = sc_choice(d->ch, 2) == 0 ? lo + (int)sc_choice(d->ch, 2)
						    : lo + (int)sc_choice(d->ch, (uint64_t)(hi - lo + 1));
	} else {
		c->ndims = d->want->ndims;
		if (c->ndims < lo || c->ndims > hi)
			return reject(d, e, "%s takes %d to %d dims, not %d", d->t->name, lo, hi, c->ndims);
	}
	struct sc_case_param p[SC_CASE_MAX_PARAMS], want[SC_CASE_MAX_PARAMS];
	const int np = sc_target_params(d->t, c, p);
	if (!d->ch)
		sc_target_params(d->t, d->want, want);
	for (int i = 0; i < np; i++) {
		int v = d->ch ? param_draw(d->ch, &p[i], p, c->ndims) : want[i].value;
		if (!param_ok(&p[i], p, c->ndims, v))
			return reject(d, e, "parameter %s=%d is out of range for %d dims", p[i].key, v, c->ndims);
		p[i].value = v;
		sc_target_param_put(d->t, c, i, v);
	}
	return SC_OK;
}

/* ---- sizes ---- */

/* What bounds dim's size whatever its value (sizes of earlier dims set):
 * the sizes range (h: 1 when it binds, 0 none, -1 cannot be evaluated)
 * and the granule sharded dims must divide by. */
struct dim_rule { int h; int64_t lo, hi, gran; };

static struct dim_rule dim_rule(const struct dec *d, int dim, int64_t *sizes, int world)
{
	struct dim_rule r = {0, 0, 0, granule(d, dim, sizes, world)};
	r.h = d->o && d->o->hints_guide_only ? 0 : hint_range(d, dim, sizes, world, &r.lo, &r.hi);
	return r;
}

/* Whether v may be the size of dim under its rule: the validity range,
 * divisibility of sharded dims, the requires ending at this dim, and the
 * element budget. */
static int size_ok(const struct dec *d, const struct dim_rule *r, int dim, int64_t *sizes, int world, int64_t prod,
		   int64_t v, char *why, size_t n)
{
	/* drawing asks for no reason: the candidate loop stays cheap */
#define WHY(...) (why ? snprintf(why, n, __VA_ARGS__) : 0)
	const struct sc_spec *s0 = d->s[0];
	if (v < 1) {
		WHY("size of '%s' must be at least 1", s0->dim[dim]);
		return 0;
	}
	if (r->h < 0 || (r->h > 0 && (v < r->lo || v > r->hi))) {
		WHY("size of '%s' outside its sizes range", s0->dim[dim]);
		return 0;
	}
	if (v % r->gran != 0) {
		if (s0->nmesh)
			WHY("sharded dim '%s' (%lld) not divisible by %lld (the sizes of the mesh groups sharding it)",
			    s0->dim[dim], (long long)v, (long long)r->gran);
		else if (sharded(d, dim) == 2)
			WHY("zigzag dim '%s' (%lld) not divisible by 2 * world %d", s0->dim[dim], (long long)v, world);
		else
			WHY("sharded dim '%s' (%lld) not divisible by world %d", s0->dim[dim], (long long)v, world);
		return 0;
	}
	int64_t p;
	if (__builtin_mul_overflow(prod, v, &p)) {
		WHY("too many elements");
		return 0;
	}
	if (d->o && p > d->o->max_elems) {
		/* the whole case's count, as the user reads it */
		int64_t all = p;
		for (int k = dim + 1; !d->ch && k < d->want->ndims; k++)
			if (__builtin_mul_overflow(all, d->want->sizes[k], &all))
				break;
		WHY("%lld elements exceed --max-elems %lld", (long long)all, (long long)d->o->max_elems);
		return 0;
	}
	const int64_t keep = sizes[dim];
	sizes[dim] = v;
	const int holds = conds_hold(d, dim, sizes, world, why, n);
	sizes[dim] = keep;
	return holds;
#undef WHY
}

/* An unevenly sharded dim's size: the edges of its layout half the time,
 * L < P (empty shards), L = P, L mod P != 0, L = 1. */
static int64_t pick_uneven(struct sc_choices *ch, const int64_t *cand, int n, int64_t world)
{
	const uint64_t k = sc_choice(ch, 10);
	const int64_t want[6] = {cand[0], 1, world - 1, world, world + 1, 2 * world - 1};
	if (k < 6)
		for (int i = 0; i < n; i++)
			if (cand[i] == want[k])
				return want[k];
	return cand[sc_choice(ch, (uint64_t)n)];
}

/* Picks among the admitted values: the smallest, 1, P and 2 often. */
static int64_t pick(struct sc_choices *ch, const int64_t *cand, int n, int64_t world)
{
	uint64_t k = sc_choice(ch, 8);
	int64_t want = -1;
	switch (k) {
	case 0: return cand[0];
	case 1: want = 1; break;
	case 2: want = world; break;
	case 3: want = 2; break;
	default: return cand[sc_choice(ch, (uint64_t)n)];
	}
	for (int i = 0; i < n; i++)
		if (cand[i] == want)
			return want;
	return cand[sc_choice(ch, (uint64_t)n)];
}

/* Draws dim's size from its generation range. */
static enum sc_status draw_size(struct dec *d, int dim, int64_t *sizes, int world, int64_t prod,
				struct sc_err *e)
{
	int64_t cand[MAX_CAND];
	int64_t lo = 1, hi = 8;
	const int h = hint_range(d, dim, sizes, world, &lo, &hi);
	if (h < 0)
		return reject(d, e, "size range of '%s' cannot be evaluated", d->s[0]->dim[dim]);
	const struct dim_rule r = dim_rule(d, dim, sizes, world); /* once for every candidate */
	const int64_t gran = r.gran;
	if (h == 0 && gran > 1) {
		lo = gran;
		hi = 4 * lo;
	} else if (h == 0 && uneven(d, dim)) {
		lo = 1;
		hi = 4 * (int64_t)world;
	}
	const int64_t cap = d->o->max_elems / prod;
	if (hi > cap)
		hi = cap;
	const int64_t span = hi - lo + 1;
	const int64_t step = span > MAX_CAND * 4 ? span / (MAX_CAND * 4) + 1 : 1; /* huge ranges: a sample */
	int n = 0;
	for (int64_t v = lo; v <= hi && n < MAX_CAND; v += step)
		if (!(v % gran) && size_ok(d, &r, dim, sizes, world, prod, v, NULL, 0))
			cand[n++] = v; /* (the divisibility test first only saves time) */
	if (n == 0)
		return reject(d, e, "no size of '%s' satisfies the constraints for world %d", d->s[0]->dim[dim],
			      world);
	sizes[dim] = uneven(d, dim) ? pick_uneven(d->ch, cand, n, world) : pick(d->ch, cand, n, world);
	return SC_OK;
}

/* The spec's `param` declarations, after the dims: each drawn at the
 * edges of its range (LO, HI, or any) among the values the requires that
 * end at it admit, or checked. */
static enum sc_status decode_scalars(struct dec *d, struct sc_case *c, struct sc_err *e)
{
	const struct sc_spec *s0 = d->s[0];
	char why[SC_ERR_MAX];
	for (int k = 0; k < s0->nparams; k++) {
		const int slot = sc_spec_param_slot(s0, k), last = s0->ndims + k;
		int64_t lo, hi;
		if (sc_expr_eval(s0, s0->param_range[k].lo, c->sizes, c->world, &lo, NULL) != SC_OK ||
		    sc_expr_eval(s0, s0->param_range[k].hi, c->sizes, c->world, &hi, NULL) != SC_OK || lo > hi || lo < 0)
			return reject(d, e, "the range of parameter %s cannot be evaluated, is empty or is below 0", s0->param[k]);
		if (!d->ch) {
			c->sizes[slot] = d->want->sizes[slot];
			if (c->sizes[slot] < lo || c->sizes[slot] > hi)
				return reject(d, e, "parameter %s = %lld outside %lld..%lld", s0->param[k], (long long)c->sizes[slot],
					      (long long)lo, (long long)hi);
			if (!conds_hold(d, last, c->sizes, c->world, why, sizeof why))
				return reject(d, e, "%s", why);
			continue;
		}
		int64_t cand[MAX_CAND];
		int n = 0;
		const uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
		const int64_t step = span > MAX_CAND ? (int64_t)(span / MAX_CAND) + 1 : 1; /* huge ranges: a sample */
		for (int64_t v = lo;; v = hi - v > step ? v + step : hi) { /* hi itself always a candidate */
			c->sizes[slot] = v;
			if (conds_hold(d, last, c->sizes, c->world, NULL, 0) && (k + 1 < s0->nparams || sc_gen_routes_fit(s0, c)))
				cand[n++] = v;
			if (v == hi || n == MAX_CAND)
				break;
		}
		if (n == 0)
			return reject(d, e, "no value of parameter %s satisfies the constraints", s0->param[k]);
		const uint64_t style = sc_choice(d->ch, 3);
		c->sizes[slot] = style == 0 ? cand[0] : style == 1 ? cand[n - 1] : cand[sc_choice(d->ch, (uint64_t)n)];
	}
	return SC_OK;
}

/* A sequences vector k: its length (the fewest of A..B, the most, or any;
 * or checked) into c->counts.len[k]; lo..hi narrowed to multiples of *mult. */
static enum sc_status seq_shape(struct dec *d, struct sc_case *c, int k, int64_t *lo, int64_t *hi, int64_t *mult,
				struct sc_err *e)
{
	struct sc_counts_seq q;
	char why[160];
	if (!sc_counts_seq_bounds(d->s[0], k, c->sizes, c->world, *lo, *hi, &q, why, sizeof why))
		return reject(d, e, "%s", why);
	*lo = q.lo;
	*hi = q.hi;
	*mult = q.mult;
	if (!d->ch) {
		const int32_t n = d->want->counts.len[k];
		if (n < q.n_lo || n > q.n_hi)
			return reject(d, e, "%s has %d sequences, outside %lld..%lld", d->s[0]->counts[k].name, n,
				      (long long)q.n_lo, (long long)q.n_hi);
		c->counts.len[k] = n;
		return SC_OK;
	}
	const uint64_t style = sc_choice(d->ch, 3), span = (uint64_t)(q.n_hi - q.n_lo + 1);
	c->counts.len[k] = (int32_t)(style == 0 ? q.n_lo : style == 1 ? q.n_hi : q.n_lo + (int64_t)sc_choice(d->ch, span));
	return SC_OK;
}

/* The counts matrices: drawn at their edges (all LO, one entry HI, a
 * single nonzero entry, or every entry in LO..HI), or checked. */
static enum sc_status decode_counts(struct dec *d, struct sc_case *c, struct sc_err *e)
{
	const struct sc_spec *s0 = d->s[0];
	c->counts.P = 0;
	if (!s0->ncounts)
		return SC_OK;
	memset(&c->counts, 0, sizeof c->counts);
	const int P = sc_spec_counts_P(s0, c->sizes, c->world);
	if (P > SC_COUNTS_MAX_P)
		return reject(d, e, "a spec with counts runs on at most %d ranks (world %d)", SC_COUNTS_MAX_P, P);
	c->counts.P = P;
	if (!d->ch && d->want->counts.P != P)
		return reject(d, e, "the counts are %d x %d, the world is %d", d->want->counts.P, d->want->counts.P, P);
	for (int k = 0; k < s0->ncounts; k++) {
		int64_t lo, hi;
		if (sc_expr_eval(s0, s0->counts[k].lo, c->sizes, c->world, &lo, NULL) != SC_OK ||
		    sc_expr_eval(s0, s0->counts[k].hi, c->sizes, c->world, &hi, NULL) != SC_OK || lo > hi || lo < 0 ||
		    hi > INT32_MAX)
			return reject(d, e, "the range of counts %s cannot be evaluated or is empty", s0->counts[k].name);
		int32_t *m = c->counts.v[k];
		int64_t mult = 1;
		if (s0->counts[k].seq)
			SC_CHECK(seq_shape(d, c, k, &lo, &hi, &mult, e));
		const int len = sc_spec_counts_len(s0, k, c->sizes, &c->counts), vec = sc_spec_counts_vec(s0, k);
		const int K = sc_spec_topk(s0, k);
		const int64_t ntok = s0->counts[k].route ? sc_spec_tokens(s0, k, c->sizes)
					: s0->counts[k].len_dim >= 0 ? c->sizes[s0->counts[k].len_dim] : 0;
		if (ntok > SC_COUNTS_MAX_LEN / K)
			return reject(d, e, "at most %d %s (%s%s%s is %lld)", SC_COUNTS_MAX_LEN / K,
				      s0->counts[k].route ? "routed tokens" : "micro-batches", s0->dim[s0->counts[k].len_dim],
				      s0->counts[k].len_dim2 >= 0 ? "*" : "",
				      s0->counts[k].len_dim2 >= 0 ? s0->dim[s0->counts[k].len_dim2] : "", (long long)ntok);
		if (K > 1 && hi - lo + 1 < K)
			return reject(d, e, "routes %s: topk=%d distinct experts a token, but %lld..%lld holds %lld",
				      s0->counts[k].name, K, (long long)lo, (long long)hi, (long long)(hi - lo + 1));
		if (!d->ch) {
			for (int i = 0; i < SC_COUNTS_MAX_LEN; i++) {
				const int32_t w = d->want->counts.v[k][i];
				if (i < len && w % mult)
					return reject(d, e, "%s(%d) = %d is not a multiple of %lld", s0->counts[k].name, i, w,
						      (long long)mult);
				if (i >= len ? w != 0 : w < lo || w > hi)
					return vec ? reject(d, e, "%s(%d) = %d outside %lld..%lld", s0->counts[k].name, i, w,
							    (long long)lo, (long long)hi)
						   : reject(d, e, "counts %s(%d, %d) = %d outside %lld..%lld", s0->counts[k].name,
							    i / P, i % P, w, (long long)lo, (long long)hi);
			}
			int q, i, j;
			if (sc_gen_routes_repeat(d->want->counts.v[k], len / K, K, &q, &i, &j))
				return reject(d, e, "%s(%d, %d) = %s(%d, %d) = %d: a token's topk experts are distinct",
					      s0->counts[k].name, q, i, s0->counts[k].name, q, j, d->want->counts.v[k][q * K + j]);
			memcpy(m, d->want->counts.v[k], sizeof(int32_t) * (size_t)len);
			continue;
		}
		if (K > 1) {
			sc_gen_routes_draw(d->ch, m, len / K, K, lo, hi);
			continue;
		}
		/* entries lo + mult * j, j in 0..span-1 (mult 1 but for sequences) */
		const uint64_t style = sc_choice(d->ch, 4), span = (uint64_t)((hi - lo) / mult + 1);
		for (int i = 0; i < len; i++)
			m[i] = (int32_t)lo;
		if (style == 1 && len)
			m[sc_choice(d->ch, (uint64_t)len)] = (int32_t)(lo + (int64_t)(span - 1) * mult);
		else if (style == 2 && len)
			m[sc_choice(d->ch, (uint64_t)len)] = (int32_t)(lo + (int64_t)sc_choice(d->ch, span) * mult);
		else if (style == 3)
			for (int i = 0; i < len; i++)
				m[i] = (int32_t)(lo + (int64_t)sc_choice(d->ch, span) * mult);
	}
	return SC_OK;
}

/* Dims a sizes= placement gives: the sum of E over the ranks (input and
 * output must agree), then the requires and the element budget with them. */
static enum sc_status derive_sizes(struct dec *d, struct sc_case *c, struct sc_err *e)
{
	const struct sc_spec *s0 = d->s[0];
	if (!s0->derived_mask && !sc_spec_routes(s0)) /* a dim routes are drawn over: drawn, its sizes= checked */
		return SC_OK;
	struct sc_mesh lcm;
	const struct sc_layout_ctx lc = sc_layout_ctx_case(s0, &c->counts, c->sizes, c->world, &lcm);
	const struct sc_layout *pl[2] = {&s0->in, &s0->out};
	int set[SC_MAX_DIMS] = {0};
	sc_counts_derive(s0, &c->counts, c->sizes);
	for (int mb = 0; mb < s0->ncounts; mb++) { /* a vector's dim: the rows of its micro-batches or sequences */
		const int n = s0->counts[mb].sum_dim;
		if (n < 0)
			continue;
		if (!d->ch && d->want->sizes[n] != c->sizes[n])
			return reject(d, e, "%s is %lld, but its %s %s hold %lld rows", s0->dim[n], (long long)d->want->sizes[n],
				      s0->counts[mb].seq ? "sequences" : "micro-batches", s0->counts[mb].name,
				      (long long)c->sizes[n]);
		const struct dim_rule r = dim_rule(d, n, c->sizes, c->world);
		if (c->sizes[n] % r.gran) /* a sharded n: divisible (a multiple= says how) */
			return reject(d, e, "%s's %s hold %lld rows, not divisible by %lld (the sharding of %s)",
				      s0->counts[mb].seq ? "sequences" : "micro-batches", s0->counts[mb].name,
				      (long long)c->sizes[n], (long long)r.gran, s0->dim[n]);
		set[n] = 1;
	}
	for (int i = 0; i < 2; i++) {
		int dim;
		int64_t total;
		struct sc_err ee;
		if (sc_layout_sized_total(pl[i], &lc, c->sizes, c->world, &dim, &total, &ee) != SC_OK)
			return reject(d, e, "%s's sizes= cannot be evaluated: %s", pl[i]->shard_dim >= 0 ? s0->dim[pl[i]->shard_dim] : "a dim", ee.msg);
		if (dim < 0)
			continue;
		if (i == 1 && sc_spec_out_sizes_over_ref(s0, dim))
			continue;
		if (set[dim] && c->sizes[dim] != total)
			return reject(d, e, "the input's sizes= give %s %lld rows, the output's %lld", s0->dim[dim],
				      (long long)c->sizes[dim], (long long)total);
		if (!((s0->derived_mask >> dim) & 1u) && c->sizes[dim] != total)
			return reject(d, e, "%s's sizes= give %lld rows, but %s has %lld (its routes are drawn over it)",
				      s0->dim[dim], (long long)total, s0->dim[dim], (long long)c->sizes[dim]);
		if (!d->ch && !set[dim] && d->want->sizes[dim] != total)
			return reject(d, e, "%s is %lld, but its sizes= give %lld", s0->dim[dim],
				      (long long)d->want->sizes[dim], (long long)total);
		c->sizes[dim] = total;
		set[dim] = 1;
	}
	int64_t all = 1;
	for (int k = 0; k < c->ndims; k++)
		if (__builtin_mul_overflow(all, c->sizes[k], &all) || (d->o && all > d->o->max_elems))
			return reject(d, e, "the sizes= dims make more than --max-elems elements");
	char why[SC_ERR_MAX];
	d->derived_known = 1;
	if (!conds_hold(d, ALL_CONDS, c->sizes, c->world, why, sizeof why))
		return reject(d, e, "%s", why);
	return SC_OK;
}

static enum sc_status decode_sizes(struct dec *d, struct sc_case *c, struct sc_err *e)
{
	char why[SC_ERR_MAX];
	if (!conds_hold(d, -1, c->sizes, c->world, d->ch ? NULL : why, sizeof why)) {
		d->part = SC_GEN_PART_WORLD; /* a require of the world alone */
		return d->ch ? reject(d, e, "world %d violates a require", c->world) : reject(d, e, "%s", why);
	}
	const int nd = d->s[0]->ndims;
	if (!d->ch && d->want->ndims != nd)
		return reject(d, e, "%d sizes given, the spec has %d dims", d->want->ndims, nd);
	c->ndims = nd;
	for (int k = 0; k < nd; k++)
		c->sizes[k] = 1;
	int64_t prod = 1;
	const uint32_t derived = d->s[0]->derived_mask;
	for (int k = 0; k < nd; k++) {
		if ((derived >> k) & 1u)
			continue; /* given by its sizes= placement, once the counts are drawn */
		if (d->ch) {
			SC_CHECK(draw_size(d, k, c->sizes, c->world, prod, e));
		} else {
			const struct dim_rule r = dim_rule(d, k, c->sizes, c->world);
			if (!size_ok(d, &r, k, c->sizes, c->world, prod, d->want->sizes[k], why, sizeof why))
				return reject(d, e, "%s", why);
			c->sizes[k] = d->want->sizes[k];
		}
		prod *= c->sizes[k];
	}
	SC_CHECK(decode_scalars(d, c, e));
	SC_CHECK(decode_counts(d, c, e));
	SC_CHECK(derive_sizes(d, c, e));
	for (int i = 0; i < d->ns; i++) /* nested shards: every level's piece */
		for (int k = 0; d->s[i]->nmesh && k < (d->s[i]->ref_line ? 1 : 2); k++)
			if (!sc_layout_mesh_ok(d->s[i], k ? &d->s[i]->out : &d->s[i]->in, &c->counts, c->sizes, why, sizeof why))
				return reject(d, e, "%s", why);
	return SC_OK;
}

/* ---- the pass ---- */

static int dtype_at(uint32_t mask, uint64_t k)
{
	for (int i = 0; i < SC_NDTYPES; i++)
		if (mask & (1u << i)) {
			if (k == 0)
				return i;
			k--;
		}
	return SC_I32;
}

static enum sc_status decode(struct dec *d, struct sc_case *out, struct sc_err *e)
{
	struct sc_case c;
	/* the counts (2 KiB) are only touched for specs that draw them */
	memset(&c, 0, offsetof(struct sc_case, counts));
	c.counts.P = 0;
	d->part = SC_GEN_PART_WORLD;
	const struct sc_spec *ms = sc_gen_mesh_spec(d->t);
	SC_CHECK(ms ? decode_mesh(d, ms, &c, e) : decode_world(d, &c, e));
	d->part = SC_GEN_PART_PARAMS;
	SC_CHECK(decode_params(d, &c, e));
	struct sc_err se;
	if (sc_target_specs(d->t, &c, d->s, &d->ns, &se) != SC_OK)
		return reject(d, e, "%s", se.msg);
	d->part = SC_GEN_PART_DTYPE;
	const uint32_t dm = dtype_mask(d);
	if (d->ch && !dm)
		return reject(d, e, "no dtype allowed by both --dtypes and the spec's dtypes");
	if (!d->ch && !(dm & (1u << d->want->dtype)))
		return reject(d, e, "dtype %s is not allowed here", sc_dtype_name(d->want->dtype));
	d->part = SC_GEN_PART_SIZES;
	SC_CHECK(decode_sizes(d, &c, e));
	if (d->ch) {
		c.dtype = (enum sc_dtype)dtype_at(dm, sc_choice(d->ch, (uint64_t)__builtin_popcount(dm)));
		c.seed = sc_choice(d->ch, 1ULL << 32);
	} else {
		c.dtype = d->want->dtype;
		c.seed = d->want->seed;
	}
	memcpy(out, &c, offsetof(struct sc_case, counts));
	out->counts.P = c.counts.P;
	if (c.counts.P)
		out->counts = c.counts;
	return SC_OK;
}

enum sc_status sc_gen_case(struct sc_target *t, const struct sc_gen_opts *o, struct sc_choices *ch,
			   struct sc_case *c, struct sc_err *e)
{
	struct dec d = {.t = t, .o = o, .ch = ch};
	return decode(&d, c, e);
}

int sc_gen_check(struct sc_target *t, const struct sc_gen_opts *o, const struct sc_case *c, char *why,
		 size_t n, enum sc_gen_part *part)
{
	struct dec d = {.t = t, .o = o, .want = c, .why = why, .nwhy = n};
	struct sc_case out;
	if (decode(&d, &out, NULL) == SC_OK)
		return 1;
	if (part)
		*part = d.part;
	return 0;
}

int sc_gen_valid(struct sc_target *t, const struct sc_gen_opts *o, const struct sc_case *c, char *why,
		 size_t n)
{
	return sc_gen_check(t, o, c, why, n, NULL);
}
