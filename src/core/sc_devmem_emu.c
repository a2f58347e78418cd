/* sc_devmem_emu: device memory emulated on the CPU, for testing the device
 * path where there is no GPU.
 *
 * Device memory is one memory file mapped twice, once: the device
 * pointers point into a PROT_NONE view, so host code that reads or writes
 * a device buffer directly faults at once, and the emulated kernels work
 * through a second, writable view of the same pages. Allocations are laid
 * end to end in the file (page-aligned) and a reset frees them all, so no
 * protection or mapping changes per operation or per allocation; the file
 * grows to a case's high-water mark and is emptied when that passes
 * EMU_KEEP. Every operation checks that its buffers belong
 * to the rank it runs on (a kernel on the wrong device) and that every
 * element it touches lies inside the allocation (what compute-sanitizer's
 * memcheck reports on a GPU). Element work goes through sc_hd.h and
 * sc_hd_dtype.h, the code the CUDA kernels run. */
#define _GNU_SOURCE /* memfd_create */
#include "sc_devmem.h"
#include "sc_limits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { EMU_E_RANGE = 1, EMU_E_RANK, EMU_E_NOTDEV };

#define EMU_SPAN ((size_t)1 << 40) /* address space of each view (the file is what is used) */
#define EMU_KEEP ((off_t)256 << 20) /* a file larger than this is emptied at reset */

struct emu_alloc {
	unsigned char *base; /* the device pointer, in the PROT_NONE view */
	size_t bytes, mapped;
	int rank;
};

struct emu {
	struct emu_alloc *a;
	int n, cap;
	size_t page;
	int fd;               /* the memory file */
	unsigned char *dev;   /* its PROT_NONE view: device pointers */
	unsigned char *kern;  /* its writable view: the kernels' */
	off_t used, size;     /* bytes allocated since the reset; the file's size */
	size_t span;          /* address space of each view */
};

/* Device pointer p in the kernels' view. */
static void *kview(const struct emu *m, const void *p)
{
	return m->kern + ((const unsigned char *)p - m->dev);
}

static struct emu *E(struct sc_devmem *dm) { return dm->impl; }

static struct emu_alloc *find(struct emu *m, const void *p)
{
	const unsigned char *q = p;
	for (int i = m->n - 1; i >= 0; i--)
		if (q >= m->a[i].base && q < m->a[i].base + m->a[i].bytes + (m->a[i].bytes == 0))
			return &m->a[i];
	return NULL;
}

static void *emu_alloc(struct sc_devmem *dm, int rank, size_t bytes)
{
	struct emu *m = E(dm);
	if (m->n == m->cap) {
		int nc = m->cap ? 2 * m->cap : 64;
		struct emu_alloc *na = realloc(m->a, (size_t)nc * sizeof *na);
		if (!na)
			return NULL;
		m->a = na;
		m->cap = nc;
	}
	size_t mapped = (bytes + m->page - 1) / m->page * m->page;
	if (!mapped)
		mapped = m->page;
	if ((size_t)m->used + mapped > m->span)
		return NULL;
	if (m->used + (off_t)mapped > m->size) { /* the file grows to the high-water mark */
		if (ftruncate(m->fd, m->used + (off_t)mapped) != 0)
			return NULL;
		m->size = m->used + (off_t)mapped;
	}
	unsigned char *p = m->dev + m->used;
	m->used += (off_t)mapped;
	m->a[m->n++] = (struct emu_alloc){p, bytes, mapped, rank};
	return p;
}

static void emu_reset(struct sc_devmem *dm)
{
	struct emu *m = E(dm);
	m->n = 0;
	m->used = 0;
	if (m->size > EMU_KEEP && ftruncate(m->fd, 0) == 0) /* a big case's pages go back */
		m->size = 0;
}

static void emu_destroy(struct sc_devmem *dm)
{
	struct emu *m = E(dm);
	munmap(m->dev, m->span);
	munmap(m->kern, m->span);
	close(m->fd);
	free(m->a);
	free(m);
	free(dm);
}

static int emu_is_device(struct sc_devmem *dm, const void *p) { return find(E(dm), p) != NULL; }

/* The allocation holding [p, p+bytes) on rank (any rank when rank < 0),
 * opened for access; *err says why not. */
static struct emu_alloc *open_span(struct emu *m, int rank, const void *p, size_t bytes, int *err)
{
	struct emu_alloc *a = find(m, p);
	if (!a) {
		*err = EMU_E_NOTDEV;
		return NULL;
	}
	if (rank >= 0 && a->rank != rank) {
		*err = EMU_E_RANK;
		return NULL;
	}
	if ((const unsigned char *)p + bytes > a->base + a->bytes) {
		*err = EMU_E_RANGE;
		return NULL;
	}
	return a;
}

static int emu_memset(struct sc_devmem *dm, int rank, void *p, int byte, size_t n)
{
	int err = 0;
	struct emu_alloc *a = open_span(E(dm), rank, p, n, &err);
	if (!a)
		return err;
	memset(kview(E(dm), p), byte, n);
	return 0;
}

/* Lowest and highest element offsets a view touches. */
static void view_span(const struct sc_strided *v, int64_t n, int64_t *lo, int64_t *hi)
{
	*lo = *hi = v->offset;
	if (n == 0)
		return;
	for (int d = 0; d < v->ndim; d++) {
		const int64_t ext = (v->shape[d] - 1) * v->stride[d];
		if (ext < 0)
			*lo += ext;
		else
			*hi += ext;
	}
}

static int open_view(struct emu *m, int rank, const void *base, const struct sc_strided *v, int64_t n,
		     unsigned es, struct emu_alloc **a)
{
	int64_t lo, hi;
	int err = 0;
	*a = NULL;
	if (n == 0)
		return 0;
	view_span(v, n, &lo, &hi);
	if (lo < 0 && !find(m, (const unsigned char *)base + lo * (int64_t)es))
		return EMU_E_RANGE;
	*a = open_span(m, rank, (const unsigned char *)base + lo * (int64_t)es, (size_t)(hi - lo + 1) * es, &err);
	return *a ? 0 : err;
}

/* The CUDA tiled-transpose kernel, thread by thread: a block's threads
 * (tx, ty) load the tile along K, then store it along L. */
static void tile_copy(void *dst, const void *src, const struct sc_tile_plan *p, unsigned es)
{
	unsigned char tile[SC_TILE][SC_TILE + 1][16];
	for (int64_t t = 0; t < p->ntiles; t++) {
		int64_t k0, l0, sb, db;
		sc_tile_origin(p, t, &k0, &l0, &sb, &db);
		for (int ty = 0; ty < SC_TILE_ROWS; ty++)
			for (int tx = 0; tx < SC_TILE; tx++)
				for (int j = 0; j < SC_TILE; j += SC_TILE_ROWS) {
					const int64_t k = k0 + tx, l = l0 + ty + j;
					if (k < p->nk && l < p->nl)
						memcpy(tile[ty + j][tx], (const unsigned char *)src + (sb + k + l * p->s_l) * (int64_t)es, es);
				}
		for (int ty = 0; ty < SC_TILE_ROWS; ty++)
			for (int tx = 0; tx < SC_TILE; tx++)
				for (int j = 0; j < SC_TILE; j += SC_TILE_ROWS) {
					const int64_t l = l0 + tx, k = k0 + ty + j;
					if (k < p->nk && l < p->nl)
						memcpy((unsigned char *)dst + (db + k * p->d_k + l) * (int64_t)es, tile[tx][ty + j], es);
				}
	}
}

static int emu_copy(struct sc_devmem *dm, int rank, void *dst, const struct sc_strided *dv, const void *src,
		    const struct sc_strided *sv, int64_t n, unsigned esize)
{
	struct emu *m = E(dm);
	struct emu_alloc *da = NULL, *sa = NULL;
	int err = open_view(m, rank, dst, dv, n, esize, &da);
	if (!err)
		err = open_view(m, rank, src, sv, n, esize, &sa);
	if (!err) {
		struct sc_strided d = *dv, s = *sv;
		struct sc_tile_plan p;
		sc_strided_coalesce2(&d, &s);
		const int64_t rows = n / d.shape[d.ndim - 1];
		esize = sc_strided_widen(&d, &s, esize); /* as the kernel does */
		n = rows * d.shape[d.ndim - 1];
		unsigned char *kd = n ? kview(E(dm), dst) : dst;
		const unsigned char *ks = n ? kview(E(dm), src) : src;
		if (sc_tile_plan_make(&d, &s, &p))
			tile_copy(kd, ks, &p, esize);
		else
			for (int64_t i = 0; i < n; i++)
				memcpy(kd + sc_strided_offset(&d, i) * (int64_t)esize,
				       ks + sc_strided_offset(&s, i) * (int64_t)esize, esize);
	}
	return err;
}

static int emu_move(struct sc_devmem *dm, int dst_rank, void *dst, int src_rank, const void *src, size_t bytes)
{
	struct emu *m = E(dm);
	int err = 0;
	struct emu_alloc *da = open_span(m, dst_rank, dst, bytes, &err), *sa = NULL;
	if (da)
		sa = open_span(m, src_rank, src, bytes, &err);
	if (da && sa)
		memmove(kview(E(dm), dst), kview(E(dm), src), bytes);
	return err;
}

static uint64_t load(const unsigned char *p, unsigned es)
{
	uint64_t v = 0;
	memcpy(&v, p, es); /* little-endian: the low bytes */
	return v;
}

static int emu_reduce(struct sc_devmem *dm, int rank, void *acc, const void *in, size_t count, enum sc_dtype dt,
		      enum sc_redop op)
{
	struct emu *m = E(dm);
	const unsigned es = sc_hd_dtype_size((int)dt);
	int err = 0;
	struct emu_alloc *aa = open_span(m, rank, acc, count * es, &err), *ia = NULL;
	if (aa)
		ia = open_span(m, rank, in, count * es, &err);
	if (aa && ia) {
		unsigned char *ka = kview(E(dm), acc);
		const unsigned char *ki = kview(E(dm), in);
		for (size_t i = 0; i < count; i++) {
			uint64_t r = sc_hd_reduce1((int)dt, (int)op, load(ka + i * es, es), load(ki + i * es, es));
			memcpy(ka + i * es, &r, es);
		}
	}
	return err;
}

static int emu_prov_merge(struct sc_devmem *dm, int rank, void *mx, const void *mn, size_t count)
{
	struct emu *m = E(dm);
	int err = 0;
	struct emu_alloc *xa = open_span(m, rank, mx, count * 8, &err), *na = NULL;
	if (xa)
		na = open_span(m, rank, mn, count * 8, &err);
	if (xa && na) {
		uint64_t *kx = kview(E(dm), mx);
		const uint64_t *kn = kview(E(dm), mn);
		for (size_t i = 0; i < count; i++)
			if (kx[i] != kn[i])
				kx[i] = SC_PROV_MIXED;
	}
	return err;
}

static int emu_fill(struct sc_devmem *dm, int rank, void *dst, const struct sc_hd_fill *f, int64_t n)
{
	const unsigned es = sc_hd_fill_esize(f);
	int err = 0;
	struct emu_alloc *a = open_span(E(dm), rank, dst, (size_t)n * es, &err);
	if (!a)
		return err;
	unsigned char *kd = kview(E(dm), dst);
	for (int64_t i = 0; i < n; i++) {
		uint64_t v = sc_hd_fill_bits(f, (uint64_t)sc_strided_offset(&f->xmap, i));
		memcpy(kd + i * (int64_t)es, &v, es);
	}
	return 0;
}

static int emu_check(struct sc_devmem *dm, int rank, const void *out, const struct sc_strided *ov,
		     const struct sc_hd_fill *f, int64_t n, int64_t *wrong, struct sc_dev_mismatch *first,
		     int kfirst)
{
	const unsigned es = sc_hd_fill_esize(f);
	struct emu_alloc *a = NULL;
	int err = open_view(E(dm), rank, out, ov, n, es, &a);
	*wrong = 0;
	if (err)
		return err;
	const unsigned char *ko = n ? kview(E(dm), out) : out;
	for (int64_t i = 0; i < n; i++) {
		const uint64_t g = (uint64_t)sc_strided_offset(&f->xmap, i);
		const uint64_t want = sc_hd_fill_bits(f, g);
		const uint64_t got = load(ko + sc_strided_offset(ov, i) * (int64_t)es, es);
		if (got != want) {
			if (*wrong < kfirst)
				first[*wrong] = (struct sc_dev_mismatch){i, g, want, got};
			++*wrong;
		}
	}
	return 0;
}

static int emu_download(struct sc_devmem *dm, void *host, const void *dev, size_t bytes)
{
	int err = 0;
	struct emu_alloc *a = open_span(E(dm), -1, dev, bytes, &err);
	if (!a)
		return err;
	memcpy(host, kview(E(dm), dev), bytes);
	return 0;
}

static int emu_upload(struct sc_devmem *dm, void *dev, const void *host, size_t bytes)
{
	int err = 0;
	struct emu_alloc *a = open_span(E(dm), -1, dev, bytes, &err);
	if (!a)
		return err;
	memcpy(kview(E(dm), dev), host, bytes);
	return 0;
}

static int emu_sync(struct sc_devmem *dm)
{
	(void)dm;
	return 0;
}

static const char *emu_strerror(struct sc_devmem *dm, int err)
{
	(void)dm;
	switch (err) {
	case EMU_E_RANGE: return "an access outside the allocation (out of bounds)";
	case EMU_E_RANK: return "a buffer of another rank (a kernel on the wrong device)";
	case EMU_E_NOTDEV: return "not a device pointer";
	default: return "unknown error";
	}
}

static const struct sc_devmem_ops emu_ops = {
	.name = "emu",
	.alloc = emu_alloc,
	.reset = emu_reset,
	.destroy = emu_destroy,
	.is_device = emu_is_device,
	.memset = emu_memset,
	.copy = emu_copy,
	.move = emu_move,
	.reduce = emu_reduce,
	.prov_merge = emu_prov_merge,
	.fill = emu_fill,
	.check = emu_check,
	.download = emu_download,
	.upload = emu_upload,
	.sync = emu_sync,
	.strerror = emu_strerror,
};

enum sc_status sc_devmem_emu_open(struct sc_devmem **out, struct sc_err *e)
{
	return sc_devmem_emu_open_span(out, EMU_SPAN, e);
}

enum sc_status sc_devmem_emu_open_span(struct sc_devmem **out, size_t span, struct sc_err *e)
{
	struct sc_devmem *dm = calloc(1, sizeof *dm);
	struct emu *m = calloc(1, sizeof *m);
	if (!dm || !m) {
		free(dm);
		free(m);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	long pg = sysconf(_SC_PAGESIZE);
	m->page = pg > 0 ? (size_t)pg : 4096;
	m->span = span < EMU_SPAN ? (span + m->page - 1) / m->page * m->page : EMU_SPAN;
	m->fd = memfd_create("shardcheck-emu", MFD_CLOEXEC);
	m->dev = m->kern = MAP_FAILED;
	if (m->fd >= 0) {
		m->dev = mmap(NULL, m->span, PROT_NONE, MAP_SHARED | MAP_NORESERVE, m->fd, 0);
		m->kern = mmap(NULL, m->span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, m->fd, 0);
	}
	if (m->fd < 0 || m->dev == MAP_FAILED || m->kern == MAP_FAILED) {
		const int err = errno;
		if (m->dev != MAP_FAILED)
			munmap(m->dev, m->span);
		if (m->kern != MAP_FAILED)
			munmap(m->kern, m->span);
		if (m->fd >= 0)
			close(m->fd);
		free(dm);
		free(m);
		return SC_ERR(e, SC_E_UNAVAIL, "emu: cannot map its device memory: %s", strerror(err));
	}
	dm->ops = &emu_ops;
	dm->impl = m;
	*out = dm;
	return SC_OK;
}
