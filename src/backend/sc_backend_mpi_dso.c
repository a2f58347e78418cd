/* sc_backend_mpi_dso: the `mpi` backend of a build with Open MPI, loaded
 * from libshardcheck_mpi.so on first use (sc_dso): the binary itself does
 * not need libmpi to start. */
#include "sc_backend.h"
#include "sc_dso.h"

static enum sc_status part(void **h, struct sc_err *e) { return sc_dso_load("libshardcheck_mpi.so", h, e); }

int sc_backend_mpi_available(void)
{
	void *h;
	if (part(&h, NULL) != SC_OK)
		return 0;
	int (*fn)(void) = (int (*)(void))sc_dso_sym(h, "sc_backend_mpi_available_impl");
	return fn ? fn() : 0;
}

enum sc_status sc_backend_mpi_open(struct sc_backend **out, struct sc_err *e)
{
	void *h;
	struct sc_err le;
	*out = NULL;
	if (part(&h, &le) != SC_OK)
		return SC_ERR(e, SC_E_UNAVAIL, "backend 'mpi' is unavailable: %s", le.msg);
	enum sc_status (*fn)(struct sc_backend **, struct sc_err *) =
		(enum sc_status (*)(struct sc_backend **, struct sc_err *))sc_dso_sym(h, "sc_backend_mpi_open_impl");
	if (!fn)
		return SC_ERR(e, SC_E_UNAVAIL, "backend 'mpi' is unavailable: libshardcheck_mpi.so lacks its entry point");
	return fn(out, e);
}
