/* sc_backend_mpi_stub: the `mpi` backend of a build without Open MPI. */
#include "sc_backend.h"

int sc_backend_mpi_available(void) { return 0; }

enum sc_status sc_backend_mpi_open(struct sc_backend **out, struct sc_err *e)
{
	*out = NULL;
	return SC_ERR(e, SC_E_UNAVAIL,
		      "backend 'mpi' is unavailable: this build has no Open MPI "
		      "(apt-get install openmpi-bin libopenmpi-dev, then rebuild)");
}
