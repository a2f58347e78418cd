/* builtin:all_reduce: the input partial, the output replicated, one
 * all_reduce. Its dim parameter is kept (case files and reports have
 * always carried one) and does not change the spec. */
#include "sc_builtin.h"

static void text(struct sc_str *b, int n, int i, int j, enum sc_redop op)
{
	(void)n;
	(void)i;
	(void)j;
	sc_str_printf(b, "input partial %s\noutput replicate\nall_reduce %s\n", sc_redop_name(op), sc_redop_name(op));
}

const struct sc_builtin_family sc_builtin_all_reduce = {
	.name = "all_reduce",
	.ndims_lo = 1,
	.ndims_hi = 6,
	.nparams = 2,
	.params = {{"dim", "dim", SC_PARAM_DIM, 0, SC_BUILTIN_P0}, {"op", "op", SC_PARAM_OP, 0, SC_BUILTIN_OP}},
	.text = text,
};
