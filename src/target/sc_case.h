/* sc_case: one concrete instance of a target: world size, dim sizes,
 * dtype, value seed, and the target's own parameters (a built-in's split,
 * concat and gather dims and its reduction op; its number of dims).
 *
 * A plain record. What its parameters are called, their kinds and how
 * they print come from the target (sc_target_params), so reports, case
 * files and replay commands never switch on the target's kind. */
#ifndef SC_CASE_H
#define SC_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "sc_ast.h"
#include "sc_dtype.h"
#include "sc_limits.h"

struct sc_case {
	int world;
	int ndims;
	int64_t sizes[SC_MAX_DIMS];
	enum sc_dtype dtype;
	uint64_t seed;
	int p0, p1; /* built-ins: split / gather / scatter dim, concat dim */
	int p2;     /* built-ins over a mesh: which mesh dim runs the collective, what the other does */
	enum sc_redop op;
	struct sc_countv counts; /* specs with `counts`: the drawn matrices (counts.P == world) */
};

#define SC_CASE_MAX_PARAMS 4

/* A failure that needs earlier calls in its process is kept with at most
 * this many earlier cases (its shortest sequence found). */
#define SC_CASE_MAX_EARLIER 8

enum sc_param_kind {
	SC_PARAM_DIM,       /* a dim index in [0, ndims) */
	SC_PARAM_OTHER_DIM, /* a dim index in [0, ndims), not the value of parameter `other` */
	SC_PARAM_OP,        /* an enum sc_redop */
	SC_PARAM_CHOICE     /* one of `other` choices, 0..other-1 (not a dim: never renumbered) */
};

/* One parameter of a case as it is written: key in case files, --params and
 * JSON; label in the one-line case description (all_to_all's dim reads
 * "split" there). */
struct sc_case_param {
	const char *key;
	const char *label;
	int is_op;
	int value;
	enum sc_param_kind kind;
	int other; /* SC_PARAM_OTHER_DIM: index of the parameter it differs from */
};

/* Elements of X in the case. */
int64_t sc_case_numel(const struct sc_case *c);
/* A parameter's value as text: an op's name, or the number (in tmp). */
const char *sc_case_param_text(const struct sc_case_param *p, char *tmp, size_t n);

#endif
