/* Kernels right on their first call in a process and wrong after some
 * earlier call: the gate must fail them (exit 1) with the earlier calls
 * that make them fail, never pass them with a warning.
 *   plan_dtype:  a plan cache keyed on the local shape but not the dtype:
 *                a shape seen before with another dtype is copied with
 *                the element size of the first (too few or too many bytes)
 *   second_call: every call after the first in its process puts the last
 *                element wrong (a counter that was meant to be per rank)
 *   first_call:  writes its output on its first call in a process only;
 *                later calls return at once, as if the result were still
 *                there (a memo keyed on nothing)
 *   copy:        a correct copy, with the same kind of cache keyed right */
#include <stdint.h>

#include "plugin_kit.h"

static size_t numel(const struct sc_plugin_tensor *t)
{
	size_t n = 1;
	for (int d = 0; d < t->ndim; d++)
		n *= (size_t)t->shape[d];
	return n;
}

#define PLANS 64
struct plan {
	int used;
	int64_t key; /* the local shape, mixed */
	size_t elem;
	int dtype;
};

/* The plan for t's shape (and, when by_dtype, its dtype), made on first use. */
static const struct plan *plan_for(const struct sc_plugin_call *call, int by_dtype)
{
	static struct plan plans[PLANS];
	int64_t key = call->input.ndim;
	for (int d = 0; d < call->input.ndim; d++)
		key = key * 1000003 + call->input.shape[d];
	for (int i = 0; i < PLANS; i++)
		if (plans[i].used && plans[i].key == key && (!by_dtype || plans[i].dtype == (int)call->dtype))
			return &plans[i];
	for (int i = 0; i < PLANS; i++)
		if (!plans[i].used) {
			plans[i] = (struct plan){1, key, call->input.elem_size, (int)call->dtype};
			return &plans[i];
		}
	return NULL;
}

static int planned(const struct sc_plugin_call *call, int by_dtype)
{
	const struct plan *p = plan_for(call, by_dtype);
	const size_t elem = p ? p->elem : call->input.elem_size;
	const size_t want = numel(&call->input) * call->input.elem_size, got = numel(&call->input) * elem;
	memcpy(call->output.data, call->input.data, got < want ? got : want);
	return 0;
}

static int plan_dtype(const struct sc_plugin_call *call) { return planned(call, 0); }
static int copy(const struct sc_plugin_call *call) { return planned(call, 1); }

static int second_call(const struct sc_plugin_call *call)
{
	static int calls;
	const size_t bytes = numel(&call->input) * call->input.elem_size;
	memcpy(call->output.data, call->input.data, bytes);
	if (call->rank == 0 && calls++ > 0 && bytes)
		((unsigned char *)call->output.data)[bytes - 1] ^= 1;
	return 0;
}

static int first_call(const struct sc_plugin_call *call)
{
	static int calls;
	if (call->rank == 0 && calls++ > 0)
		return 0;
	memcpy(call->output.data, call->input.data, numel(&call->input) * call->input.elem_size);
	return 0;
}

int sc_plugin_register(struct sc_plugin_registry *reg)
{
	static const struct kit_kernel kernels[] = {
		{"plan_dtype", plan_dtype}, {"second_call", second_call},
		{"first_call", first_call}, {"copy", copy}};
	return kit_register(reg, kernels, sizeof kernels / sizeof kernels[0]);
}
