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
/* 1 when two maps give every element the same global index. */
int sc_layout_map_same(const struct sc_map *a, const struct sc_map *b);
/* What a `sizes=E` placement needs to be mapped: its spec, the case's counts. */
struct sc_layout_ctx {
	const struct sc_spec *s;
	const struct sc_countv *counts;
	const struct sc_mesh *mesh; /* a mesh spec's case: its mesh (NULL: a flat world) */
	const int64_t *sizes;       /* the case's dims (the counts' lengths); NULL: the sizes mapped */
};
/* The context of a case: its spec, its counts, its mesh (kept in *mesh). */
static inline struct sc_layout_ctx sc_layout_ctx_case(const struct sc_spec *s, const struct sc_countv *counts,
						      const int64_t *sizes, int world, struct sc_mesh *mesh)
{
	*mesh = sc_spec_mesh(s, sizes, world);
	struct sc_layout_ctx lc = {s, counts, s->nmesh ? mesh : NULL, sizes};
	return lc;
}
/* The entries of a placement: a mesh placement's, or a flat world's one
 * (none for replicate); out holds SC_MAX_MESH. */
int sc_layout_entries(const struct sc_layout *l, struct sc_place_entry *out);
/* sc_layout_map for every rule (lc may be NULL without `sizes=`). */
void sc_layout_map_in(const struct sc_layout *l, const struct sc_layout_ctx *lc, const int64_t *xsizes, int ndims,
		      int world, int rank, struct sc_map *m);
/* A `sizes=E` placement's rows on rank r of P: E(r) and the sum before it;
 * SC_E_RUNTIME where E fails or is negative; *total the sum over ranks. */
enum sc_status sc_layout_sized_rows(const struct sc_layout *l, const struct sc_layout_ctx *lc, const int64_t *xsizes,
				    int world, int rank, int64_t *start, int64_t *len, int64_t *total,
				    struct sc_err *e);
/* Whether every nested shard of a mesh placement meets its rule's
 * requirement (an even piece divisible by its group's size, a zigzag one
 * by twice it) on every rank; else 0 and the reason in why (may be NULL). */
int sc_layout_mesh_ok(const struct sc_spec *s, const struct sc_layout *l, const struct sc_countv *counts,
		      const int64_t *xsizes, char *why, size_t n);
/* What dim's size must be a multiple of for l to place it (1: any): the
 * world (even shards), twice it (zigzag), or a mesh placement's product of
 * the even entries' group sizes over the dim (outside any uneven one). */
int64_t sc_layout_granule(const struct sc_spec *s, const struct sc_layout *l, int dim, const int64_t *sizes,
			  int world);
/* l with its partial entries removed (what a partial output's reduction
 * is compared with): replicate over those mesh dims. */
void sc_layout_drop_partial(struct sc_layout *l);
/* "5 = (dp 1, tp 1)" in a mesh spec, "5" otherwise. */
void sc_layout_rank_text(const struct sc_spec *s, const int64_t *sizes, int world, int rank, char *buf, int n);
/* A `sizes=E` placement's dim (-1: l has none) and its size, the sum of E
 * over the entry's group. */
enum sc_status sc_layout_sized_total(const struct sc_layout *l, const struct sc_layout_ctx *lc, const int64_t *xsizes,
				     int world, int *dim, int64_t *total, struct sc_err *e);
/* The rows [start, start+len) of L that rank r of P holds under rule. */
void sc_layout_rows(enum sc_shard_rule rule, int64_t L, int64_t P, int64_t r, int64_t *start, int64_t *len);

/* A placement as written, before its names are resolved: per entry, its
 * mesh dims (`dp,tp:`) and what it shards; then the `as` layout. */
struct sc_entry_names {
	int ngroup; /* mesh dims before ':' (0: none written) */
	char group[SC_MAX_MESH][SC_NAME_MAX];
	int group_cols[SC_MAX_MESH];
	int shard_col;
	char shard_name[SC_NAME_MAX];
	int shard_n; /* `shard (a b ...)`: its names (shard_n > 1) */
	char shard_names[SC_MAX_DIMS][SC_NAME_MAX];
	int shard_cols[SC_MAX_DIMS];
};

struct sc_layout_names {
	int line, nnames;
	int nent; /* entries written (one for a flat world's placement) */
	struct sc_entry_names ent[SC_MAX_MESH];
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
