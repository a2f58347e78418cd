/* sc_layout: placements of the global tensor X over the ranks (docs/
 * language.md, "Placements"): parsing `shard NAME | replicate | partial
 * OP | shape [..]` with an optional `as` layout, resolving its names once
 * the dims are known, and the placement as an index map.
 *
 * Invariant: iterating a rank's map row-major enumerates, in the order of
 * the rank's local tensor, the global (row-major) index of X each local
 * element must hold; filling and checking are one walk over both. */
#ifndef SC_LAYOUT_H
#define SC_LAYOUT_H

#include <stdint.h>

#include "sc_ast.h"
#include "sc_lex.h"

/* A placement as an index map over X's row-major linear index: iterating
 * shape[]/stride[] row-major from offset yields, for each element of a
 * rank's local tensor in order, the global index it must hold. */
struct sc_map {
	int ndim;
	int64_t shape[SC_MAX_DIMS];
	int64_t stride[SC_MAX_DIMS];
	int64_t offset;
	int lndim; /* the local tensor's shape (groups merged) */
	int64_t lshape[SC_MAX_DIMS];
};
void sc_layout_map(const struct sc_layout *l, const int64_t *xsizes, int ndims, int world,
		   int rank, struct sc_map *m);
/* What a `sizes=E` placement needs to be mapped: its spec, the case's counts. */
struct sc_layout_ctx {
	const struct sc_spec *s;
	const struct sc_countv *counts;
};
/* sc_layout_map for every rule (lc may be NULL without `sizes=`). */
void sc_layout_map_in(const struct sc_layout *l, const struct sc_layout_ctx *lc, const int64_t *xsizes, int ndims,
		      int world, int rank, struct sc_map *m);
/* A `sizes=E` placement's rows on rank r of P: E(r) and the sum before it;
 * SC_E_RUNTIME where E fails or is negative; *total the sum over ranks. */
enum sc_status sc_layout_sized_rows(const struct sc_layout *l, const struct sc_layout_ctx *lc, const int64_t *xsizes,
				    int world, int rank, int64_t *start, int64_t *len, int64_t *total,
				    struct sc_err *e);
/* The rows [start, start+len) of L that rank r of P holds under rule. */
void sc_layout_rows(enum sc_shard_rule rule, int64_t L, int64_t P, int64_t r, int64_t *start, int64_t *len);

/* A placement as written, before its names are resolved. */
struct sc_layout_names {
	int line, shard_col, nnames;
	char shard_name[SC_NAME_MAX];
	int shard_n; /* `shard (a b ...)`: its names (shard_n > 1) */
	char shard_names[SC_MAX_DIMS][SC_NAME_MAX];
	int shard_cols[SC_MAX_DIMS];
	char names[SC_MAX_DIMS][SC_NAME_MAX];
	int name_cols[SC_MAX_DIMS];
};

/* Whether rank's output is checked under l (`only E`: E a rank index or a
 * condition on rank; without it, every rank's). */
int sc_layout_checks(const struct sc_spec *s, const struct sc_layout *l, const int64_t *sizes, int world, int rank);

/* Parses a placement at the cursor into l, its names into pp. */
enum sc_status sc_layout_parse(struct sc_parse *p, struct sc_layout *l, struct sc_layout_names *pp);
/* Resolves pp's names against the spec's dims and checks the layout
 * (what: "input" or "output", for messages). */
enum sc_status sc_layout_resolve(struct sc_parse *p, struct sc_layout *l, const struct sc_layout_names *pp,
				 const char *what);

#endif
