/* sc_computedump: runs a compute spec's reference (exact f64) and its
 * program on one rank (world 1, sim backend) for one case and writes, as
 * float64 .npy files in OUTDIR: every input tensor (NAME.npy), the
 * reference's output (ref.npy, its bound ref_e.npy) and the program's
 * (prog.npy, prog_e.npy). Prints "ok" or "runtime: MESSAGE" (a failure of
 * the case, as PyTorch would raise). The PyTorch differential test of the
 * compute ops (test_torch_compute.py) reads them.
 * Usage: sc_computedump SPEC DTYPE SEED OUTDIR SIZE... [counts=a:b:...]
 * (a spec with micro-batches: their rows; the split dim's size is their sum). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_compute.h"
#include "sc_npy.h"
#include "sc_property.h"

/* values (which = 0) or bounds (1) of a pair tensor, as f64 */
static int write_pairs(struct sc_arena *a, const char *dir, const char *name, const struct sc_tensor *t, int which)
{
	struct sc_err e;
	struct sc_tensor c, o;
	if (sc_tensor_empty(a, t->shape, t->ndim, 16, &c, &e) != SC_OK ||
	    sc_tensor_empty(a, t->shape, t->ndim, 8, &o, &e) != SC_OK)
		return -1;
	sc_tensor_copy(&c, t);
	const struct sc_pair *p = sc_cx_pairs(&c);
	double *d = (double *)(void *)o.buf->data;
	for (int64_t i = 0; i < sc_tensor_numel(&c); i++)
		d[i] = which ? p[i].e : p[i].v;
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.npy", dir, name);
	if (sc_npy_write(path, &o, SC_F64, &e) != SC_OK) {
		fprintf(stderr, "%s\n", e.msg);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: sc_computedump SPEC DTYPE SEED OUTDIR SIZE...\n");
		return 2;
	}
	struct sc_spec *s = malloc(sizeof *s);
	struct sc_err e;
	enum sc_dtype dt;
	if (sc_spec_load(argv[1], s, &e) != SC_OK || !s->compute) {
		fprintf(stderr, "%s\n", s->compute ? e.msg : "not a compute spec");
		return 2;
	}
	if (sc_dtype_parse(argv[2], &dt) != SC_OK)
		return 2;
	int64_t sizes[SC_MAX_DIMS] = {0};
	for (int d = 0; d < s->ndims && 5 + d < argc; d++)
		sizes[d] = atoll(argv[5 + d]);
	/* micro-batches: counts=a:b:... after the sizes, the split dim their sum */
	struct sc_countv cv;
	memset(&cv, 0, sizeof cv);
	const int mb = sc_spec_micro(s);
	if (mb >= 0 && argc > 5 + s->ndims && strncmp(argv[5 + s->ndims], "counts=", 7) == 0) {
		cv.P = 1;
		const char *q = argv[5 + s->ndims] + 7;
		for (int i = 0; *q && i < SC_COUNTS_MAX_LEN; i++) {
			char *end;
			cv.v[mb][i] = (int32_t)strtol(q, &end, 10);
			q = *end == ':' ? end + 1 : end;
		}
		int64_t sum = 0;
		for (int i = 0; i < sc_spec_counts_len(s, mb, sizes, &cv); i++)
			sum += cv.v[mb][i];
		sizes[s->counts[mb].sum_dim] = sum;
	}
	const char *dir = argv[4];
	struct sc_backend *be;
	sc_backend_sim_open(&be, NULL);
	struct sc_ctx *ctx = sc_ctx_new(be, 0);
	sc_ctx_begin(ctx, 0, 0);
	const struct sc_compute_case cc = {1, sizes, dt, strtoull(argv[3], NULL, 10), cv.P ? &cv : NULL};
	struct sc_cenv penv, renv;
	struct sc_exec *x = &ctx->x, *rx = &ctx->rx;
	x->world = 1;
	x->dtype = dt;
	x->nlocal = be->ops->local_ranks(be, 1, &x->first);
	rx->world = 1;
	rx->first = 0;
	rx->nlocal = 1;
	rx->dtype = SC_F64;
	enum sc_status st = sc_compute_run(s, &cc, rx, 1, &renv, &e);
	if (st == SC_OK)
		st = sc_compute_run(s, &cc, x, 0, &penv, &e);
	int rc = 0;
	if (st == SC_E_RUNTIME) {
		printf("runtime: %s\n", e.msg);
	} else if (st != SC_OK) {
		fprintf(stderr, "%s\n", e.msg);
		rc = 2;
	} else {
		for (int i = 0; i < s->ntensors && !rc; i++)
			if (s->tensors[i].input && i != s->out_tensor)
				rc = write_pairs(&ctx->arena, dir, s->tensors[i].name, &renv.t[i][0], 0);
		const int o = s->out_tensor;
		if (!rc)
			rc = write_pairs(&ctx->arena, dir, "ref", &renv.t[o][0], 0) ||
			     write_pairs(&ctx->arena, dir, "ref_e", &renv.t[o][0], 1) ||
			     write_pairs(&ctx->arena, dir, "prog", &penv.t[o][0], 0) ||
			     write_pairs(&ctx->arena, dir, "prog_e", &penv.t[o][0], 1);
		if (!rc)
			printf("ok\n");
		else
			rc = 2;
	}
	sc_ctx_free(ctx);
	sc_backend_close(be);
	free(s);
	return rc;
}
