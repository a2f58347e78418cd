/* Overruns that land in a neighbour's buffer: the rank that wrote must be
 * named, not the rank whose guard bytes it reached.
 *   over256:   the last rank writes 256 bytes past the end of its output
 *   under256:  the last rank writes 256 bytes before the start of its output */
#include <string.h>

#include "shardcheck/plugin.h"

static size_t nbytes(const struct sc_plugin_tensor *t)
{
	size_t n = t->elem_size;
	for (int d = 0; d < t->ndim; d++)
		n *= (size_t)t->shape[d];
	return n;
}

static int stray(const struct sc_plugin_call *call, int past)
{
	memcpy(call->output.data, call->input.data, nbytes(&call->input));
	if (call->rank == call->world - 1) {
		unsigned char *at = past ? (unsigned char *)call->output.data + nbytes(&call->output)
					 : (unsigned char *)call->output.data - 256;
		memset(at, 0x5a, 256);
	}
	return 0;
}

static int over256(const struct sc_plugin_call *c) { return stray(c, 1); }
static int under256(const struct sc_plugin_call *c) { return stray(c, 0); }

int sc_plugin_register(struct sc_plugin_registry *reg)
{
	static const struct {
		const char *name;
		sc_plugin_run_fn run;
	} kernels[] = {{"over256", over256}, {"under256", under256}};
	for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
		struct sc_plugin_transform t;
		memset(&t, 0, sizeof t);
		t.size = sizeof t;
		t.abi_version = SC_PLUGIN_ABI_VERSION;
		t.name = kernels[i].name;
		t.contract = "dims n\ninput shard n\noutput shard n\n";
		t.run = kernels[i].run;
		if (reg->add(reg, &t) != 0)
			return 1;
	}
	return 0;
}
