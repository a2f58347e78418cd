/* sc_target: the target interface: what every kind shares, and the
 * questions above this layer ask (answered by the kind's ops, with the
 * defaults sc_target.h states). */
#include "sc_target.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sc_devmem.h"

void sc_target_free(struct sc_target *t)
{
	if (!t)
		return;
	if (t->ops && t->ops->free)
		t->ops->free(t);
	free(t->earlier);
	free(t->batch.mem);
	memset(t, 0, sizeof *t);
}

enum sc_status sc_target_specs(struct sc_target *t, const struct sc_case *c, const struct sc_spec **out,
			       int *n, struct sc_err *e)
{
	int k = 0;
	SC_CHECK(t->ops->specs(t, c, out, &k, e));
	*n = k;
	return SC_OK;
}

const struct sc_spec *sc_target_fixed_spec(const struct sc_target *t, int last)
{
	if (t->nchain)
		return t->chain[last ? t->nchain - 1 : 0];
	return t->spec;
}

const struct sc_spec *sc_target_mesh_spec(struct sc_target *t)
{
	if (t->mesh_tpl_known)
		return t->mesh_tpl;
	const struct sc_spec *s = sc_target_fixed_spec(t, 0);
	int lo, hi;
	if (!s && sc_target_ndims_range(t, &lo, &hi)) {
		/* a built-in: its smallest case's spec (every case has its mesh) */
		struct sc_case c;
		memset(&c, 0, sizeof c);
		c.ndims = lo;
		struct sc_case_param p[SC_CASE_MAX_PARAMS];
		const int np = sc_target_params(t, &c, p);
		for (int i = 0; i < np; i++)
			sc_target_param_put(t, &c, i, p[i].kind == SC_PARAM_OTHER_DIM ? 1 : 0);
		const struct sc_spec *one[SC_MAX_CHAIN];
		int n;
		if (sc_target_specs(t, &c, one, &n, NULL) == SC_OK)
			s = one[0];
	}
	t->mesh_tpl = s && s->nmesh ? s : NULL;
	t->mesh_tpl_known = 1;
	return t->mesh_tpl;
}

int sc_target_has_reduction(struct sc_target *t, const struct sc_case *c)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int n;
	if (sc_target_specs(t, c, s, &n, NULL) != SC_OK)
		return 0;
	for (int i = 0; i < n; i++)
		if (s[i]->has_reduction)
			return 1;
	return 0;
}

enum sc_status sc_target_run(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
			     struct sc_err *e)
{
	if (t->ops->run) {
		SC_CHECK(t->ops->run(t, c, x, e));
	} else {
		const struct sc_spec *s[SC_MAX_CHAIN];
		int n;
		SC_CHECK(sc_target_specs(t, c, s, &n, e));
		for (int i = 0; i < n; i++)
			SC_CHECK(sc_exec_spec(x, s[i], c->sizes, e));
	}
	if (x->arena->use_dm)
		SC_CHECK(sc_devmem_status(x->arena->dm, 1, e));
	if (t->fault)
		t->fault(x, c, x->prov, t->fault_ctx);
	return SC_OK;
}

enum sc_status sc_target_run_each(struct sc_target *t, const struct sc_case *c, const int *prov, struct sc_exec *x,
				  struct sc_tensor *const *io, int n, int *failed, struct sc_err *e)
{
	const size_t bytes = sizeof x->t[0] * (size_t)x->nlocal;
	for (int k = 0; k < n; k++) {
		memcpy(x->t, io[k], bytes);
		x->dtype = c[k].dtype;
		x->prov = prov[k];
		const enum sc_status st = sc_target_run(t, &c[k], x, e);
		if (st != SC_OK) {
			*failed = k;
			return st;
		}
		memcpy(io[k], x->t, bytes);
	}
	return SC_OK;
}

int sc_target_batch(const struct sc_target *t)
{
	return (t->ops->flags & SC_TARGET_BATCH) && t->ops->batch_start && !t->fresh ? SC_TARGET_BATCH_MAX : 1;
}

void sc_target_batch_settle(struct sc_target *t)
{
	if (!t)
		return;
	if (t->batch.async && t->ops->batch_settle)
		t->ops->batch_settle(t);
	t->batch.async = 0;
	t->batch.n = 0;
}

void sc_target_batch_start(struct sc_target *t, const struct sc_case *c, const int *prov, struct sc_exec *x,
			   struct sc_tensor *const *io, int n)
{
	struct sc_target_batch *b = &t->batch;
	sc_target_batch_settle(t);
	void *mem = b->mem;
	memset(b, 0, sizeof *b);
	*b = (struct sc_target_batch){.c = c, .prov = prov, .x = x, .io = io, .n = n, .failed = n, .mem = mem};
	b->hook_here = n > 1 && sc_target_batch(t) >= n; /* (a kind that runs them one by one says so) */
	if (b->hook_here)
		b->st = t->ops->batch_start(t, &b->failed, &b->err);
	else
		b->st = sc_target_run_each(t, c, prov, x, io, n, &b->failed, &b->err);
	if (!b->async && b->st == SC_OK)
		b->failed = n;
}

/* The fault hook on variants up to k (those it has not seen). */
static void hook(struct sc_target *t, int k)
{
	struct sc_target_batch *b = &t->batch;
	struct sc_exec *x = b->x;
	const size_t bytes = sizeof x->t[0] * (size_t)x->nlocal;
	for (; t->fault && b->hooked <= k; b->hooked++) {
		const int v = b->hooked;
		memcpy(x->t, b->io[v], bytes);
		x->dtype = b->c[v].dtype;
		x->prov = b->prov[v];
		t->fault(x, &b->c[v], x->prov, t->fault_ctx);
		memcpy(b->io[v], x->t, bytes);
	}
}

enum sc_status sc_target_batch_wait(struct sc_target *t, int k, int *failed, struct sc_err *e)
{
	struct sc_target_batch *b = &t->batch;
	*failed = 0;
	if (k < 0 || k >= b->n)
		return SC_ERR(e, SC_E_INTERNAL, "variant %d of a batch of %d asked for", k, b->n);
	if (b->async) {
		const enum sc_status st = t->ops->batch_wait(t, k, failed, e);
		if (st == SC_OK)
			hook(t, k);
		return st;
	}
	if (k < b->failed) {
		if (b->hook_here)
			hook(t, k);
		return SC_OK;
	}
	*failed = b->failed;
	*e = b->err;
	return b->st;
}

enum sc_status sc_target_run_inverse(struct sc_target *t, const struct sc_case *c, struct sc_exec *x,
				     struct sc_err *e)
{
	if (!t->ops->run_inverse)
		return SC_ERR(e, SC_E_USAGE, "%s has no inverse of its own", t->name);
	return t->ops->run_inverse(t, c, x, e);
}

int sc_target_has_run_inverse(const struct sc_target *t) { return t->ops->run_inverse != NULL; }
int sc_target_is_collective(const struct sc_target *t)
{
	return t->ops->is_collective && t->ops->is_collective(t);
}
int sc_target_moves_data_only(const struct sc_target *t)
{
	return t->ops->moves_data_only && t->ops->moves_data_only(t);
}
int sc_target_returns_to_input(const struct sc_target *t)
{
	return t->ops->returns_to_input && t->ops->returns_to_input(t);
}

void sc_target_describe(const struct sc_target *t, char *buf, size_t n)
{
	if (t->ops->describe)
		t->ops->describe(t, buf, n);
	else
		snprintf(buf, n, "target %s", t->name);
}

/* ---- parameters ---- */

int sc_target_params(const struct sc_target *t, const struct sc_case *c, struct sc_case_param *out)
{
	return t->ops->params ? t->ops->params(t, c, out) : 0;
}

enum sc_status sc_target_param_set(const struct sc_target *t, struct sc_case *c, const char *key,
				   const char *value)
{
	if (!t->ops->param_set)
		return SC_E_USAGE;
	return t->ops->param_set(t, c, key, value);
}

void sc_target_param_put(const struct sc_target *t, struct sc_case *c, int i, int value)
{
	if (t->ops->param_put)
		t->ops->param_put(t, c, i, value);
}

int sc_target_param_required(const struct sc_target *t, const char *key)
{
	struct sc_case zero;
	memset(&zero, 0, sizeof zero);
	struct sc_case_param p[SC_CASE_MAX_PARAMS];
	const int n = sc_target_params(t, &zero, p);
	for (int i = 0; i < n; i++)
		if (strcmp(p[i].key, key) == 0)
			return p[i].kind != SC_PARAM_OP;
	return 0;
}

int sc_target_ndims_range(const struct sc_target *t, int *lo, int *hi)
{
	return t->ops->ndims_range ? t->ops->ndims_range(t, lo, hi) : 0;
}

/* ---- formatting a case ---- */

const char *sc_target_dim_name(struct sc_target *t, const struct sc_case *c, int d, char *tmp, size_t n)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	if (sc_target_specs(t, c, s, &ns, NULL) == SC_OK && d < s[0]->ndims)
		return s[0]->dim[d];
	snprintf(tmp, n, "d%d", d);
	return tmp;
}

/* The mesh spec of c, or NULL. */
static const struct sc_spec *mesh_of(struct sc_target *t, const struct sc_case *c)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	if (sc_target_specs(t, c, s, &ns, NULL) != SC_OK || !s[0]->nmesh)
		return NULL;
	return s[0];
}

/* The spec whose case holds more than dims (mesh sizes, parameters); NULL: none. */
static const struct sc_spec *slots_of(struct sc_target *t, const struct sc_case *c)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	if (sc_target_specs(t, c, s, &ns, NULL) != SC_OK || (!s[0]->nmesh && !s[0]->nparams))
		return NULL;
	return s[0];
}

int sc_target_size_count(struct sc_target *t, const struct sc_case *c)
{
	const struct sc_spec *s = slots_of(t, c);
	int n = c->ndims + (s ? s->nparams : 0);
	for (int m = 0; s && m < s->nmesh; m++)
		n += s->mesh_sym[m][0] != 0;
	return n;
}

/* In order: the mesh sizes, the dims, the parameters. */
const char *sc_target_size_name(struct sc_target *t, const struct sc_case *c, int i, int *slot, char *tmp, size_t n)
{
	const struct sc_spec *s = slots_of(t, c);
	for (int m = 0; s && m < s->nmesh; m++) {
		if (!s->mesh_sym[m][0])
			continue;
		if (i-- == 0) {
			*slot = sc_spec_mesh_slot(s, m);
			return s->mesh_sym[m];
		}
	}
	if (s && i >= c->ndims && i - c->ndims < s->nparams) {
		*slot = sc_spec_param_slot(s, i - c->ndims);
		return s->param[i - c->ndims];
	}
	*slot = i;
	return sc_target_dim_name(t, c, i, tmp, n);
}

int sc_target_size_slot(struct sc_target *t, const struct sc_case *c, const char *name)
{
	char tmp[16];
	int slot;
	for (int i = 0; i < sc_target_size_count(t, c); i++)
		if (strcmp(sc_target_size_name(t, c, i, &slot, tmp, sizeof tmp), name) == 0)
			return slot;
	return -1;
}

void sc_target_fixed_mesh(struct sc_target *t, struct sc_case *c)
{
	const struct sc_spec *s = mesh_of(t, c);
	for (int m = 0; s && m < s->nmesh; m++)
		if (s->mesh_fixed[m])
			c->sizes[sc_spec_mesh_slot(s, m)] = s->mesh_fixed[m];
}

void sc_target_mesh_coords(struct sc_target *t, const struct sc_case *c, int rank, char *buf, int n)
{
	const struct sc_spec *s = mesh_of(t, c);
	buf[0] = '\0';
	if (!s)
		return;
	const char *names[SC_MAX_MESH];
	for (int m = 0; m < s->nmesh; m++)
		names[m] = s->mesh_dim[m];
	const struct sc_mesh mesh = sc_spec_mesh(s, c->sizes, c->world);
	sc_mesh_format_rank(&mesh, names, rank, buf, n);
}

void sc_target_sizes_arg(struct sc_target *t, const struct sc_case *c, char *buf, size_t n)
{
	size_t k = 0;
	char tmp[16];
	buf[0] = '\0';
	for (int i = 0; i < sc_target_size_count(t, c) && k < n; i++) {
		int slot;
		const char *name = sc_target_size_name(t, c, i, &slot, tmp, sizeof tmp);
		k += (size_t)snprintf(buf + k, n - k, "%s%s=%lld", i ? "," : "", name, (long long)c->sizes[slot]);
	}
	if (c->counts.P && k < n)
		sc_target_counts_text(t, c, ",", 0, buf + k, n - k);
}

void sc_target_counts_text(struct sc_target *t, const struct sc_case *c, const char *sep, int json, char *buf,
			   size_t n)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	size_t k = 0;
	buf[0] = '\0';
	if (!n || sc_target_specs(t, c, s, &ns, NULL) != SC_OK)
		return;
	const int P = c->counts.P;
	for (int m = 0; m < s[0]->ncounts && k < n; m++) {
		k += (size_t)snprintf(buf + k, n - k, json ? "%s\"%s\": [" : "%s%s=", sep, s[0]->counts[m].name);
		if (sc_spec_counts_vec(s[0], m) && sc_spec_topk(s[0], m) == 1) { /* a vector: a:b:c (no sequences: empty) */
			for (int i = 0; i < sc_spec_counts_len(s[0], m, c->sizes, &c->counts) && k < n; i++)
				k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? (json ? ", " : ":") : "", c->counts.v[m][i]);
			if (json && k < n)
				k += (size_t)snprintf(buf + k, n - k, "]");
			continue;
		}
		/* rows: a matrix's P rows of P, or top-k routes' tokens of K experts */
		const int K = sc_spec_topk(s[0], m);
		const int rows = K > 1 ? sc_spec_counts_len(s[0], m, c->sizes, &c->counts) / K : P, cols = K > 1 ? K : P;
		for (int i = 0; i < rows && k < n; i++) {
			if (json)
				k += (size_t)snprintf(buf + k, n - k, "%s[", i ? ", " : "");
			for (int j = 0; j < cols && k < n; j++)
				k += (size_t)snprintf(buf + k, n - k, "%s%d", j ? (json ? ", " : ":") : (i && !json ? "/" : ""),
						      c->counts.v[m][i * cols + j]);
			if (json && k < n)
				k += (size_t)snprintf(buf + k, n - k, "]");
		}
		if (json && k < n)
			k += (size_t)snprintf(buf + k, n - k, "]");
	}
	if (k >= n)
		buf[n - 1] = '\0';
}

static enum sc_status counts_shape_err(struct sc_err *e, const char *name, int vec, int rows, int cols, const char *at)
{
	if (vec == 2)
		return SC_ERR(e, SC_E_USAGE, "%s: expected %d tokens of %d experts each (a:b/c:d, topk experts a token), at '%s'",
			      name, rows, cols, at);
	if (vec)
		return SC_ERR(e, SC_E_USAGE, "%s: expected %d entries (a:b:c), at '%s'", name, cols, at);
	return SC_ERR(e, SC_E_USAGE, "counts %s: expected %d rows of %d entries (a:b/c:d), at '%s'", name, rows, cols, at);
}

enum sc_status sc_target_counts_parse(struct sc_target *t, struct sc_case *c, const char *name, const char *text,
				      int *found, struct sc_err *e)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	*found = 0;
	if (sc_target_specs(t, c, s, &ns, NULL) != SC_OK)
		return SC_OK;
	int m = -1;
	for (int k = 0; k < s[0]->ncounts; k++)
		if (strcmp(s[0]->counts[k].name, name) == 0)
			m = k;
	if (m < 0)
		return SC_OK;
	*found = 1;
	const int P = sc_spec_counts_P(s[0], c->sizes, c->world);
	if (P > SC_COUNTS_MAX_P)
		return SC_ERR(e, SC_E_USAGE, "counts %s: a world of %d is over the %d ranks counts allow", name, P,
			      SC_COUNTS_MAX_P);
	const int vec = sc_spec_counts_vec(s[0], m), seq = s[0]->counts[m].seq;
	struct sc_countv given = {.P = P};
	if (seq) { /* as many sequences as entries given (none: an empty text) */
		given.len[m] = *text ? 1 : 0;
		for (const char *q = text; *q; q++)
			given.len[m] += *q == ':';
		if (given.len[m] > SC_COUNTS_MAX_LEN)
			return SC_ERR(e, SC_E_USAGE, "%s: at most %d sequences", name, SC_COUNTS_MAX_LEN);
	}
	const int K = sc_spec_topk(s[0], m), len = sc_spec_counts_len(s[0], m, c->sizes, &given);
	const int rows = vec ? (K > 1 ? len / K : 1) : P, cols = vec ? (K > 1 ? K : len) : P;
	const struct sc_countsdecl *cd = &s[0]->counts[m];
	const int64_t ntok = cd->route ? sc_spec_tokens(s[0], m, c->sizes) : cd->len_dim >= 0 ? c->sizes[cd->len_dim] : 0;
	if (vec && !seq && (len < 1 || ntok * K != len))
		return SC_ERR(e, SC_E_USAGE, "%s: give %s%s%s (at most %d) before it", name, s[0]->dim[cd->len_dim],
			      cd->len_dim2 >= 0 ? "*" : "", cd->len_dim2 >= 0 ? s[0]->dim[cd->len_dim2] : "", SC_COUNTS_MAX_LEN / K);
	const char *q = text;
	memset(c->counts.v[m], 0, sizeof c->counts.v[m]);
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < cols; j++) {
			char *end;
			if (*q < '0' || *q > '9')
				return counts_shape_err(e, name, vec && K > 1 ? 2 : vec, rows, cols, q);
			const long v = strtol(q, &end, 10);
			if (v < 0 || v > INT32_MAX || end - q > 10)
				return SC_ERR(e, SC_E_USAGE, "counts %s: entry '%.*s' out of range", name, (int)(end - q), q);
			c->counts.v[m][i * cols + j] = (int32_t)v;
			q = end;
			const char want = j < cols - 1 ? ':' : i < rows - 1 ? '/' : '\0';
			if (*q != want)
				return counts_shape_err(e, name, vec && K > 1 ? 2 : vec, rows, cols, q);
			if (*q)
				q++;
		}
	c->counts.P = P;
	if (seq)
		c->counts.len[m] = given.len[m];
	return SC_OK;
}

void sc_target_case_format(struct sc_target *t, const struct sc_case *c, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "world=%d", c->world);
	char tmp[32];
	struct sc_case_param p[SC_CASE_MAX_PARAMS];
	const int np = sc_target_params(t, c, p);
	for (int i = 0; i < np && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, " %s=%s", p[i].label, sc_case_param_text(&p[i], tmp, sizeof tmp));
	for (int i = 0; i < sc_target_size_count(t, c) && k < n; i++) {
		int slot;
		const char *name = sc_target_size_name(t, c, i, &slot, tmp, sizeof tmp);
		k += (size_t)snprintf(buf + k, n - k, " %s=%lld", name, (long long)c->sizes[slot]);
	}
	if (c->counts.P && k < n) {
		sc_target_counts_text(t, c, " ", 0, buf + k, n - k);
		k += strlen(buf + k);
	}
	if (k < n)
		snprintf(buf + k, n - k, " dtype=%s seed=%llu", sc_dtype_name(c->dtype),
			 (unsigned long long)c->seed);
}

void sc_target_set_torch(struct sc_target *t, int version)
{
	t->torch = version;
	if (t->spec)
		t->spec->torch = version;
	for (int k = 0; k < t->nchain; k++)
		t->chain[k]->torch = version;
}
