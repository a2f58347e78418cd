/* sc_backend: registry of backends and the in-process `sim` backend.
 *
 * sim keeps every rank's buffers in this process; collectives are memcpy
 * and sequential reductions in rank order. Backends that need optional
 * dependencies (mpi, cuda, nccl) are listed here as unavailable until their
 * own files are compiled in, so nothing else needs to know. */
#include "sc_backend.h"
#include "sc_devmem.h"
#include "sc_limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>



static int sim_local(struct sc_backend *be, int world, int *first)
{
	(void)be;
	*first = 0;
	return world;
}

static enum sc_status sim_a2a(struct sc_backend *be, int world, void *const *send,
			      void *const *recv, size_t chunk, struct sc_err *e)
{
	(void)be;
	(void)e;
	for (int dst = 0; dst < world; dst++)
		for (int src = 0; src < world; src++)
			memcpy((char *)recv[dst] + (size_t)src * chunk,
			       (const char *)send[src] + (size_t)dst * chunk, chunk);
	return SC_OK;
}

static enum sc_status sim_ag(struct sc_backend *be, int world, void *const *send,
			     void *const *recv, size_t bytes, struct sc_err *e)
{
	(void)be;
	(void)e;
	for (int dst = 0; dst < world; dst++)
		for (int src = 0; src < world; src++)
			memcpy((char *)recv[dst] + (size_t)src * bytes, send[src], bytes);
	return SC_OK;
}

static enum sc_status sim_rs(struct sc_backend *be, int world, void *const *send,
			     void *const *recv, size_t count, enum sc_dtype dt,
			     enum sc_redop op, struct sc_err *e)
{
	(void)be;
	(void)e;
	const size_t es = sc_dtype_size(dt), bytes = count * es;
	for (int r = 0; r < world; r++) {
		memcpy(recv[r], (const char *)send[0] + (size_t)r * bytes, bytes);
		for (int src = 1; src < world; src++)
			sc_reduce(dt, op, recv[r], (const char *)send[src] + (size_t)r * bytes, count);
	}
	return SC_OK;
}

static enum sc_status sim_ar(struct sc_backend *be, int world, void *const *send,
			     void *const *recv, size_t count, enum sc_dtype dt,
			     enum sc_redop op, struct sc_err *e)
{
	(void)be;
	(void)e;
	const size_t bytes = count * sc_dtype_size(dt);
	memcpy(recv[0], send[0], bytes);
	for (int src = 1; src < world; src++)
		sc_reduce(dt, op, recv[0], send[src], count);
	for (int r = 1; r < world; r++)
		memcpy(recv[r], recv[0], bytes);
	return SC_OK;
}

static void sim_destroy(struct sc_backend *be) { free(be); }

static const struct sc_backend_ops sim_ops = {
	.name = "sim",
	.local_ranks = sim_local,
	.all_to_all = sim_a2a,
	.all_gather = sim_ag,
	.reduce_scatter = sim_rs,
	.all_reduce = sim_ar,
	.destroy = sim_destroy,
};

const struct sc_backend_ops *sc_backend_sim_ops(void) { return &sim_ops; }

struct sc_devmem *sc_backend_devmem(struct sc_backend *be)
{
	return be && be->ops->devmem ? be->ops->devmem(be) : NULL;
}

enum sc_status sc_backend_sim_open(struct sc_backend **out, struct sc_err *e)
{
	struct sc_backend *be = calloc(1, sizeof *be);
	if (!be)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	be->ops = &sim_ops;
	*out = be;
	return SC_OK;
}

int sc_backend_combine(struct sc_backend *be, int world, int value)
{
	return be->ops->combine ? be->ops->combine(be, world, value) : value;
}

void sc_backend_bcast(struct sc_backend *be, void *buf, size_t n, int root)
{
	if (be->ops->bcast)
		be->ops->bcast(be, buf, n, root);
}

int sc_backend_proc(struct sc_backend *be) { return be->ops->proc ? be->ops->proc(be) : 0; }
int sc_backend_nprocs(struct sc_backend *be) { return be->ops->max_world ? be->ops->max_world(be) : 1; }
int sc_backend_leader(struct sc_backend *be) { return sc_backend_proc(be) == 0; }

int sc_backend_max_world(struct sc_backend *be)
{
	return be->ops->max_world ? be->ops->max_world(be) : SC_MAX_WORLD;
}

static struct sc_backend_info backends[] = {
	{"sim", 1, "ranks as buffers in one process; collectives by memcpy"},
	{"mpi", 0, "not compiled into this build (needs Open MPI: apt-get install openmpi-bin libopenmpi-dev)"},
	{"cuda", 0, "not compiled into this build (needs the CUDA toolkit: nvcc on the PATH)"},
	{"nccl", 0, "not compiled into this build (needs the CUDA toolkit and NCCL; NCCL_HOME names its directory)"},
	{"emu", 1, "the device path (cuda's) on the CPU: ranks as buffers in emulated device memory"},
};

int sc_backend_list(const struct sc_backend_info **list)
{
	if (sc_backend_mpi_available()) {
		backends[1].available = 1;
		backends[1].note = "one process per rank (mpirun -np N); MPI_Alltoall and friends";
	}
	if (sc_devmem_cuda_compiled()) {
		backends[2].available = 1;
		backends[2].note = "ranks as buffers on the visible GPUs (needs one at run time); kernels and device-to-device copies";
	}
	if (sc_backend_nccl_compiled()) {
		backends[3].available = 1;
		backends[3].note = "one GPU per rank (needs them at run time): mpirun -np N, or every local GPU from one process";
	}
	*list = backends;
	return (int)(sizeof backends / sizeof backends[0]);
}

enum sc_status sc_backend_open(const char *name, struct sc_backend **out, struct sc_err *e)
{
	if (strcmp(name, "sim") == 0)
		return sc_backend_sim_open(out, e);
	if (strcmp(name, "mpi") == 0)
		return sc_backend_mpi_open(out, e);
	if (strcmp(name, "emu") == 0)
		return sc_backend_emu_open(out, e);
	if (strcmp(name, "cuda") == 0) {
		enum sc_status st = sc_backend_cuda_open(out, e);
		if (st == SC_E_UNAVAIL && e) { /* say which backend */
			char m[SC_ERR_MAX];
			snprintf(m, sizeof m, "%s", e->msg);
			SC_ERR(e, SC_E_UNAVAIL, "backend 'cuda' is unavailable: %s", m);
		}
		return st;
	}
	if (strcmp(name, "nccl") == 0)
		return sc_backend_nccl_open(out, e);
	return SC_ERR(e, SC_E_USAGE, "unknown backend '%s' (known: sim, mpi, cuda, nccl, emu)", name);
}

void sc_backend_close(struct sc_backend *be)
{
	if (be)
		be->ops->destroy(be);
}
