/* Example plugin: the Ulysses heads -> sequence all-to-all, written as the C
 * kernel a framework would ship, correct.
 *
 * Rank r holds X[:, :, r*h/P:(r+1)*h/P, :] ([s, b, h/P, d]) and must end
 * with X[r*s/P:(r+1)*s/P] ([s/P, b, h, d]). The input's rows already form P
 * contiguous chunks of s/P rows, so it is sent as is; the received blocks
 * [P, s/P, b, h/P, d] are unpacked so that source rank q's heads land at
 * [q*h/P, (q+1)*h/P).
 *
 * Built a second time with -DSC_EXAMPLE_INDEX_BUG, the unpack interleaves
 * the heads instead (a one-line change of index arithmetic): the copy that
 * `shardcheck gate --baseline` must reject. */
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
	unsigned char *out = (unsigned char *)call->output.data;
	for (int64_t q = 0; q < P; q++)
		for (int64_t i = 0; i < sp; i++)
			for (int64_t bb = 0; bb < b; bb++)
				for (int64_t hh = 0; hh < hp; hh++) {
#ifndef SC_EXAMPLE_INDEX_BUG
					const int64_t head = q * hp + hh;
#else
					const int64_t head = hh * P + q;
#endif
					memcpy(out + (((i * b + bb) * (hp * P) + head) * d) * es,
					       recv + ((((q * sp + i) * b + bb) * hp + hh) * d) * es, (size_t)(d * es));
				}
	free(recv);
	return 0;
}

int sc_plugin_register(struct sc_plugin_registry *reg)
{
	struct sc_plugin_transform t;
	memset(&t, 0, sizeof t);
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.name = "heads_to_seq";
	t.contract = "dims s b h d\ninput shard h\noutput shard s\n";
	t.run = run;
	t.description = "Ulysses heads -> sequence all-to-all, [s, b, h/P, d] -> [s/P, b, h, d]";
	return reg->add(reg, &t);
}
