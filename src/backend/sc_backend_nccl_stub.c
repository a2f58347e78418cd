/* sc_backend_nccl_stub: the nccl backend when NCCL (or CUDA) was not found
 * at build time. */
#include "sc_backend.h"

enum sc_status sc_backend_nccl_open(struct sc_backend **out, struct sc_err *e)
{
	*out = NULL;
	return SC_ERR(e, SC_E_UNAVAIL,
		      "backend 'nccl' is unavailable: not compiled into this build (needs the CUDA toolkit and NCCL; NCCL_HOME names its directory)");
}

int sc_backend_nccl_compiled(void) { return 0; }
