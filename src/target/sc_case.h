/* sc_case: one concrete instance of a target: world size, dim sizes,
 * dtype, value seed, and the target's own parameters (a built-in's split,
 * concat and gather dims, its reduction op, its number of dims).
 *
 * The case is a plain record; what its parameters are called and how they
 * print is asked of the target (sc_case_params), so reports, case files
 * and replay commands never switch on the target's kind. */
#ifndef SC_CASE_H
#define SC_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "sc_dtype.h"
#include "sc_limits.h"
#include "sc_status.h"

struct sc_target;

struct sc_case {
	int world;
	int ndims;
	int64_t sizes[SC_MAX_DIMS];
	enum sc_dtype dtype;
	uint64_t seed;
	int p0, p1; /* built-ins: split / gather / scatter dim, concat dim */
	enum sc_redop op;
};

#define SC_CASE_MAX_PARAMS 4

/* One parameter of a case as it is written: key in case files, --params and
 * JSON; label in the one-line case description (all_to_all's dim reads
 * "split" there); op parameters print as names. */
enum sc_param_kind {
	SC_PARAM_DIM,       /* a dim index in [0, ndims) */
	SC_PARAM_OTHER_DIM, /* a dim index in [0, ndims), not the value of parameter `other` */
	SC_PARAM_OP         /* an enum sc_redop */
};

struct sc_case_param {
	const char *key;
	const char *label;
	int is_op;
	int value;
	enum sc_param_kind kind;
	int other; /* SC_PARAM_OTHER_DIM: index of the parameter it differs from */
};

/* The target's parameters of c, in their order; returns how many (0 for
 * specs, chains and plugins). */
int sc_case_params(const struct sc_target *t, const struct sc_case *c, struct sc_case_param *out);
/* 1 when the number of dims is a parameter of the target's cases (built-ins),
 * with its range; 0 when the target's dims fix it. */
int sc_case_ndims_range(const struct sc_target *t, int *lo, int *hi);
/* Sets the parameter named key from its text: SC_E_USAGE for a key the
 * target does not have, SC_E_SPEC for a value that does not parse; c is
 * changed only on SC_OK. "ndims" is accepted for targets with parameters. */
enum sc_status sc_case_param_set(const struct sc_target *t, struct sc_case *c, const char *key,
				 const char *value);
/* 1 when key is required by --params (every key but op and ndims). */
int sc_case_param_required(const struct sc_target *t, const char *key);

/* "world=2 s=2 b=2 dtype=i32 seed=0" (built-ins: parameters after world) */
void sc_case_format(struct sc_target *t, const struct sc_case *c, char *buf, size_t n);
/* "s=2,b=2" for --sizes */
void sc_case_sizes_arg(struct sc_target *t, const struct sc_case *c, char *buf, size_t n);
/* Name of dim d of the case ("d3" when the target names none). */
const char *sc_case_dim_name(struct sc_target *t, const struct sc_case *c, int d, char *tmp, size_t n);

#endif
