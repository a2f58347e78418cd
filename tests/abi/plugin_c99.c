/* ABI test: a plugin in strict C99 (-std=c99 -pedantic -Werror): an
 * identity transform on a sharded vector. */
#include <string.h>

#include "shardcheck/plugin.h"

static int copy(const struct sc_plugin_call *call)
{
	size_t n = call->input.elem_size;
	int k;
	if (!SC_PLUGIN_HAS(&call->input, struct sc_plugin_tensor, elem_size))
		return 9;
	for (k = 0; k < call->input.ndim; k++)
		n *= (size_t)call->input.shape[k];
	memcpy(call->output.data, call->input.data, n);
	return 0;
}

int sc_plugin_register(struct sc_plugin_registry *reg)
{
	struct sc_plugin_transform t;
	memset(&t, 0, sizeof t);
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.name = "identity_c99";
	t.contract = "dims n m\ninput shard n\noutput shard n\nsizes m=1..3\n";
	t.run = copy;
	return reg->add(reg, &t);
}
