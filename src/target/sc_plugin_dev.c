/* sc_plugin_dev: a device-memory call of a plugin's transform (see the
 * header). */
#include "sc_plugin_dev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sc_tensor.h"

int sc_plugin_dev_kind(const struct sc_backend *be, unsigned memory, char *why, size_t n)
{
	const unsigned known = SC_PLUGIN_MEMORY_HOST | SC_PLUGIN_MEMORY_DEVICE;
	if (memory & ~known) {
		snprintf(why, n, "its memory set 0x%x has bits no shardcheck knows (host 0x%x, device 0x%x)", memory,
			 SC_PLUGIN_MEMORY_HOST, SC_PLUGIN_MEMORY_DEVICE);
		return -1;
	}
	const int device = (memory & SC_PLUGIN_MEMORY_DEVICE) != 0, host = memory == 0 || (memory & SC_PLUGIN_MEMORY_HOST);
	const int has = sc_backend_devmem((struct sc_backend *)be) != NULL;
	if (!has) {
		if (host)
			return SC_PLUGIN_DEV_NONE;
		snprintf(why, n, "it accepts device memory only, which %s has not (cuda has the visible GPUs; emu has "
			 "emulated device memory, for transforms that move data only through the collectives table)",
			 be->ops->name);
		return -1;
	}
	if (!device)
		return SC_PLUGIN_DEV_NONE;
	if (strcmp(be->ops->name, "emu") == 0)
		return SC_PLUGIN_DEV_EMU;
	if (strcmp(be->ops->name, "cuda") == 0) {
		if (!sc_devmem_cuda_live())
			return SC_PLUGIN_DEV_CUDA;
		snprintf(why, n, "it accepts device memory, and this process has used the GPU already (spec targets ran "
			 "on cuda earlier in this run): a process forked from it cannot use CUDA, so its ranks cannot "
			 "get a GPU of their own; check device transforms in a run without spec targets (shardcheck gate)");
		return -1;
	}
	if (host)
		return SC_PLUGIN_DEV_NONE; /* staged through the host, as a host-only transform */
	snprintf(why, n, "it accepts device memory only; on %s a plugin's ranks get host memory in this version: "
		 "gate it with --backend cuda, which puts its ranks' buffers and streams on the visible GPUs",
		 be->ops->name);
	return -1;
}

const char *sc_plugin_dev_staged(const struct sc_backend *be)
{
	return sc_backend_devmem((struct sc_backend *)be) ? " (transforms that do not accept device memory)" : NULL;
}

/* Bytes of address space this process has mapped (0 when unknown). */
static size_t mapped(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long pages = 0;
	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	const long pg = sysconf(_SC_PAGESIZE);
	return (size_t)pages * (size_t)(pg > 0 ? pg : 4096);
}

/* Under compute-sanitizer: buffers without guard zones (see the header). */
static int sanitized;

struct sc_devmem *sc_plugin_dev_open(enum sc_plugin_dev_kind kind, char *why, size_t n)
{
	static struct sc_devmem *dm[3];
	if (kind <= SC_PLUGIN_DEV_NONE || kind > SC_PLUGIN_DEV_CUDA) {
		snprintf(why, n, "no device memory of kind %d", (int)kind);
		return NULL;
	}
	if (dm[kind])
		return dm[kind];
	struct sc_err e;
	int ndev = 0;
	/* under the child's address-space limit (--plugin-memory) emu's two
	 * views take an eighth each of what is left of it */
	struct rlimit rl;
	size_t span = (size_t)1 << 40;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		const size_t used = mapped(), left = rl.rlim_cur > used ? (size_t)rl.rlim_cur - used : 0;
		span = left / 8 > ((size_t)16 << 20) ? left / 8 : (size_t)16 << 20;
	}
	const enum sc_status st = kind == SC_PLUGIN_DEV_EMU ? sc_devmem_emu_open_span(&dm[kind], span, &e)
							     : sc_devmem_cuda_open(&dm[kind], 0, &ndev, &e);
	if (st != SC_OK) {
		snprintf(why, n, "cannot open device memory in the plugin's process: %.200s", e.msg);
		dm[kind] = NULL;
	} else if (kind == SC_PLUGIN_DEV_CUDA) {
		const char *v = getenv(SC_PLUGIN_DEV_SANITIZED_ENV);
		if ((sanitized = v && *v == '1'))
			sc_devmem_cuda_exact(dm[kind]);
	}
	return dm[kind];
}

static size_t bytes_of(const struct sc_plugin_tensor *t)
{
	size_t b = t->elem_size;
	for (int d = 0; d < t->ndim; d++)
		b *= (size_t)t->shape[d];
	return b;
}

/* Gives up a staging: the pending error cleared, the buffers freed. */
static int abandon(struct sc_devmem *dm)
{
	struct sc_err e;
	(void)sc_devmem_status(dm, 1, &e);
	dm->ops->reset(dm);
	return 1;
}

/* A device buffer of bytes with guard zones; its first byte, or NULL. */
static unsigned char *guarded(struct sc_devmem *dm, int rank, size_t bytes, int fill)
{
	const size_t g = sanitized ? 0 : SC_GUARD_BYTES;
	unsigned char *raw = dm->ops->alloc(dm, rank, bytes + 2 * g);
	if (!raw)
		return NULL;
	if ((g && sc_devmem_fail(dm, dm->ops->memset(dm, rank, raw, SC_GUARD_BYTE, g), "memset", rank)) ||
	    (g && sc_devmem_fail(dm, dm->ops->memset(dm, rank, raw + g + bytes, SC_GUARD_BYTE, g), "memset", rank)) ||
	    (fill >= 0 && bytes && sc_devmem_fail(dm, dm->ops->memset(dm, rank, raw + g, fill, bytes), "memset", rank)))
		return NULL;
	return raw + g;
}

int sc_plugin_dev_stage(struct sc_devmem *dm, struct sc_plugin_call *c, struct sc_plugin_native *native, int r,
			char *why, size_t n)
{
	const size_t bi = bytes_of(&c->input), bo = bytes_of(&c->output);
	unsigned char *in = guarded(dm, r, bi, -1), *out = in ? guarded(dm, r, bo, 0xFF) : NULL;
	if (!in || !out) {
		snprintf(why, n, "device memory: cannot allocate rank %d's %s (%zu bytes and guards)%s%.120s", r,
			 in ? "output" : "input", in ? bo : bi, dm->err ? ": " : "", dm->err ? dm->ops->strerror(dm, dm->err) : "");
		return abandon(dm);
	}
	if (bi && sc_devmem_fail(dm, dm->ops->upload(dm, in, c->input.data, bi), "upload", r)) {
		snprintf(why, n, "device memory: copying rank %d's input in failed: %.150s", r, dm->ops->strerror(dm, dm->err));
		return abandon(dm);
	}
	c->input.data = in;
	c->output.data = out;
	c->memory = SC_PLUGIN_DEVICE;
	native->size = sizeof *native;
	native->mpi_comm = NULL;
	native->nccl_comm = NULL;
	native->cuda_stream = NULL;
	if (strcmp(dm->ops->name, "emu") != 0) { /* the ABI hands a cudaStream_t* */
		static void *stream[SC_MAX_WORLD];
		int device;
		stream[r] = sc_devmem_cuda_stream(dm, r, &device);
		native->cuda_stream = &stream[r];
	}
	c->native = native;
	return 0;
}

int sc_plugin_dev_sync(struct sc_devmem *dm, char *why, size_t n)
{
	struct sc_err e;
	if (sc_devmem_status(dm, 1, &e) == SC_OK)
		return 0;
	const int cuda = strcmp(dm->ops->name, "cuda") == 0;
	snprintf(why, n, "%s error in the device work of the ranks: %.160s%s", cuda ? "CUDA" : "device", e.msg,
		 cuda ? " (the process and its CUDA context are replaced before the next case)" : "");
	return 1;
}

/* The first guard byte of buffer p (bytes long) that changed: 0 none, -1
 * before it (*at the distance), +1 after it (*at the offset past its end);
 * -2 when the guards could not be read. */
static int breach(struct sc_devmem *dm, const unsigned char *p, size_t bytes, size_t *at)
{
	unsigned char g[2][SC_GUARD_BYTES];
	if (sanitized) /* none: compute-sanitizer watches the bounds */
		return 0;
	if (dm->ops->download(dm, g[0], p - SC_GUARD_BYTES, SC_GUARD_BYTES) ||
	    dm->ops->download(dm, g[1], p + bytes, SC_GUARD_BYTES))
		return -2;
	for (int k = SC_GUARD_BYTES - 1; k >= 0; k--)
		if (g[0][k] != SC_GUARD_BYTE) {
			*at = (size_t)(SC_GUARD_BYTES - k);
			return -1;
		}
	for (int k = 0; k < SC_GUARD_BYTES; k++)
		if (g[1][k] != SC_GUARD_BYTE) {
			*at = (size_t)k;
			return 1;
		}
	return 0;
}

int sc_plugin_dev_return(struct sc_devmem *dm, const struct sc_plugin_call *c, const struct sc_plugin_call *host, int r,
			 char *why, size_t n)
{
	for (int k = 0; k < 2; k++) {
		const struct sc_plugin_tensor *t = k ? &c->output : &c->input;
		size_t at = 0;
		const int side = breach(dm, t->data, bytes_of(t), &at);
		if (side == -2) {
			snprintf(why, n, "device memory: reading rank %d's guard zones failed", r);
			return 1;
		}
		if (side) {
			snprintf(why, n, "rank %d wrote %s its %s in device memory (%zu bytes): first changed byte at %s%zu", r,
				 side > 0 ? "past the end of" : "before the start of", k ? "output" : "input", bytes_of(t),
				 side > 0 ? "+" : "-", at);
			return 1;
		}
	}
	for (int k = 0; k < 2; k++) {
		const struct sc_plugin_tensor *t = k ? &c->output : &c->input;
		const size_t b = bytes_of(t);
		if (b && dm->ops->download(dm, k ? host->output.data : host->input.data, t->data, b)) {
			snprintf(why, n, "device memory: copying rank %d's %s out failed", r, k ? "output" : "input");
			return 1;
		}
	}
	return 0;
}

void sc_plugin_dev_release(struct sc_devmem *dm)
{
	struct sc_err e;
	(void)sc_devmem_status(dm, 0, &e);
	dm->ops->reset(dm);
}
