/* Example plugin with two faulty kernels, both otherwise the correct
 * heads -> sequence all-to-all of heads_to_seq.c:
 *   overrun: clears one element past the end of its output;
 *   crash:   reads far outside its input when a rank holds 3 heads;
 *   hang:    never returns when the batch is 2 (the other ranks then wait
 *            in the all-to-all forever);
 *   stale:   plans its layout on the first call in its process (a plan
 *            cache without a key) and keeps that plan: right in a fresh
 *            process, wrong after a call with another number of heads;
 *   f32path: moves f32 through a lossy path that clears the lowest
 *            mantissa bit: right for every other dtype, i32 and u32 of the
 *            same width included. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shardcheck/plugin.h"

static int a2a(const struct sc_plugin_call *call)
{
	const int64_t P = call->world, es = (int64_t)call->input.elem_size;
	const int64_t s = call->input.shape[0], b = call->input.shape[1], hp = call->input.shape[2],
		      d = call->input.shape[3];
	const int64_t sp = s / P;
	const size_t bytes = (size_t)(s * b * hp * d * es);
	unsigned char *recv = malloc(bytes ? bytes : 1);
	if (!recv || call->coll->all_to_all(call->coll, call->input.data, recv, bytes / (size_t)P) != 0) {
		free(recv);
		return 1;
	}
	unsigned char *out = (unsigned char *)call->output.data;
	for (int64_t q = 0; q < P; q++)
		for (int64_t i = 0; i < sp; i++)
			for (int64_t bb = 0; bb < b; bb++)
				for (int64_t hh = 0; hh < hp; hh++)
					memcpy(out + (((i * b + bb) * (hp * P) + q * hp + hh) * d) * es,
					       recv + ((((q * sp + i) * b + bb) * hp + hh) * d) * es, (size_t)(d * es));
	free(recv);
	return 0;
}

static int overrun(const struct sc_plugin_call *call)
{
	int rc = a2a(call);
	size_t n = call->output.elem_size;
	for (int k = 0; k < call->output.ndim; k++)
		n *= (size_t)call->output.shape[k];
	memset((unsigned char *)call->output.data + n, 0, call->output.elem_size); /* one past the end */
	return rc;
}

static int crash(const struct sc_plugin_call *call)
{
	if (call->input.shape[2] == 3) {
		volatile const unsigned char *wild = (const unsigned char *)call->input.data + ((size_t)1 << 44);
		(void)*wild;
	}
	return a2a(call);
}

static int hang(const struct sc_plugin_call *call)
{
	if (call->input.shape[1] == 2 && call->rank == 0)
		for (;;)
			sleep(1);
	return a2a(call);
}

static int stale(const struct sc_plugin_call *call)
{
	static int64_t planned_heads = -1; /* the first call's, for ever */
	if (planned_heads < 0)
		planned_heads = call->input.shape[2];
	const int rc = a2a(call);
	size_t n = call->output.elem_size;
	for (int k = 0; k < call->output.ndim; k++)
		n *= (size_t)call->output.shape[k];
	if (planned_heads != call->input.shape[2] && n > 0)
		((unsigned char *)call->output.data)[0] ^= 1; /* the stale plan puts one element wrong */
	return rc;
}

static int f32path(const struct sc_plugin_call *call)
{
	const int rc = a2a(call);
	if (call->dtype != SC_PLUGIN_F32)
		return rc;
	size_t n = 1;
	for (int k = 0; k < call->output.ndim; k++)
		n *= (size_t)call->output.shape[k];
	unsigned char *out = (unsigned char *)call->output.data;
	for (size_t i = 0; i < n; i++) {
		uint32_t v;
		memcpy(&v, out + 4 * i, 4);
		v &= ~1u;
		memcpy(out + 4 * i, &v, 4);
	}
	return rc;
}

int sc_plugin_register(struct sc_plugin_registry *reg)
{
	static const char contract[] = "dims s b h d\ninput shard h\noutput shard s\n";
	struct sc_plugin_transform t;
	memset(&t, 0, sizeof t);
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.contract = contract;
	static const struct {
		const char *name;
		int (*run)(const struct sc_plugin_call *);
	} kernels[] = {{"overrun", overrun}, {"crash", crash}, {"hang", hang}, {"stale", stale}, {"f32path", f32path}};
	for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
		t.name = kernels[i].name;
		t.run = kernels[i].run;
		if (reg->add(reg, &t) != 0)
			return 1;
	}
	return 0;
}
