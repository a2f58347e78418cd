/* ABI test: a plugin built against an older, smaller sc_plugin_transform
 * (without the user and description fields that came later). shardcheck
 * must read only the size it is given and default the rest. */
#include <string.h>

#include "shardcheck/plugin.h"

struct old_transform { /* the layout of an earlier header */
	size_t size;
	unsigned abi_version;
	const char *name;
	const char *contract;
	sc_plugin_run_fn run;
};

static int copy(const struct sc_plugin_call *call)
{
	size_t n = call->input.elem_size;
	for (int k = 0; k < call->input.ndim; k++)
		n *= (size_t)call->input.shape[k];
	memcpy(call->output.data, call->input.data, n);
	return call->user == NULL ? 0 : 7; /* the missing field must read as NULL */
}

int sc_plugin_register(struct sc_plugin_registry *reg)
{
	static struct old_transform t;
	t.size = sizeof t;
	t.abi_version = 1;
	t.name = "identity_old";
	t.contract = "dims n\ninput shard n\noutput shard n\n";
	t.run = copy;
	return reg->add(reg, (const struct sc_plugin_transform *)(const void *)&t);
}
