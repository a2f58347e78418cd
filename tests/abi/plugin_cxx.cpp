// ABI test: a plugin in C++ (the header's declarations have C linkage).
#include <cstring>

#include "shardcheck/plugin.h"

namespace {
int copy(const sc_plugin_call *call)
{
	std::size_t n = call->input.elem_size;
	for (int k = 0; k < call->input.ndim; k++)
		n *= static_cast<std::size_t>(call->input.shape[k]);
	std::memcpy(call->output.data, call->input.data, n);
	return 0;
}
} // namespace

int sc_plugin_register(sc_plugin_registry *reg)
{
	sc_plugin_transform t{};
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.name = "identity_cxx";
	t.contract = "dims n\ninput shard n\noutput shard n\n";
	t.run = copy;
	return reg->add(reg, &t);
}
