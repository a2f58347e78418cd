/* sc_tensor: arena, strided views and the ATen view/contiguity rules. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "sc_tensor.h"
#include "sc_devmem.h"
#include "sc_mix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A block of a chain. Data blocks of a shared arena are their own
 * MAP_SHARED mappings holding nothing but buffers and guards: the headers
 * (this struct, and every struct sc_buf, in the private meta chain) stay
 * out of reach of a plugin's child that writes past a buffer. */
struct sc_arena_block {
	struct sc_arena_block *next;
	size_t cap, used;
	int mapped;         /* mem is an mmap (shared arenas), else after this header */
	unsigned char *mem; /* 16-byte aligned */
};

static unsigned long shared_epoch;

unsigned long sc_arena_shared_epoch(void) { return shared_epoch; }

static void block_free(struct sc_arena_block *b)
{
	if (b && b->mapped) {
		munmap(b->mem, b->cap);
		shared_epoch++;
	}
	free(b);
}

/* Keeps the largest block only, so steady-state cases never allocate. */
static struct sc_arena_block *chain_reset(struct sc_arena_block *b)
{
	struct sc_arena_block *keep = NULL;
	while (b) {
		struct sc_arena_block *n = b->next;
		if (!keep || b->cap > keep->cap) {
			block_free(keep);
			keep = b;
		} else {
			block_free(b);
		}
		b = n;
	}
	if (keep) {
		keep->next = NULL;
		keep->used = 0;
	}
	return keep;
}

static void chain_free(struct sc_arena_block *b)
{
	while (b) {
		struct sc_arena_block *n = b->next;
		block_free(b);
		b = n;
	}
}

/* A fresh guard pattern per case: no fixed byte pattern written past a
 * buffer can leave its guards looking intact. */
static void new_guards(struct sc_arena *a)
{
	a->guard_salt = sc_mix64(a->guard_salt + 0x9e3779b97f4a7c15ULL);
	for (int k = 0; k < SC_GUARD_BYTES; k += 8) {
		const uint64_t v = sc_mix64(a->guard_salt + (uint64_t)k);
		memcpy(a->guard + k, &v, 8);
	}
}

void sc_arena_init(struct sc_arena *a)
{
	memset(a, 0, sizeof *a);
	new_guards(a);
}

void sc_arena_reset(struct sc_arena *a)
{
	a->head = chain_reset(a->head);
	a->meta = chain_reset(a->meta);
	if (a->dm)
		a->dm->ops->reset(a->dm);
	a->nbufs = 0;
	a->used_bytes = 0;
	a->over_limit = 0;
	new_guards(a);
}

void sc_arena_free(struct sc_arena *a)
{
	if (!a)
		return;
	if (a->dm)
		a->dm->ops->reset(a->dm);
	chain_free(a->head);
	chain_free(a->meta);
	free(a->bufs);
	memset(a, 0, sizeof *a);
}

static void *chain_grow(struct sc_arena_block **head, size_t n, int shared);

/* The bump of the current block, or a new block. */
static inline void *chain_alloc(struct sc_arena_block **head, size_t n, int shared)
{
	n = (n + 15) & ~(size_t)15;
	struct sc_arena_block *h = *head;
	if (h && h->mapped == shared && h->cap - h->used >= n) {
		void *p = h->mem + h->used;
		h->used += n;
		return p;
	}
	return chain_grow(head, n, shared);
}

static __attribute__((noinline)) void *chain_grow(struct sc_arena_block **head, size_t n, int shared)
{
	struct sc_arena_block *h = *head;
	if (h && h->mapped != shared && h->used == 0) {
		/* the sharing mode changed since this block was made */
		*head = h->next;
		block_free(h);
		h = *head;
	}
	if (!h || h->cap - h->used < n || h->mapped != shared) {
		size_t cap = 1u << 20;
		if (h && h->cap * 2 > cap)
			cap = h->cap * 2;
		while (cap < n)
			cap *= 2;
		struct sc_arena_block *b = malloc(sizeof *b + (shared ? 0 : cap + 15));
		if (!b)
			return NULL;
		if (shared) {
			b->mem = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
			if (b->mem == MAP_FAILED) {
				free(b);
				return NULL;
			}
			shared_epoch++;
		} else {
			b->mem = (unsigned char *)(((uintptr_t)(b + 1) + 15) & ~(uintptr_t)15);
		}
		b->mapped = shared;
		b->cap = cap;
		b->used = 0;
		b->next = h;
		*head = h = b;
	}
	void *p = h->mem + h->used;
	h->used += n;
	return p;
}

#define G8 SC_GUARD_BYTE, SC_GUARD_BYTE, SC_GUARD_BYTE, SC_GUARD_BYTE, SC_GUARD_BYTE, SC_GUARD_BYTE, \
	   SC_GUARD_BYTE, SC_GUARD_BYTE
static const unsigned char device_guard[SC_GUARD_BYTES] = {G8, G8, G8, G8};
_Static_assert(SC_GUARD_BYTES == 32, "device_guard's initializer");

struct sc_buf *sc_arena_buf(struct sc_arena *a, int64_t nelem, unsigned esize)
{
	if (nelem < 0)
		return NULL;
	const size_t limit = a->max_bytes ? a->max_bytes : SC_ARENA_DEFAULT_MAX;
	if ((uint64_t)nelem > (uint64_t)limit / esize || a->used_bytes + (size_t)nelem * esize > limit) {
		a->over_limit = 1;
		return NULL;
	}
	size_t bytes = (size_t)nelem * esize;
	a->used_bytes += bytes;
	struct sc_devmem *dm = a->use_dm ? a->dm : NULL;
	struct sc_buf *b = chain_alloc(&a->meta, sizeof *b, 0);
	if (!b)
		return NULL;
	unsigned char *raw;
	if (dm) {
		raw = dm->ops->alloc(dm, a->rank, bytes + 2 * SC_GUARD_BYTES);
		if (!raw)
			return NULL;
		sc_devmem_fail(dm, dm->ops->memset(dm, a->rank, raw, SC_GUARD_BYTE, SC_GUARD_BYTES), "memset", a->rank);
		sc_devmem_fail(dm, dm->ops->memset(dm, a->rank, raw + SC_GUARD_BYTES + bytes, SC_GUARD_BYTE, SC_GUARD_BYTES),
			       "memset", a->rank);
		if (a->poison)
			sc_devmem_fail(dm, dm->ops->memset(dm, a->rank, raw + SC_GUARD_BYTES, 0xFF, bytes), "memset", a->rank);
		b->guard = device_guard;
	} else {
		if (!(raw = chain_alloc(&a->head, bytes + 2 * SC_GUARD_BYTES, a->shared)))
			return NULL;
		memcpy(raw, a->guard, SC_GUARD_BYTES);
		memcpy(raw + SC_GUARD_BYTES + bytes, a->guard, SC_GUARD_BYTES);
		if (a->poison)
			memset(raw + SC_GUARD_BYTES, 0xFF, bytes);
		b->guard = a->guard;
	}
	b->data = raw + SC_GUARD_BYTES;
	b->nelem = nelem;
	b->esize = esize;
	b->dm = dm;
	b->rank = a->rank;
	if (a->nbufs == a->capbufs) {
		int nc = a->capbufs ? a->capbufs * 2 : 64;
		struct sc_buf **nb = realloc(a->bufs, (size_t)nc * sizeof *nb);
		if (!nb)
			return NULL;
		a->bufs = nb;
		a->capbufs = nc;
	}
	a->bufs[a->nbufs++] = b;
	return b;
}

int sc_buf_guard_breach(const struct sc_buf *b, int64_t *at)
{
	const unsigned char *lo = b->data - SC_GUARD_BYTES;
	const unsigned char *hi = b->data + (size_t)b->nelem * b->esize;
	unsigned char g[2][SC_GUARD_BYTES];
	if (b->dm) { /* device buffers: bring the guards over */
		if (b->dm->ops->sync(b->dm) || b->dm->ops->download(b->dm, g[0], lo, SC_GUARD_BYTES) ||
		    b->dm->ops->download(b->dm, g[1], hi, SC_GUARD_BYTES)) {
			*at = 0;
			return 1;
		}
		lo = g[0];
		hi = g[1];
	}
	if (memcmp(hi, b->guard, SC_GUARD_BYTES) == 0 && memcmp(lo, b->guard, SC_GUARD_BYTES) == 0)
		return 0; /* the common case: both intact */
	for (int k = 0; k < SC_GUARD_BYTES; k++)
		if (hi[k] != b->guard[k]) {
			*at = k;
			return 1;
		}
	for (int k = SC_GUARD_BYTES - 1; k >= 0; k--)
		if (lo[k] != b->guard[k]) {
			*at = SC_GUARD_BYTES - k;
			return -1;
		}
	return 0;
}

int sc_arena_guards_broken(const struct sc_arena *a)
{
	int broken = 0;
	int64_t at;
	for (int i = 0; i < a->nbufs; i++)
		broken += sc_buf_guard_breach(a->bufs[i], &at) != 0;
	return broken;
}

int64_t sc_shape_numel(const int64_t *shape, int ndim)
{
	int64_t n = 1;
	int over = 0, zero = 0;
	for (int i = 0; i < ndim; i++) {
		zero |= shape[i] == 0;
		over |= __builtin_mul_overflow(n, shape[i], &n);
	}
	return zero ? 0 : over ? INT64_MAX : n;
}

int64_t sc_tensor_numel(const struct sc_tensor *t)
{
	/* a tensor's elements lie in its storage, so the product fits: the
	 * hot path needs no overflow checks (sc_shape_numel has them) */
	int64_t n = 1;
	for (int i = 0; i < t->ndim; i++)
		n *= t->shape[i];
	return n;
}

void sc_contig_strides(const int64_t *shape, int ndim, int64_t *stride)
{
	int64_t s = 1;
	for (int d = ndim - 1; d >= 0; d--) {
		stride[d] = s;
		if (__builtin_mul_overflow(s, shape[d] > 1 ? shape[d] : 1, &s)) /* as ATen: max(size, 1) */
			s = INT64_MAX;
	}
}

int sc_tensor_is_contig(const struct sc_tensor *t)
{
	if (sc_tensor_numel(t) == 0)
		return 1;
	int64_t z = 1;
	for (int d = t->ndim - 1; d >= 0; d--) {
		if (t->shape[d] != 1) {
			if (t->stride[d] != z)
				return 0;
			z *= t->shape[d];
		}
	}
	return 1;
}

/* ATen's computeStride (aten/src/ATen/TensorUtils.cpp). */
int sc_view_strides(const struct sc_tensor *t, const int64_t *nshape, int nndim,
		    int64_t *nstride)
{
	const int64_t *oshape = t->shape, *ostride = t->stride;
	const int ondim = t->ndim;
	if (ondim == 0) {
		for (int i = 0; i < nndim; i++)
			nstride[i] = 1;
		return 1;
	}
	int64_t numel = sc_tensor_numel(t);
	if (numel == 0) {
		int same = ondim == nndim;
		for (int i = 0; same && i < ondim; i++)
			same = oshape[i] == nshape[i];
		if (same) {
			memcpy(nstride, ostride, sizeof(int64_t) * (size_t)nndim);
			return 1;
		}
		sc_contig_strides(nshape, nndim, nstride);
		return 1;
	}
	int view_d = nndim - 1;
	int64_t chunk_base_stride = ostride[ondim - 1];
	int64_t tensor_numel = 1, view_numel = 1;
	for (int tensor_d = ondim - 1; tensor_d >= 0; tensor_d--) {
		tensor_numel *= oshape[tensor_d];
		if (tensor_d == 0 ||
		    (oshape[tensor_d - 1] != 1 &&
		     ostride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
			while (view_d >= 0 &&
			       (view_numel < tensor_numel || nshape[view_d] == 1)) {
				nstride[view_d] = view_numel * chunk_base_stride;
				view_numel *= nshape[view_d];
				view_d--;
			}
			if (view_numel != tensor_numel)
				return 0;
			if (tensor_d > 0) {
				chunk_base_stride = ostride[tensor_d - 1];
				tensor_numel = 1;
				view_numel = 1;
			}
		}
	}
	return view_d == -1;
}

/* c10 is_channels_last_strides_2d_s4 / 3d_s5: order {1,3,2,0} / {1,4,3,2,0}. */
static int cl_strides(const struct sc_tensor *t, const int *order, int n)
{
	int64_t min = 0;
	if (t->stride[1] == 0)
		return 0;
	for (int i = 0; i < n; i++) {
		int d = order[i];
		if (t->shape[d] == 0)
			return 0;
		if (t->stride[d] < min)
			return 0;
		if (d == 0 && min == t->stride[1])
			return 0;
		min = t->stride[d];
		if (t->shape[d] > 1)
			min *= t->shape[d];
	}
	return 1;
}

int sc_tensor_suggest_format(const struct sc_tensor *t)
{
	static const int o4[] = {1, 3, 2, 0}, o5[] = {1, 4, 3, 2, 0};
	if (t->ndim == 4 && cl_strides(t, o4, 4))
		return 1;
	if (t->ndim == 5 && cl_strides(t, o5, 5))
		return 2;
	return 0;
}

enum sc_status sc_tensor_empty(struct sc_arena *a, const int64_t *shape, int ndim,
			       unsigned esize, struct sc_tensor *out, struct sc_err *e)
{
	int64_t n = 1;
	for (int i = 0; i < ndim; i++)
		if (__builtin_mul_overflow(n, shape[i], &n))
			n = INT64_MAX;
	struct sc_buf *b = sc_arena_buf(a, n, esize);
	if (!b && a->over_limit)
		return SC_ERR(e, SC_E_RUNTIME,
			      "a tensor of %lld elements would exceed the per-case memory limit (%zu MiB)",
			      (long long)n, (a->max_bytes ? a->max_bytes : SC_ARENA_DEFAULT_MAX) >> 20);
	if (!b)
		return SC_ERR(e, SC_E_NOMEM, "out of memory allocating a tensor");
	out->buf = b;
	out->offset = 0;
	out->ndim = ndim;
	memcpy(out->shape, shape, sizeof(int64_t) * (size_t)ndim);
	sc_contig_strides(shape, ndim, out->stride);
	return SC_OK;
}

unsigned char *sc_tensor_at(const struct sc_tensor *t, const int64_t *idx)
{
	int64_t off = t->offset;
	for (int d = 0; d < t->ndim; d++)
		off += idx[d] * t->stride[d];
	return t->buf->data + (size_t)off * t->buf->esize;
}

void sc_iter_init(struct sc_iter *it, const int64_t *shape, const int64_t *stride,
		  int ndim, int64_t offset)
{
	it->ndim = ndim;
	it->off = offset;
	for (int d = 0; d < ndim; d++) {
		it->idx[d] = 0;
		it->shape[d] = shape[d];
		it->stride[d] = stride[d];
	}
}

void sc_iter_init_runs(struct sc_iter *it, const int64_t *shape, const int64_t *stride, int ndim, int64_t offset)
{
	int n = 0;
	it->off = offset;
	for (int d = 0; d < ndim; d++) {
		if (shape[d] == 1)
			continue;
		if (n > 0 && it->shape[n - 1] != 0 && it->stride[n - 1] == shape[d] * stride[d]) {
			it->shape[n - 1] *= shape[d];
			it->stride[n - 1] = stride[d];
			continue;
		}
		it->idx[n] = 0;
		it->shape[n] = shape[d];
		it->stride[n] = stride[d];
		n++;
	}
	it->ndim = n;
}

int sc_tensor_same_bytes(const struct sc_tensor *a, const struct sc_tensor *b)
{
	if (a->buf->dm || b->buf->dm || a->buf->esize != b->buf->esize || a->ndim != b->ndim ||
	    !sc_tensor_is_contig(a) || !sc_tensor_is_contig(b))
		return 0;
	for (int d = 0; d < a->ndim; d++)
		if (a->shape[d] != b->shape[d])
			return 0;
	const size_t es = a->buf->esize;
	return memcmp(a->buf->data + (size_t)a->offset * es, b->buf->data + (size_t)b->offset * es,
		      (size_t)sc_tensor_numel(a) * es) == 0;
}

void sc_shape_unravel(const int64_t *shape, int ndim, int64_t flat, int64_t *idx)
{
	for (int d = ndim - 1; d >= 0; d--) {
		idx[d] = shape[d] ? flat % shape[d] : 0;
		flat = shape[d] ? flat / shape[d] : 0;
	}
}

struct sc_pair16 { /* 16-byte elements (compute runs' value and bound) */
	uint64_t lo, hi;
};

#define COPY_LOOP(T)                                                           \
	do {                                                                   \
		T *dp = (T *)(void *)dst->buf->data;                           \
		const T *sp = (const T *)(const void *)src->buf->data;        \
		for (int64_t r = 0; r < rows; r++) {                           \
			const T *s_ = sp + si.off;                             \
			T *d_ = dp + di.off;                                   \
			for (int64_t k = 0; k < inner; k++)                    \
				d_[k * dstr] = s_[k * sstr];                   \
			sc_iter_next(&si);                                     \
			sc_iter_next(&di);                                     \
		}                                                              \
	} while (0)

void sc_tensor_strided(const struct sc_tensor *t, struct sc_strided *out)
{
	out->ndim = t->ndim;
	out->offset = t->offset;
	for (int d = 0; d < t->ndim; d++) {
		out->shape[d] = t->shape[d];
		out->stride[d] = t->stride[d];
	}
}

const unsigned char *sc_tensor_host(struct sc_arena *a, const struct sc_tensor *t)
{
	struct sc_buf *b = t->buf;
	if (!b->dm)
		return b->data;
	const size_t bytes = (size_t)b->nelem * b->esize;
	unsigned char *h = chain_alloc(&a->meta, bytes ? bytes : 1, 0);
	if (!h || b->dm->ops->sync(b->dm) || b->dm->ops->download(b->dm, h, b->data, bytes))
		return NULL;
	return h;
}

enum sc_status sc_tensor_copy_to_host(struct sc_arena *a, struct sc_tensor *dst, const struct sc_tensor *src,
				      struct sc_err *e)
{
	if (!src->buf->dm) {
		sc_tensor_copy(dst, src);
		return SC_OK;
	}
	const unsigned char *h = sc_tensor_host(a, src);
	if (!h)
		return SC_ERR(e, SC_E_IO, "rank %d: downloading a device buffer failed", src->buf->rank);
	struct sc_buf hb = *src->buf;
	hb.data = (unsigned char *)h;
	hb.dm = NULL;
	struct sc_tensor s = *src;
	s.buf = &hb;
	sc_tensor_copy(dst, &s);
	return SC_OK;
}

/* Same shapes: the dims merged where both views are contiguous across
 * them, size-1 dims dropped; the merged shape and both strides, innermost
 * last. Returns the number of merged dims (0: one element). */
static int coalesce(const struct sc_tensor *dst, const struct sc_tensor *src, int64_t *shape, int64_t *ds,
		    int64_t *ss)
{
	int n = 0;
	for (int d = 0; d < src->ndim; d++) {
		if (src->shape[d] == 1)
			continue;
		if (n && ss[n - 1] == src->stride[d] * src->shape[d] && ds[n - 1] == dst->stride[d] * src->shape[d]) {
			shape[n - 1] *= src->shape[d];
			ss[n - 1] = src->stride[d];
			ds[n - 1] = dst->stride[d];
			continue;
		}
		shape[n] = src->shape[d];
		ss[n] = src->stride[d];
		ds[n] = dst->stride[d];
		n++;
	}
	return n;
}

/* The copy of two views of one shape whose innermost merged dim is
 * contiguous in both: memcpy of each run, an odometer over the rest. */
SC_ELEMENT_LOOP static int copy_runs(struct sc_tensor *dst, const struct sc_tensor *src)
{
	if (dst->ndim != src->ndim || dst->buf->esize != src->buf->esize)
		return 0;
	for (int d = 0; d < src->ndim; d++)
		if (dst->shape[d] != src->shape[d])
			return 0;
	int64_t shape[SC_MAX_DIMS], ds[SC_MAX_DIMS], ss[SC_MAX_DIMS], idx[SC_MAX_DIMS] = {0};
	const int n = coalesce(dst, src, shape, ds, ss);
	const size_t es = src->buf->esize;
	unsigned char *dp = dst->buf->data + (size_t)dst->offset * es;
	const unsigned char *sp = src->buf->data + (size_t)src->offset * es;
	if (n == 0) {
		memcpy(dp, sp, es);
		return 1;
	}
	if (ss[n - 1] != 1 || ds[n - 1] != 1)
		return 0;
	const size_t run = (size_t)shape[n - 1] * es;
	int64_t so = 0, dof = 0;
	for (;;) {
		memcpy(dp + (size_t)dof * es, sp + (size_t)so * es, run);
		int d = n - 2;
		for (; d >= 0; d--) {
			so += ss[d];
			dof += ds[d];
			if (++idx[d] < shape[d])
				break;
			so -= ss[d] * shape[d];
			dof -= ds[d] * shape[d];
			idx[d] = 0;
		}
		if (d < 0)
			return 1;
	}
}

/* Copies row by row: the outer dims are iterated, the last dim is a tight
 * strided loop; runs contiguous in both views are one memcpy each. */
SC_ELEMENT_LOOP void sc_tensor_copy(struct sc_tensor *dst, const struct sc_tensor *src)
{
	const int64_t n = sc_tensor_numel(src);
	if (n == 0)
		return;
	if (dst->buf->dm || src->buf->dm) { /* one kernel for the whole composed view */
		struct sc_devmem *dm = dst->buf->dm ? dst->buf->dm : src->buf->dm;
		if (dst->buf->dm != src->buf->dm) {
			sc_devmem_fail(dm, SC_DEVMEM_EMIXED, "copy", dst->buf->rank);
			return;
		}
		struct sc_strided dv, sv;
		sc_tensor_strided(dst, &dv);
		sc_tensor_strided(src, &sv);
		sc_devmem_fail(dm, dm->ops->copy(dm, dst->buf->rank, dst->buf->data, &dv, src->buf->data, &sv, n,
						 dst->buf->esize), "copy", dst->buf->rank);
		return;
	}
	if (copy_runs(dst, src))
		return;
	const int nd = src->ndim;
	struct sc_iter si, di;
	const int64_t inner = nd ? src->shape[nd - 1] : 1;
	const int64_t sstr = nd ? src->stride[nd - 1] : 0;
	const int64_t dstr = dst->ndim ? dst->stride[dst->ndim - 1] : 0;
	const int64_t rows = n / inner;
	sc_iter_init(&si, src->shape, src->stride, nd ? nd - 1 : 0, src->offset);
	sc_iter_init(&di, dst->shape, dst->stride, dst->ndim ? dst->ndim - 1 : 0, dst->offset);
	switch (src->buf->esize) {
	case 1: COPY_LOOP(uint8_t); break;
	case 2: COPY_LOOP(uint16_t); break;
	case 4: COPY_LOOP(uint32_t); break;
	case 16: COPY_LOOP(struct sc_pair16); break;
	default: COPY_LOOP(uint64_t); break;
	}
}

void sc_shape_format(const int64_t *shape, int ndim, char *buf, size_t n)
{
	size_t k = 0;
	k += (size_t)snprintf(buf + k, n - k, "[");
	for (int i = 0; i < ndim && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "",
				      (long long)shape[i]);
	if (k < n)
		snprintf(buf + k, n - k, "]");
}
