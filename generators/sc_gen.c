/* sc_gen: case decoder. */
#include "sc_gen.h"

#include <stdio.h>
#include <string.h>

#define MAX_CAND 4096

void sc_gen_defaults(struct sc_gen_opts *o)
{
	if (o->world_lo <= 0)
		o->world_lo = 1;
	if (o->world_hi <= 0)
		o->world_hi = o->world_lo > 8 ? o->world_lo : 8;
	if (o->max_elems <= 0)
		o->max_elems = 65536;
	if (!o->dtypes)
		o->dtypes = (1u << SC_NDTYPES) - 1;
}

static int sharded(const struct sc_spec *const *s, int ns, int d)
{
	for (int i = 0; i < ns; i++)
		if (sc_spec_sharded(s[i], d))
			return 1;
	return 0;
}

/* The dtypes a case may draw: the options', within the specs' `dtypes`;
 * compute specs only take floating-point types. */
static uint32_t dtype_mask(const struct sc_spec *const *s, int ns, uint32_t opts)
{
	uint32_t m = opts;
	for (int i = 0; i < ns; i++) {
		if (s[i]->dtype_mask)
			m &= s[i]->dtype_mask;
		if (s[i]->compute)
			for (int d = 0; d < SC_NDTYPES; d++)
				if (!sc_dtype_is_float((enum sc_dtype)d))
					m &= ~(1u << d);
	}
	return m;
}

/* Size range of dim d given the world and earlier dims. */
static int dim_range(const struct sc_spec *const *s, int ns, int d, const int64_t *sizes,
		     int world, int64_t *lo, int64_t *hi)
{
	for (int i = 0; i < ns; i++)
		if (s[i]->hint[d].lo >= 0) {
			if (sc_expr_eval(s[i], s[i]->hint[d].lo, sizes, world, lo, NULL) != SC_OK ||
			    sc_expr_eval(s[i], s[i]->hint[d].hi, sizes, world, hi, NULL) != SC_OK)
				return -1;
			if (*lo < 1)
				*lo = 1;
			return 0;
		}
	if (sharded(s, ns, d)) {
		*lo = world;
		*hi = 4 * (int64_t)world;
	} else {
		*lo = 1;
		*hi = 8;
	}
	return 0;
}

static int conds_hold(const struct sc_spec *const *s, int ns, int last, const int64_t *sizes,
		      int world)
{
	for (int i = 0; i < ns; i++)
		for (int k = 0; k < s[i]->nconds; k++)
			if (s[i]->conds[k].last_dim == last &&
			    sc_cond_eval(s[i], &s[i]->conds[k], sizes, world, NULL) != 1)
				return 0;
	return 1;
}

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

static enum sc_status decode_sizes(const struct sc_spec *const *s, int ns, int world,
				   struct sc_choices *ch, const struct sc_gen_opts *o,
				   int64_t *sizes, struct sc_err *e)
{
	const int nd = s[0]->ndims;
	int64_t cand[MAX_CAND];
	int64_t prod = 1;
	for (int d = 0; d < nd; d++)
		sizes[d] = 1;
	for (int d = 0; d < nd; d++) {
		int64_t lo, hi;
		if (dim_range(s, ns, d, sizes, world, &lo, &hi) != 0)
			return SC_ERR(e, SC_E_NOCASE, "size range of '%s' cannot be evaluated", s[0]->dim[d]);
		const int64_t cap = o->max_elems / prod;
		if (hi > cap)
			hi = cap;
		const int64_t mult = sharded(s, ns, d) ? world : 1;
		int n = 0;
		int64_t span = hi - lo + 1;
		int64_t step = 1;
		if (span > MAX_CAND * 4) /* huge ranges: an even sample */
			step = span / (MAX_CAND * 4) + 1;
		for (int64_t v = lo; v <= hi && n < MAX_CAND; v += step) {
			if (v % mult != 0)
				continue;
			sizes[d] = v;
			if (conds_hold(s, ns, d, sizes, world))
				cand[n++] = v;
		}
		if (n == 0)
			return SC_ERR(e, SC_E_NOCASE, "no size of '%s' satisfies the constraints for world %d",
				      s[0]->dim[d], world);
		sizes[d] = pick(ch, cand, n, world);
		prod *= sizes[d];
	}
	return SC_OK;
}

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

enum sc_status sc_gen_case(struct sc_target *t, const struct sc_gen_opts *o,
			   struct sc_choices *ch, struct sc_case *c, struct sc_err *e)
{
	memset(c, 0, sizeof *c);
	/* world: 1, 2, 3 and the lower bound often; else uniform */
	int wlo = o->world_lo, whi = o->world_hi;
	uint64_t k = sc_choice(ch, 8);
	int w = wlo;
	if (k >= 1 && k <= 3 && (int)k >= wlo && (int)k <= whi)
		w = (int)k;
	else if (k >= 4)
		w = wlo + (int)sc_choice(ch, (uint64_t)(whi - wlo + 1));
	c->world = w;
	if (t->kind == SC_TGT_BUILTIN) {
		const int lo = t->bi == SC_BI_ALL_TO_ALL ? 2 : 1, hi = 6;
		/* small ranks are more likely: half the draws take lo or lo+1 */
		int n = sc_choice(ch, 2) == 0 ? lo + (int)sc_choice(ch, 2)
					      : lo + (int)sc_choice(ch, (uint64_t)(hi - lo + 1));
		c->ndims = n;
		c->p0 = (int)sc_choice(ch, (uint64_t)n);
		if (t->bi == SC_BI_ALL_TO_ALL) {
			c->p1 = (int)sc_choice(ch, (uint64_t)(n - 1));
			if (c->p1 >= c->p0)
				c->p1++;
		}
		if (t->bi == SC_BI_REDUCE_SCATTER || t->bi == SC_BI_ALL_REDUCE)
			c->op = (enum sc_redop)sc_choice(ch, SC_NREDOPS);
	}
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns = sc_target_specs(t, c, s, e);
	if (ns < 1)
		return SC_E_INTERNAL;
	c->ndims = s[0]->ndims;
	for (int i = 0; i < ns; i++)
		for (int q = 0; q < s[i]->nconds; q++)
			if (s[i]->conds[q].last_dim < 0 &&
			    sc_cond_eval(s[i], &s[i]->conds[q], c->sizes, w, NULL) != 1)
				return SC_ERR(e, SC_E_NOCASE, "world %d violates a require", w);
	SC_CHECK(decode_sizes(s, ns, w, ch, o, c->sizes, e));
	const uint32_t dm = dtype_mask(s, ns, o->dtypes);
	if (!dm)
		return SC_ERR(e, SC_E_NOCASE, "no dtype allowed by both --dtypes and the spec's dtypes");
	int ndt = __builtin_popcount(dm);
	c->dtype = (enum sc_dtype)dtype_at(dm, sc_choice(ch, (uint64_t)ndt));
	c->seed = sc_choice(ch, 1ULL << 32);
	return SC_OK;
}

int sc_case_valid(struct sc_target *t, const struct sc_gen_opts *o, const struct sc_case *c,
		  char *why, size_t n)
{
	char dummy[8];
	if (!why) {
		why = dummy;
		n = sizeof dummy;
	}
	if (c->world < 1 || c->world > SC_MAX_WORLD) {
		snprintf(why, n, "world %d out of range 1..%d", c->world, SC_MAX_WORLD);
		return 0;
	}
	if (o && (c->world < o->world_lo || c->world > o->world_hi)) {
		snprintf(why, n, "world %d outside --world %d..%d", c->world, o->world_lo, o->world_hi);
		return 0;
	}
	const struct sc_spec *s[SC_MAX_CHAIN];
	struct sc_err e;
	int ns = sc_target_specs(t, c, s, &e);
	if (ns < 1) {
		snprintf(why, n, "%s", e.msg);
		return 0;
	}
	if (!(dtype_mask(s, ns, o ? o->dtypes : (1u << SC_NDTYPES) - 1) & (1u << c->dtype))) {
		snprintf(why, n, "dtype %s is not allowed here", sc_dtype_name(c->dtype));
		return 0;
	}
	if (c->ndims != s[0]->ndims) {
		snprintf(why, n, "%d sizes given, the spec has %d dims", c->ndims, s[0]->ndims);
		return 0;
	}
	int64_t prod = 1;
	for (int d = 0; d < c->ndims; d++) {
		int64_t lo, hi;
		if (c->sizes[d] < 1) {
			snprintf(why, n, "size of '%s' must be at least 1", s[0]->dim[d]);
			return 0;
		}
		if (dim_range(s, ns, d, c->sizes, c->world, &lo, &hi) != 0 || c->sizes[d] < lo ||
		    c->sizes[d] > hi) {
			/* default ranges only guide generation; explicit hints bind */
			int hinted = 0;
			for (int i = 0; i < ns; i++)
				hinted |= s[i]->hint[d].lo >= 0;
			if (hinted) {
				snprintf(why, n, "size of '%s' outside its sizes range", s[0]->dim[d]);
				return 0;
			}
		}
		if (sharded(s, ns, d) && c->sizes[d] % c->world != 0) {
			snprintf(why, n, "sharded dim '%s' (%lld) not divisible by world %d", s[0]->dim[d],
				 (long long)c->sizes[d], c->world);
			return 0;
		}
		if (__builtin_mul_overflow(prod, c->sizes[d], &prod)) {
			snprintf(why, n, "too many elements");
			return 0;
		}
	}
	if (o && prod > o->max_elems) {
		snprintf(why, n, "%lld elements exceed --max-elems %lld", (long long)prod,
			 (long long)o->max_elems);
		return 0;
	}
	for (int i = 0; i < ns; i++)
		for (int q = 0; q < s[i]->nconds; q++)
			if (sc_cond_eval(s[i], &s[i]->conds[q], c->sizes, c->world, NULL) != 1) {
				snprintf(why, n, "require on line %d does not hold", s[i]->conds[q].line);
				return 0;
			}
	return 1;
}
