/* Example plugin: DTensor's 2-D redistribute [Shard(0), Shard(1)] ->
 * [Replicate(), Shard(1)] on a (dp, tp) mesh: an all-gather of dim 0 over
 * each dp group, through the group's collectives (call->group).
 *
 * Built a second time with -DSC_EXAMPLE_GROUP_BUG, it gathers over the tp
 * groups instead: right on a mesh whose tp size is 1 only. */
#include <string.h>

#include "shardcheck/plugin.h"

static int run(const struct sc_plugin_call *call)
{
	if (!SC_PLUGIN_HAS(call, struct sc_plugin_call, group) || !call->group || call->mesh_ndims != 2)
		return 9;
#ifndef SC_EXAMPLE_GROUP_BUG
	const int dims[1] = {0}; /* dp */
#else
	const int dims[1] = {1}; /* tp: the wrong mesh dim */
#endif
	const struct sc_plugin_collectives *g = call->group(call, dims, 1);
	if (!g)
		return 8;
	size_t bytes = call->input.elem_size;
	for (int k = 0; k < call->input.ndim; k++)
		bytes *= (size_t)call->input.shape[k];
	size_t out = call->output.elem_size;
	for (int k = 0; k < call->output.ndim; k++)
		out *= (size_t)call->output.shape[k];
	if (out != bytes * (size_t)call->mesh_size[dims[0]])
		return 7; /* the output is not the gathered size: the contract says otherwise */
	return g->all_gather(g, call->input.data, call->output.data, bytes) ? 2 : 0;
}

int sc_plugin_register(struct sc_plugin_registry *reg)
{
	struct sc_plugin_transform t;
	memset(&t, 0, sizeof t);
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.name = "mesh_gather";
	t.contract = "dims s h\nmesh dp=D tp=T\ninput dp:shard s tp:shard h\noutput tp:shard h\n";
	t.run = run;
	t.description = "2-D redistribute: all-gather of dim 0 over each dp group of a (dp, tp) mesh";
	return reg->add(reg, &t);
}
