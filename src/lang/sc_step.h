/* sc_step: the step table (docs/language.md, "Steps"). A step is one row:
 * its keyword, what kind of step it is (flags), how its arguments parse
 * and what it does on every local rank. Rows live in family files
 * (sc_steps_view.c: local views and copies; sc_steps_slice.c: slices and
 * copies sized per rank; sc_steps_coll.c: collectives; sc_steps_sized.c
 * and sc_steps_p2p.c: exchanges sized per rank; sc_steps_buffer.c:
 * buffers; sc_steps_route.c: rows moved by their tokens' routes);
 * this module lists the families and finds a keyword. Whether a step is a
 * collective, reduces or needs a contiguous input is read from its flags,
 * never from its position in a list. */
#ifndef SC_STEP_H
#define SC_STEP_H

#include <stdint.h>

#include "sc_ast.h"
#include "sc_lex.h"

struct sc_exec;

#define SC_STEP_COLLECTIVE 1u   /* moves data between ranks through the backend */
#define SC_STEP_REDUCES 2u      /* combines values (takes an op): the spec reduces */
#define SC_STEP_NEEDS_CONTIG 4u /* a dim-0 collective: raises on a non-contiguous input */
#define SC_STEP_RAW_OK 8u       /* accepts the `raw` suffix (reads the storage anyway) */
#define SC_STEP_VARIES 16u      /* may leave ranks with different shapes (sized exchanges;
				 * also set per use, in st->flags, by a sized form) */
#define SC_STEP_OWN_SHAPES 32u  /* a collective that checks the ranks' shapes itself */
#define SC_STEP_PADS 64u        /* writes padding (provenance SC_PROV_PAD) */
#define SC_STEP_NAMED 128u      /* joins or divides named tensors (cat, split): runs over every rank itself */
#define SC_STEP_GROUPED 256u    /* takes group= although it moves no data (chunk_cat: P is the group's size);
				 * every collective takes it */
#define SC_STEP_CONTROL 512u    /* `for` and its `end`: run by sc_exec_steps, not as a step */

struct sc_step_def {
	const char *keyword;
	unsigned flags;
	/* Parses the arguments after the keyword (cursor on the first) into
	 * st->args, st->nargs, st->redop, st->raw; ends at the end of line. */
	enum sc_status (*parse)(struct sc_parse *p, struct sc_step *st);
	/* Runs the step on every local rank of x. */
	enum sc_status (*exec)(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
			       const int64_t *sizes, struct sc_err *e);
};

/* The row of keyword, or NULL. */
const struct sc_step_def *sc_step_find(const char *keyword);
/* Every row, in family order: *n rows. */
void sc_step_table(const struct sc_step_def *const **rows, int *n);

/* Parses the step def whose keyword is the line's first token into the
 * spec's next step (linetext: the line, for messages). */
enum sc_status sc_step_parse(struct sc_parse *p, const struct sc_step_def *def, const char *linetext);

/* The families' rows, each ending with a row whose keyword is NULL. */
extern const struct sc_step_def sc_steps_view[], sc_steps_slice[], sc_steps_coll[], sc_steps_sized[], sc_steps_p2p[],
	sc_steps_named[], sc_steps_loop[], sc_steps_buffer[], sc_steps_route[];
/* The index of a named tensor of the spec, or -1. */
int sc_step_tensor(const struct sc_spec *s, const char *name);
/* `for NAME in LO..HI` at the cursor (after `for`), in a layout or a
 * compute program: NAME a name of its own (taken: the caller found it in
 * use), LO and HI parsed, the line ended; the spec's loops gain NAME. */
enum sc_status sc_loop_header(struct sc_parse *p, int taken, int *lo, int *hi);

/* The sized forms of rows in sc_steps_coll (sc_steps_sized.c):
 * all_to_all_single [in=E] [out=F] | [splits=E], and all_gather dim=i
 * [sizes=E] over tensors that may differ along dim i. */
enum sc_status sc_steps_parse_a2a(struct sc_parse *p, struct sc_step *st);
enum sc_status sc_steps_a2a_sized(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				  const int64_t *sizes, struct sc_err *e);
enum sc_status sc_steps_parse_ag(struct sc_parse *p, struct sc_step *st);
/* The optional `sizes=E` (E of dst) of reduce_scatter: st->nargs 2 when given. */
enum sc_status sc_steps_parse_rs_sizes(struct sc_parse *p, struct sc_step *st);
/* The step's last argument E evaluated at dst = 0..P-1 on every rank,
 * which must all agree: vals[P]. */
enum sc_status sc_steps_agreed(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
			       const int64_t *sizes, int64_t *vals, struct sc_err *e);
enum sc_status sc_steps_ag_sized(struct sc_exec *x, const struct sc_spec *s, const struct sc_step *st,
				 const int64_t *sizes, struct sc_err *e);

#endif
