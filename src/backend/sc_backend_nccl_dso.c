/* sc_backend_nccl_dso: the `nccl` backend of a build with NCCL, loaded
 * from libshardcheck_nccl.so on first use (sc_dso): the binary itself does
 * not need libnccl or libcudart to start. */
#include "sc_backend.h"
#include "sc_dso.h"

int sc_backend_nccl_compiled(void) { return 1; }

enum sc_status sc_backend_nccl_open(struct sc_backend **out, struct sc_err *e)
{
	void *h;
	struct sc_err le;
	*out = NULL;
	if (sc_dso_load("libshardcheck_nccl.so", &h, &le) != SC_OK)
		return SC_ERR(e, SC_E_UNAVAIL, "backend 'nccl' is unavailable: %s", le.msg);
	enum sc_status (*fn)(struct sc_backend **, struct sc_err *) =
		(enum sc_status (*)(struct sc_backend **, struct sc_err *))sc_dso_sym(h, "sc_backend_nccl_open_impl");
	if (!fn)
		return SC_ERR(e, SC_E_UNAVAIL, "backend 'nccl' is unavailable: libshardcheck_nccl.so lacks its entry point");
	return fn(out, e);
}
