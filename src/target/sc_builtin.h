/* sc_builtin: the built-in collectives as a target kind. A family (one
 * file, sc_builtin_<name>.c) is a table entry: its name, its number of
 * dims, its parameters, and the spec its case is: the steps a careful
 * engineer ships (pack with one strided permute copy, one dim-0
 * collective, unpack). Specs are generated per parameter choice and
 * cached, so built-ins run through the same interpreter and backends as
 * user specs and their steps can be printed.
 *
 * A new built-in collective is one family file and its row of the
 * registry in sc_builtin.c (a declaration and a pointer). */
#ifndef SC_BUILTIN_H
#define SC_BUILTIN_H

#include "sc_str.h"
#include "sc_target.h"

/* Which field of struct sc_case a family's parameter lives in. */
enum sc_builtin_slot { SC_BUILTIN_P0, SC_BUILTIN_P1, SC_BUILTIN_OP, SC_BUILTIN_P2 };

struct sc_builtin_param {
	const char *key, *label;
	enum sc_param_kind kind;
	int other; /* SC_PARAM_OTHER_DIM: index of the parameter it differs from */
	enum sc_builtin_slot slot;
};

struct sc_builtin_family {
	const char *name;
	int ndims_lo, ndims_hi;
	int nparams;
	struct sc_builtin_param params[SC_CASE_MAX_PARAMS];
	int data_only;    /* moves data only: the dtype property applies */
	int self_inverse; /* parameters (i, j) are undone by (j, i): roundtrip */
	/* Appends the declarations after `dims` (input, output) and the steps
	 * for n dims and the parameters (p1 0 and op sum when the family
	 * has none). */
	void (*text)(struct sc_str *b, int n, int p0, int p1, enum sc_redop op);
	/* A family over a 2-D mesh: base's transform on one mesh dim's groups
	 * (sc_builtin_mesh.c); its p2 (param "mesh") chooses the mesh dim and
	 * whether the other mesh dim shards another tensor dim. */
	const struct sc_builtin_family *base;
};

/* The registry, in `list` order. */
int sc_builtin_families(const struct sc_builtin_family *const **list);
/* The family named name ("all_to_all"); SC_E_USAGE when there is none. */
enum sc_status sc_builtin_find(const char *name, const struct sc_builtin_family **out);

/* A target for family f. */
enum sc_status sc_target_builtin(struct sc_target *t, const struct sc_builtin_family *f, struct sc_err *e);
/* The generated spec of t's family for (ndims, p0, p1, op); cached in t. */
enum sc_status sc_builtin_spec(struct sc_target *t, int ndims, int p0, int p1, enum sc_redop op, int p2,
			       const struct sc_spec **out, struct sc_err *e);
/* A mesh family's spec text after `dims` (sc_builtin_mesh.c): base's
 * placements given one entry per mesh dim, its collectives group= the
 * chosen mesh dim, its P that dim's size; 0 when the choice does not fit. */
int sc_builtin_mesh_text(const struct sc_builtin_family *f, struct sc_str *b, int n, int p0, int p1,
			 enum sc_redop op, int p2);

/* The family named name, or NULL (for tests and tools). */
const struct sc_builtin_family *sc_builtin_named(const char *name);

#endif
