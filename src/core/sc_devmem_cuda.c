/* sc_devmem_cuda: device memory on the visible GPUs.
 *
 * Opened deferred (the cuda backend), it makes no CUDA call in this
 * process until the first operation: the devices are counted in a child,
 * so that until a data run touches the GPU, the processes forked from this
 * one (a plugin's, which make CUDA contexts of their own) start from a
 * process without one, as CUDA requires of a fork.
 *
 * Rank r lives on device (base + r) % ndevices, with one non-blocking
 * stream per device; everything a rank does is queued on its device's
 * stream, so a rank's operations run in order without host waits. A copy
 * between devices waits for the source device's stream (an event) and
 * goes as a peer copy on the destination's. Allocations are cached across
 * cases by size class (cudaMalloc per case would dominate small cases);
 * large ones are freed at each reset so a nightly job's big cases do not
 * pin memory. */
#include "sc_devmem.h"
#include "sc_cuda_kernels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#define CU_MAX_DEV 64
#define CU_CACHE_MAX ((size_t)256 << 20) /* allocations up to this size are cached */

struct cu_alloc {
	void *p;
	size_t cap;
	int dev;
};

struct cu {
	int ndev, base;
	int started;  /* the streams made (or tried: init_err) */
	int exact;    /* allocations of the bytes asked, none cached (sc_devmem_cuda_exact) */
	int init_err; /* why they could not be */
	cudaStream_t stream[CU_MAX_DEV];
	cudaEvent_t ev[CU_MAX_DEV];
	int used[CU_MAX_DEV];
	unsigned long long *scratch[CU_MAX_DEV]; /* check: count and first */
	struct cu_alloc *live, *cache;
	int nlive, caplive, ncache, capcache;
};

static struct cu *C(struct sc_devmem *dm) { return dm->impl; }

static int live; /* this process has made CUDA calls (a context) */

/* The streams and events of every device, made at the first operation;
 * 0 or the CUDA error that kept them from being made. */
static int start(struct cu *c)
{
	if (c->started)
		return c->init_err;
	c->started = 1;
	live = 1;
	cudaError_t err = cudaSuccess;
	for (int d = 0; d < c->ndev; d++) {
		if ((err = cudaSetDevice(d)) != cudaSuccess ||
		    (err = cudaStreamCreateWithFlags(&c->stream[d], cudaStreamNonBlocking)) != cudaSuccess ||
		    (err = cudaEventCreateWithFlags(&c->ev[d], cudaEventDisableTiming)) != cudaSuccess) {
			c->init_err = (int)err;
			c->ndev = d; /* the ones made are destroyed */
			return c->init_err;
		}
		for (int p = 0; p < c->ndev; p++) { /* peer copies go direct where the hardware allows */
			int ok = 0;
			if (p != d && cudaDeviceCanAccessPeer(&ok, d, p) == cudaSuccess && ok)
				cudaDeviceEnablePeerAccess(p, 0);
		}
		(void)cudaGetLastError(); /* "already enabled" is not an error */
	}
	return 0;
}
static int dev_of(struct cu *c, int rank) { return (c->base + (rank < 0 ? 0 : rank)) % c->ndev; }

static int push(struct cu_alloc **v, int *n, int *cap, struct cu_alloc a)
{
	if (*n == *cap) {
		int nc = *cap ? 2 * *cap : 64;
		struct cu_alloc *nv = realloc(*v, (size_t)nc * sizeof *nv);
		if (!nv)
			return -1;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = a;
	return 0;
}

static size_t size_class(size_t bytes)
{
	size_t c = 512;
	while (c < bytes && c < CU_CACHE_MAX)
		c *= 2;
	return bytes > CU_CACHE_MAX ? bytes : c;
}

static void *cu_alloc(struct sc_devmem *dm, int rank, size_t bytes)
{
	struct cu *c = C(dm);
	if (start(c))
		return NULL;
	const int dev = dev_of(c, rank);
	const size_t cap = c->exact ? (bytes ? bytes : 1) : size_class(bytes);
	for (int i = c->ncache - 1; i >= 0; i--)
		if (c->cache[i].dev == dev && c->cache[i].cap == cap) {
			struct cu_alloc a = c->cache[i];
			c->cache[i] = c->cache[--c->ncache];
			if (push(&c->live, &c->nlive, &c->caplive, a))
				return NULL;
			return a.p;
		}
	void *p = NULL;
	if (cudaSetDevice(dev) != cudaSuccess || cudaMalloc(&p, cap) != cudaSuccess) {
		(void)cudaGetLastError(); /* out of memory is not sticky */
		return NULL;
	}
	c->used[dev] = 1;
	if (push(&c->live, &c->nlive, &c->caplive, (struct cu_alloc){p, cap, dev})) {
		cudaFree(p);
		return NULL;
	}
	return p;
}

static int cu_sync(struct sc_devmem *dm)
{
	struct cu *c = C(dm);
	for (int d = 0; d < c->ndev; d++) {
		if (!c->used[d])
			continue;
		cudaError_t err = cudaStreamSynchronize(c->stream[d]);
		if (err != cudaSuccess)
			return (int)err;
	}
	return 0;
}

static void cu_reset(struct sc_devmem *dm)
{
	struct cu *c = C(dm);
	if (!c->nlive)
		return;
	cu_sync(dm); /* nothing may still use what is handed back */
	for (int i = 0; i < c->nlive; i++) {
		struct cu_alloc a = c->live[i];
		if (c->exact || a.cap > CU_CACHE_MAX || push(&c->cache, &c->ncache, &c->capcache, a)) {
			cudaSetDevice(a.dev);
			cudaFree(a.p);
		}
	}
	c->nlive = 0;
}

static void cu_destroy(struct sc_devmem *dm)
{
	struct cu *c = C(dm);
	cu_reset(dm);
	for (int i = 0; i < c->ncache; i++) {
		cudaSetDevice(c->cache[i].dev);
		cudaFree(c->cache[i].p);
	}
	for (int d = 0; c->started && d < c->ndev; d++) {
		cudaSetDevice(d);
		if (c->scratch[d])
			cudaFree(c->scratch[d]);
		cudaEventDestroy(c->ev[d]);
		cudaStreamDestroy(c->stream[d]);
	}
	free(c->live);
	free(c->cache);
	free(c);
	free(dm);
}

static int cu_is_device(struct sc_devmem *dm, const void *p)
{
	struct cu *c = C(dm);
	const char *q = p;
	for (int i = c->nlive - 1; i >= 0; i--)
		if (q >= (const char *)c->live[i].p && q < (const char *)c->live[i].p + c->live[i].cap)
			return 1;
	return 0;
}

/* Select rank's device; its stream. */
static cudaStream_t on(struct cu *c, int rank, int *err)
{
	const int dev = dev_of(c, rank);
	if ((*err = start(c)))
		return NULL;
	*err = (int)cudaSetDevice(dev);
	c->used[dev] = 1;
	return c->stream[dev];
}

static int cu_memset(struct sc_devmem *dm, int rank, void *p, int byte, size_t n)
{
	int err;
	cudaStream_t s = on(C(dm), rank, &err);
	return err ? err : (int)cudaMemsetAsync(p, byte, n, s);
}

static int cu_copy(struct sc_devmem *dm, int rank, void *dst, const struct sc_strided *dv, const void *src,
		   const struct sc_strided *sv, int64_t n, unsigned esize)
{
	int err;
	cudaStream_t s = on(C(dm), rank, &err);
	return err ? err : sc_cuda_copy(dst, dv, src, sv, n, esize, s);
}

static int cu_move(struct sc_devmem *dm, int dst_rank, void *dst, int src_rank, const void *src, size_t bytes)
{
	struct cu *c = C(dm);
	const int dd = dev_of(c, dst_rank), sd = dev_of(c, src_rank);
	int err;
	if (!bytes)
		return 0;
	if (dd == sd) {
		cudaStream_t s = on(c, dst_rank, &err);
		return err ? err : (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s);
	}
	/* the source's producers first: an event on its stream */
	on(c, src_rank, &err);
	if (!err)
		err = (int)cudaEventRecord(c->ev[sd], c->stream[sd]);
	cudaStream_t s = on(c, dst_rank, &err);
	if (!err)
		err = (int)cudaStreamWaitEvent(s, c->ev[sd], 0);
	return err ? err : (int)cudaMemcpyPeerAsync(dst, dd, src, sd, bytes, s);
}

static int cu_reduce(struct sc_devmem *dm, int rank, void *acc, const void *in, size_t count, enum sc_dtype dt,
		     enum sc_redop op)
{
	int err;
	cudaStream_t s = on(C(dm), rank, &err);
	return err ? err : sc_cuda_reduce(acc, in, count, (int)dt, (int)op, s);
}

static int cu_prov_merge(struct sc_devmem *dm, int rank, void *mx, const void *mn, size_t count)
{
	int err;
	cudaStream_t s = on(C(dm), rank, &err);
	return err ? err : sc_cuda_prov_merge(mx, mn, count, s);
}

static int cu_fill(struct sc_devmem *dm, int rank, void *dst, const struct sc_hd_fill *f, int64_t n)
{
	int err;
	cudaStream_t s = on(C(dm), rank, &err);
	return err ? err : sc_cuda_fill(dst, f, n, s);
}

/* The first kfirst wrong indices in row-major order: one counting pass,
 * then one pass per further index (only failing cases pay for them). */
static int cu_check(struct sc_devmem *dm, int rank, const void *out, const struct sc_strided *ov,
		    const struct sc_hd_fill *f, int64_t n, int64_t *wrong, struct sc_dev_mismatch *first,
		    int kfirst)
{
	struct cu *c = C(dm);
	const int dev = dev_of(c, rank);
	const unsigned es = sc_hd_fill_esize(f);
	int err;
	cudaStream_t s = on(c, rank, &err);
	*wrong = 0;
	if (err)
		return err;
	if (!c->scratch[dev] && (err = (int)cudaMalloc((void **)&c->scratch[dev], 2 * sizeof(unsigned long long))))
		return err;
	unsigned long long *d = c->scratch[dev];
	int64_t after = -1;
	for (int k = 0; k < (kfirst > 0 ? kfirst : 1); k++) {
		unsigned long long h[2] = {0, ~0ULL};
		if ((err = (int)cudaMemcpyAsync(d, h, sizeof h, cudaMemcpyHostToDevice, s)) ||
		    (err = sc_cuda_check(out, ov, f, n, after, d, d + 1, s)) ||
		    (err = (int)cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s)) ||
		    (err = (int)cudaStreamSynchronize(s)))
			return err;
		if (k == 0)
			*wrong = (int64_t)h[0];
		if (h[0] == 0 || kfirst <= 0)
			break;
		const int64_t i = (int64_t)h[1];
		uint64_t got = 0;
		const char *at = (const char *)out + sc_strided_offset(ov, i) * (int64_t)es;
		if ((err = (int)cudaMemcpy(&got, at, es, cudaMemcpyDeviceToHost)))
			return err;
		const uint64_t g = (uint64_t)sc_strided_offset(&f->xmap, i);
		first[k] = (struct sc_dev_mismatch){i, g, sc_hd_fill_bits(f, g), got};
		after = i;
	}
	return 0;
}

/* Host transfers run on the stream of the device buffer's GPU and are
 * waited for: that stream is nonblocking, so a plain cudaMemcpy (the legacy
 * default stream) would neither wait for the kernels still writing the
 * buffer nor, from pageable memory, have finished its copy when the next
 * kernel on the stream reads it. */
static int host_copy(struct cu *c, void *dst, const void *src, size_t bytes, const void *devp,
		     enum cudaMemcpyKind kind)
{
	struct cudaPointerAttributes a;
	int err;
	if (!bytes)
		return 0;
	if ((err = start(c)) || (err = (int)cudaPointerGetAttributes(&a, devp)) || a.device < 0 || a.device >= c->ndev)
		return err ? err : (int)cudaErrorInvalidDevicePointer;
	cudaStream_t s = on(c, (a.device - c->base + c->ndev) % c->ndev, &err);
	if (!err)
		err = (int)cudaMemcpyAsync(dst, src, bytes, kind, s);
	return err ? err : (int)cudaStreamSynchronize(s);
}

static int cu_download(struct sc_devmem *dm, void *host, const void *dev, size_t bytes)
{
	return host_copy(C(dm), host, dev, bytes, dev, cudaMemcpyDeviceToHost);
}

static int cu_upload(struct sc_devmem *dm, void *dev, const void *host, size_t bytes)
{
	return host_copy(C(dm), dev, host, bytes, dev, cudaMemcpyHostToDevice);
}

static void cu_enter(struct sc_devmem *dm, int rank)
{
	int err;
	(void)on(C(dm), rank, &err);
}

static const char *cu_strerror(struct sc_devmem *dm, int err)
{
	(void)dm;
	return cudaGetErrorString((cudaError_t)err);
}

static const struct sc_devmem_ops cu_ops = {
	.name = "cuda",
	.alloc = cu_alloc,
	.reset = cu_reset,
	.destroy = cu_destroy,
	.is_device = cu_is_device,
	.memset = cu_memset,
	.copy = cu_copy,
	.move = cu_move,
	.reduce = cu_reduce,
	.prov_merge = cu_prov_merge,
	.fill = cu_fill,
	.check = cu_check,
	.download = cu_download,
	.upload = cu_upload,
	.sync = cu_sync,
	.enter = cu_enter,
	.strerror = cu_strerror,
};

/* The visible devices, counted here, or in a child when this process has
 * made no CUDA call yet (and so stays without a context); cached. 0 with
 * the reason in why. */
static int count_devices(char *why, size_t n)
{
	static int counted, count;
	static char reason[200];
	if (counted || live) {
		if (!counted) {
			cudaError_t err = cudaGetDeviceCount(&count);
			if (err != cudaSuccess || count < 1)
				snprintf(reason, sizeof reason, "%s", err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
			counted = 1;
		}
		if (count < 1)
			snprintf(why, n, "%s", reason);
		return count < 1 ? 0 : count;
	}
	struct probe {
		int count;
		char reason[200];
	} m = {0, "the child that counts them failed"};
	int fd[2];
	pid_t pid = -1;
	if (pipe(fd) == 0 && (pid = fork()) == 0) { /* the child: CUDA's first call, then gone */
		struct probe r = {0, ""};
		cudaError_t err = cudaGetDeviceCount(&r.count);
		if (err != cudaSuccess || r.count < 1) {
			r.count = 0;
			snprintf(r.reason, sizeof r.reason, "%s", err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
		}
		ssize_t w = write(fd[1], &r, sizeof r);
		_exit(w == (ssize_t)sizeof r ? 0 : 1);
	}
	if (pid < 0) { /* no child: counted here, at the price of a context */
		live = 1;
		return count_devices(why, n);
	}
	close(fd[1]);
	size_t got = 0;
	while (got < sizeof m) {
		ssize_t k = read(fd[0], (char *)&m + got, sizeof m - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
	}
	if (got != sizeof m) {
		m.count = 0;
		snprintf(m.reason, sizeof m.reason, "the child that counts them ended without an answer");
	}
	count = m.count < 0 ? 0 : m.count;
	snprintf(reason, sizeof reason, "%.199s", m.reason);
	counted = 1;
	if (count < 1)
		snprintf(why, n, "%s", reason);
	return count;
}

enum sc_status sc_devmem_cuda_open_impl(struct sc_devmem **out, int device_base, int *ndevices, int deferred,
					struct sc_err *e)
{
	char why[200] = "";
	*out = NULL;
	*ndevices = 0;
	if (!deferred)
		live = 1; /* counted here */
	int n = count_devices(why, sizeof why);
	if (n < 1)
		return SC_ERR(e, SC_E_UNAVAIL, "no CUDA device is visible (cudaGetDeviceCount: %s)", why);
	if (n > CU_MAX_DEV)
		n = CU_MAX_DEV;
	struct sc_devmem *dm = calloc(1, sizeof *dm);
	struct cu *c = calloc(1, sizeof *c);
	if (!dm || !c) {
		free(dm);
		free(c);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	c->ndev = n;
	c->base = device_base < 0 ? 0 : device_base % n;
	if (!deferred && start(c)) {
		const int err = c->init_err;
		free(c);
		free(dm);
		return SC_ERR(e, SC_E_UNAVAIL, "CUDA: %s", cudaGetErrorString((cudaError_t)err));
	}
	dm->ops = &cu_ops;
	dm->impl = c;
	*out = dm;
	*ndevices = n;
	return SC_OK;
}

int sc_devmem_cuda_devices_impl(char *why, size_t n)
{
	char r[200] = "";
	const int count = count_devices(r, sizeof r);
	if (count < 1)
		snprintf(why, n, "compiled in, but no CUDA device is visible here (cudaGetDeviceCount: %s)", r);
	return count;
}

int sc_devmem_cuda_live_impl(void) { return live; }

void sc_devmem_cuda_exact_impl(struct sc_devmem *dm) { C(dm)->exact = 1; }

void *sc_devmem_cuda_stream_impl(struct sc_devmem *dm, int rank, int *device)
{
	struct cu *c = C(dm);
	*device = dev_of(c, rank);
	if (start(c)) {
		*device = -1;
		return NULL;
	}
	c->used[*device] = 1;
	return c->stream[*device];
}
