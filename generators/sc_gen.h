/* sc_gen: the one decoder from a choice stream to a valid case; checking
 * a given case is a pass of the same decoder, so validity is defined once.
 *
 * Constraints are met by construction: each dim is drawn from the values
 * its size range allows that satisfy divisibility by P (sharded dims) and
 * every `require` whose last-mentioned dim is this one. Draws are biased to
 * the edges that break layouts: P in {1, 2, 3}, dims of 1 and of P. */
#ifndef SC_GEN_H
#define SC_GEN_H

#include <stdint.h>

#include "sc_choice.h"
#include "sc_target.h"

#define SC_GEN_WORLD_WORDS ((SC_MAX_WORLD + 64) / 64)

struct sc_gen_opts {
	int world_lo, world_hi; /* 0: 1..8 */
	/* the worlds within lo..hi that may be drawn (bit w); all zero: each
	 * one (--world 2,4,8 sets bits 2, 4 and 8, lo 2 and hi 8) */
	uint64_t world_set[SC_GEN_WORLD_WORDS];
	uint32_t dtypes;        /* bit mask over enum sc_dtype; 0: all */
	int64_t max_elems;      /* global elements per case; 0: 65536 */
	int hints_guide_only;   /* checking: `sizes` hints do not bind (eval of a given case) */
};

void sc_gen_defaults(struct sc_gen_opts *o);
/* 1 when world w is within o's --world (a range or a list). */
int sc_gen_world_allowed(const struct sc_gen_opts *o, int w);
/* Adds world w to o's list (lo and hi follow). */
void sc_gen_world_add(struct sc_gen_opts *o, int w);
/* Drops the worlds above maxw; 0 when none is left. */
int sc_gen_world_clamp(struct sc_gen_opts *o, int maxw);
/* o's --world as the user writes it: "1..8" or "2,4,8". */
const char *sc_gen_world_text(const struct sc_gen_opts *o, char *buf, size_t n);
/* Decodes a case; SC_E_NOCASE when the draws admit none. */
enum sc_status sc_gen_case(struct sc_target *t, const struct sc_gen_opts *o,
			   struct sc_choices *ch, struct sc_case *c, struct sc_err *e);
/* 1 when c is a case the decoder could produce under o: the one
 * definition of validity (world range, the target's parameters, sizes
 * ranges given by hints unless o->hints_guide_only, divisibility,
 * requires, element budget, dtype set); else 0 and the first reason in why
 * (may be NULL). o may be NULL: no --world, --max-elems or --dtypes limits. */
/* The spec whose mesh the target's cases draw (NULL: a flat world). */
const struct sc_spec *sc_gen_mesh_spec(struct sc_target *t);
/* The mesh sizes of s with product world, in lexicographic order (fixed
 * sizes kept): up to max vectors into out; their number. */
int sc_gen_meshes(const struct sc_spec *s, int world, int (*out)[SC_MAX_MESH], int max);
/* 0 when the target has a mesh none of whose sizes' products lies within
 * o's --world (a fixed `mesh dp=2 tp=2` under --world 1..2), the reason
 * in why; else 1. */
int sc_gen_mesh_fits(struct sc_target *t, const struct sc_gen_opts *o, char *why, size_t n);
int sc_gen_valid(struct sc_target *t, const struct sc_gen_opts *o, const struct sc_case *c, char *why,
		 size_t n);

/* The part of a given case that a check found invalid (a require of the
 * world alone blames the world; any other require, the sizes). */
enum sc_gen_part { SC_GEN_PART_WORLD, SC_GEN_PART_PARAMS, SC_GEN_PART_DTYPE, SC_GEN_PART_SIZES };
/* sc_gen_valid, and when c is invalid, *part (may be NULL): for callers
 * that point at where the case was written (a case file's line). */
int sc_gen_check(struct sc_target *t, const struct sc_gen_opts *o, const struct sc_case *c, char *why,
		 size_t n, enum sc_gen_part *part);

#endif
