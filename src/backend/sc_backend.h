/* sc_backend: the one interface every backend implements.
 *
 * A backend owns some ranks of a world of size P: sim owns all of them, an
 * MPI process owns one. Collectives take, for each rank this process owns
 * (in rank order), a contiguous send buffer and a receive buffer, and have
 * the dim-0 semantics of torch.distributed on flat memory:
 *   all_to_all:     send = P chunks of chunk_bytes; chunk j goes to rank j;
 *                   recv = the chunks received, in source rank order.
 *   all_gather:     recv = every rank's send (bytes each), in rank order.
 *   reduce_scatter: send = P*count elements; recv = chunk r of the
 *                   elementwise reduction over ranks.
 *   all_reduce:     recv = the elementwise reduction of every send.
 *   all_to_allv:    variable sizes: local rank r sends sbytes[r*world + j]
 *                   bytes to rank j (packed in send[r] in j order) and
 *                   receives rbytes[r*world + j] bytes from rank j (packed
 *                   in recv[r] in j order). The layer above has checked
 *                   that every sender's count is its receiver's; zero
 *                   counts send nothing (a permutation, a broadcast, an
 *                   uneven gather are all this one exchange).
 * Everything else (layouts, strides, provenance) lives above this line. */
#ifndef SC_BACKEND_H
#define SC_BACKEND_H

#include <stddef.h>

#include "sc_dtype.h"
#include "sc_mesh.h"
#include "sc_status.h"

struct sc_backend;

/* Flags of a backend: its data movement (all_to_all, all_gather,
 * all_to_allv) is told the element type, so dtypes of one width may be
 * moved differently (NCCL's typed collectives). Without it, collectives
 * move bytes. */
#define SC_BACKEND_TYPED_MOVES 1u

struct sc_backend_ops {
	const char *name;
	unsigned flags;
	/* Ranks of a world of size world held here: *first and the count. */
	int (*local_ranks)(struct sc_backend *be, int world, int *first);
	enum sc_status (*all_to_all)(struct sc_backend *be, int world, void *const *send,
				     void *const *recv, size_t chunk_bytes, struct sc_err *e);
	enum sc_status (*all_gather)(struct sc_backend *be, int world, void *const *send,
				     void *const *recv, size_t bytes, struct sc_err *e);
	enum sc_status (*reduce_scatter)(struct sc_backend *be, int world, void *const *send,
					 void *const *recv, size_t count, enum sc_dtype dt,
					 enum sc_redop op, struct sc_err *e);
	enum sc_status (*all_reduce)(struct sc_backend *be, int world, void *const *send,
				     void *const *recv, size_t count, enum sc_dtype dt,
				     enum sc_redop op, struct sc_err *e);
	enum sc_status (*all_to_allv)(struct sc_backend *be, int world, void *const *send,
				      void *const *recv, const size_t *sbytes, const size_t *rbytes,
				      struct sc_err *e);
	void (*destroy)(struct sc_backend *be);
	/* Process-level hooks; NULL when one process holds every rank (sim).
	 * combine: the maximum of value over the processes holding ranks of a
	 *          world (world 0: over every process); only those call it.
	 * bcast: n bytes from process root to every process.
	 * gather: every process's n bytes, in process order, to every process.
	 * proc: this process's index (0 prints and writes reports).
	 * max_world: the largest world this launch can hold. */
	int (*combine)(struct sc_backend *be, int world, int value);
	void (*bcast)(struct sc_backend *be, void *buf, size_t n, int root);
	void (*gather)(struct sc_backend *be, const void *mine, void *all, size_t n);
	int (*proc)(struct sc_backend *be);
	int (*max_world)(struct sc_backend *be);
	/* Device memory the data runs keep their buffers in (cuda, nccl, emu);
	 * NULL: host memory. Collectives then get device pointers, except for
	 * runs that stay on the host (compute specs, plugins), whose host
	 * buffers the backend must also accept. */
	struct sc_devmem *(*devmem)(struct sc_backend *be);
	/* Sub-groups (a mesh's tp groups): the handle that runs group g of
	 * the partition gs. Its collectives take world = gs->size and, for
	 * the members this process holds (in index order), their buffers;
	 * its local_ranks gives their indices; its combine, bcast and gather
	 * span the group's processes. The handle belongs to be (cached by
	 * gs->key, valid until be closes). NULL: be's own operations serve
	 * any group, its ranks' identity not mattering (sim). A rank in no
	 * group has color -1 (group=[...] leaves it out); a process all of
	 * whose ranks are in none is called with g -1 (and *sub untouched),
	 * so that a backend whose groups are made collectively (MPI, NCCL)
	 * takes part, or refuses as the members do. */
	enum sc_status (*group)(struct sc_backend *be, const struct sc_groups *gs, int g, struct sc_backend **sub,
				struct sc_err *e);
};

struct sc_backend {
	const struct sc_backend_ops *ops;
	void *impl;
};

/* Known backend names and whether each is compiled into this build. */
struct sc_backend_info {
	const char *name;
	int available;
	const char *note; /* why it is unavailable, or what it runs on */
};
int sc_backend_list(const struct sc_backend_info **list);

/* Opens a backend by name; SC_E_UNAVAIL with a message when it is not
 * compiled in. *out is owned by the caller: sc_backend_close. */
enum sc_status sc_backend_open(const char *name, struct sc_backend **out, struct sc_err *e);
void sc_backend_close(struct sc_backend *be); /* NULL-safe */

/* The in-process backend (also used directly by tests). */
enum sc_status sc_backend_sim_open(struct sc_backend **out, struct sc_err *e);
/* Open MPI: sc_backend_mpi.c when MPI was found, else a stub that answers
 * SC_E_UNAVAIL (sc_backend_mpi_stub.c). */
enum sc_status sc_backend_mpi_open(struct sc_backend **out, struct sc_err *e);
int sc_backend_mpi_available(void);
/* The device backends: P ranks as buffers in device memory, collectives by
 * device copies (sc_backend_dev.c). emu: device memory emulated on the
 * CPU (sc_devmem_emu.c); cuda: the visible GPUs. nccl: sc_backend_nccl.c,
 * or a stub when NCCL was not found. */
enum sc_status sc_backend_emu_open(struct sc_backend **out, struct sc_err *e);
enum sc_status sc_backend_cuda_open(struct sc_backend **out, struct sc_err *e);
enum sc_status sc_backend_nccl_open(struct sc_backend **out, struct sc_err *e);
int sc_backend_nccl_compiled(void);
/* A backend that lives in an optional part (sc_dso, libshardcheck_NAME.so):
 * the part's `entry` opens it; SC_E_UNAVAIL with the loader's reason when
 * the part cannot be loaded. */
enum sc_status sc_backend_open_part(const char *name, const char *file, const char *entry,
				    struct sc_backend **out, struct sc_err *e);
/* sim's operations, for backends that fall back to them on host buffers. */
const struct sc_backend_ops *sc_backend_sim_ops(void);
struct sc_devmem *sc_backend_devmem(struct sc_backend *be);
/* Before sc_backend_open: plugin processes forked from this one will make
 * CUDA contexts of their own, so cuda opened after this makes no CUDA call
 * here until a data run needs the GPU (the devices counted in a child;
 * CUDA cannot be used in a process forked from one that has). Without
 * it, cuda starts its context at once. */
void sc_backend_keep_gpu_free(void);
int sc_backend_gpu_kept_free(void);

/* Helpers that work for every backend (one process: identity). */
int sc_backend_combine(struct sc_backend *be, int world, int value);
void sc_backend_bcast(struct sc_backend *be, void *buf, size_t n, int root);
int sc_backend_proc(struct sc_backend *be);
int sc_backend_nprocs(struct sc_backend *be);
int sc_backend_leader(struct sc_backend *be);
int sc_backend_max_world(struct sc_backend *be);
/* The handle for group g of gs (be's group op, or be itself). */
enum sc_status sc_backend_group(struct sc_backend *be, const struct sc_groups *gs, int g, struct sc_backend **sub,
				struct sc_err *e);
/* For a process none of whose ranks is in a group of gs: be's group op
 * with g -1 (nothing where be has none). */
enum sc_status sc_backend_group_idle(struct sc_backend *be, const struct sc_groups *gs, struct sc_err *e);
/* be's all_to_allv (see the ops); SC_E_UNAVAIL where the backend has none. */
enum sc_status sc_backend_all_to_allv(struct sc_backend *be, int world, void *const *send,
				      void *const *recv, const size_t *sbytes, const size_t *rbytes,
				      struct sc_err *e);

#endif
