/* sc_builtin: the built-in target kind and the registry of families. */
#include "sc_builtin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The registry: one row per family (each defined in sc_builtin_NAME.c). */
extern const struct sc_builtin_family sc_builtin_all_to_all, sc_builtin_all_gather, sc_builtin_reduce_scatter,
	sc_builtin_all_reduce, sc_builtin_all_to_all_2d, sc_builtin_all_gather_2d, sc_builtin_reduce_scatter_2d,
	sc_builtin_all_reduce_2d;
static const struct sc_builtin_family *const families[] = {
	&sc_builtin_all_to_all,    &sc_builtin_all_gather,    &sc_builtin_reduce_scatter,    &sc_builtin_all_reduce,
	&sc_builtin_all_to_all_2d, &sc_builtin_all_gather_2d, &sc_builtin_reduce_scatter_2d, &sc_builtin_all_reduce_2d,
};
#define NFAMILIES ((int)(sizeof families / sizeof families[0]))

int sc_builtin_families(const struct sc_builtin_family *const **list)
{
	*list = families;
	return NFAMILIES;
}

enum sc_status sc_builtin_find(const char *name, const struct sc_builtin_family **out)
{
	for (int i = 0; i < NFAMILIES; i++)
		if (strcmp(name, families[i]->name) == 0) {
			*out = families[i];
			return SC_OK;
		}
	return SC_E_USAGE;
}

const struct sc_builtin_family *sc_builtin_named(const char *name)
{
	const struct sc_builtin_family *f = NULL;
	return sc_builtin_find(name, &f) == SC_OK ? f : NULL;
}

#define NCHOICES 4 /* p2's values (mesh families) */
#define CACHE_N (9 * 8 * 8 * SC_NREDOPS * NCHOICES)

static int has_slot(const struct sc_builtin_family *f, enum sc_builtin_slot slot)
{
	for (int i = 0; i < f->nparams; i++)
		if (f->params[i].slot == slot)
			return 1;
	return 0;
}

/* The cache's mark of a parameter set that has no spec. */
static struct sc_spec no_spec; /* never touched: a zero page of .bss at most */

enum sc_status sc_builtin_spec(struct sc_target *t, int n, int i, int j, enum sc_redop op, int p2,
			       const struct sc_spec **out, struct sc_err *e)
{
	const struct sc_builtin_family *f = t->family;
	if (n < 1 || n > 8 || i < 0 || i >= n || j < 0 || j >= n || p2 < 0 || p2 >= NCHOICES)
		return SC_ERR(e, SC_E_USAGE, "builtin:%s: bad parameters (dims %d, dim %d, concat %d, mesh %d)", f->name, n,
			      i, j, p2);
	if (!has_slot(f, SC_BUILTIN_P1))
		j = 0;
	if (!has_slot(f, SC_BUILTIN_OP))
		op = SC_SUM;
	if (!has_slot(f, SC_BUILTIN_P2))
		p2 = 0;
	const int key = (((n * 8 + i) * 8 + j) * SC_NREDOPS + (int)op) * NCHOICES + p2;
	if (t->cache[key] == &no_spec) /* known not to exist (drawn again and again) */
		return SC_ERR(e, SC_E_USAGE, "builtin:%s: mesh=%d needs a dim besides the collective's (dims %d)", f->name,
			      p2, n);
	if (t->cache[key]) {
		*out = t->cache[key];
		return SC_OK;
	}
	struct sc_str b = SC_STR_INIT;
	sc_str_printf(&b, "pipeline builtin:%s\ndims", f->name);
	for (int d = 0; d < n; d++)
		sc_str_printf(&b, " d%d", d);
	sc_str_put(&b, "\n");
	if (f->base && !sc_builtin_mesh_text(f, &b, n, i, j, op, p2)) {
		sc_str_free(&b);
		t->cache[key] = &no_spec;
		return sc_builtin_spec(t, n, i, j, op, p2, out, e);
	}
	if (!f->base)
		f->text(&b, n, i, j, op);
	char *text = sc_str_take(&b);
	struct sc_spec *s = calloc(1, sizeof *s);
	if (!s || !text) {
		free(s);
		free(text);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	enum sc_status st = sc_spec_parse_zeroed(text, t->name, s, e);
	if (st == SC_OK)
		SC_LOG(CHECK, "builtin:%s spec for dims %d, (%d, %d, %s):\n%s", f->name, n, i, j, sc_redop_name(op),
		       text);
	free(text);
	if (st != SC_OK) {
		free(s);
		return st;
	}
	if (t->torch)
		s->torch = t->torch;
	t->cache[key] = s;
	*out = s;
	return SC_OK;
}

/* ---- the target kind ---- */

static enum sc_status bi_specs(struct sc_target *t, const struct sc_case *c, const struct sc_spec **out,
			       int *n, struct sc_err *e)
{
	SC_CHECK(sc_builtin_spec(t, c->ndims, c->p0, c->p1, c->op, c->p2, &out[0], e));
	*n = 1;
	return SC_OK;
}

/* All to all's inverse: split and concat swapped, on the current state. */
static enum sc_status bi_run_inverse(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
				     struct sc_err *e)
{
	const struct sc_spec *back;
	SC_CHECK(sc_builtin_spec(t, c->ndims, c->p1, c->p0, c->op, c->p2, &back, e));
	return sc_exec_spec(x, back, c->sizes, e);
}

static int slot_get(const struct sc_case *c, enum sc_builtin_slot s)
{
	return s == SC_BUILTIN_P0 ? c->p0 : s == SC_BUILTIN_P1 ? c->p1 : s == SC_BUILTIN_P2 ? c->p2 : (int)c->op;
}

static int bi_params(const struct sc_target *t, const struct sc_case *c, struct sc_case_param *out)
{
	const struct sc_builtin_family *f = t->family;
	for (int i = 0; i < f->nparams; i++) {
		const struct sc_builtin_param *p = &f->params[i];
		out[i] = (struct sc_case_param){p->key, p->label, p->kind == SC_PARAM_OP, slot_get(c, p->slot),
						p->kind, p->other};
	}
	return f->nparams;
}

/* Every family takes every key (a key the family has no use for is
 * ignored by its spec), as case files and --params always have. */
static enum sc_status bi_param_set(const struct sc_target *t, struct sc_case *c, const char *key,
				   const char *value)
{
	(void)t;
	if (strcmp(key, "dim") == 0)
		c->p0 = atoi(value);
	else if (strcmp(key, "concat") == 0)
		c->p1 = atoi(value);
	else if (strcmp(key, "ndims") == 0)
		c->ndims = atoi(value);
	else if (strcmp(key, "mesh") == 0)
		c->p2 = atoi(value);
	else if (strcmp(key, "op") == 0) {
		enum sc_redop op;
		if (sc_redop_parse(value, &op) != SC_OK)
			return SC_E_SPEC;
		c->op = op;
	} else
		return SC_E_USAGE;
	return SC_OK;
}

static void bi_param_put(const struct sc_target *t, struct sc_case *c, int i, int value)
{
	switch (t->family->params[i].slot) {
	case SC_BUILTIN_P0: c->p0 = value; break;
	case SC_BUILTIN_P1: c->p1 = value; break;
	case SC_BUILTIN_OP: c->op = (enum sc_redop)value; break;
	case SC_BUILTIN_P2: c->p2 = value; break;
	}
}

static int bi_ndims_range(const struct sc_target *t, int *lo, int *hi)
{
	*lo = t->family->ndims_lo;
	*hi = t->family->ndims_hi;
	return 1;
}

static int bi_true(const struct sc_target *t)
{
	(void)t;
	return 1;
}
static int bi_data_only(const struct sc_target *t) { return t->family->data_only; }
static int bi_returns(const struct sc_target *t) { return t->family->self_inverse; }

static void bi_free(struct sc_target *t)
{
	if (!t->cache)
		return;
	for (int i = 0; i < CACHE_N; i++)
		if (t->cache[i] != &no_spec)
			free(t->cache[i]);
	free(t->cache);
}

static const struct sc_target_ops builtin_ops = {
	.kind = "builtin",
	.specs = bi_specs,
	.run_inverse = bi_run_inverse,
	.params = bi_params,
	.param_set = bi_param_set,
	.param_put = bi_param_put,
	.ndims_range = bi_ndims_range,
	.is_collective = bi_true,
	.moves_data_only = bi_data_only,
	.returns_to_input = bi_returns,
	.free = bi_free,
};

enum sc_status sc_target_builtin(struct sc_target *t, const struct sc_builtin_family *f, struct sc_err *e)
{
	memset(t, 0, sizeof *t);
	t->cache = calloc(CACHE_N, sizeof *t->cache);
	if (!t->cache)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	t->ops = &builtin_ops;
	t->family = f;
	t->expect = -1;
	snprintf(t->name, sizeof t->name, "builtin:%s", f->name);
	return SC_OK;
}
