/* sc_svg: a picture of one counterexample, as a standalone SVG: every
 * rank's output drawn as 2-D tiles, one cell per element, with the
 * element of X the output placement puts there and, where the output
 * holds something else, what it holds.
 *
 * Contract: a cell is wrong exactly where the semantics check counts an
 * element wrong (the same data and provenance runs, the same
 * comparisons), so a picture of a failure has as many wrong cells as the
 * failure has wrong elements; a replay that counts otherwise is not
 * drawn. The document is well-formed XML with no script, link or
 * external font, and its size is bounded (max_cells cells at most). */
#ifndef SC_SVG_H
#define SC_SVG_H

#include "sc_property.h"

#define SC_SVG_MAX_CELLS 4096      /* cells drawn by default; the rest are counted */
#define SC_SVG_MAX_ELEMS (1 << 20) /* output elements (every rank's) a picture replays at most */

/* The cells' fill colours (each cell is a <rect> whose class is one of
 * ok, wrong, pad, nothing; a wrong cell also has data-wrong="1"):
 * an element of X where it belongs; another element of X (or other bits)
 * where one belongs; padding; nothing (no step wrote it). Padding or
 * nothing where an element of X belongs is wrong too: its own colour
 * with a border in SC_SVG_WRONG. */
#define SC_SVG_OK "#ececec"
#define SC_SVG_WRONG "#f0605d"
#define SC_SVG_PAD "#9ecae1"
#define SC_SVG_NOTHING "#ffd54f"

struct sc_svg_opts {
	const char *target;            /* the title's target name; NULL: the target's */
	const struct sc_failure *fail; /* the failure drawn, or NULL: a replay that counts
					* another number of wrong elements is refused */
	int max_cells;                 /* 0: SC_SVG_MAX_CELLS */
};

/* What a rendered picture shows. */
struct sc_svg_info {
	int64_t elements, wrong; /* every checked rank's output elements; the wrong ones */
	int64_t not_drawn;       /* elements left out by the cell limit */
	char diagnosis[256];     /* "" when nothing holds for every wrong element */
};

/* Why a failure of property on case c cannot be drawn (a compute spec, a
 * step that fails at run time, a partial output, ...), or NULL when it
 * may be. f may be NULL (a case replayed with no failure at hand). */
const char *sc_svg_skip_reason(struct sc_target *t, const char *property, const struct sc_case *c,
			       const struct sc_failure *f);

/* Replays case c of t on ctx, whose backend must hold every rank in this
 * process, and renders the picture into *out (malloc'd: the caller frees
 * it) and *info (may be NULL). SC_E_UNAVAIL, with the reason in e, when
 * the case cannot be drawn; ctx's arena is reset. */
enum sc_status sc_svg_render(struct sc_ctx *ctx, struct sc_target *t, const char *property,
			     const struct sc_case *c, const struct sc_svg_opts *o, char **out,
			     struct sc_svg_info *info, struct sc_err *e);

/* sc_svg_render on ctx, or on a private sim backend when ctx is NULL or
 * its backend does not hold every rank here; then writes path
 * atomically (NULL: only info is wanted). Errors as sc_svg_render's; path
 * is untouched on failure. */
enum sc_status sc_svg_write(struct sc_ctx *ctx, struct sc_target *t, const char *property, const struct sc_case *c,
			    const struct sc_svg_opts *o, const char *path, struct sc_svg_info *info,
			    struct sc_err *e);

#endif
