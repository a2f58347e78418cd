/* sc_program: the declarations and statements of compute specs
 * (docs/language.md, "Compute specs"): `tensor NAME [dims] PLACEMENT`,
 * `output NAME [dims] PLACEMENT`, and in the reference and program
 * blocks `NAME = OP args`, `NAME = SRC`, `NAME += SRC` and `NAME: STEP ...`,
 * and in the program `microbatch K` ... `end`. */
#ifndef SC_PROGRAM_H
#define SC_PROGRAM_H

#include "sc_ast.h"
#include "sc_lex.h"

/* A tensor declaration (cursor after `tensor` or `output`). */
enum sc_status sc_program_parse_tensor(struct sc_parse *p, int is_output);
/* A statement of block 1 (reference) or 2 (program); line is its text.
 * `microbatch K` ... `end` in the program brackets a micro-batch block. */
enum sc_status sc_program_parse_stmt(struct sc_parse *p, int block, const char *line);

/* The index of the program's microbatch header still open, or -1. */
int sc_program_open_block(const struct sc_spec *s);

#endif
