/* sc_clookup: embedding and pick. */
#include "sc_clookup.h"

#include <math.h>
#include <string.h>

/* The local row index i names, or -1 for a masked (zero) one. */
static enum sc_status row_of(const struct sc_cx *k, const struct sc_cargs *a, double i, int64_t V, int64_t *out)
{
	const int64_t r = (int64_t)i - a->start;
	if (r >= 0 && r < V) {
		*out = r;
		return SC_OK;
	}
	if (a->st->start >= 0) {
		*out = -1;
		return SC_OK;
	}
	return sc_cx_err(k, "index out of range in self (index %lld, %lld rows)", (long long)i, (long long)V);
}

enum sc_status sc_clookup_embedding(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out)
{
	struct sc_tensor idx, w;
	SC_CHECK(sc_cx_contig(k, a->t[0], &idx));
	SC_CHECK(sc_cx_contig(k, a->t[1], &w));
	if (w.ndim != 2)
		return sc_cx_err(k, "embedding: the weight must be 2-d [rows, dim], got %d dims", w.ndim);
	if (idx.ndim + 1 > SC_MAX_DIMS)
		return sc_cx_err(k, "embedding: too many dims");
	int64_t shape[SC_MAX_DIMS];
	memcpy(shape, idx.shape, sizeof(int64_t) * (size_t)idx.ndim);
	const int64_t V = w.shape[0], H = w.shape[1];
	shape[idx.ndim] = H;
	SC_CHECK(sc_cx_empty(k, shape, idx.ndim + 1, out));
	const struct sc_pair *pi = sc_cx_pairs(&idx), *pw = sc_cx_pairs(&w);
	struct sc_pair *po = sc_cx_pairs(out);
	for (int64_t n = 0; n < sc_tensor_numel(&idx); n++) {
		int64_t r = -1;
		SC_CHECK(row_of(k, a, pi[n].v, V, &r));
		for (int64_t h = 0; h < H; h++)
			po[n * H + h] = r < 0 ? (struct sc_pair){0, 0} : pw[r * H + h];
	}
	return SC_OK;
}

enum sc_status sc_clookup_pick(const struct sc_cx *k, const struct sc_cargs *a, struct sc_tensor *out)
{
	struct sc_tensor t, idx;
	SC_CHECK(sc_cx_contig(k, a->t[0], &t));
	SC_CHECK(sc_cx_contig(k, a->t[1], &idx));
	int same = t.ndim >= 1 && idx.ndim == t.ndim - 1;
	for (int i = 0; same && i < idx.ndim; i++)
		same = idx.shape[i] == t.shape[i];
	if (!same) {
		char x1[128], x2[128];
		sc_shape_format(t.shape, t.ndim, x1, sizeof x1);
		sc_shape_format(idx.shape, idx.ndim, x2, sizeof x2);
		return sc_cx_err(k, "pick: the index must have the tensor's shape without its last dim (shapes %s and %s)",
				 x1, x2);
	}
	const int64_t V = t.shape[t.ndim - 1];
	SC_CHECK(sc_cx_empty(k, idx.shape, idx.ndim, out));
	const struct sc_pair *pt = sc_cx_pairs(&t), *pi = sc_cx_pairs(&idx);
	struct sc_pair *po = sc_cx_pairs(out);
	for (int64_t n = 0; n < sc_tensor_numel(&idx); n++) {
		int64_t r = -1;
		SC_CHECK(row_of(k, a, pi[n].v, V, &r));
		po[n] = r < 0 ? (struct sc_pair){0, 0} : pt[n * V + r];
	}
	return SC_OK;
}
