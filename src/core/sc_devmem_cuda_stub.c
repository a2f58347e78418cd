/* sc_devmem_cuda_stub: the CUDA device memory when the toolkit was not
 * found at build time. */
#include <stdio.h>

#include "sc_devmem.h"

enum sc_status sc_devmem_cuda_open(struct sc_devmem **out, int device_base, int *ndevices,
				   struct sc_err *e)
{
	(void)device_base;
	*out = NULL;
	*ndevices = 0;
	return SC_ERR(e, SC_E_UNAVAIL, "not compiled into this build (needs the CUDA toolkit: nvcc on the PATH)");
}

enum sc_status sc_devmem_cuda_open_deferred(struct sc_devmem **out, int *ndevices, struct sc_err *e)
{
	return sc_devmem_cuda_open(out, 0, ndevices, e);
}

int sc_devmem_cuda_live(void) { return 0; }

void sc_devmem_cuda_exact(struct sc_devmem *dm) { (void)dm; }

int sc_devmem_cuda_compiled(void) { return 0; }

int sc_devmem_cuda_devices(char *why, size_t n)
{
	snprintf(why, n, "not compiled into this build (needs the CUDA toolkit: nvcc on the PATH)");
	return 0;
}

void *sc_devmem_cuda_stream(struct sc_devmem *dm, int rank, int *device)
{
	(void)dm;
	(void)rank;
	*device = -1;
	return NULL;
}
