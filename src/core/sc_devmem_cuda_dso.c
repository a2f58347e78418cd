/* sc_devmem_cuda_dso: CUDA device memory in a build with the toolkit,
 * loaded from libshardcheck_cuda.so on first use (sc_dso): the binary
 * itself does not need libcudart to start. */
#include <stdio.h>

#include "sc_devmem.h"
#include "sc_dso.h"

static sc_dso_fn open_fn, devices_fn, stream_fn, live_fn, exact_fn;

/* An entry point of the part, kept once found (the stream's is on the
 * collectives' path). */
static sc_dso_fn sym(sc_dso_fn *keep, const char *name, struct sc_err *e)
{
	if (*keep)
		return *keep;
	void *h;
	if (sc_dso_load("libshardcheck_cuda.so", &h, e) != SC_OK)
		return NULL;
	sc_dso_fn f = sc_dso_sym(h, name);
	if (!f)
		SC_ERR(e, SC_E_UNAVAIL, "libshardcheck_cuda.so lacks %s", name);
	return *keep = f;
}

static enum sc_status open_part(struct sc_devmem **out, int device_base, int *ndevices, int deferred,
				struct sc_err *e)
{
	enum sc_status (*fn)(struct sc_devmem **, int, int *, int, struct sc_err *) =
		(enum sc_status (*)(struct sc_devmem **, int, int *, int, struct sc_err *))sym(&open_fn,
											     "sc_devmem_cuda_open_impl", e);
	*out = NULL;
	*ndevices = 0;
	return fn ? fn(out, device_base, ndevices, deferred, e) : SC_E_UNAVAIL;
}

enum sc_status sc_devmem_cuda_open(struct sc_devmem **out, int device_base, int *ndevices,
				   struct sc_err *e)
{
	return open_part(out, device_base, ndevices, 0, e);
}

enum sc_status sc_devmem_cuda_open_deferred(struct sc_devmem **out, int *ndevices, struct sc_err *e)
{
	return open_part(out, 0, ndevices, 1, e);
}

int sc_devmem_cuda_live(void)
{
	struct sc_err e;
	if (!open_fn && !devices_fn)
		return 0; /* the part is not loaded: no CUDA call was made */
	int (*fn)(void) = (int (*)(void))sym(&live_fn, "sc_devmem_cuda_live_impl", &e);
	return fn ? fn() : 0;
}

void sc_devmem_cuda_exact(struct sc_devmem *dm)
{
	struct sc_err e;
	void (*fn)(struct sc_devmem *) = (void (*)(struct sc_devmem *))sym(&exact_fn, "sc_devmem_cuda_exact_impl", &e);
	if (fn)
		fn(dm);
}

int sc_devmem_cuda_compiled(void) { return 1; }

int sc_devmem_cuda_devices(char *why, size_t n)
{
	struct sc_err e;
	int (*fn)(char *, size_t) = (int (*)(char *, size_t))sym(&devices_fn, "sc_devmem_cuda_devices_impl", &e);
	if (!fn) {
		snprintf(why, n, "%s", e.msg);
		return 0;
	}
	return fn(why, n);
}

void *sc_devmem_cuda_stream(struct sc_devmem *dm, int rank, int *device)
{
	void *(*fn)(struct sc_devmem *, int, int *) =
		(void *(*)(struct sc_devmem *, int, int *))sym(&stream_fn, "sc_devmem_cuda_stream_impl", NULL);
	*device = -1;
	return fn ? fn(dm, rank, device) : NULL;
}
