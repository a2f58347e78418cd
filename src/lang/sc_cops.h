/* sc_cops: the table of compute ops (docs/language.md, "Compute specs"):
 * each op's keyword, operands, arguments and kernel. The statement parser
 * (sc_program) and the evaluator (sc_compute) read only this table; a new
 * op is one row here and its kernel. */
#ifndef SC_COPS_H
#define SC_COPS_H

#include "sc_ckernel.h"

enum sc_cop_flag {
	SC_COP_CONST_B = 1u << 0, /* the second operand may be a constant (add t 1e-6) */
	SC_COP_CONST = 1u << 1,   /* a constant follows the operands (scale t 0.5, pow t 2) */
	SC_COP_DIM = 1u << 2,     /* dim=i, required */
	SC_COP_KEEPDIM = 1u << 3, /* keepdim, optional */
	SC_COP_FORM = 1u << 4,    /* gelu: tanh or erf */
	SC_COP_DTYPE = 1u << 5,   /* cast: a float dtype */
	SC_COP_EPS = 1u << 6,     /* eps=C, optional (1e-5) */
	SC_COP_START = 1u << 7,   /* start=E, optional */
	SC_COP_INDEX0 = 1u << 8,  /* operand 0 is an index tensor */
	SC_COP_INDEX1 = 1u << 9,  /* operand 1 is an index tensor */
	SC_COP_RES_A = 1u << 10,  /* the result has operand 0's dtype (else: the operands' promotion; cast: its dtype) */
	SC_COP_RES_B = 1u << 11,  /* the result has operand 1's dtype */
	SC_COP_SAME = 1u << 12,   /* the operands must have one dtype (ATen's check) */
	SC_COP_DIAG = 1u << 13,   /* tril, triu: diagonal=E and fill=C, optional */
};

struct sc_cop_def {
	const char *kw;
	enum sc_cop op;
	int nmin, nmax; /* tensor operands */
	unsigned flags;
	sc_ckernel_fn run;
	const char *usage; /* for messages */
};

/* The op of a keyword, or NULL. */
const struct sc_cop_def *sc_cop_find(const char *kw);
/* The row of an op (never NULL for a parsed statement's op but copy and step). */
const struct sc_cop_def *sc_cop_get(enum sc_cop op);

#endif
