/* sc_case: the case record's own helpers. */
#include "sc_case.h"

#include <stdio.h>

int64_t sc_case_numel(const struct sc_case *c)
{
	int64_t n = 1;
	for (int d = 0; d < c->ndims; d++)
		n *= c->sizes[d];
	return n;
}

const char *sc_case_param_text(const struct sc_case_param *p, char *tmp, size_t n)
{
	if (p->is_op)
		return sc_redop_name((enum sc_redop)p->value);
	snprintf(tmp, n, "%d", p->value);
	return tmp;
}
