/* determinism: two runs of the same case give identical bits. */
#include "sc_property.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int applies(const struct sc_target *t)
{
	(void)t;
	return 1;
}

static enum sc_verdict check(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *c,
			     struct sc_failure *f)
{
	/* the two runs handed to the target together where it takes them so
	 * (one after the other in one process either way) */
	const struct sc_case twice[2] = {*c, *c};
	sc_ctx_begin(ctx, 0, 0);
	const int took = sc_batch_run(ctx, t, twice, NULL, 2);
	enum sc_verdict v = sc_batch_take(ctx, 0, f);
	if (v != SC_V_PASS)
		return v;
	unsigned char *snap;
	size_t nbytes;
	if (sc_snapshot_outputs(ctx, &snap, &nbytes, &ctx->err) != SC_OK)
		return SC_V_ERROR;
	const long n1 = (long)nbytes;
	unsigned char *first = malloc((size_t)n1 + 1);
	if (!first)
		return SC_V_ERROR;
	memcpy(first, snap, (size_t)n1);
	if (took == 1) { /* one at a time */
		sc_ctx_begin(ctx, 0, 0);
		sc_batch_run(ctx, t, &twice[1], NULL, 1);
	}
	v = sc_batch_take(ctx, took - 1, f);
	if (v == SC_V_PASS) {
		if (sc_snapshot_outputs(ctx, &snap, &nbytes, &ctx->err) != SC_OK) {
			free(first);
			return SC_V_ERROR;
		}
		const long n2 = (long)nbytes;
		if (n2 != n1 || memcmp(first, snap, (size_t)n1) != 0) {
			long diff = 0;
			for (long i = 0; i < n1 && i < n2; i++)
				diff += first[i] != snap[i];
			snprintf(f->msg, sizeof f->msg,
				 "two runs of the same case differ (%ld of %ld output bytes%s)", diff, n1,
				 n1 != n2 ? ", and in size" : "");
			f->wrong = diff ? diff : 1;
			v = SC_V_FAIL;
		}
	}
	free(first);
	return v;
}

const struct sc_property sc_prop_determinism = {
	.name = "determinism",
	.doc = "two runs of the same case give identical bits",
	.applies = applies,
	.check = check,
};
