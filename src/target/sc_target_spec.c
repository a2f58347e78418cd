/* sc_target_spec: a .sc spec as a target. A layout spec runs its steps; a
 * compute spec runs its program on (value, bound) pairs, leaving the
 * output tensor in the run state. */
#include "sc_target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_compute.h"

static enum sc_status spec_specs(struct sc_target *t, const struct sc_case *c, const struct sc_spec **out,
				 int *n, struct sc_err *e)
{
	(void)c;
	(void)e;
	out[0] = t->spec;
	*n = 1;
	return SC_OK;
}

static enum sc_status spec_run(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			       struct sc_err *e)
{
	const struct sc_spec *s = t->spec;
	if (!s->compute)
		return sc_exec_spec(x, s, c->sizes, e);
	struct sc_cenv env;
	const struct sc_compute_case cc = {c->world, c->sizes, c->dtype, c->seed, c->counts.P ? &c->counts : NULL};
	SC_CHECK(sc_compute_run(s, &cc, x, 0, &env, e));
	for (int r = 0; r < x->nlocal; r++)
		x->t[r] = env.t[s->out_tensor][r];
	return SC_OK;
}

static int spec_moves_data_only(const struct sc_target *t)
{
	return !t->spec->has_reduction && !t->spec->compute;
}

static void spec_free(struct sc_target *t) { free(t->spec); }

static const struct sc_target_ops spec_ops = {
	.kind = "spec",
	.specs = spec_specs,
	.run = spec_run,
	.moves_data_only = spec_moves_data_only,
	.free = spec_free,
};

enum sc_status sc_target_from_spec(struct sc_target *t, struct sc_spec *owned)
{
	memset(t, 0, sizeof *t);
	t->ops = &spec_ops;
	t->spec = owned;
	t->expect = owned->expect;
	snprintf(t->name, sizeof t->name, "%s", owned->path);
	return SC_OK;
}

enum sc_status sc_target_from_spec_file(struct sc_target *t, const char *path, struct sc_err *e)
{
	struct sc_spec *s = malloc(sizeof *s);
	if (!s)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	enum sc_status st = sc_spec_load(path, s, e);
	if (st != SC_OK) {
		free(s);
		return st;
	}
	SC_LOG(CHECK, "target %s: %d dims, %d steps%s", path, s->ndims, s->nsteps, s->compute ? ", compute" : "");
	return sc_target_from_spec(t, s);
}
