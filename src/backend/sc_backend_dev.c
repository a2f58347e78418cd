/* sc_backend_dev: P ranks as buffers in device memory, in one process.
 *
 * Collectives are device-to-device copies (peer copies between GPUs) of
 * each chunk to where torch.distributed puts it; reductions copy each
 * source's chunk next to the destination's accumulator and reduce it there
 * with the dtype's own arithmetic, in source rank order, as sim does. The
 * same code runs on the CUDA device memory (backend `cuda`) and on the
 * emulated one (backend `emu`), so the CPU tests cover everything here.
 * all_to_allv is one move per nonempty block, at the offsets sim uses.
 * Host buffers (compute specs, plugins) go through sim's operations. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sc_backend.h"
#include "sc_devmem.h"

#define SC_DEV_MAX_WORLD 256

/* A group's handle: the same device memory, its ranks mapped to the
 * world's (map[i]: the world rank of group index i). */
struct devgroup {
	uint64_t key;
	int g;
	struct sc_backend be;
	struct devgroup *next;
};

struct devbe {
	struct sc_devmem *dm;
	const int *map; /* NULL: the world itself */
	int mapv[SC_DEV_MAX_WORLD];
	struct devgroup *groups; /* the world's handle: its groups' */
};

static struct sc_devmem *DM(struct sc_backend *be) { return ((struct devbe *)be->impl)->dm; }
/* The device of rank r of this handle's world. */
static int R(struct sc_backend *be, int r)
{
	const int *m = ((struct devbe *)be->impl)->map;
	return m ? m[r] : r;
}

static int dev_local(struct sc_backend *be, int world, int *first)
{
	(void)be;
	*first = 0;
	return world;
}

static int on_host(struct sc_devmem *dm, int world, void *const *send)
{
	return world > 0 && !dm->ops->is_device(dm, send[0]);
}

/* recv[dst] + src*bytes = send[src] (+ dst*bytes when each destination
 * gets its own chunk: all_to_all), for every pair of ranks. */
static enum sc_status exchange(struct sc_backend *be, int world, void *const *send, void *const *recv,
			       size_t bytes, int chunked, const char *call, struct sc_err *e)
{
	struct sc_devmem *dm = DM(be);
	for (int dst = 0; dst < world && bytes; dst++)
		for (int src = 0; src < world; src++)
			if (sc_devmem_fail(dm, dm->ops->move(dm, R(be, dst), (char *)recv[dst] + (size_t)src * bytes, R(be, src),
							     (const char *)send[src] + (chunked ? (size_t)dst * bytes : 0),
							     bytes),
					   call, R(be, dst)))
				break;
	return sc_devmem_status(dm, 0, e);
}

static enum sc_status dev_a2a(struct sc_backend *be, int world, void *const *send, void *const *recv,
			      size_t chunk, struct sc_err *e)
{
	struct sc_devmem *dm = DM(be);
	if (on_host(dm, world, send))
		return sc_backend_sim_ops()->all_to_all(be, world, send, recv, chunk, e);
	return exchange(be, world, send, recv, chunk, 1, "all_to_all copy", e);
}

static enum sc_status dev_ag(struct sc_backend *be, int world, void *const *send, void *const *recv,
			     size_t bytes, struct sc_err *e)
{
	struct sc_devmem *dm = DM(be);
	if (on_host(dm, world, send))
		return sc_backend_sim_ops()->all_gather(be, world, send, recv, bytes, e);
	return exchange(be, world, send, recv, bytes, 0, "all_gather copy", e);
}

/* Where the exchange runs: the first non-NULL buffer decides (a rank that
 * sends or receives nothing may pass NULL). */
static int a2av_on_host(struct sc_devmem *dm, int world, void *const *send, void *const *recv)
{
	for (int r = 0; r < world; r++) {
		const void *p = send[r] ? send[r] : recv[r];
		if (p)
			return !dm->ops->is_device(dm, p);
	}
	return 1; /* nothing anywhere: sim's loop copies nothing */
}

/* Each nonempty block src -> dst is one device move: from src's send at the
 * sum of src's earlier counts, to dst's recv at the sum of dst's counts
 * from earlier sources (at[dst], advanced as src goes up). */
static enum sc_status dev_a2av(struct sc_backend *be, int world, void *const *send, void *const *recv,
			       const size_t *sbytes, const size_t *rbytes, struct sc_err *e)
{
	struct sc_devmem *dm = DM(be);
	if (a2av_on_host(dm, world, send, recv))
		return sc_backend_sim_ops()->all_to_allv(be, world, send, recv, sbytes, rbytes, e);
	size_t at[SC_DEV_MAX_WORLD] = {0};
	if (world > SC_DEV_MAX_WORLD)
		return SC_ERR(e, SC_E_UNAVAIL, "%s: all_to_allv on more than %d ranks", dm->ops->name, SC_DEV_MAX_WORLD);
	for (int src = 0; src < world; src++) {
		size_t from = 0;
		for (int dst = 0; dst < world; dst++) {
			const size_t n = rbytes[(size_t)dst * (size_t)world + (size_t)src];
			if (n && sc_devmem_fail(dm, dm->ops->move(dm, R(be, dst), (char *)recv[dst] + at[dst], R(be, src),
								   (const char *)send[src] + from, n),
						"all_to_allv copy", R(be, dst)))
				return sc_devmem_status(dm, 0, e);
			at[dst] += n;
			from += sbytes[(size_t)src * (size_t)world + (size_t)dst];
		}
	}
	return sc_devmem_status(dm, 0, e);
}

/* recv[r] (on rank r) = OP over src of send[src] + off(r), count elements. */
static enum sc_status reduce_into(struct sc_backend *be, int world, void *const *send, void *const *recv,
				  size_t count, enum sc_dtype dt, enum sc_redop op, int scatter,
				  struct sc_err *e)
{
	struct sc_devmem *dm = DM(be);
	const size_t bytes = count * sc_dtype_size(dt);
	if (!bytes)
		return SC_OK;
	for (int r = 0; r < world; r++) {
		const size_t off = scatter ? (size_t)r * bytes : 0;
		const int dr = R(be, r);
		void *tmp = world > 1 ? dm->ops->alloc(dm, dr, bytes) : NULL;
		if (world > 1 && !tmp)
			return SC_ERR(e, SC_E_NOMEM, "%s: out of device memory for a reduction (%zu bytes, rank %d)",
				      dm->ops->name, bytes, dr);
		if (sc_devmem_fail(dm, dm->ops->move(dm, dr, recv[r], R(be, 0), (const char *)send[0] + off, bytes),
				   "reduction copy", dr))
			break;
		for (int src = 1; src < world; src++) {
			if (sc_devmem_fail(dm, dm->ops->move(dm, dr, tmp, R(be, src), (const char *)send[src] + off, bytes),
					   "reduction copy", dr) ||
			    sc_devmem_fail(dm, dm->ops->reduce(dm, dr, recv[r], tmp, count, dt, op), "reduce", dr))
				return sc_devmem_status(dm, 0, e);
		}
	}
	return sc_devmem_status(dm, 0, e);
}

static enum sc_status dev_rs(struct sc_backend *be, int world, void *const *send, void *const *recv,
			     size_t count, enum sc_dtype dt, enum sc_redop op, struct sc_err *e)
{
	struct sc_devmem *dm = DM(be);
	if (on_host(dm, world, send))
		return sc_backend_sim_ops()->reduce_scatter(be, world, send, recv, count, dt, op, e);
	return reduce_into(be, world, send, recv, count, dt, op, 1, e);
}

static enum sc_status dev_ar(struct sc_backend *be, int world, void *const *send, void *const *recv,
			     size_t count, enum sc_dtype dt, enum sc_redop op, struct sc_err *e)
{
	struct sc_devmem *dm = DM(be);
	if (on_host(dm, world, send))
		return sc_backend_sim_ops()->all_reduce(be, world, send, recv, count, dt, op, e);
	return reduce_into(be, world, send, recv, count, dt, op, 0, e);
}

static struct sc_devmem *dev_devmem(struct sc_backend *be) { return DM(be); }

static enum sc_status dev_group(struct sc_backend *be, const struct sc_groups *gs, int g, struct sc_backend **sub,
			       struct sc_err *e)
{
	struct devbe *d = be->impl;
	if (g < 0) /* no rank here in any group: one process holds them all, nothing to make */
		return SC_OK;
	for (struct devgroup *k = d->groups; k; k = k->next)
		if (k->key == gs->key && k->g == g) {
			*sub = &k->be;
			return SC_OK;
		}
	if (gs->size > SC_DEV_MAX_WORLD)
		return SC_ERR(e, SC_E_UNAVAIL, "%s: groups of more than %d ranks", be->ops->name, SC_DEV_MAX_WORLD);
	struct devgroup *k = calloc(1, sizeof *k);
	struct devbe *gd = calloc(1, sizeof *gd);
	if (!k || !gd) {
		free(k);
		free(gd);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	gd->dm = d->dm;
	memcpy(gd->mapv, &gs->member[g * gs->size], sizeof(int) * (size_t)gs->size);
	gd->map = gd->mapv;
	k->key = gs->key;
	k->g = g;
	k->be.ops = be->ops;
	k->be.impl = gd;
	k->next = d->groups;
	d->groups = k;
	*sub = &k->be;
	return SC_OK;
}

static void dev_destroy(struct sc_backend *be)
{
	struct devbe *d = be->impl;
	for (struct devgroup *k = d->groups, *n; k; k = n) {
		n = k->next;
		free(k->be.impl);
		free(k);
	}
	sc_devmem_close(DM(be));
	free(be->impl);
	free(be);
}

static const struct sc_backend_ops emu_ops = {
	.name = "emu",
	.local_ranks = dev_local,
	.all_to_all = dev_a2a,
	.all_gather = dev_ag,
	.reduce_scatter = dev_rs,
	.all_reduce = dev_ar,
	.all_to_allv = dev_a2av,
	.destroy = dev_destroy,
	.devmem = dev_devmem,
	.group = dev_group,
};

static const struct sc_backend_ops cuda_ops = {
	.name = "cuda",
	.local_ranks = dev_local,
	.all_to_all = dev_a2a,
	.all_gather = dev_ag,
	.reduce_scatter = dev_rs,
	.all_reduce = dev_ar,
	.all_to_allv = dev_a2av,
	.destroy = dev_destroy,
	.devmem = dev_devmem,
	.group = dev_group,
};

static enum sc_status wrap(const struct sc_backend_ops *ops, struct sc_devmem *dm, struct sc_backend **out,
			   struct sc_err *e)
{
	struct sc_backend *be = calloc(1, sizeof *be);
	struct devbe *d = calloc(1, sizeof *d);
	if (!be || !d) {
		free(be);
		free(d);
		sc_devmem_close(dm);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	d->dm = dm;
	be->ops = ops;
	be->impl = d;
	*out = be;
	return SC_OK;
}

enum sc_status sc_backend_emu_open(struct sc_backend **out, struct sc_err *e)
{
	struct sc_devmem *dm;
	SC_CHECK(sc_devmem_emu_open(&dm, e));
	return wrap(&emu_ops, dm, out, e);
}

enum sc_status sc_backend_cuda_open(struct sc_backend **out, struct sc_err *e)
{
	struct sc_devmem *dm;
	int ndev = 0;
	/* deferred where plugins' processes, forked before a data run touches
	 * the GPU, make CUDA contexts of their own */
	if (sc_backend_gpu_kept_free())
		SC_CHECK(sc_devmem_cuda_open_deferred(&dm, &ndev, e));
	else
		SC_CHECK(sc_devmem_cuda_open(&dm, 0, &ndev, e));
	return wrap(&cuda_ops, dm, out, e);
}
