/* builtin:all_gather: gather along dim i: the input sharded on d_i, the
 * output replicated; dim i moved to the front, one contiguous copy,
 * all_gather_into_tensor, and back. */
#include "sc_builtin.h"

static void text(struct sc_str *b, int n, int i, int j, enum sc_redop op)
{
	(void)n;
	(void)j;
	(void)op;
	sc_str_printf(b, "input shard d%d\noutput replicate\nmovedim %d 0\ncontiguous\n"
			 "all_gather_into_tensor\nmovedim 0 %d\ncontiguous\n", i, i, i);
}

const struct sc_builtin_family sc_builtin_all_gather = {
	.name = "all_gather",
	.ndims_lo = 1,
	.ndims_hi = 6,
	.nparams = 1,
	.params = {{"dim", "dim", SC_PARAM_DIM, 0, SC_BUILTIN_P0}},
	.data_only = 1,
	.text = text,
};
