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

#include "plugin_kit.h"

/* A copy with its first byte flipped: wrong on every case. */
static __attribute__((unused)) int wrong(const struct sc_plugin_call *call)
{
	kit_copy(call);
	if (kit_bytes(&call->output))
		((unsigned char *)call->output.data)[0] ^= 1;
	return 0;
}

int sc_plugin_register(struct sc_plugin_registry *reg)
{
#if REGISTRY == 1
	static char names[1100][16];
	for (int i = 0; i < 1100; i++) {
		snprintf(names[i], sizeof names[i], "copy%d", i);
		(void)kit_add(reg, names[i], i == 1099 ? wrong : kit_copy);
	}
#elif REGISTRY == 2
	(void)kit_add(reg, "twin", kit_copy);
	(void)kit_add(reg, "twin", wrong);
#elif REGISTRY == 3
	(void)kit_add(reg, "copy", kit_copy);
	(void)kit_add(reg, "evil\n\033[32mpass\033[0m", wrong);
#elif REGISTRY == 4
	for (int i = 0; i < 3; i++)
		(void)kit_add(reg, "norun", NULL);
	(void)kit_add(reg, "copy", kit_copy);
#endif
	return 0;
}
