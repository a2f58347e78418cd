/* Transforms that accept device memory, for the gate on emu (the CUDA
 * backend's device path on the CPU, whose "device" memory faults when the
 * host touches it): they move bytes only through the collectives table,
 * which takes device pointers there.
 *   gather:       rank r's shard of X[n] in, all of X out (all_gather);
 *                 host or device memory
 *   gather_dev:   the same, device memory only (refused on sim)
 *   gather_short: one element short of every shard (the last ones unwritten)
 *   gather_over:  the right bytes, one element too far on: the last shard
 *                 lands past the end of the output (a guard zone)
 *   max:          X[n] on every rank, the maximum over ranks out: X
 *                 (all_reduce; the device path's reductions; its contract
 *                 declares the integer dtypes: a float maximum does not
 *                 keep a NaN's payload)
 *   scatter:      the same, rank r's shard of it out (reduce_scatter)
 *   sum:          X[n] a partial sum over the ranks, all of it out
 *                 (all_reduce of a `partial sum` contract); host or device
 *   sum_max:      the same contract, reduced by max instead of sum (wrong)
 *   touch:        reads its input on the host (a device pointer: faults)
 *   memory_bad:   (built with DEVICE_BAD_MEMORY) a memory set with a bit
 *                 no shardcheck knows: the library is refused */
#include <string.h>

#include "shardcheck/plugin.h"

static size_t bytes_of(const struct sc_plugin_tensor *t)
{
	size_t n = t->elem_size;
	for (int d = 0; d < t->ndim; d++)
		n *= (size_t)t->shape[d];
	return n;
}

static int gather(const struct sc_plugin_call *call)
{
	return call->coll->all_gather(call->coll, call->input.data, call->output.data, bytes_of(&call->input)) ? 2 : 0;
}

static int gather_short(const struct sc_plugin_call *call)
{
	const size_t b = bytes_of(&call->input);
	return call->coll->all_gather(call->coll, call->input.data, call->output.data, b ? b - call->input.elem_size : 0)
		       ? 2 : 0;
}

static int gather_over(const struct sc_plugin_call *call)
{
	return call->coll->all_gather(call->coll, call->input.data, (char *)call->output.data + call->output.elem_size,
				      bytes_of(&call->input)) ? 2 : 0;
}

static size_t count_of(const struct sc_plugin_tensor *t) { return bytes_of(t) / t->elem_size; }

static int max(const struct sc_plugin_call *call)
{
	return call->coll->all_reduce(call->coll, call->input.data, call->output.data, count_of(&call->output),
				      call->dtype, SC_PLUGIN_MAX) ? 2 : 0;
}

static int scatter(const struct sc_plugin_call *call)
{
	return call->coll->reduce_scatter(call->coll, call->input.data, call->output.data, count_of(&call->output),
					  call->dtype, SC_PLUGIN_MAX) ? 2 : 0;
}

static int sum(const struct sc_plugin_call *call)
{
	return call->coll->all_reduce(call->coll, call->input.data, call->output.data, count_of(&call->output),
				      call->dtype, SC_PLUGIN_SUM) ? 2 : 0;
}

static int sum_max(const struct sc_plugin_call *call)
{
	return call->coll->all_reduce(call->coll, call->input.data, call->output.data, count_of(&call->output),
				      call->dtype, SC_PLUGIN_MAX) ? 2 : 0;
}

static int touch(const struct sc_plugin_call *call)
{
	memcpy(call->output.data, call->input.data, bytes_of(&call->input));
	return 0;
}

static int add(struct sc_plugin_registry *reg, const char *name, const char *contract, sc_plugin_run_fn run,
	       unsigned memory)
{
	struct sc_plugin_transform t;
	memset(&t, 0, sizeof t);
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.name = name;
	t.contract = contract;
	t.run = run;
	t.memory = memory;
	return reg->add(reg, &t);
}

int sc_plugin_register(struct sc_plugin_registry *reg)
{
	const char *gathered = "dims n\ninput shard n\noutput replicate\n";
	const unsigned both = SC_PLUGIN_MEMORY_HOST | SC_PLUGIN_MEMORY_DEVICE, dev = SC_PLUGIN_MEMORY_DEVICE;
	int rc = add(reg, "gather", gathered, gather, both) || add(reg, "gather_dev", gathered, gather, dev) ||
		 add(reg, "gather_short", gathered, gather_short, dev) || add(reg, "gather_over", gathered, gather_over, dev) ||
		 add(reg, "max", "dims n\ndtypes i8 u8 i32 u32 i64 u64\ninput replicate\noutput replicate\n", max, dev) ||
		 add(reg, "scatter", "dims n\ndtypes i8 u8 i32 u32 i64 u64\ninput replicate\noutput shard n\n", scatter, dev) ||
		 add(reg, "sum", "dims n\ninput partial sum\noutput replicate\n", sum, both) ||
		 add(reg, "sum_max", "dims n\ninput partial sum\noutput replicate\n", sum_max, both) ||
		 add(reg, "touch", "dims n\ninput shard n\noutput shard n\n", touch, dev);
#ifdef DEVICE_BAD_MEMORY
	rc = rc || add(reg, "memory_bad", gathered, gather, 0x10u);
#endif
	return rc;
}
