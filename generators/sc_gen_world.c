/* sc_gen_world: the options' worlds (--world LO..HI or a list) and the
 * defaults of a generation's options (sc_gen.h). */
#include "sc_gen.h"

#include <stdio.h>

void sc_gen_defaults(struct sc_gen_opts *o)
{
	if (o->world_lo <= 0)
		o->world_lo = 1;
	if (o->world_hi <= 0)
		o->world_hi = o->world_lo > 8 ? o->world_lo : 8;
	if (o->max_elems <= 0)
		o->max_elems = 65536;
	if (!o->dtypes)
		o->dtypes = (1u << SC_NDTYPES) - 1;
}

static int world_listed(const struct sc_gen_opts *o)
{
	for (int i = 0; i < SC_GEN_WORLD_WORDS; i++)
		if (o->world_set[i])
			return 1;
	return 0;
}

int sc_gen_world_allowed(const struct sc_gen_opts *o, int w)
{
	const int lo = o->world_lo > 0 ? o->world_lo : 1;
	const int hi = o->world_hi > 0 ? o->world_hi : (lo > 8 ? lo : 8);
	if (w < lo || w > hi || w > SC_MAX_WORLD)
		return 0;
	return !world_listed(o) || (o->world_set[w / 64] >> (w % 64) & 1);
}

void sc_gen_world_add(struct sc_gen_opts *o, int w)
{
	if (w < 1 || w > SC_MAX_WORLD)
		return;
	if (!world_listed(o) || w < o->world_lo)
		o->world_lo = w;
	if (!world_listed(o) || w > o->world_hi)
		o->world_hi = w;
	o->world_set[w / 64] |= 1ull << (w % 64);
}

int sc_gen_world_clamp(struct sc_gen_opts *o, int maxw)
{
	if (o->world_hi > maxw)
		o->world_hi = maxw;
	if (world_listed(o))
		while (o->world_hi >= o->world_lo && !sc_gen_world_allowed(o, o->world_hi))
			o->world_hi--;
	return o->world_hi >= o->world_lo;
}

const char *sc_gen_world_text(const struct sc_gen_opts *o, char *buf, size_t n)
{
	if (!n)
		return buf;
	buf[0] = 0;
	if (!world_listed(o)) {
		if (o->world_lo == o->world_hi)
			snprintf(buf, n, "%d", o->world_lo);
		else
			snprintf(buf, n, "%d..%d", o->world_lo, o->world_hi);
		return buf;
	}
	size_t k = 0;
	for (int w = o->world_lo; w <= o->world_hi && k < n; w++)
		if (sc_gen_world_allowed(o, w))
			k += (size_t)snprintf(buf + k, n - k, "%s%d", k ? "," : "", w);
	return buf;
}
