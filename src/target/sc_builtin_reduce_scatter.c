/* builtin:reduce_scatter: reduce over the ranks and keep chunk r of dim i:
 * the input partial, the output sharded on d_i; dim i moved to the front,
 * one contiguous copy, reduce_scatter_tensor, and back. */
#include "sc_builtin.h"

static void text(struct sc_str *b, int n, int i, int j, enum sc_redop op)
{
	(void)n;
	(void)j;
	sc_str_printf(b, "input partial %s\noutput shard d%d\nmovedim %d 0\ncontiguous\n"
			 "reduce_scatter_tensor %s\nmovedim 0 %d\ncontiguous\n",
		      sc_redop_name(op), i, i, sc_redop_name(op), i);
}

const struct sc_builtin_family sc_builtin_reduce_scatter = {
	.name = "reduce_scatter",
	.ndims_lo = 1,
	.ndims_hi = 6,
	.nparams = 2,
	.params = {{"dim", "dim", SC_PARAM_DIM, 0, SC_BUILTIN_P0}, {"op", "op", SC_PARAM_OP, 0, SC_BUILTIN_OP}},
	.text = text,
};
