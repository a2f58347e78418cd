/* sc_backend_sim: the in-process backend. Every rank's buffers live in
 * this process; collectives are memcpy, and reductions run sequentially in
 * rank order, so a reduction's bits never depend on timing. */
#include "sc_backend.h"

#include <stdlib.h>
#include <string.h>

static int sim_local(struct sc_backend *be, int world, int *first)
{
	(void)be;
	*first = 0;
	return world;
}

static enum sc_status sim_a2a(struct sc_backend *be, int world, void *const *send,
			      void *const *recv, size_t chunk, struct sc_err *e)
{
	(void)be;
	(void)e;
	for (int dst = 0; dst < world; dst++)
		for (int src = 0; src < world; src++)
			memcpy((char *)recv[dst] + (size_t)src * chunk,
			       (const char *)send[src] + (size_t)dst * chunk, chunk);
	return SC_OK;
}

static enum sc_status sim_ag(struct sc_backend *be, int world, void *const *send,
			     void *const *recv, size_t bytes, struct sc_err *e)
{
	(void)be;
	(void)e;
	for (int dst = 0; dst < world; dst++)
		for (int src = 0; src < world; src++)
			memcpy((char *)recv[dst] + (size_t)src * bytes, send[src], bytes);
	return SC_OK;
}

static enum sc_status sim_rs(struct sc_backend *be, int world, void *const *send,
			     void *const *recv, size_t count, enum sc_dtype dt,
			     enum sc_redop op, struct sc_err *e)
{
	(void)be;
	(void)e;
	const size_t es = sc_dtype_size(dt), bytes = count * es;
	for (int r = 0; r < world; r++) {
		memcpy(recv[r], (const char *)send[0] + (size_t)r * bytes, bytes);
		for (int src = 1; src < world; src++)
			sc_reduce(dt, op, recv[r], (const char *)send[src] + (size_t)r * bytes, count);
	}
	return SC_OK;
}

static enum sc_status sim_ar(struct sc_backend *be, int world, void *const *send,
			     void *const *recv, size_t count, enum sc_dtype dt,
			     enum sc_redop op, struct sc_err *e)
{
	(void)be;
	(void)e;
	const size_t bytes = count * sc_dtype_size(dt);
	memcpy(recv[0], send[0], bytes);
	for (int src = 1; src < world; src++)
		sc_reduce(dt, op, recv[0], send[src], count);
	for (int r = 1; r < world; r++)
		memcpy(recv[r], recv[0], bytes);
	return SC_OK;
}

static enum sc_status sim_a2av(struct sc_backend *be, int world, void *const *send,
			       void *const *recv, const size_t *sbytes, const size_t *rbytes,
			       struct sc_err *e)
{
	(void)be;
	(void)e;
	/* where each source's block starts in each receiver's buffer */
	for (int dst = 0; dst < world; dst++) {
		size_t at = 0;
		for (int src = 0; src < world; src++) {
			size_t from = 0;
			for (int j = 0; j < dst; j++)
				from += sbytes[(size_t)src * (size_t)world + (size_t)j];
			const size_t n = rbytes[(size_t)dst * (size_t)world + (size_t)src];
			if (n)
				memcpy((char *)recv[dst] + at, (const char *)send[src] + from, n);
			at += n;
		}
	}
	return SC_OK;
}

static void sim_destroy(struct sc_backend *be) { free(be); }

static const struct sc_backend_ops sim_ops = {
	.name = "sim",
	.local_ranks = sim_local,
	.all_to_all = sim_a2a,
	.all_gather = sim_ag,
	.reduce_scatter = sim_rs,
	.all_reduce = sim_ar,
	.all_to_allv = sim_a2av,
	.destroy = sim_destroy,
};

const struct sc_backend_ops *sc_backend_sim_ops(void) { return &sim_ops; }

enum sc_status sc_backend_sim_open(struct sc_backend **out, struct sc_err *e)
{
	struct sc_backend *be = calloc(1, sizeof *be);
	if (!be)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	be->ops = &sim_ops;
	*out = be;
	return SC_OK;
}
