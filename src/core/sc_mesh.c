/* sc_mesh: mesh coordinates and the partition of a mesh into groups. */
#include "sc_mesh.h"

#include <stdio.h>
#include <string.h>

int sc_mesh_world(const struct sc_mesh *m)
{
	int w = 1;
	for (int d = 0; d < m->n; d++)
		w *= m->size[d];
	return w;
}

struct sc_mesh sc_mesh_flat(int P)
{
	struct sc_mesh m = {1, {P}};
	return m;
}

int sc_mesh_coord(const struct sc_mesh *m, int rank, int d)
{
	int after = 1;
	for (int k = d + 1; k < m->n; k++)
		after *= m->size[k];
	return m->size[d] > 0 ? rank / after % m->size[d] : 0;
}

struct sc_mesh_group sc_mesh_all(const struct sc_mesh *m)
{
	struct sc_mesh_group g = {m->n, {0}};
	for (int d = 0; d < m->n; d++)
		g.dim[d] = d;
	return g;
}

int sc_mesh_group_size(const struct sc_mesh *m, const struct sc_mesh_group *g)
{
	int s = 1;
	for (int k = 0; k < g->n; k++)
		s *= m->size[g->dim[k]];
	return s;
}

int sc_mesh_group_index(const struct sc_mesh *m, const struct sc_mesh_group *g, int rank)
{
	int i = 0;
	for (int k = 0; k < g->n; k++)
		i = i * m->size[g->dim[k]] + sc_mesh_coord(m, rank, g->dim[k]);
	return i;
}

void sc_mesh_groups(const struct sc_mesh *m, const struct sc_mesh_group *g, struct sc_groups *out)
{
	int in[SC_MAX_MESH] = {0};
	for (int k = 0; k < g->n; k++)
		in[g->dim[k]] = 1;
	const int world = sc_mesh_world(m);
	out->world = world;
	out->size = sc_mesh_group_size(m, g);
	out->n = out->size ? world / out->size : 0;
	/* key: the mesh shape and the group's dims in order */
	uint64_t key = 1469598103934665603ULL;
	for (int d = 0; d < m->n; d++)
		key = (key ^ (uint64_t)m->size[d]) * 1099511628211ULL;
	for (int k = 0; k < g->n; k++)
		key = (key ^ (uint64_t)(100 + g->dim[k])) * 1099511628211ULL;
	out->key = key;
	for (int r = 0; r < world && r < SC_MAX_WORLD; r++) {
		/* the group: the coordinates outside the group, flattened */
		int c = 0;
		for (int d = 0; d < m->n; d++)
			if (!in[d])
				c = c * m->size[d] + sc_mesh_coord(m, r, d);
		out->color[r] = c;
		out->index[r] = sc_mesh_group_index(m, g, r);
		out->member[c * out->size + out->index[r]] = r;
	}
}

void sc_mesh_format_rank(const struct sc_mesh *m, const char *const *names, int rank, char *buf, int n)
{
	int k = 0;
	buf[0] = 0;
	for (int d = 0; d < m->n && k < n; d++)
		k += snprintf(buf + k, (size_t)(n - k), "%s%s %d%s", d ? ", " : "(", names[d], sc_mesh_coord(m, rank, d),
			      d == m->n - 1 ? ")" : "");
}
