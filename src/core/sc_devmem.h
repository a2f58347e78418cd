/* sc_devmem: device memory for the device backends (cuda, nccl, emu).
 *
 * When a backend has device memory, a data-movement run keeps every rank's
 * buffers there: the arena allocates through these ops, a materialized
 * view is one strided copy (the composition of every view step since the
 * last copy, see sc_tensor_copy), inputs are filled and outputs checked in
 * place from (seed, global index), and collectives move bytes between
 * ranks' buffers. Only a counterexample's first wrong elements, and the
 * bits a property reads on the host (sc_tensor_host), come back.
 *
 * Operations are queued in order per rank and may run asynchronously; an
 * error is sticky (the first one is kept, with its call and rank) and is
 * reported by sc_devmem_status at the next synchronizing point. Ranks are
 * 0..world-1 of the case; the implementation maps them to devices. */
#ifndef SC_DEVMEM_H
#define SC_DEVMEM_H

#include <stddef.h>
#include <stdint.h>

#include "sc_dtype.h"
#include "sc_hd_dtype.h"
#include "sc_status.h"

struct sc_devmem;

/* One wrong element found by a check: row-major index in the checked view,
 * the global index whose bits belong there, and the bits found. */
struct sc_dev_mismatch {
	int64_t index;
	uint64_t g;
	uint64_t expected, actual;
};

struct sc_devmem_ops {
	const char *name;
	/* bytes on rank's device, valid until reset; NULL when out of memory */
	void *(*alloc)(struct sc_devmem *dm, int rank, size_t bytes);
	void (*reset)(struct sc_devmem *dm); /* frees (or caches) every allocation */
	void (*destroy)(struct sc_devmem *dm);
	int (*is_device)(struct sc_devmem *dm, const void *p);
	/* the rest return 0 or an error that the caller makes sticky */
	int (*memset)(struct sc_devmem *dm, int rank, void *p, int byte, size_t n);
	/* dst[dv(i)] = src[sv(i)] for i < n, elements of esize bytes */
	int (*copy)(struct sc_devmem *dm, int rank, void *dst, const struct sc_strided *dv,
		    const void *src, const struct sc_strided *sv, int64_t n, unsigned esize);
	/* bytes from src_rank's buffer to dst_rank's (peer copies across devices) */
	int (*move)(struct sc_devmem *dm, int dst_rank, void *dst, int src_rank, const void *src,
		    size_t bytes);
	/* acc[i] = acc[i] OP in[i], both on rank's device (sc_hd_reduce1) */
	int (*reduce)(struct sc_devmem *dm, int rank, void *acc, const void *in, size_t count,
		      enum sc_dtype dt, enum sc_redop op);
	/* provenance: mx[i] = SC_PROV_MIXED where mx[i] != mn[i] (u64) */
	int (*prov_merge)(struct sc_devmem *dm, int rank, void *mx, const void *mn, size_t count);
	/* dst[i] = sc_hd_fill_bits(f, xmap(i)) for i < n (contiguous dst) */
	int (*fill)(struct sc_devmem *dm, int rank, void *dst, const struct sc_hd_fill *f, int64_t n);
	/* counts i < n with out[ov(i)] != sc_hd_fill_bits(f, xmap(i)); the first
	 * kfirst of them, in row-major order (synchronous) */
	int (*check)(struct sc_devmem *dm, int rank, const void *out, const struct sc_strided *ov,
		     const struct sc_hd_fill *f, int64_t n, int64_t *wrong,
		     struct sc_dev_mismatch *first, int kfirst);
	int (*download)(struct sc_devmem *dm, void *host, const void *dev, size_t bytes);
	int (*upload)(struct sc_devmem *dm, void *dev, const void *host, size_t bytes);
	int (*sync)(struct sc_devmem *dm); /* every queued operation done */
	/* makes rank's device the current one for code that runs next (a
	 * plugin's rank launching kernels); NULL: one device, nothing to do */
	void (*enter)(struct sc_devmem *dm, int rank);
	const char *(*strerror)(struct sc_devmem *dm, int err);
};

struct sc_devmem {
	const struct sc_devmem_ops *ops;
	void *impl;
	int err;           /* the first error since the last sc_devmem_status */
	char where[160];   /* its call and rank */
};

/* A copy between host and device buffers (a bug in the caller). */
#define SC_DEVMEM_EMIXED (-1000)

/* Records err (non-zero) as the sticky error unless one is pending;
 * returns err. */
int sc_devmem_fail(struct sc_devmem *dm, int err, const char *call, int rank);
/* SC_OK, or SC_E_INTERNAL with "cuda: cudaMemcpyPeerAsync (rank 1): ..."
 * for the pending error (cleared). Synchronizes first when sync is set. */
enum sc_status sc_devmem_status(struct sc_devmem *dm, int sync, struct sc_err *e);

/* The emulated device: host memory that the host cannot touch (mapped
 * PROT_NONE outside the device operations, so a stray host access to a
 * device buffer faults in tests), every operation through the same
 * index and element code as the CUDA kernels. */
enum sc_status sc_devmem_emu_open(struct sc_devmem **out, struct sc_err *e);
/* The same with views of span bytes of address space (a process under an
 * address-space limit: each view counts against it). */
enum sc_status sc_devmem_emu_open_span(struct sc_devmem **out, size_t span, struct sc_err *e);
/* CUDA: sc_devmem_cuda.c when the toolkit was found, else a stub that
 * answers SC_E_UNAVAIL. Rank r lives on device r % *ndevices (the count
 * of visible devices); device_base shifts that (an MPI process's GPU). */
enum sc_status sc_devmem_cuda_open(struct sc_devmem **out, int device_base, int *ndevices,
				    struct sc_err *e);
/* The same, deferred: no CUDA call in this process until the first
 * operation (the devices counted in a child), so that a process forked
 * from this one before then can make a CUDA context of its own (cuda
 * backend: a plugin's processes). */
enum sc_status sc_devmem_cuda_open_deferred(struct sc_devmem **out, int *ndevices, struct sc_err *e);
/* Whether this process has made CUDA calls: a child forked from it now
 * cannot use CUDA. */
int sc_devmem_cuda_live(void);
/* From now on dm's allocations are of exactly the bytes asked, none kept
 * for reuse: under compute-sanitizer an access past a buffer is then
 * outside every allocation, which its memcheck reports. */
void sc_devmem_cuda_exact(struct sc_devmem *dm);
int sc_devmem_cuda_compiled(void);
/* The number of CUDA devices visible here; 0 with the reason in why
 * (no driver, no device, not compiled in). Counted in a child while this
 * process has made no CUDA call. */
int sc_devmem_cuda_devices(char *why, size_t n);
/* The cudaStream_t rank's work is queued on, and its device (cuda only). */
void *sc_devmem_cuda_stream(struct sc_devmem *dm, int rank, int *device);
void sc_devmem_close(struct sc_devmem *dm); /* NULL-safe */

#endif
