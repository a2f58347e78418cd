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
 * Everything else (layouts, strides, provenance) lives above this line. */
#ifndef SC_BACKEND_H
#define SC_BACKEND_H

#include <stddef.h>

#include "sc_dtype.h"
#include "sc_status.h"

struct sc_backend;

struct sc_backend_ops {
	const char *name;
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
	void (*destroy)(struct sc_backend *be);
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

#endif
