/* sc_backend_nccl_dso: the `nccl` backend of a build with NCCL, loaded
 * from libshardcheck_nccl.so on first use (sc_dso): the binary itself does
 * not need libnccl or libcudart to start. */
#include "sc_backend.h"

int sc_backend_nccl_compiled(void) { return 1; }

enum sc_status sc_backend_nccl_open(struct sc_backend **out, struct sc_err *e)
{
	return sc_backend_open_part("nccl", "libshardcheck_nccl.so", "sc_backend_nccl_open_impl", out, e);
}
