/* Example plugin: an all-gather of uneven shards through all_to_allv.
 *
 * Rank r holds torch.tensor_split(X, P, 0)[r] (the first n mod P ranks one
 * row more) and must end with all of X: it sends its rows to every rank
 * and receives each rank's rows, whose count it works out from n, so the
 * received buffer is X itself. all_to_allv was appended to the collectives
 * table; a shardcheck without it fails the call (SC_PLUGIN_HAS).
 *
 * Built a second time with -DSC_EXAMPLE_COUNT_BUG, the receiver expects
 * torch.chunk's row counts (ceil(n/P) each) instead: where they differ from
 * tensor_split's, the counts disagree with the senders', and the exchange
 * refuses on every rank instead of reading past a buffer. */
#include <stdlib.h>
#include <string.h>

#include "shardcheck/plugin.h"

static int64_t rows_of(int64_t n, int64_t P, int64_t q)
{
#ifndef SC_EXAMPLE_COUNT_BUG
	return n / P + (q < n % P ? 1 : 0);
#else
	const int64_t c = (n + P - 1) / P, left = n - q * c;
	return left < 0 ? 0 : left < c ? left : c;
#endif
}

static int run(const struct sc_plugin_call *call)
{
	const struct sc_plugin_collectives *coll = call->coll;
	if (!SC_PLUGIN_HAS(coll, struct sc_plugin_collectives, all_to_allv) || !coll->all_to_allv)
		return 9;
	const int64_t P = call->world, n = call->output.shape[0];
	int64_t row = (int64_t)call->output.elem_size;
	for (int k = 1; k < call->output.ndim; k++)
		row *= call->output.shape[k];
	size_t send[256], recv[256];
	if (P > 256)
		return 8;
	const size_t mine = (size_t)(call->input.shape[0] * row);
	for (int64_t q = 0; q < P; q++) {
		send[q] = mine;
		recv[q] = (size_t)(rows_of(n, P, q) * row);
	}
	/* send is packed per destination: the rows once for every rank */
	unsigned char *packed = (unsigned char *)malloc(mine * (size_t)P + 1);
	if (!packed)
		return 1;
	for (int64_t q = 0; mine && q < P; q++)
		memcpy(packed + (size_t)q * mine, call->input.data, mine);
	const int rc = coll->all_to_allv(coll, packed, call->output.data, send, recv);
	free(packed);
	return rc ? 2 : 0;
}

int sc_plugin_register(struct sc_plugin_registry *reg)
{
	struct sc_plugin_transform t;
	memset(&t, 0, sizeof t);
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.name = "gather_split";
	t.contract = "dims n m\ninput shard n split\noutput replicate\nsizes m=1..3\n";
	t.run = run;
	t.description = "all-gather of tensor_split shards via all_to_allv, [n/P (+1), m] -> [n, m]";
	return reg->add(reg, &t);
}
