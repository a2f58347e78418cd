/* sc_mesh: a device mesh and its sub-groups (docs/language.md, "Meshes
 * and groups").
 *
 * A mesh of n dims with sizes size[0..n) numbers its ranks row-major, as
 * DeviceMesh(arange(N).view(size...)) does: rank = sum of coord[m] times
 * the product of the sizes after m. A group of mesh dims (a mask) divides
 * the ranks into groups: two ranks are in one group when their coordinates
 * agree on every mesh dim outside the mask; within a group, a rank's index
 * is its coordinates on the mask's dims flattened in `order` (mesh order
 * unless the group was written otherwise, `tp,dp`). A world without a mesh
 * is a mesh of one dim. */
#ifndef SC_MESH_H
#define SC_MESH_H

#include <stdint.h>

#include "sc_limits.h"

#define SC_MAX_MESH 4

struct sc_mesh {
	int n;                 /* mesh dims (0: a flat world; see sc_mesh_flat) */
	int size[SC_MAX_MESH]; /* ranks along each */
};

/* A group of mesh dims: the dims in the order their coordinates flatten
 * (the first is the slowest). */
struct sc_mesh_group {
	int n;
	int dim[SC_MAX_MESH];
};

/* A partition of the world's ranks into groups of equal size: what a
 * backend needs to run a collective within each group. */
struct sc_groups {
	int world;  /* ranks in the world */
	int size;   /* ranks per group */
	int n;      /* groups */
	uint64_t key; /* equal for equal partitions (a backend caches by it) */
	int color[SC_MAX_WORLD]; /* rank r is in group color[r] (-1: in none; it skips the step) */
	int index[SC_MAX_WORLD]; /* at index[r] */
	int member[SC_MAX_WORLD]; /* member[g * size + i]: the world rank of index i of group g */
};

/* The mesh's number of ranks (1 for no dims). */
int sc_mesh_world(const struct sc_mesh *m);
/* A flat world of P ranks as a mesh of one dim. */
struct sc_mesh sc_mesh_flat(int P);
/* rank's coordinate along mesh dim d. */
int sc_mesh_coord(const struct sc_mesh *m, int rank, int d);
/* The group of every mesh dim, in mesh order. */
struct sc_mesh_group sc_mesh_all(const struct sc_mesh *m);
/* Ranks in each group of g. */
int sc_mesh_group_size(const struct sc_mesh *m, const struct sc_mesh_group *g);
/* rank's index within its group of g. */
int sc_mesh_group_index(const struct sc_mesh *m, const struct sc_mesh_group *g, int rank);
/* The partition of the mesh's ranks into the groups of g. */
void sc_mesh_groups(const struct sc_mesh *m, const struct sc_mesh_group *g, struct sc_groups *out);
/* "(dp 1, tp 0)" for rank under the dims' names (names[d]); "" for a mesh
 * of no dims. */
void sc_mesh_format_rank(const struct sc_mesh *m, const char *const *names, int rank, char *buf, int n);

#endif
