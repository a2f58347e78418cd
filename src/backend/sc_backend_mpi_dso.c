/* sc_backend_mpi_dso: the `mpi` backend of a build with Open MPI, loaded
 * from libshardcheck_mpi.so on first use (sc_dso): the binary itself does
 * not need libmpi to start. */
#include "sc_backend.h"
#include "sc_dso.h"

int sc_backend_mpi_available(void)
{
	void *h;
	if (sc_dso_load("libshardcheck_mpi.so", &h, NULL) != SC_OK)
		return 0;
	int (*fn)(void) = (int (*)(void))sc_dso_sym(h, "sc_backend_mpi_available_impl");
	return fn ? fn() : 0;
}

enum sc_status sc_backend_mpi_open(struct sc_backend **out, struct sc_err *e)
{
	return sc_backend_open_part("mpi", "libshardcheck_mpi.so", "sc_backend_mpi_open_impl", out, e);
}
