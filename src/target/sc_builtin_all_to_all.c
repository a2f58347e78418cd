/* builtin:all_to_all: XLA's AllToAll(split=i, concat=j) written as a
 * careful engineer ships it: the input is sharded on d_j, the output on
 * d_i; split dim i into (P, d_i/P), move the P dim to the front, one
 * contiguous copy, all_to_all_single, then the received chunks back into
 * dim j. */
#include "sc_builtin.h"

static void text(struct sc_str *b, int n, int i, int j, enum sc_redop op)
{
	(void)op;
	sc_str_printf(b, "input shard d%d\noutput shard d%d\nreshape [", j, i);
	for (int d = 0, c = 0; d < n; d++) {
		if (d == i)
			sc_str_printf(b, "%sP, d%d/P", c++ ? ", " : "", d);
		else if (d == j)
			sc_str_printf(b, "%sd%d/P", c++ ? ", " : "", d);
		else
			sc_str_printf(b, "%sd%d", c++ ? ", " : "", d);
	}
	sc_str_printf(b, "]\nmovedim %d 0\ncontiguous\nall_to_all_single\nmovedim 0 %d\nreshape [", i, j);
	for (int d = 0; d < n; d++)
		sc_str_printf(b, "%sd%d%s", d ? ", " : "", d, d == i ? "/P" : "");
	sc_str_put(b, "]\n");
}

const struct sc_builtin_family sc_builtin_all_to_all = {
	.name = "all_to_all",
	.ndims_lo = 2,
	.ndims_hi = 6,
	.nparams = 2,
	.params = {{"dim", "split", SC_PARAM_DIM, 0, SC_BUILTIN_P0},
		   {"concat", "concat", SC_PARAM_OTHER_DIM, 0, SC_BUILTIN_P1}},
	.data_only = 1,
	.self_inverse = 1,
	.text = text,
};
