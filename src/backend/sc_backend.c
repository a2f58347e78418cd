/* sc_backend: the registry of backends (a table) and the helpers every
 * backend shares. Backends that need optional dependencies (mpi, cuda,
 * nccl) are stubs answering "unavailable" until their own files are
 * compiled in, so nothing else needs to know. */
#include "sc_backend.h"
#include "sc_devmem.h"
#include "sc_dso.h"
#include "sc_suggest.h"
#include "sc_limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>




static int gpu_free;
void sc_backend_keep_gpu_free(void) { gpu_free = 1; }
int sc_backend_gpu_kept_free(void) { return gpu_free; }

struct sc_devmem *sc_backend_devmem(struct sc_backend *be)
{
	return be && be->ops->devmem ? be->ops->devmem(be) : NULL;
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

enum sc_status sc_backend_all_to_allv(struct sc_backend *be, int world, void *const *send,
				      void *const *recv, const size_t *sbytes, const size_t *rbytes,
				      struct sc_err *e)
{
	if (!be->ops->all_to_allv)
		return SC_ERR(e, SC_E_UNAVAIL, "the %s backend has no variable-size exchange", be->ops->name);
	return be->ops->all_to_allv(be, world, send, recv, sbytes, rbytes, e);
}

enum sc_status sc_backend_group(struct sc_backend *be, const struct sc_groups *gs, int g, struct sc_backend **sub,
				struct sc_err *e)
{
	if (g < 0 || g >= gs->n)
		return SC_ERR(e, SC_E_INTERNAL, "group %d of %d", g, gs->n);
	if (!be->ops->group) {
		*sub = be;
		return SC_OK;
	}
	return be->ops->group(be, gs, g, sub, e);
}

enum sc_status sc_backend_group_idle(struct sc_backend *be, const struct sc_groups *gs, struct sc_err *e)
{
	struct sc_backend *sub = NULL;
	return be->ops->group ? be->ops->group(be, gs, -1, &sub, e) : SC_OK;
}

int sc_backend_max_world(struct sc_backend *be)
{
	return be->ops->max_world ? be->ops->max_world(be) : SC_MAX_WORLD;
}

/* The registry: one row per backend. A backend whose dependency is not
 * compiled in is a stub answering SC_E_UNAVAIL, and `compiled` says so. */
struct backend_row {
	const char *name;
	enum sc_status (*open)(struct sc_backend **out, struct sc_err *e);
	int (*compiled)(void); /* NULL: always */
	const char *runs_on, *missing;
	int gpu; /* needs a CUDA device at run time: `list` says whether one is visible */
};

static const struct backend_row registry[] = {
	{"sim", sc_backend_sim_open, NULL, "ranks as buffers in one process; collectives by memcpy", NULL, 0},
	{"mpi", sc_backend_mpi_open, sc_backend_mpi_available,
	 "one process per rank (mpirun -np N); MPI_Alltoall and friends",
	 "not compiled into this build (needs Open MPI: apt-get install openmpi-bin libopenmpi-dev)", 0},
	{"cuda", sc_backend_cuda_open, sc_devmem_cuda_compiled,
	 "ranks as buffers on the visible GPUs (needs one at run time); kernels and device-to-device copies",
	 "not compiled into this build (needs the CUDA toolkit: nvcc on the PATH)", 1},
	{"nccl", sc_backend_nccl_open, sc_backend_nccl_compiled,
	 "one GPU per rank (needs them at run time): mpirun -np N, or every local GPU from one process",
	 "not compiled into this build (needs the CUDA toolkit and NCCL; NCCL_HOME names its directory)", 1},
	{"emu", sc_backend_emu_open, NULL,
	 "the device path (cuda's) on the CPU: ranks as buffers in emulated device memory", NULL, 0},
};
#define NBACKENDS ((int)(sizeof registry / sizeof registry[0]))

int sc_backend_list(const struct sc_backend_info **list)
{
	static struct sc_backend_info info[NBACKENDS];
	static char why[NBACKENDS][SC_ERR_MAX];
	for (int i = 0; i < NBACKENDS; i++) {
		int on = !registry[i].compiled || registry[i].compiled();
		const char *note = on ? registry[i].runs_on : registry[i].missing;
		if (on && registry[i].gpu && sc_devmem_cuda_devices(why[i], sizeof why[i]) < 1) {
			on = 0; /* compiled in, nothing to run on */
			note = why[i];
		}
		info[i] = (struct sc_backend_info){registry[i].name, on, note};
	}
	*list = info;
	return NBACKENDS;
}

enum sc_status sc_backend_open(const char *name, struct sc_backend **out, struct sc_err *e)
{
	for (int i = 0; i < NBACKENDS; i++) {
		if (strcmp(name, registry[i].name) != 0)
			continue;
		enum sc_status st = registry[i].open(out, e);
		if (st == SC_OK)
			SC_LOG(BACKEND, "opened backend %s: process %d of %d, worlds up to %d", name,
			       sc_backend_proc(*out), sc_backend_nprocs(*out), sc_backend_max_world(*out));
		else if (st == SC_E_UNAVAIL && e && strcmp(name, "cuda") == 0) { /* say which backend */
			char m[SC_ERR_MAX];
			snprintf(m, sizeof m, "%s", e->msg);
			SC_ERR(e, SC_E_UNAVAIL, "backend 'cuda' is unavailable: %s", m);
		}
		return st;
	}
	struct sc_suggest s;
	sc_suggest_init(&s, name);
	for (int i = 0; i < NBACKENDS; i++)
		sc_suggest_add(&s, registry[i].name);
	char hint[96];
	return SC_ERR(e, SC_E_USAGE, "unknown backend '%s'%s (known: sim, mpi, cuda, nccl, emu)", name,
		      sc_suggest_hint(&s, hint, sizeof hint));
}

void sc_backend_close(struct sc_backend *be)
{
	if (be)
		be->ops->destroy(be);
}

enum sc_status sc_backend_open_part(const char *name, const char *file, const char *entry,
				    struct sc_backend **out, struct sc_err *e)
{
	void *h;
	struct sc_err le;
	*out = NULL;
	if (sc_dso_load(file, &h, &le) != SC_OK)
		return SC_ERR(e, SC_E_UNAVAIL, "backend '%s' is unavailable: %s", name, le.msg);
	enum sc_status (*fn)(struct sc_backend **, struct sc_err *) =
		(enum sc_status (*)(struct sc_backend **, struct sc_err *))sc_dso_sym(h, entry);
	if (!fn)
		return SC_ERR(e, SC_E_UNAVAIL, "backend '%s' is unavailable: %s lacks %s", name, file, entry);
	return fn(out, e);
}
