/* sc_gen_world: the options' worlds (--world LO..HI or a list), the
 * defaults of a generation's options, and the mesh shapes of a world
 * (sc_gen.h). */
#include "sc_gen.h"

#include <stdio.h>
#include <string.h>

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

/* ---- meshes ---- */

const struct sc_spec *sc_gen_mesh_spec(struct sc_target *t) { return sc_target_mesh_spec(t); }

int sc_gen_mesh_fits(struct sc_target *t, const struct sc_gen_opts *o, char *why, size_t n)
{
	const struct sc_spec *ms = sc_gen_mesh_spec(t);
	int one[1][SC_MAX_MESH];
	for (int w = o->world_lo; ms && w <= o->world_hi; w++)
		if (sc_gen_world_allowed(o, w) && sc_gen_meshes(ms, w, one, 1) > 0)
			return 1;
	if (!ms)
		return 1;
	size_t k = (size_t)snprintf(why, n, "the mesh");
	for (int m = 0; m < ms->nmesh && k < n; m++)
		k += ms->mesh_fixed[m] ? (size_t)snprintf(why + k, n - k, " %s=%d", ms->mesh_dim[m], ms->mesh_fixed[m])
				       : (size_t)snprintf(why + k, n - k, " %s=%s", ms->mesh_dim[m], ms->mesh_sym[m]);
	char ws[128];
	if (k < n)
		snprintf(why + k, n - k, " has no shape within --world %s: nothing to check",
			 sc_gen_world_text(o, ws, sizeof ws));
	return 0;
}

int sc_gen_meshes(const struct sc_spec *s, int world, int (*out)[SC_MAX_MESH], int max)
{
	int div[64], nd = 0, n = 0, at[SC_MAX_MESH] = {0};
	for (int k = 1; k <= world && nd < 64; k++)
		if (world % k == 0)
			div[nd++] = k;
	/* odometer over each mesh dim's divisors of world, last dim fastest */
	for (;;) {
		int prod = 1, v[SC_MAX_MESH] = {0}, ok = 1;
		for (int m = 0; m < s->nmesh; m++) {
			v[m] = div[at[m]];
			prod *= v[m];
			ok &= !s->mesh_fixed[m] || v[m] == s->mesh_fixed[m];
		}
		if (ok && prod == world && n < max)
			memcpy(out[n++], v, sizeof v);
		int m = s->nmesh - 1;
		while (m >= 0 && ++at[m] >= nd)
			at[m--] = 0;
		if (m < 0)
			return n;
	}
}
