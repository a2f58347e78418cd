/* Registrations that try to get a transform past the gate unchecked. Each
 * library registers correct copies and one wrong transform; the gate must
 * refuse the library (exit 2, naming the transform) or check the wrong
 * one (exit 1), never pass.
 *   -DREGISTRY=1  1100 transforms (more than a library may register), the
 *                 last one wrong, add()'s return ignored
 *   -DREGISTRY=2  two transforms named alike, the second wrong
 *   -DREGISTRY=3  a wrong transform whose name holds a newline and a
 *                 terminal escape sequence
 *   -DREGISTRY=4  three add() calls refused (no run function), ignored,
 *                 then a correct transform */
#include <stdio.h>
#include <string.h>

#include "shardcheck/plugin.h"

static size_t nbytes(const struct sc_plugin_tensor *t)
{
	size_t n = t->elem_size;
	for (int d = 0; d < t->ndim; d++)
		n *= (size_t)t->shape[d];
	return n;
}

static int copy(const struct sc_plugin_call *call)
{
	memcpy(call->output.data, call->input.data, nbytes(&call->input));
	return 0;
}

/* A copy with its first byte flipped: wrong on every case. */
static __attribute__((unused)) int wrong(const struct sc_plugin_call *call)
{
	copy(call);
	if (nbytes(&call->output))
		((unsigned char *)call->output.data)[0] ^= 1;
	return 0;
}

static int add(struct sc_plugin_registry *reg, const char *name, sc_plugin_run_fn run)
{
	struct sc_plugin_transform t;
	memset(&t, 0, sizeof t);
	t.size = sizeof t;
	t.abi_version = SC_PLUGIN_ABI_VERSION;
	t.name = name;
	t.contract = "dims n\ninput shard n\noutput shard n\n";
	t.run = run;
	return reg->add(reg, &t);
}

int sc_plugin_register(struct sc_plugin_registry *reg)
{
#if REGISTRY == 1
	static char names[1100][16];
	for (int i = 0; i < 1100; i++) {
		snprintf(names[i], sizeof names[i], "copy%d", i);
		(void)add(reg, names[i], i == 1099 ? wrong : copy);
	}
#elif REGISTRY == 2
	(void)add(reg, "twin", copy);
	(void)add(reg, "twin", wrong);
#elif REGISTRY == 3
	(void)add(reg, "copy", copy);
	(void)add(reg, "evil\n\033[32mpass\033[0m", wrong);
#elif REGISTRY == 4
	for (int i = 0; i < 3; i++)
		(void)add(reg, "norun", NULL);
	(void)add(reg, "copy", copy);
#endif
	return 0;
}
