/* Overruns that land in a neighbour's buffer: the rank that wrote must be
 * named, not the rank whose guard bytes it reached.
 *   over256:   the last rank writes 256 bytes past the end of its output
 *   under256:  the last rank writes 256 bytes before the start of its output */
#include "plugin_kit.h"

static int stray(const struct sc_plugin_call *call, int past)
{
	kit_copy(call);
	if (call->rank == call->world - 1) {
		unsigned char *at = past ? (unsigned char *)call->output.data + kit_bytes(&call->output)
					 : (unsigned char *)call->output.data - 256;
		memset(at, 0x5a, 256);
	}
	return 0;
}

static int over256(const struct sc_plugin_call *c) { return stray(c, 1); }
static int under256(const struct sc_plugin_call *c) { return stray(c, 0); }

int sc_plugin_register(struct sc_plugin_registry *reg)
{
	static const struct kit_kernel kernels[] = {{"over256", over256}, {"under256", under256}};
	return kit_register(reg, kernels, sizeof kernels / sizeof kernels[0]);
}
