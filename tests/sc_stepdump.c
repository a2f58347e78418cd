/* sc_stepdump: runs a spec on replicated arange data (provenance mode, sim
 * backend) and prints, after every step, rank 0's shape, strides and
 * contiguity, or the runtime error; then the final elements. The PyTorch
 * differential test compares this line by line with torch.
 * Usage: sc_stepdump SPEC WORLD SIZE... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_property.h"

static void dump(const struct sc_tensor *t)
{
	printf("ok [");
	for (int d = 0; d < t->ndim; d++)
		printf("%s%lld", d ? ", " : "", (long long)t->shape[d]);
	printf("] [");
	for (int d = 0; d < t->ndim; d++)
		printf("%s%lld", d ? ", " : "", (long long)t->stride[d]);
	printf("] %d\n", sc_tensor_is_contig(t));
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: sc_stepdump SPEC WORLD SIZE...\n");
		return 2;
	}
	struct sc_spec *s = malloc(sizeof *s);
	struct sc_err e;
	if (sc_spec_load(argv[1], s, &e) != SC_OK) {
		fprintf(stderr, "%s\n", e.msg);
		return 2;
	}
	struct sc_target t;
	sc_target_from_spec(&t, s);
	struct sc_case c;
	memset(&c, 0, sizeof c);
	c.world = atoi(argv[2]);
	c.ndims = s->ndims;
	for (int d = 0; d < s->ndims && 3 + d < argc; d++)
		c.sizes[d] = atoll(argv[3 + d]);
	struct sc_backend *be;
	sc_backend_sim_open(&be, NULL);
	struct sc_ctx *ctx = sc_ctx_new(be, 0);
	/* inputs only: run no steps, then step by step */
	struct sc_spec *inputs_only = malloc(sizeof *inputs_only);
	*inputs_only = *s;
	inputs_only->nsteps = 0;
	struct sc_target t0;
	sc_target_from_spec(&t0, inputs_only);
	int rc = 0;
	sc_ctx_begin(ctx, 1, 0);
	if (sc_verify_run(&t0, &c, &ctx->x, NULL, &e) != SC_OK) {
		fprintf(stderr, "%s\n", e.msg);
		rc = 2;
		goto out;
	}
	for (int i = 0; i < s->nsteps; i++) {
		enum sc_status st = sc_exec_step(&ctx->x, s, &s->steps[i], c.sizes, &e);
		if (st == SC_E_RUNTIME) {
			printf("err %s\n", e.msg);
			goto out;
		}
		if (st != SC_OK) {
			fprintf(stderr, "%s\n", e.msg);
			rc = 2;
			goto out;
		}
		dump(&ctx->x.t[0]);
	}
	const struct sc_tensor *o = &ctx->x.t[0];
	struct sc_iter it;
	sc_iter_init(&it, o->shape, o->stride, o->ndim, o->offset);
	printf("vals");
	for (int64_t k = 0; k < sc_tensor_numel(o); k++) {
		printf(" %llu", (unsigned long long)sc_load_bits(o->buf->data + (size_t)it.off * 8, 8));
		sc_iter_next(&it);
	}
	printf("\n");
out:
	sc_target_free(&t0);
	sc_target_free(&t);
	sc_ctx_free(ctx);
	sc_backend_close(be);
	return rc;
}
