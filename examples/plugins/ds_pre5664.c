/* Example plugin: DeepSpeed's heads -> sequence all-to-all before PR 5664,
 * as a C kernel. After the all-to-all the received [P, s/P, b, h/P, d] is
 * transposed on its first two dims ([s/P, P, b, h/P, d]) and read as
 * [s/P, b, h, d]: P and b interleave whenever b > 1 and P > 1. */
#include <stdlib.h>
#include <string.h>

#include "shardcheck/plugin.h"

static int run(const struct sc_plugin_call *call)
{
	const int64_t P = call->world, es = (int64_t)call->input.elem_size;
	const int64_t s = call->input.shape[0], b = call->input.shape[1], hp = call->input.shape[2],
		      d = call->input.shape[3];
	const int64_t sp = s / P;
	const size_t bytes = (size_t)(s * b * hp * d * es);
	unsigned char *recv = malloc(bytes ? bytes : 1);
	if (!recv)
		return 1;
	if (call->coll->all_to_all(call->coll, call->input.data, recv, bytes / (size_t)P) != 0) {
		free(recv);
		return 2;
	}
	/* output.transpose(0, 1).contiguous(): [s/P, P, b, h/P, d], then reshape */
	unsigned char *out = (unsigned char *)call->output.data;
	for (int64_t a = 0; a < sp; a++)
		for (int64_t q = 0; q < P; q++)
			for (int64_t bb = 0; bb < b; bb++)
				for (int64_t hh = 0; hh < hp; hh++)
					memcpy(out + ((((a * P + q) * b + bb) * hp + hh) * d) * es,
					       recv + ((((q * sp + a) * b + bb) * hp + hh) * d) * es, (size_t)(d * es));
	free(recv);
	return 0;
}

int sc_plugin_register(struct sc_plugin_registry *reg)
{
	struct sc_plugin_transform t;
	memset(&t, 0, sizeof t);
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.name = "ds_head2seq_pre5664";
	t.contract = "dims s b h d\ninput shard h\noutput shard s\n";
	t.run = run;
	return reg->add(reg, &t);
}
