/* sc_tensor: strided views over per-case buffers, with PyTorch's rules.
 *
 * A tensor is (buffer, offset, shape, stride) in elements, exactly as a
 * torch.Tensor over its storage. View computation, contiguity and memory
 * format follow ATen (computeStride, compute_contiguous,
 * is_channels_last_strides_2d/3d), so a spec fails where PyTorch does.
 * Buffers come from an arena that is reset between cases; each buffer has
 * guard bytes on both sides so writes outside an output are detectable. */
#ifndef SC_TENSOR_H
#define SC_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "sc_limits.h"
#include "sc_status.h"

#define SC_GUARD_BYTES 32
#define SC_GUARD_BYTE 0xA5 /* device buffers' guards; host guards vary per case */

struct sc_devmem;

/* data is host memory, or device memory when dm is set (rank's device):
 * the host reads such a buffer only through sc_tensor_host. */
struct sc_buf {
	unsigned char *data;
	int64_t nelem;
	unsigned esize;
	struct sc_devmem *dm;
	int rank;
	const unsigned char *guard; /* the SC_GUARD_BYTES pattern on both sides */
};

struct sc_tensor {
	struct sc_buf *buf;
	int64_t offset;
	int ndim;
	int64_t shape[SC_MAX_DIMS];
	int64_t stride[SC_MAX_DIMS];
};

struct sc_arena_block;
struct sc_arena {
	struct sc_arena_block *head; /* buffers' data and guards */
	struct sc_arena_block *meta; /* struct sc_buf headers (never shared) */
	struct sc_buf **bufs; /* every buffer handed out since the last reset */
	int nbufs, capbufs;
	int poison;           /* fill new buffers with 0xFF (purity runs) */
	size_t max_bytes;     /* per-case limit on buffer bytes; 0: SC_ARENA_DEFAULT_MAX */
	size_t used_bytes;    /* handed out since the last reset */
	int over_limit;       /* the last NULL from sc_arena_buf was the limit */
	int shared;           /* blocks are MAP_SHARED: a forked child's writes are seen */
	struct sc_devmem *dm; /* the backend's device memory, if it has one */
	int use_dm;           /* new buffers go to dm (data-movement runs on a device) */
	int rank;             /* the rank new buffers belong to (sc_arena_on) */
	uint64_t guard_salt;  /* host guards: a new pattern per case */
	unsigned char guard[SC_GUARD_BYTES];
};

#define SC_ARENA_DEFAULT_MAX ((size_t)4 << 30)

void sc_arena_init(struct sc_arena *a);
void sc_arena_reset(struct sc_arena *a);
void sc_arena_free(struct sc_arena *a); /* NULL-safe */
/* Returns a buffer of nelem elements of esize bytes owned by the arena, with
 * guards set; NULL when out of memory. */
struct sc_buf *sc_arena_buf(struct sc_arena *a, int64_t nelem, unsigned esize);
/* The rank whose buffers come next (picks the device; no-op on the host). */
static inline void sc_arena_on(struct sc_arena *a, int rank) { a->rank = rank; }
/* Changes whenever any arena of this process maps or unmaps a shared
 * block: a child forked before the change may not see every buffer. */
unsigned long sc_arena_shared_epoch(void);
/* Number of buffers whose guard bytes were overwritten. */
int sc_arena_guards_broken(const struct sc_arena *a);
/* 0 when b's guards are intact; else 1 (written past the end; *at is the
 * first changed byte's offset from the end) or -1 (before the start; *at is
 * how many bytes before it the nearest changed byte is). */
int sc_buf_guard_breach(const struct sc_buf *b, int64_t *at);

/* Elements of shape; INT64_MAX when the count overflows int64 (no buffer
 * holds such a shape: cases are bounded when they are made, a case file's
 * at 2^40 elements, and sc_tensor_empty refuses one). */
int64_t sc_shape_numel(const int64_t *shape, int ndim);
/* Row-major strides for shape. A stride past int64 reads INT64_MAX: only a
 * shape with a dim of 0 (no element is addressed) or one that overflows
 * (see sc_shape_numel) has one, so no arithmetic overflows here. */
void sc_contig_strides(const int64_t *shape, int ndim, int64_t *stride);
/* PyTorch's is_contiguous (size-1 dims' strides ignored; numel 0 true). */
int sc_tensor_is_contig(const struct sc_tensor *t);
int64_t sc_tensor_numel(const struct sc_tensor *t);

/* ATen computeStride: strides of a view of t with shape nshape, or 0 when
 * no view exists (returns 1 and fills nstride when it does). */
int sc_view_strides(const struct sc_tensor *t, const int64_t *nshape, int nndim,
		    int64_t *nstride);

/* Memory format PyTorch suggests for t: 0 contiguous, 1 channels_last,
 * 2 channels_last_3d (used by cat's output format). */
int sc_tensor_suggest_format(const struct sc_tensor *t);

/* New contiguous tensor of shape; storage from the arena. Exceeding the
 * arena's per-case limit is SC_E_RUNTIME (the case fails), not SC_E_NOMEM. */
enum sc_status sc_tensor_empty(struct sc_arena *a, const int64_t *shape, int ndim,
			       unsigned esize, struct sc_tensor *out, struct sc_err *e);
/* Copy src's elements (any strides) into dst (any strides, same shape).
 * On device buffers this is one strided copy kernel; an error there is
 * sticky in the device memory (sc_devmem_status). */
void sc_tensor_copy(struct sc_tensor *dst, const struct sc_tensor *src);
/* Host-readable storage of t's buffer (index it as t->buf->data): the
 * buffer itself, or a fresh download of a device buffer (arena memory,
 * valid until the next reset); NULL when that fails. */
const unsigned char *sc_tensor_host(struct sc_arena *a, const struct sc_tensor *t);
/* sc_tensor_copy into a host tensor from src wherever it lives (a device
 * source is downloaded through the arena first). */
enum sc_status sc_tensor_copy_to_host(struct sc_arena *a, struct sc_tensor *dst, const struct sc_tensor *src,
				      struct sc_err *e);
/* t's view as a struct sc_strided (offsets in elements). */
struct sc_strided;
void sc_tensor_strided(const struct sc_tensor *t, struct sc_strided *out);
/* 1 when two contiguous host tensors of one shape and element size hold
 * the same bytes; 0 otherwise (a device or strided tensor included: the
 * caller then compares element by element). */
int sc_tensor_same_bytes(const struct sc_tensor *a, const struct sc_tensor *b);
/* Element pointer at a multi-index. */
unsigned char *sc_tensor_at(const struct sc_tensor *t, const int64_t *idx);

/* Row-major iteration over a view's element offsets. */
struct sc_iter {
	int ndim;
	int64_t off;
	int64_t idx[SC_MAX_DIMS];
	int64_t shape[SC_MAX_DIMS];
	int64_t stride[SC_MAX_DIMS];
};
void sc_iter_init(struct sc_iter *it, const int64_t *shape, const int64_t *stride,
		  int ndim, int64_t offset);
static inline void sc_iter_next(struct sc_iter *it)
{
	for (int d = it->ndim - 1; d >= 0; d--) {
		it->off += it->stride[d];
		if (++it->idx[d] < it->shape[d])
			return;
		it->off -= it->stride[d] * it->shape[d];
		it->idx[d] = 0;
	}
}

/* Run-wise iteration, for element loops: the view's dims merged first
 * (size-1 dims dropped, a dim folded into the one before it where that
 * steps exactly over it), so that idx[] is no longer the view's index
 * (sc_shape_unravel recovers it from the element's ordinal). Then
 * sc_iter_run elements from off on are sc_iter_step apart, and
 * sc_iter_skip moves past len (at most sc_iter_run) of them. */
void sc_iter_init_runs(struct sc_iter *it, const int64_t *shape, const int64_t *stride, int ndim, int64_t offset);
static inline int64_t sc_iter_run(const struct sc_iter *it)
{
	return it->ndim ? it->shape[it->ndim - 1] - it->idx[it->ndim - 1] : 1;
}
static inline int64_t sc_iter_step(const struct sc_iter *it) { return it->ndim ? it->stride[it->ndim - 1] : 0; }
static inline void sc_iter_skip(struct sc_iter *it, int64_t len)
{
	const int last = it->ndim - 1;
	if (last < 0)
		return;
	it->off += len * it->stride[last];
	if ((it->idx[last] += len) < it->shape[last])
		return;
	it->off -= it->stride[last] * it->shape[last];
	it->idx[last] = 0;
	for (int d = last - 1; d >= 0; d--) {
		it->off += it->stride[d];
		if (++it->idx[d] < it->shape[d])
			return;
		it->off -= it->stride[d] * it->shape[d];
		it->idx[d] = 0;
	}
}
/* Elements two run-wise iterators (of the same element count) can take
 * together from where they are. */
static inline int64_t sc_iter_run2(const struct sc_iter *a, const struct sc_iter *b)
{
	const int64_t x = sc_iter_run(a), y = sc_iter_run(b);
	return x < y ? x : y;
}
/* The row-major multi-index of element `flat` of shape. */
void sc_shape_unravel(const int64_t *shape, int ndim, int64_t flat, int64_t *idx);

/* Read/write one element's bits (esize 1, 2, 4 or 8). */
static inline uint64_t sc_load_bits(const unsigned char *p, unsigned esize)
{
	switch (esize) {
	case 1: return *p;
	case 2: return *(const uint16_t *)(const void *)p;
	case 4: return *(const uint32_t *)(const void *)p;
	default: return *(const uint64_t *)(const void *)p;
	}
}
static inline void sc_store_bits(unsigned char *p, unsigned esize, uint64_t v)
{
	switch (esize) {
	case 1: *p = (unsigned char)v; break;
	case 2: *(uint16_t *)(void *)p = (uint16_t)v; break;
	case 4: *(uint32_t *)(void *)p = (uint32_t)v; break;
	default: *(uint64_t *)(void *)p = v; break;
	}
}

/* "[2, 3, 4]" into buf. */
void sc_shape_format(const int64_t *shape, int ndim, char *buf, size_t n);

#endif
