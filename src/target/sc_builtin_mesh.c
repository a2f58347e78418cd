/* builtin:all_to_all_2d, all_gather_2d, reduce_scatter_2d, all_reduce_2d:
 * the four built-in collectives on one mesh dim of a 2-D mesh `mesh a=A
 * b=B`, written by rewriting the 1-D family's spec: its placement becomes
 * an entry of the chosen mesh dim, its collectives take group= that dim,
 * its P becomes that dim's size. The parameter `mesh` (0..3) chooses:
 *   0: on a, b replicates       1: on b, a replicates
 *   2: on a, b shards dim k     3: on b, a shards dim k
 * where k is the first tensor dim the collective does not use (2 and 3
 * need one). So each collective runs on either mesh dim, with the other
 * one replicated or sharded, as DTensor's redistribute does on a 2-D mesh. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_builtin.h"
#include "sc_step.h"

static const char *const mdim[2] = {"a", "b"}, *const msym[2] = {"A", "B"};

/* One placement ("shard d1", "partial sum", "replicate") as entries. */
static void placement(struct sc_str *b, const char *what, const char *pl, int on, int other_k)
{
	sc_str_printf(b, "%s", what);
	int any = 0;
	if (strcmp(pl, "replicate") != 0) {
		sc_str_printf(b, " %s:%s", mdim[on], pl);
		any = 1;
	}
	if (other_k >= 0) {
		sc_str_printf(b, " %s:shard d%d", mdim[1 - on], other_k);
		any = 1;
	}
	sc_str_put(b, any ? "\n" : " replicate\n");
}

/* A step line: the word P as the mesh dim's size, dim k (sharded by the
 * other mesh dim, k >= 0) as its local size, group= on collectives. */
static void step(struct sc_str *b, const char *line, int on, int k)
{
	char dk[16];
	snprintf(dk, sizeof dk, "d%d", k);
	const size_t nk = strlen(dk);
	char kw[48];
	size_t n = strcspn(line, " ");
	snprintf(kw, sizeof kw, "%.*s", (int)(n < sizeof kw ? n : sizeof kw - 1), line);
	for (const char *c = line; *c; c++) {
		const int word = *c == 'P' && (c == line || !isalnum((unsigned char)c[-1])) && !isalnum((unsigned char)c[1]) &&
				 c[1] != '_';
		const int is_dk = k >= 0 && strncmp(c, dk, nk) == 0 && (c == line || !isalnum((unsigned char)c[-1])) &&
				  !isalnum((unsigned char)c[nk]);
		if (word) {
			sc_str_put(b, msym[on]);
		} else if (is_dk) {
			sc_str_printf(b, "%s/%s", dk, msym[1 - on]);
			c += nk - 1;
		} else {
			sc_str_printf(b, "%c", *c);
		}
	}
	const struct sc_step_def *d = sc_step_find(kw);
	if (d && (d->flags & (SC_STEP_COLLECTIVE | SC_STEP_GROUPED)))
		sc_str_printf(b, " group=%s", mdim[on]);
	sc_str_put(b, "\n");
}

/* The first dim in 0..n-1 other than i and j; -1 when none. */
static int spare(int n, int i, int j)
{
	for (int d = 0; d < n; d++)
		if (d != i && d != j)
			return d;
	return -1;
}

int sc_builtin_mesh_text(const struct sc_builtin_family *f, struct sc_str *b, int n, int p0, int p1,
			 enum sc_redop op, int p2)
{
	const struct sc_builtin_family *base = f->base;
	const int on = p2 & 1, other = p2 >> 1;
	const int uses_p1 = base->nparams > 1 && base->params[1].slot == SC_BUILTIN_P1;
	const int k = other ? spare(n, p0, uses_p1 ? p1 : p0) : -1;
	if (other && k < 0)
		return 0;
	struct sc_str t = SC_STR_INIT;
	base->text(&t, n, p0, p1, op);
	char *text = sc_str_take(&t);
	if (!text)
		return 0;
	sc_str_printf(b, "mesh %s=%s %s=%s\n", mdim[0], msym[0], mdim[1], msym[1]);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, "input ", 6) == 0)
			placement(b, "input", line + 6, on, k);
		else if (strncmp(line, "output ", 7) == 0)
			placement(b, "output", line + 7, on, k);
		else
			step(b, line, on, k);
	}
	free(text);
	return 1;
}

#define MESH_PARAM {"mesh", "mesh", SC_PARAM_CHOICE, 4, SC_BUILTIN_P2}

extern const struct sc_builtin_family sc_builtin_all_to_all, sc_builtin_all_gather, sc_builtin_reduce_scatter,
	sc_builtin_all_reduce;

const struct sc_builtin_family sc_builtin_all_to_all_2d = {
	.name = "all_to_all_2d",
	.ndims_lo = 2,
	.ndims_hi = 5,
	.nparams = 3,
	.params = {{"dim", "split", SC_PARAM_DIM, 0, SC_BUILTIN_P0},
		   {"concat", "concat", SC_PARAM_OTHER_DIM, 0, SC_BUILTIN_P1},
		   MESH_PARAM},
	.data_only = 1,
	.self_inverse = 1,
	.base = &sc_builtin_all_to_all,
};

const struct sc_builtin_family sc_builtin_all_gather_2d = {
	.name = "all_gather_2d",
	.ndims_lo = 1,
	.ndims_hi = 5,
	.nparams = 2,
	.params = {{"dim", "dim", SC_PARAM_DIM, 0, SC_BUILTIN_P0}, MESH_PARAM},
	.data_only = 1,
	.base = &sc_builtin_all_gather,
};

const struct sc_builtin_family sc_builtin_reduce_scatter_2d = {
	.name = "reduce_scatter_2d",
	.ndims_lo = 1,
	.ndims_hi = 5,
	.nparams = 3,
	.params = {{"dim", "dim", SC_PARAM_DIM, 0, SC_BUILTIN_P0}, {"op", "op", SC_PARAM_OP, 0, SC_BUILTIN_OP},
		   MESH_PARAM},
	.base = &sc_builtin_reduce_scatter,
};

const struct sc_builtin_family sc_builtin_all_reduce_2d = {
	.name = "all_reduce_2d",
	.ndims_lo = 1,
	.ndims_hi = 5,
	.nparams = 3,
	.params = {{"dim", "dim", SC_PARAM_DIM, 0, SC_BUILTIN_P0}, {"op", "op", SC_PARAM_OP, 0, SC_BUILTIN_OP},
		   MESH_PARAM},
	.base = &sc_builtin_all_reduce,
};
