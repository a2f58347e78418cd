/* shardcheck/plugin.h: the plugin ABI of shardcheck (ABI version 1).
 *
 * A plugin is a shared library exporting one function,
 *
 *     int sc_plugin_register(struct sc_plugin_registry *reg);
 *
 * that calls reg->add(reg, &transform) once per transform it offers.
 * shardcheck calls a transform's run function once per rank, on every rank
 * (coroutines on one thread of a child process on `sim`, switching inside
 * the collectives; MPI processes on `mpi`), with that rank's input and a
 * preallocated output buffer; the collectives table works on every
 * backend. Ranks wait for each other only through the collectives, and a
 * child calls run for many cases: what a plugin keeps between calls must
 * depend only on what it is called with.
 *
 * Stability: every struct starts with its size in bytes. shardcheck reads
 * only the fields that fit in the size a plugin gives, and zero-fills the
 * rest, so a plugin built against an older (smaller) header keeps working;
 * fields are only ever appended. A plugin should check that a struct it
 * receives is at least as large as the fields it reads (SC_PLUGIN_HAS). The
 * header is C99 and C++ compatible. */
#ifndef SHARDCHECK_PLUGIN_H
#define SHARDCHECK_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SC_PLUGIN_ABI_VERSION 1u
#define SC_PLUGIN_MAX_DIMS 8
#define SC_PLUGIN_MAX_MESH 4

/* 1 when struct *p (of the given type) was built with field f in it */
#define SC_PLUGIN_HAS(p, type, f) ((p)->size >= offsetof(type, f) + sizeof((p)->f))

/* Element types (values fixed by the ABI). */
enum sc_plugin_dtype {
	SC_PLUGIN_I32 = 0, SC_PLUGIN_I64 = 1, SC_PLUGIN_U32 = 2, SC_PLUGIN_U64 = 3,
	SC_PLUGIN_I8 = 4, SC_PLUGIN_U8 = 5, SC_PLUGIN_F32 = 6, SC_PLUGIN_F64 = 7,
	SC_PLUGIN_F16 = 8, SC_PLUGIN_BF16 = 9, SC_PLUGIN_F8E4M3 = 10, SC_PLUGIN_F8E5M2 = 11
};

/* Reduction ops (values fixed by the ABI). */
enum sc_plugin_redop { SC_PLUGIN_SUM = 0, SC_PLUGIN_MAX = 1, SC_PLUGIN_MIN = 2, SC_PLUGIN_PROD = 3 };

/* Where buffers live. */
enum sc_plugin_memory { SC_PLUGIN_HOST = 0, SC_PLUGIN_DEVICE = 1 };
/* The bits of struct sc_plugin_transform's memory set. */
#define SC_PLUGIN_MEMORY_HOST (1u << SC_PLUGIN_HOST)
#define SC_PLUGIN_MEMORY_DEVICE (1u << SC_PLUGIN_DEVICE)

/* A rank's local tensor: contiguous, row-major. */
struct sc_plugin_tensor {
	size_t size;
	int ndim;
	int64_t shape[SC_PLUGIN_MAX_DIMS];
	void *data;
	size_t elem_size; /* bytes per element */
};

/* Dim-0 collectives over the ranks of the call, with torch.distributed's
 * semantics on flat contiguous buffers; each returns 0 on success.
 *   all_to_all: send holds world chunks of chunk_bytes; chunk j goes to
 *               rank j; recv gets the chunks in source rank order.
 *   all_gather: recv gets every rank's bytes of send, in rank order.
 *   reduce_scatter: send holds world*count elements; recv gets chunk
 *               `rank` of the elementwise reduction over ranks.
 *   all_reduce: recv gets the elementwise reduction of every send.
 *   all_to_allv: variable sizes; send_bytes and recv_bytes have world
 *               entries each: send holds send_bytes[j] bytes for rank j,
 *               packed in j order; recv gets recv_bytes[j] bytes from
 *               rank j, packed in j order. Every rank's send_bytes[j]
 *               must equal rank j's recv_bytes[rank]; when one does not,
 *               nothing is exchanged and every rank of the call returns
 *               non-zero. Zero counts send nothing. It was appended after
 *               impl (a member before impl would be read as impl by an
 *               older shardcheck): test SC_PLUGIN_HAS(call->coll, struct
 *               sc_plugin_collectives, all_to_allv) before calling it. */
struct sc_plugin_collectives {
	size_t size;
	int (*all_to_all)(const struct sc_plugin_collectives *c, const void *send, void *recv,
			  size_t chunk_bytes);
	int (*all_gather)(const struct sc_plugin_collectives *c, const void *send, void *recv,
			  size_t bytes);
	int (*reduce_scatter)(const struct sc_plugin_collectives *c, const void *send, void *recv,
			      size_t count, enum sc_plugin_dtype dtype, enum sc_plugin_redop op);
	int (*all_reduce)(const struct sc_plugin_collectives *c, const void *send, void *recv,
			  size_t count, enum sc_plugin_dtype dtype, enum sc_plugin_redop op);
	void *impl; /* shardcheck's; do not touch */
	int (*all_to_allv)(const struct sc_plugin_collectives *c, const void *send, void *recv,
			   const size_t *send_bytes, const size_t *recv_bytes);
};

/* Native handles for code that calls the libraries directly (NULL when the
 * backend has none): MPI_Comm*, ncclComm_t*, cudaStream_t*. cuda_stream
 * is set in device-memory calls on the cuda backend: the rank's stream,
 * which the collectives table is ordered after (queue kernels on it;
 * shardcheck synchronises it before it reads the output). In this
 * version mpi_comm and nccl_comm are NULL. */
struct sc_plugin_native {
	size_t size;
	void *mpi_comm;
	void *nccl_comm;
	void *cuda_stream;
};

/* One call of a transform on one rank. */
struct sc_plugin_call {
	size_t size;
	unsigned abi_version;
	int rank, world;
	enum sc_plugin_dtype dtype;
	enum sc_plugin_memory memory;
	struct sc_plugin_tensor input;  /* this rank's input placement of X */
	struct sc_plugin_tensor output; /* write every element of it */
	const struct sc_plugin_collectives *coll;
	const struct sc_plugin_native *native;
	void *user; /* the transform's user pointer */
	/* Appended (a mesh contract, `mesh dp=D tp=T`; test
	 * SC_PLUGIN_HAS(call, struct sc_plugin_call, group) first): the
	 * mesh's number of dims (0: a flat world), each dim's name, size and
	 * this rank's coordinate along it (rank = the coordinates row-major,
	 * as DeviceMesh numbers them); group(call, dims, n) returns the
	 * collectives over this rank's group of mesh dims dims[0..n) (given in
	 * mesh order, each once; ranks in it numbered by their coordinates on
	 * those dims, row-major), or NULL for any other request. Every rank of
	 * a group must make the same calls on it in the same order. */
	int mesh_ndims;
	const char *mesh_name[SC_PLUGIN_MAX_MESH];
	int mesh_size[SC_PLUGIN_MAX_MESH];
	int mesh_coord[SC_PLUGIN_MAX_MESH];
	const struct sc_plugin_collectives *(*group)(const struct sc_plugin_call *call, const int *dims, int n);
};

/* 0 on success; anything else fails the case with that code. */
typedef int (*sc_plugin_run_fn)(const struct sc_plugin_call *call);

/* A transform: a name, its contract in the spec language's declarations
 * (dims, world, input, output, require, sizes; no steps), and run. An
 * output whose placement cannot be stated is declared by its local shape,
 * `output shape [e, ...]`: then only --baseline (differential) checks it. */
struct sc_plugin_transform {
	size_t size;
	unsigned abi_version;
	const char *name;
	const char *contract;
	sc_plugin_run_fn run;
	void *user;
	const char *description; /* optional */
	/* Appended (0 in a transform built against an older header): the
	 * memory run accepts, a set of SC_PLUGIN_MEMORY_HOST and
	 * SC_PLUGIN_MEMORY_DEVICE; 0 means host only. On cuda and emu a
	 * transform that accepts device memory is called with call->memory ==
	 * SC_PLUGIN_DEVICE: input and output in the rank's device memory
	 * (guard zones around each; on cuda the rank's GPU, in a process with
	 * a CUDA context of its own; emu's "device" memory faults when the
	 * host touches it), and a collectives table that takes device
	 * pointers. A host-only transform there, and any transform on nccl in
	 * this version, gets host buffers (a device-only one is refused on
	 * nccl, sim and mpi). */
	unsigned memory;
};

/* A library registers at most 1024 transforms, each under its own name.
 * add() refuses a transform without name, contract or run, one for a newer
 * ABI, a name already registered and the 1025th; any refusal fails the
 * whole loading (the gate exits 2, naming the first refused transform),
 * whether or not the plugin looks at add()'s value: no transform goes
 * unchecked in silence. Names are shown with control and non-ASCII bytes
 * escaped ("a\nb"); either form selects the transform. */
struct sc_plugin_registry {
	size_t size;
	unsigned abi_version; /* of the shardcheck loading the plugin */
	/* 0 on success; the transform is copied */
	int (*add)(struct sc_plugin_registry *reg, const struct sc_plugin_transform *t);
	void *impl;
};

/* The one symbol a plugin exports; 0 on success. */
int sc_plugin_register(struct sc_plugin_registry *reg);

#ifdef __cplusplus
}
#endif

#endif
