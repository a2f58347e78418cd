/* sc_target_chain: several specs run one after the other on the same
 * case (`--chain A.sc,B.sc`); the case is the first spec's input and the
 * last spec's output. Every spec must declare the same dims and world. */
#include "sc_target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum sc_status chain_specs(struct sc_target *t, const struct sc_case *c, const struct sc_spec **out,
				  int *n, struct sc_err *e)
{
	(void)c;
	(void)e;
	for (int i = 0; i < t->nchain; i++)
		out[i] = t->chain[i];
	*n = t->nchain;
	return SC_OK;
}

static int chain_moves_data_only(const struct sc_target *t)
{
	for (int i = 0; i < t->nchain; i++)
		if (t->chain[i]->has_reduction)
			return 0;
	return 1;
}

static int same_layout(const struct sc_layout *a, const struct sc_layout *b)
{
	if (a->kind != b->kind || a->norder != b->norder || a->ngroups != b->ngroups)
		return 0;
	if (a->kind == SC_SHARD && (a->shard_dim != b->shard_dim || a->rule != b->rule))
		return 0;
	if (a->kind == SC_PARTIAL && a->op != b->op)
		return 0;
	if (a->shard_ndims != b->shard_ndims || a->nent != b->nent)
		return 0;
	for (int i = 0; i < a->nent; i++) { /* a mesh placement: entry by entry */
		const struct sc_place_entry *x = &a->ent[i], *y = &b->ent[i];
		if (x->kind != y->kind || x->op != y->op || x->shard_dim != y->shard_dim ||
		    x->shard_ndims != y->shard_ndims || x->rule != y->rule ||
		    memcmp(&x->g, &y->g, sizeof x->g) != 0)
			return 0;
	}
	for (int i = 0; i < a->norder; i++)
		if (a->order[i] != b->order[i])
			return 0;
	for (int i = 0; i < a->ngroups; i++)
		if (a->group_len[i] != b->group_len[i])
			return 0;
	return 1;
}

/* A chain of two or more that ends in the placement it starts from. */
static int chain_returns(const struct sc_target *t)
{
	return t->nchain >= 2 && same_layout(&t->chain[0]->in, &t->chain[t->nchain - 1]->out);
}

static void chain_describe(const struct sc_target *t, char *buf, size_t n)
{
	snprintf(buf, n, "chain %s", t->name);
}

static void chain_free(struct sc_target *t)
{
	for (int i = 0; i < t->nchain; i++)
		free(t->chain[i]);
}

static const struct sc_target_ops chain_ops = {
	.kind = "chain",
	.specs = chain_specs,
	.moves_data_only = chain_moves_data_only,
	.returns_to_input = chain_returns,
	.describe = chain_describe,
	.free = chain_free,
};

enum sc_status sc_target_chain(struct sc_target *t, const char *const *paths, int n,
			       struct sc_err *e)
{
	memset(t, 0, sizeof *t);
	t->ops = &chain_ops;
	t->expect = -1;
	if (n < 1 || n > SC_MAX_CHAIN)
		return SC_ERR(e, SC_E_USAGE, "a chain has 1 to %d specs", SC_MAX_CHAIN);
	size_t k = 0;
	enum sc_status st = SC_OK;
	for (int i = 0; i < n; i++) {
		struct sc_spec *s = malloc(sizeof *s);
		if (!s) {
			st = SC_ERR(e, SC_E_NOMEM, "out of memory");
			goto fail;
		}
		t->chain[t->nchain++] = s;
		SC_CHECK_GOTO(sc_spec_load(paths[i], s, e), st, fail);
		const struct sc_spec *f = t->chain[0];
		int same = s->ndims == f->ndims && strcmp(s->world_sym, f->world_sym) == 0 && s->nmesh == f->nmesh;
		for (int d = 0; same && d < s->ndims; d++)
			same = strcmp(s->dim[d], f->dim[d]) == 0;
		for (int m = 0; same && m < s->nmesh; m++) /* one mesh: its sizes are the case's */
			same = strcmp(s->mesh_dim[m], f->mesh_dim[m]) == 0 && strcmp(s->mesh_sym[m], f->mesh_sym[m]) == 0 &&
			       s->mesh_fixed[m] == f->mesh_fixed[m];
		if (!same) {
			st = SC_ERR(e, SC_E_SPEC,
				    "%s:1:1: a chain needs the same 'dims' and 'world' (or 'mesh') in every spec (differs from %s)",
				    paths[i], paths[0]);
			goto fail;
		}
		k += (size_t)snprintf(t->name + k, k < sizeof t->name ? sizeof t->name - k : 0, "%s%s",
				      i ? "," : "", paths[i]);
	}
	return SC_OK;
fail: /* nothing half-built is left */
	sc_target_free(t);
	return st;
}
