/* sc_backend_nccl: one GPU per rank, collectives by NCCL.
 *
 * Two ways to launch it:
 *   mpirun -np N shardcheck check --backend nccl ...
 *       one process per rank; rank r's GPU is its node-local rank modulo
 *       the visible GPUs; the communicators' unique ids go out over MPI
 *       (the mpi backend's broadcast), one per world size, at start.
 *   shardcheck check --backend nccl ...   (no mpirun)
 *       one process drives every visible GPU: worlds up to the GPU count.
 * A case of world P runs on a communicator of ranks 0..P-1, made at the
 * first case of that size (nonblocking, so a rank that never joins is a
 * timeout, not a hang). Every call is polled: a collective that has not
 * finished after SC_NCCL_TIMEOUT seconds (default 120) is an error naming
 * the rank and call, and its communicator is aborted (ncclCommAbort).
 * all_to_allv is one group of ncclSend/ncclRecv pairs, one per nonempty
 * block. Host buffers (compute specs, plugins) are staged through the
 * device. A mesh's sub-groups run on communicators split from the world's
 * (ncclCommSplit, colour the group, key the index in it), made the first
 * time a partition is used: every process reaches the same grouped steps
 * in the same order, as under the mpi backend.
 *
 * Planted fault for tests: SC_NCCL_FAULT=hang:R makes rank R skip its
 * first collective of a world of 2 or more, so the others time out. */
#include "sc_backend.h"
#include "sc_clock.h"
#include "sc_devmem.h"
#include "sc_limits.h"
#include "sc_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

struct nccl_group;

struct nccl_impl {
	struct sc_devmem *dm;
	struct sc_backend *mpi; /* several processes: the bootstrap; else NULL */
	int proc, nprocs, ndev, max_world;
	ncclComm_t *comm[SC_MAX_WORLD + 1]; /* per world: its local ranks' communicators */
	int state[SC_MAX_WORLD + 1];        /* 0 none, 1 ready, -1 aborted */
	ncclUniqueId *ids;                  /* several processes: one per world size */
	double timeout;
	int fault_rank, fault_armed;
	const int *map;            /* a group's handle: the world rank of each index; NULL: the world */
	struct nccl_group *groups; /* the world's handle: the groups split so far */
};

/* A group's handle: the world's device memory and streams, a communicator
 * per local member split from the world's, ranks numbered within the
 * group (its world is the group's size). */
struct nccl_group {
	uint64_t key;
	int world, g;
	struct sc_backend be;
	struct nccl_impl n;
	int map[SC_MAX_WORLD];
	struct nccl_group *next;
};

static const struct sc_backend_ops nccl_ops;

static struct nccl_impl *N(struct sc_backend *be) { return be->impl; }

/* The world rank (and device-memory rank) of index i of n's world. */
static int W(const struct nccl_impl *n, int i) { return n->map ? n->map[i] : i; }

static int pending_ok(ncclResult_t r) { return r == ncclSuccess || r == ncclInProgress; }

static int local_count(struct nccl_impl *n, int world, int *first)
{
	if (n->mpi) {
		*first = n->proc;
		return n->proc < world && world <= n->nprocs ? 1 : 0;
	}
	*first = 0;
	return world <= n->ndev ? world : 0;
}

static int nccl_local(struct sc_backend *be, int world, int *first)
{
	return local_count(N(be), world, first);
}

static ncclDataType_t nccl_type(enum sc_dtype dt)
{
	switch (dt) {
	case SC_I8: return ncclInt8;
	case SC_U8: return ncclUint8;
	case SC_I32: return ncclInt32;
	case SC_U32: return ncclUint32;
	case SC_I64: return ncclInt64;
	case SC_U64: return ncclUint64;
	case SC_F16: return ncclFloat16;
	case SC_F32: return ncclFloat32;
	case SC_F64: return ncclFloat64;
	case SC_BF16: return ncclBfloat16;
	case SC_F8E4M3: return ncclFloat8e4m3;
	default: return ncclFloat8e5m2;
	}
}

static ncclRedOp_t nccl_op(enum sc_redop op)
{
	switch (op) {
	case SC_SUM: return ncclSum;
	case SC_PROD: return ncclProd;
	case SC_MAX: return ncclMax;
	default: return ncclMin;
	}
}

static void abort_world(struct nccl_impl *n, int world)
{
	int first, k = local_count(n, world, &first);
	for (int r = 0; n->comm[world] && r < k; r++)
		if (n->comm[world][r]) {
			ncclCommAbort(n->comm[world][r]);
			n->comm[world][r] = NULL; /* gone: not aborted again at the end */
		}
	n->state[world] = -1;
}

/* Polls until every local rank's communicator and stream are done, an
 * error, or the timeout (then the world's communicators are aborted). */
static enum sc_status wait_all(struct nccl_impl *n, int world, const char *call, int check_streams,
			       struct sc_err *e)
{
	int first, k = local_count(n, world, &first);
	const double t0 = sc_clock_now();
	for (;;) {
		int pending = 0;
		for (int r = 0; r < k; r++) {
			ncclResult_t res = ncclSuccess;
			/* a split's new communicator appears when NCCL's thread stores it */
			ncclComm_t c = __atomic_load_n(&n->comm[world][r], __ATOMIC_ACQUIRE);
			if (!c) {
				pending = 1;
				continue;
			}
			ncclCommGetAsyncError(c, &res);
			if (res == ncclInProgress) {
				pending = 1;
				continue;
			}
			if (res != ncclSuccess) {
				abort_world(n, world);
				return SC_ERR(e, SC_E_INTERNAL, "nccl: rank %d: %s on a world of %d failed: %s (%s)",
					      W(n, first + r), call, world, ncclGetErrorString(res), ncclGetLastError(NULL));
			}
			if (!check_streams)
				continue;
			int dev;
			cudaStream_t s = sc_devmem_cuda_stream(n->dm, W(n, first + r), &dev);
			cudaSetDevice(dev);
			cudaError_t ce = cudaStreamQuery(s);
			if (ce == cudaErrorNotReady) {
				pending = 1;
			} else if (ce != cudaSuccess) {
				abort_world(n, world);
				return SC_ERR(e, SC_E_INTERNAL, "nccl: rank %d: %s on a world of %d: CUDA error %s",
					      W(n, first + r), call, world, cudaGetErrorString(ce));
			}
		}
		if (!pending)
			return SC_OK;
		if (sc_clock_now() - t0 > n->timeout) {
			abort_world(n, world);
			return SC_ERR(e, SC_E_INTERNAL,
				      "nccl: rank %d: %s on a world of %d did not finish within %.0f s (a rank is missing or hung); the communicator was aborted",
				      W(n, first), call, world, n->timeout);
		}
		struct timespec ts = {0, 50000};
		nanosleep(&ts, NULL);
	}
}

/* The communicators of a world, made on first use. */
static enum sc_status comms(struct nccl_impl *n, int world, struct sc_err *e)
{
	if (n->state[world] == 1)
		return SC_OK;
	if (n->state[world] < 0)
		return SC_ERR(e, SC_E_INTERNAL, "nccl: the communicator of world %d was aborted after an earlier error",
			      world);
	if (n->map)
		return SC_ERR(e, SC_E_INTERNAL, "nccl: a group's handle has no communicator for a world of %d", world);
	int first, k = local_count(n, world, &first);
	if (!k)
		return SC_OK;
	n->comm[world] = calloc((size_t)k, sizeof(ncclComm_t));
	if (!n->comm[world])
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	ncclUniqueId id;
	if (n->mpi)
		id = n->ids[world];
	else if (ncclGetUniqueId(&id) != ncclSuccess)
		return SC_ERR(e, SC_E_INTERNAL, "nccl: ncclGetUniqueId failed: %s", ncclGetLastError(NULL));
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	cfg.blocking = 0;
	ncclResult_t res = ncclGroupStart();
	for (int r = 0; r < k && pending_ok(res); r++) {
		int dev;
		sc_devmem_cuda_stream(n->dm, first + r, &dev);
		cudaSetDevice(dev);
		res = ncclCommInitRankConfig(&n->comm[world][r], world, id, first + r, &cfg);
	}
	ncclResult_t end = ncclGroupEnd();
	if (pending_ok(res))
		res = end;
	if (!pending_ok(res)) {
		n->state[world] = -1;
		return SC_ERR(e, SC_E_INTERNAL, "nccl: rank %d: ncclCommInitRankConfig (world %d) failed: %s (%s)", first,
			      world, ncclGetErrorString(res), ncclGetLastError(NULL));
	}
	SC_CHECK(wait_all(n, world, "ncclCommInitRankConfig", 0, e));
	n->state[world] = 1;
	return SC_OK;
}

enum kind { A2A, AG, RS, AR };

static const char *call_name(enum kind k)
{
	return k == A2A ? "ncclAlltoAll" : k == AG ? "ncclAllGather" : k == RS ? "ncclReduceScatter" : "ncclAllReduce";
}

/* Host buffers (compute specs, plugins) go through the device: ds and dr
 * get device copies of local rank r's sb[r] and rb[r] bytes (the buffers
 * themselves when they are on the device). The first non-NULL buffer
 * decides: a rank that moves no bytes of all_to_allv may pass NULL. */
static enum sc_status stage(struct nccl_impl *n, int first, int k, void *const *send, void *const *recv,
			    const size_t *sb, const size_t *rb, void **ds, void **dr, int *host, struct sc_err *e)
{
	const void *probe = NULL;
	for (int r = 0; r < k && !probe; r++)
		probe = send[r] ? send[r] : recv[r];
	*host = !probe || !n->dm->ops->is_device(n->dm, probe);
	for (int r = 0; r < k; r++) {
		ds[r] = send[r];
		dr[r] = recv[r];
		if (!*host)
			continue;
		ds[r] = n->dm->ops->alloc(n->dm, W(n, first + r), sb[r] ? sb[r] : 1);
		dr[r] = n->dm->ops->alloc(n->dm, W(n, first + r), rb[r] ? rb[r] : 1);
		if (!ds[r] || !dr[r])
			return SC_ERR(e, SC_E_NOMEM, "nccl: out of device memory staging host buffers (rank %d)",
				      W(n, first + r));
		if (sb[r] && n->dm->ops->upload(n->dm, ds[r], send[r], sb[r]))
			return SC_ERR(e, SC_E_INTERNAL, "nccl: rank %d: staging a host buffer failed", W(n, first + r));
	}
	return SC_OK;
}

/* Ends the group whose calls returned res, and waits for it; then staged
 * host buffers are read back. */
static enum sc_status finish(struct nccl_impl *n, int world, int first, int k, ncclResult_t res, const char *call,
			     int host, void *const *recv, void *const *dr, const size_t *rb, struct sc_err *e)
{
	ncclResult_t end = ncclGroupEnd();
	if (pending_ok(res))
		res = end;
	if (!pending_ok(res)) {
		abort_world(n, world);
		return SC_ERR(e, SC_E_INTERNAL, "nccl: rank %d: %s on a world of %d failed: %s (%s)", W(n, first), call,
			      world, ncclGetErrorString(res), ncclGetLastError(NULL));
	}
	SC_CHECK(wait_all(n, world, call, 1, e));
	for (int r = 0; host && r < k; r++)
		if (rb[r] && n->dm->ops->download(n->dm, recv[r], dr[r], rb[r]))
			return SC_ERR(e, SC_E_INTERNAL, "nccl: rank %d: reading a staged buffer back failed",
				      W(n, first + r));
	return SC_OK;
}

/* The planted hang: rank fault_rank skips its first collective of a world
 * of 2 or more, so its peers time out. */
static int skip_planted(struct nccl_impl *n, int rank, int world)
{
	if (!n->fault_armed || rank != n->fault_rank || world < 2)
		return 0;
	n->fault_armed = 0;
	return 1;
}

/* One collective over the local ranks. count: elements per peer (A2A),
 * sent (AG), received (RS) or in total (AR); bytes from the dtype. */
static enum sc_status coll(struct sc_backend *be, enum kind kind, int world, void *const *send, void *const *recv,
			   size_t count, enum sc_dtype dt, enum sc_redop op, struct sc_err *e)
{
	struct nccl_impl *n = N(be);
	int first, k = local_count(n, world, &first), host;
	if (!k)
		return SC_OK;
	SC_CHECK(comms(n, world, e));
	const size_t es = sc_dtype_size(dt);
	size_t sb[SC_MAX_WORLD] = {0}, rb[SC_MAX_WORLD] = {0};
	void *ds[SC_MAX_WORLD], *dr[SC_MAX_WORLD];
	for (int r = 0; r < k; r++) {
		sb[r] = (kind == A2A || kind == RS ? (size_t)world : 1) * count * es;
		rb[r] = (kind == A2A || kind == AG ? (size_t)world : 1) * count * es;
	}
	SC_CHECK(stage(n, first, k, send, recv, sb, rb, ds, dr, &host, e));
	/* the buffers' producers are queued on the same streams: no host wait */
	ncclResult_t res = ncclGroupStart();
	for (int r = 0; r < k && pending_ok(res); r++) {
		int dev;
		cudaStream_t s = sc_devmem_cuda_stream(n->dm, W(n, first + r), &dev);
		ncclComm_t c = n->comm[world][r];
		if (skip_planted(n, first + r, world))
			continue;
		switch (kind) {
		case A2A: res = ncclAlltoAll(ds[r], dr[r], count, nccl_type(dt), c, s); break;
		case AG: res = ncclAllGather(ds[r], dr[r], count, nccl_type(dt), c, s); break;
		case RS: res = ncclReduceScatter(ds[r], dr[r], count, nccl_type(dt), nccl_op(op), c, s); break;
		case AR: res = ncclAllReduce(ds[r], dr[r], count, nccl_type(dt), nccl_op(op), c, s); break;
		}
	}
	return finish(n, world, first, k, res, call_name(kind), host, recv, dr, rb, e);
}

/* all_to_allv: in one group, every local rank posts an ncclSend per peer
 * it sends bytes to and an ncclRecv per peer it receives bytes from (its
 * own rank included: NCCL pairs a rank's send to itself with its recv).
 * Offsets are the sums of the earlier counts of the row. */
static enum sc_status nccl_a2av(struct sc_backend *be, int world, void *const *send, void *const *recv,
				const size_t *sbytes, const size_t *rbytes, struct sc_err *e)
{
	struct nccl_impl *n = N(be);
	int first, k = local_count(n, world, &first), host;
	if (!k)
		return SC_OK;
	SC_CHECK(comms(n, world, e));
	size_t sb[SC_MAX_WORLD] = {0}, rb[SC_MAX_WORLD] = {0};
	void *ds[SC_MAX_WORLD], *dr[SC_MAX_WORLD];
	for (int r = 0; r < k; r++)
		for (int j = 0; j < world; j++) {
			sb[r] += sbytes[(size_t)r * (size_t)world + (size_t)j];
			rb[r] += rbytes[(size_t)r * (size_t)world + (size_t)j];
		}
	SC_CHECK(stage(n, first, k, send, recv, sb, rb, ds, dr, &host, e));
	ncclResult_t res = ncclGroupStart();
	for (int r = 0; r < k && pending_ok(res); r++) {
		int dev;
		cudaStream_t s = sc_devmem_cuda_stream(n->dm, W(n, first + r), &dev);
		ncclComm_t c = n->comm[world][r];
		const size_t *srow = sbytes + (size_t)r * (size_t)world, *rrow = rbytes + (size_t)r * (size_t)world;
		size_t so = 0, ro = 0;
		if (skip_planted(n, first + r, world))
			continue;
		for (int j = 0; j < world && pending_ok(res); j++) {
			if (srow[j])
				res = ncclSend((const char *)ds[r] + so, srow[j], ncclUint8, j, c, s);
			if (rrow[j] && pending_ok(res))
				res = ncclRecv((char *)dr[r] + ro, rrow[j], ncclUint8, j, c, s);
			so += srow[j];
			ro += rrow[j];
		}
	}
	return finish(n, world, first, k, res, "ncclSend/ncclRecv (all_to_allv)", host, recv, dr, rb, e);
}

/* Byte-moving collectives go as bytes (u8); NCCL counts are elements. */
static enum sc_status nccl_a2a(struct sc_backend *be, int world, void *const *send, void *const *recv,
			       size_t chunk, struct sc_err *e)
{
	return coll(be, A2A, world, send, recv, chunk, SC_U8, SC_SUM, e);
}

static enum sc_status nccl_ag(struct sc_backend *be, int world, void *const *send, void *const *recv,
			      size_t bytes, struct sc_err *e)
{
	return coll(be, AG, world, send, recv, bytes, SC_U8, SC_SUM, e);
}

static enum sc_status nccl_rs(struct sc_backend *be, int world, void *const *send, void *const *recv,
			      size_t count, enum sc_dtype dt, enum sc_redop op, struct sc_err *e)
{
	return coll(be, RS, world, send, recv, count, dt, op, e);
}

static enum sc_status nccl_ar(struct sc_backend *be, int world, void *const *send, void *const *recv,
			      size_t count, enum sc_dtype dt, enum sc_redop op, struct sc_err *e)
{
	return coll(be, AR, world, send, recv, count, dt, op, e);
}

static int nccl_combine(struct sc_backend *be, int world, int value)
{
	struct nccl_impl *n = N(be);
	return n->mpi ? sc_backend_combine(n->mpi, world, value) : value;
}

static void nccl_bcast(struct sc_backend *be, void *buf, size_t len, int root)
{
	struct nccl_impl *n = N(be);
	if (n->mpi)
		sc_backend_bcast(n->mpi, buf, len, root);
}

static void nccl_gather(struct sc_backend *be, const void *mine, void *all, size_t len)
{
	struct nccl_impl *n = N(be);
	if (n->mpi)
		n->mpi->ops->gather(n->mpi, mine, all, len);
	else
		memcpy(all, mine, len);
}

static int nccl_proc(struct sc_backend *be) { return N(be)->proc; }
static int nccl_max_world(struct sc_backend *be) { return N(be)->max_world; }
static struct sc_devmem *nccl_devmem(struct sc_backend *be) { return N(be)->dm; }

/* Ends the communicators of n's world w (aborted ones by abort). */
static void close_comms(struct nccl_impl *n, int w)
{
	int first, k = local_count(n, w, &first);
	for (int r = 0; n->comm[w] && r < k; r++)
		if (n->comm[w][r])
			n->state[w] < 0 ? ncclCommAbort(n->comm[w][r]) : ncclCommDestroy(n->comm[w][r]);
	free(n->comm[w]);
	n->comm[w] = NULL;
}

static void nccl_destroy(struct sc_backend *be)
{
	struct nccl_impl *n = N(be);
	for (struct nccl_group *k = n->groups, *next; k; k = next) {
		next = k->next;
		close_comms(&k->n, k->n.max_world);
		free(k);
	}
	for (int w = 1; w <= SC_MAX_WORLD; w++)
		close_comms(n, w);
	sc_devmem_close(n->dm);
	sc_backend_close(n->mpi);
	free(n->ids);
	free(n);
	free(be);
}

/* A handle for group g of gs, its communicators still to be filled in:
 * world the group's size, the world's devices, the group's processes for
 * the bootstrap operations (the mpi backend's handle for the group). */
static enum sc_status group_new(struct nccl_impl *n, const struct sc_groups *gs, int g, struct nccl_group **out,
				struct sc_err *e)
{
	struct nccl_group *k = calloc(1, sizeof *k);
	if (!k)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	k->key = gs->key;
	k->world = gs->world;
	k->g = g;
	memcpy(k->map, &gs->member[g * gs->size], sizeof(int) * (size_t)gs->size);
	struct nccl_impl *gn = &k->n;
	gn->dm = n->dm;
	gn->ndev = n->ndev;
	gn->max_world = gs->size;
	gn->timeout = n->timeout;
	gn->map = k->map;
	gn->nprocs = 1;
	if (n->mpi) {
		enum sc_status st = sc_backend_group(n->mpi, gs, g, &gn->mpi, e);
		if (st != SC_OK) {
			free(k);
			return st;
		}
		gn->proc = gs->index[n->proc];
		gn->nprocs = gs->size;
	}
	int first, kk = local_count(gn, gs->size, &first);
	gn->comm[gs->size] = calloc((size_t)(kk > 0 ? kk : 1), sizeof(ncclComm_t));
	if (!gn->comm[gs->size]) {
		free(k);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	gn->state[gs->size] = 1;
	k->be.ops = &nccl_ops;
	k->be.impl = gn;
	k->next = n->groups;
	n->groups = k;
	*out = k;
	return SC_OK;
}

/* The first time a partition is used, every local rank of its world splits
 * the world's communicator (collective over it): one process holding every
 * rank makes all the groups at once, a process of mpirun its own. */
static enum sc_status nccl_group(struct sc_backend *be, const struct sc_groups *gs, int g, struct sc_backend **sub,
				 struct sc_err *e)
{
	struct nccl_impl *n = N(be);
	for (int r = 0; r < gs->world && r < SC_MAX_WORLD; r++)
		if (gs->color[r] < 0) /* every process refuses alike, members or not */
			return SC_ERR(e, SC_E_UNAVAIL, "nccl: a group that leaves ranks out (group=[...]) is not run on nccl; "
						       "run the spec on sim, mpi, emu or cuda");
	if (n->map)
		return SC_ERR(e, SC_E_INTERNAL, "nccl: a group of a group (%d of %d ranks) was asked for", gs->size,
			      gs->world);
	for (struct nccl_group *k = n->groups; k; k = k->next)
		if (k->key == gs->key && k->world == gs->world && k->g == g) {
			*sub = &k->be;
			return SC_OK;
		}
	int first, k = local_count(n, gs->world, &first), mine = 0;
	for (int r = 0; r < k; r++)
		mine |= gs->color[first + r] == g;
	if (!mine)
		return SC_ERR(e, SC_E_INTERNAL, "nccl: group %d of a world of %d has no rank here", g, gs->world);
	SC_CHECK(comms(n, gs->world, e));
	/* each new communicator lands straight in its group's handle: with
	 * nonblocking communicators NCCL stores it from its own thread when the
	 * split is done, so the place must outlive this call */
	struct nccl_group *made[SC_MAX_WORLD] = {0};
	ncclComm_t *slot[SC_MAX_WORLD];
	enum sc_status st = SC_OK;
	for (int r = 0; r < k && st == SC_OK; r++) {
		const int w = first + r, c = gs->color[w];
		if (!made[c])
			st = group_new(n, gs, c, &made[c], e);
		if (st == SC_OK) {
			int gfirst;
			local_count(&made[c]->n, gs->size, &gfirst);
			slot[r] = &made[c]->n.comm[gs->size][gs->index[w] - gfirst];
		}
	}
	ncclResult_t res = ncclSuccess;
	if (st == SC_OK) {
		ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
		cfg.blocking = 0;
		res = ncclGroupStart();
		for (int r = 0; r < k && pending_ok(res); r++) {
			int dev;
			sc_devmem_cuda_stream(n->dm, first + r, &dev);
			cudaSetDevice(dev);
			res = ncclCommSplit(n->comm[gs->world][r], gs->color[first + r], gs->index[first + r], slot[r], &cfg);
		}
		ncclResult_t end = ncclGroupEnd();
		if (pending_ok(res))
			res = end;
		if (!pending_ok(res))
			st = SC_ERR(e, SC_E_INTERNAL,
				    "nccl: rank %d: ncclCommSplit (groups of %d of %d ranks) failed: %s (%s)", first,
				    gs->size, gs->world, ncclGetErrorString(res), ncclGetLastError(NULL));
	}
	for (int c = 0; c < gs->n && st == SC_OK; c++)
		if (made[c])
			st = wait_all(&made[c]->n, gs->size, "ncclCommSplit", 0, e);
	if (st != SC_OK) { /* the handles stay, refusing their collectives */
		for (int c = 0; c < gs->n; c++)
			if (made[c])
				abort_world(&made[c]->n, gs->size);
		abort_world(n, gs->world);
		return st;
	}
	SC_LOG(BACKEND, "nccl: split the world of %d into %d groups of %d (%d here)", gs->world, gs->n, gs->size, k);
	*sub = &made[g]->be;
	return SC_OK;
}

static const struct sc_backend_ops nccl_ops = {
	.name = "nccl",
	.flags = SC_BACKEND_TYPED_MOVES,
	.local_ranks = nccl_local,
	.all_to_all = nccl_a2a,
	.all_gather = nccl_ag,
	.reduce_scatter = nccl_rs,
	.all_reduce = nccl_ar,
	.all_to_allv = nccl_a2av,
	.destroy = nccl_destroy,
	.combine = nccl_combine,
	.bcast = nccl_bcast,
	.gather = nccl_gather,
	.proc = nccl_proc,
	.max_world = nccl_max_world,
	.devmem = nccl_devmem,
	.group = nccl_group,
};

enum sc_status sc_backend_nccl_open_impl(struct sc_backend **out, struct sc_err *e)
{
	struct nccl_impl *n = calloc(1, sizeof *n);
	struct sc_backend *be = calloc(1, sizeof *be);
	struct sc_err ee;
	enum sc_status st;
	if (!n || !be) {
		free(n);
		free(be);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	be->ops = &nccl_ops;
	be->impl = n;
	n->nprocs = 1;
	const char *t = getenv("SC_NCCL_TIMEOUT");
	n->timeout = t && atof(t) > 0 ? atof(t) : 120.0;
	const char *f = getenv("SC_NCCL_FAULT");
	if (f && strncmp(f, "hang:", 5) == 0) {
		n->fault_rank = atoi(f + 5);
		n->fault_armed = 1;
	}
	/* launched by mpirun: one rank per process, MPI for the bootstrap */
	if (getenv("OMPI_COMM_WORLD_SIZE") && atoi(getenv("OMPI_COMM_WORLD_SIZE")) > 1) {
		if ((st = sc_backend_mpi_open(&n->mpi, &ee)) != SC_OK) {
			sc_backend_close(be);
			return SC_ERR(e, st, "backend 'nccl' under mpirun needs the mpi backend: %s", ee.msg);
		}
		n->proc = sc_backend_proc(n->mpi);
		n->nprocs = sc_backend_nprocs(n->mpi);
	}
	int ndev = 0;
	const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
	const int local = n->mpi ? (lr ? atoi(lr) : n->proc) : 0;
	if ((st = sc_devmem_cuda_open(&n->dm, 0, &ndev, &ee)) != SC_OK) {
		sc_backend_close(be);
		return SC_ERR(e, st, "backend 'nccl' is unavailable: %s", ee.msg);
	}
	n->ndev = ndev;
	if (n->mpi) { /* this process's rank on its node-local GPU */
		sc_devmem_close(n->dm);
		n->dm = NULL;
		const int base = ((local - n->proc) % ndev + ndev) % ndev;
		if ((st = sc_devmem_cuda_open(&n->dm, base, &ndev, &ee)) != SC_OK) {
			sc_backend_close(be);
			return SC_ERR(e, st, "backend 'nccl': %s", ee.msg);
		}
		n->max_world = n->nprocs < SC_MAX_WORLD ? n->nprocs : SC_MAX_WORLD;
		n->ids = calloc((size_t)n->max_world + 1, sizeof *n->ids);
		if (!n->ids) {
			sc_backend_close(be);
			return SC_ERR(e, SC_E_NOMEM, "out of memory");
		}
		if (n->proc == 0)
			for (int w = 1; w <= n->max_world; w++)
				if (ncclGetUniqueId(&n->ids[w]) != ncclSuccess) {
					sc_backend_close(be);
					return SC_ERR(e, SC_E_INTERNAL, "nccl: ncclGetUniqueId failed: %s",
						      ncclGetLastError(NULL));
				}
		sc_backend_bcast(n->mpi, n->ids, sizeof *n->ids * ((size_t)n->max_world + 1), 0);
	} else {
		n->max_world = ndev < SC_MAX_WORLD ? ndev : SC_MAX_WORLD;
	}
	*out = be;
	return SC_OK;
}


