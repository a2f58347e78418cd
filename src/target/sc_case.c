/* sc_case: case formatting and the target parameters of a case. */
#include "sc_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_target.h"

int sc_case_params(const struct sc_target *t, const struct sc_case *c, struct sc_case_param *out)
{
	if (t->kind != SC_TGT_BUILTIN)
		return 0;
	int n = 0;
	out[n++] = (struct sc_case_param){"dim", t->bi == SC_BI_ALL_TO_ALL ? "split" : "dim", 0, c->p0,
					  SC_PARAM_DIM, 0};
	if (t->bi == SC_BI_ALL_TO_ALL)
		out[n++] = (struct sc_case_param){"concat", "concat", 0, c->p1, SC_PARAM_OTHER_DIM, 0};
	if (t->bi == SC_BI_REDUCE_SCATTER || t->bi == SC_BI_ALL_REDUCE)
		out[n++] = (struct sc_case_param){"op", "op", 1, (int)c->op, SC_PARAM_OP, 0};
	return n;
}

int sc_case_ndims_range(const struct sc_target *t, int *lo, int *hi)
{
	if (t->kind != SC_TGT_BUILTIN)
		return 0;
	*lo = t->bi == SC_BI_ALL_TO_ALL ? 2 : 1;
	*hi = 6;
	return 1;
}

enum sc_status sc_case_param_set(const struct sc_target *t, struct sc_case *c, const char *key,
				 const char *value)
{
	if (t->kind != SC_TGT_BUILTIN)
		return SC_E_USAGE;
	if (strcmp(key, "dim") == 0)
		c->p0 = atoi(value);
	else if (strcmp(key, "concat") == 0)
		c->p1 = atoi(value);
	else if (strcmp(key, "ndims") == 0)
		c->ndims = atoi(value);
	else if (strcmp(key, "op") == 0) {
		enum sc_redop op;
		if (sc_redop_parse(value, &op))
			return SC_E_SPEC;
		c->op = op;
	} else
		return SC_E_USAGE;
	return SC_OK;
}

int sc_case_param_required(const struct sc_target *t, const char *key)
{
	if (t->kind != SC_TGT_BUILTIN)
		return 0;
	return strcmp(key, "dim") == 0 || (strcmp(key, "concat") == 0 && t->bi == SC_BI_ALL_TO_ALL);
}

const char *sc_case_dim_name(struct sc_target *t, const struct sc_case *c, int d, char *tmp, size_t n)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	if (sc_target_specs(t, c, s, NULL) >= 1)
		return s[0]->dim[d];
	snprintf(tmp, n, "d%d", d);
	return tmp;
}

void sc_case_sizes_arg(struct sc_target *t, const struct sc_case *c, char *buf, size_t n)
{
	size_t k = 0;
	char tmp[16];
	buf[0] = '\0';
	for (int d = 0; d < c->ndims && k < n; d++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s=%lld", d ? "," : "",
				      sc_case_dim_name(t, c, d, tmp, sizeof tmp), (long long)c->sizes[d]);
}

void sc_case_format(struct sc_target *t, const struct sc_case *c, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "world=%d", c->world);
	char tmp[16];
	struct sc_case_param p[SC_CASE_MAX_PARAMS];
	const int np = sc_case_params(t, c, p);
	for (int i = 0; i < np && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, " %s=%s", p[i].label,
				      p[i].is_op ? sc_redop_name((enum sc_redop)p[i].value) : (snprintf(tmp, sizeof tmp, "%d", p[i].value), tmp));
	for (int d = 0; d < c->ndims && k < n; d++)
		k += (size_t)snprintf(buf + k, n - k, " %s=%lld", sc_case_dim_name(t, c, d, tmp, sizeof tmp),
				      (long long)c->sizes[d]);
	if (k < n)
		snprintf(buf + k, n - k, " dtype=%s seed=%llu", sc_dtype_name(c->dtype),
			 (unsigned long long)c->seed);
}
