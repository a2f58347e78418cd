/* sc_casefile: .case files, the replayable record of one case.
 *
 * A small line-based text format, versioned on its first line:
 *
 *   shardcheck-case 1
 *   target corpus/deepspeed/sf-head2seq-before-5664.sc   (or builtin:NAME, or chain A.sc,B.sc)
 *   property semantics
 *   backend sim
 *   world 2
 *   sizes s=2 b=2 h=2 d=1
 *   params dim=0 concat=1 op=sum                         (built-ins only)
 *   dtype i32
 *   seed 0
 *   expect fail                                          (optional: a corpus entry)
 *
 * A plugin's case that fails only after other calls in the same process
 * lists them first, in order, each on an `earlier` line before `world`:
 *
 *   earlier world 2 dtype f32 seed 0 sizes n=4
 *
 * and is replayed after them, in a just-started process.
 *
 * '#' starts a comment. A relative target path is tried relative to the
 * case file's directory (where shardcheck writes them, sc_casefile_relocate),
 * then as written (from the working directory). Every field is checked:
 * a bad value is "path:line: message" and nothing runs. Required: the
 * first line, target (or chain), property, world, sizes, dtype, seed, and
 * params for a built-in; each key at most once; backend defaults to sim.
 * Values: decimals are digits only (no sign, no junk); world 1..SC_MAX_WORLD;
 * sizes >= 1 with every rank's elements together at most SC_CASE_MAX_ELEMS;
 * the case must be one the spec admits (divisibility, requires, dtypes;
 * `sizes` hints do not bind), the property one that applies to the target.
 * Bytes: text and tabs only (no NUL, no control character, CR only before
 * the end of a line), lines of at most 2047 bytes, files of at most 64 KiB. */
#ifndef SC_CASEFILE_H
#define SC_CASEFILE_H

#include "sc_target.h"

#define SC_CASEFILE_VERSION 1
/* A case holds at most this many elements, every rank's together. */
#define SC_CASE_MAX_ELEMS ((int64_t)1 << 40)

/* Text of a case file for (t, property, backend, c); expect -1 for none. */
enum sc_status sc_casefile_format(struct sc_target *t, const char *property, const char *backend,
				  const struct sc_case *c, int expect, char *buf, size_t n,
				  struct sc_err *e);
/* The same, for a case that fails only after earlier[0..nearlier) ran in
 * its process: "earlier world W dtype D seed S sizes ..." lines, in order. */
enum sc_status sc_casefile_format_after(struct sc_target *t, const char *property, const char *backend,
					const struct sc_case *earlier, int nearlier, const struct sc_case *c, int expect,
					char *buf, size_t n, struct sc_err *e);
/* Rewrites the paths of text's target, chain and baseline lines to be
 * relative to dir, where the case file is written: it then replays from
 * any working directory, and as long as the two move together. */
enum sc_status sc_casefile_relocate(char *text, size_t n, const char *dir, struct sc_err *e);
/* Loads a case file into a target that replays exactly that case
 * (t->has_case). Errors are "path:line: message"; on error t holds nothing
 * (no sc_target_free needed). */
enum sc_status sc_casefile_load(const char *path, struct sc_target *t, struct sc_err *e);
/* sc_casefile_load of text in memory (len bytes, NUL bytes included, no
 * NUL needed at the end); path names it in errors and anchors its
 * relative paths. */
enum sc_status sc_casefile_parse(const char *text, size_t len, const char *path, struct sc_target *t,
				 struct sc_err *e);

#endif
