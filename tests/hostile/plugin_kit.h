/* What the test plugins share: a rank's bytes, the correct copy (rank r's
 * shard of X[n] in, the same shard out) and the registration of a table
 * of kernels under the contract of that copy. Header-only: each plugin is
 * one shared library. */
#ifndef PLUGIN_KIT_H
#define PLUGIN_KIT_H

#include <string.h>

#include "shardcheck/plugin.h"

#define KIT_CONTRACT "dims n\ninput shard n\noutput shard n\n"

struct kit_kernel {
	const char *name;
	sc_plugin_run_fn run;
};

static inline size_t kit_bytes(const struct sc_plugin_tensor *t)
{
	size_t n = t->elem_size;
	for (int d = 0; d < t->ndim; d++)
		n *= (size_t)t->shape[d];
	return n;
}

static inline int kit_copy(const struct sc_plugin_call *call)
{
	memcpy(call->output.data, call->input.data, kit_bytes(&call->input));
	return 0;
}

/* reg->add of one kernel under KIT_CONTRACT; add()'s value. */
static inline int kit_add(struct sc_plugin_registry *reg, const char *name, sc_plugin_run_fn run)
{
	struct sc_plugin_transform t;
	memset(&t, 0, sizeof t);
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.name = name;
	t.contract = KIT_CONTRACT;
	t.run = run;
	return reg->add(reg, &t);
}

/* Every kernel of the table; 0, or 1 when add() refused one. */
static inline int kit_register(struct sc_plugin_registry *reg, const struct kit_kernel *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (kit_add(reg, k[i].name, k[i].run) != 0)
			return 1;
	return 0;
}

#endif
