/* sc_devmem: sticky device errors, shared by every device memory. */
#include "sc_devmem.h"

#include <stdio.h>

int sc_devmem_fail(struct sc_devmem *dm, int err, const char *call, int rank)
{
	if (err && dm && !dm->err) {
		dm->err = err;
		if (rank < 0)
			snprintf(dm->where, sizeof dm->where, "%s", call);
		else
			snprintf(dm->where, sizeof dm->where, "%s (rank %d)", call, rank);
	}
	return err;
}

enum sc_status sc_devmem_status(struct sc_devmem *dm, int sync, struct sc_err *e)
{
	if (!dm)
		return SC_OK;
	if (sync && !dm->err)
		sc_devmem_fail(dm, dm->ops->sync(dm), "synchronize", -1);
	if (!dm->err)
		return SC_OK;
	const int err = dm->err;
	dm->err = 0;
	if (err == SC_DEVMEM_EMIXED)
		return SC_ERR(e, SC_E_INTERNAL, "%s: %s: a copy between host and device buffers", dm->ops->name,
			      dm->where);
	return SC_ERR(e, SC_E_INTERNAL, "%s: %s: %s", dm->ops->name, dm->where, dm->ops->strerror(dm, err));
}

void sc_devmem_close(struct sc_devmem *dm)
{
	if (dm)
		dm->ops->destroy(dm);
}
