/* sc_layout: placements: parsing, resolving, index maps. */
#include "sc_layout.h"

#include <stdio.h>
#include <string.h>

#include "sc_expr.h"
#include "sc_tensor.h"

void sc_layout_rows(enum sc_shard_rule rule, int64_t L, int64_t P, int64_t r, int64_t *start, int64_t *len)
{
	if (rule == SC_RULE_CHUNK) {
		const int64_t c = (L + P - 1) / P;
		const int64_t a = r * c < L ? r * c : L, b = (r + 1) * c < L ? (r + 1) * c : L;
		*start = a;
		*len = b - a;
	} else if (rule == SC_RULE_SPLIT) {
		const int64_t q = L / P, m = L % P;
		*start = r * q + (r < m ? r : m);
		*len = q + (r < m);
	} else {
		*len = L / P;
		*start = r * *len;
	}
}

enum sc_status sc_layout_sized_rows(const struct sc_layout *l, const struct sc_layout_ctx *lc, const int64_t *xsizes,
				    int world, int rank, int64_t *start, int64_t *len, int64_t *total,
				    struct sc_err *e)
{
	/* P is the whole mesh's, r the index in the entry's group of `world` */
	struct sc_expr_env v = sc_expr_env_global(xsizes, lc && lc->mesh ? sc_mesh_world(lc->mesh) : world);
	v.counts = lc ? lc->counts : NULL;
	v.counts_sizes = lc ? lc->sizes : NULL;
	v.bound = 1u << SC_VAR_R;
	int64_t sum = 0, a = 0, n = 0;
	for (int q = 0; q < world; q++) {
		int64_t k;
		v.var[SC_VAR_R] = q;
		if (!lc)
			return SC_ERR(e, SC_E_INTERNAL, "a sizes= placement mapped without its spec");
		SC_CHECK(sc_expr_eval_in(lc->s, l->sizes_expr, &v, &k, e));
		if (k < 0)
			return SC_ERR(e, SC_E_RUNTIME, "sizes= gives rank %d %lld rows", q, (long long)k);
		if (q == rank) {
			a = sum;
			n = k;
		}
		if (__builtin_add_overflow(sum, k, &sum))
			return SC_ERR(e, SC_E_RUNTIME, "sizes= overflows");
	}
	*start = a;
	*len = n;
	*total = sum;
	return SC_OK;
}

void sc_layout_map(const struct sc_layout *l, const int64_t *xsizes, int ndims, int world,
		   int rank, struct sc_map *m)
{
	sc_layout_map_in(l, NULL, xsizes, ndims, world, rank, m);
}

int sc_layout_entries(const struct sc_layout *l, struct sc_place_entry *out)
{
	if (l->nent) {
		memcpy(out, l->ent, sizeof(struct sc_place_entry) * (size_t)l->nent);
		return l->nent;
	}
	memset(out, 0, sizeof *out);
	out->g.n = 1; /* a flat world: a mesh of one dim */
	out->kind = l->kind;
	out->op = l->op;
	out->shard_dim = l->shard_dim;
	out->shard_ndims = l->shard_ndims;
	out->rule = l->rule;
	out->sizes_expr = l->sizes_expr;
	return l->kind == SC_SHARD || l->kind == SC_PARTIAL;
}

/* Where rank's piece of each dim lies: rows [start, start+len) after
 * every shard entry, nested in entry order; a zigzag entry (innermost on
 * its dim, or with one even shard inside it) leaves two blocks of zb
 * rows, the second starting zgap rows after the first. */
struct pieces {
	int64_t start[SC_MAX_DIMS], len[SC_MAX_DIMS], zb[SC_MAX_DIMS], zgap[SC_MAX_DIMS];
	int merged_dim, merged_n; /* `shard (a b)`: the group as one dim */
	int64_t mstart, mlen;
};

static void pieces_of(const struct sc_layout *l, const struct sc_layout_ctx *lc, const int64_t *xsizes, int ndims,
		      int world, int rank, struct pieces *pc)
{
	struct sc_place_entry ent[SC_MAX_MESH];
	const int n = sc_layout_entries(l, ent);
	const struct sc_mesh mesh = lc && lc->mesh ? *lc->mesh : sc_mesh_flat(world);
	for (int d = 0; d < ndims; d++) {
		pc->start[d] = 0;
		pc->len[d] = xsizes[d];
		pc->zb[d] = 0;
	}
	pc->merged_dim = -1;
	for (int i = 0; i < n; i++) {
		const struct sc_place_entry *en = &ent[i];
		if (en->kind != SC_SHARD)
			continue;
		const int d = en->shard_dim;
		const int64_t G = sc_mesh_group_size(&mesh, &en->g), r = sc_mesh_group_index(&mesh, &en->g, rank);
		int64_t a = 0, k = 0, total;
		if (en->shard_ndims > 1) { /* alone on its dims (checked when parsed) */
			int64_t L = 1;
			for (int j = 0; j < en->shard_ndims; j++)
				L *= xsizes[d + j];
			sc_layout_rows(en->rule, L, G, r, &pc->mstart, &pc->mlen);
			pc->merged_dim = d;
			pc->merged_n = en->shard_ndims;
		} else if (en->rule == SC_RULE_ZIGZAG) {
			const int64_t b = pc->len[d] / (2 * G);
			pc->zb[d] = b;
			pc->zgap[d] = (2 * G - 1 - 2 * r) * b;
			pc->start[d] += r * b;
			pc->len[d] = 2 * b;
		} else if (pc->zb[d]) {
			/* an even shard of a zigzag piece (its two blocks one after
			 * the other): piece r lies in one block, or, the middle one
			 * of an odd G, as many rows on each side of the seam (2b/G
			 * is even then), still two blocks zgap rows apart */
			const int64_t b = pc->zb[d], L = 2 * b / G, p0 = r * L;
			if (p0 + L <= b || p0 >= b) {
				pc->start[d] += p0 < b ? p0 : pc->zgap[d] + p0 - b;
				pc->zb[d] = 0;
			} else {
				pc->start[d] += p0;
				pc->zgap[d] -= p0;
				pc->zb[d] = b - p0;
			}
			pc->len[d] = L;
		} else if (en->rule == SC_RULE_SIZES) {
			struct sc_layout one = *l; /* validated when the case was made */
			one.sizes_expr = en->sizes_expr;
			(void)sc_layout_sized_rows(&one, lc, xsizes, (int)G, (int)r, &a, &k, &total, NULL);
			pc->start[d] += a;
			pc->len[d] = k;
		} else {
			sc_layout_rows(en->rule, pc->len[d], G, r, &a, &k);
			pc->start[d] += a;
			pc->len[d] = k;
		}
	}
}

void sc_layout_map_in(const struct sc_layout *l, const struct sc_layout_ctx *lc, const int64_t *xsizes, int ndims,
		      int world, int rank, struct sc_map *m)
{
	int64_t xs[SC_MAX_DIMS];
	struct pieces pc;
	sc_contig_strides(xsizes, ndims, xs);
	pieces_of(l, lc, xsizes, ndims, world, rank, &pc);
	m->ndim = 0;
	m->offset = 0;
	int made[SC_MAX_DIMS]; /* map dims each order position made */
	for (int k = 0; k < l->norder; k++) {
		const int d = l->order[k], at = m->ndim;
		if (d == pc.merged_dim) {
			/* the merged group as one dim of X (consecutive dims, row-major) */
			const int64_t st = xs[d + pc.merged_n - 1];
			m->shape[m->ndim] = pc.mlen;
			m->stride[m->ndim++] = st;
			m->offset += pc.mstart * st;
			for (int j = 1; j < pc.merged_n; j++)
				made[k + j] = 0;
			made[k] = 1;
			k += pc.merged_n - 1;
			continue;
		}
		if (pc.zb[d] && m->ndim + 1 < SC_MAX_DIMS) {
			/* two blocks of zb rows, zgap rows apart */
			m->shape[m->ndim] = 2;
			m->stride[m->ndim++] = pc.zgap[d] * xs[d];
			m->shape[m->ndim] = pc.zb[d];
		} else {
			m->shape[m->ndim] = pc.len[d];
		}
		m->stride[m->ndim++] = xs[d];
		m->offset += pc.start[d] * xs[d];
		made[k] = m->ndim - at;
	}
	int pos = 0, k0 = 0;
	m->lndim = l->ngroups;
	for (int g = 0; g < l->ngroups; g++) {
		int64_t p = 1;
		int nmade = 0;
		for (int k = k0; k < k0 + l->group_len[g]; k++)
			nmade += made[k];
		for (int k = 0; k < nmade; k++)
			p *= m->shape[pos + k];
		m->lshape[g] = p;
		pos += nmade;
		k0 += l->group_len[g];
	}
}

enum sc_status sc_layout_sized_total(const struct sc_layout *l, const struct sc_layout_ctx *lc, const int64_t *xsizes,
				     int world, int *dim, int64_t *total, struct sc_err *e)
{
	struct sc_place_entry ent[SC_MAX_MESH];
	const int n = sc_layout_entries(l, ent);
	*dim = -1;
	for (int i = 0; i < n; i++) {
		if (ent[i].kind != SC_SHARD || ent[i].rule != SC_RULE_SIZES)
			continue;
		struct sc_layout one = *l;
		one.sizes_expr = ent[i].sizes_expr;
		const int G = l->nent && lc && lc->mesh ? sc_mesh_group_size(lc->mesh, &ent[i].g) : world;
		int64_t a, k;
		SC_CHECK(sc_layout_sized_rows(&one, lc, xsizes, G, 0, &a, &k, total, e));
		*dim = ent[i].shard_dim;
		return SC_OK;
	}
	return SC_OK;
}

void sc_layout_drop_partial(struct sc_layout *l)
{
	int k = 0;
	for (int i = 0; i < l->nent; i++)
		if (l->ent[i].kind != SC_PARTIAL)
			l->ent[k++] = l->ent[i];
	l->nent = k;
	l->partial.n = 0;
	l->kind = SC_REPLICATE;
	for (int i = 0; i < k && l->kind == SC_REPLICATE; i++)
		if (l->ent[i].kind == SC_SHARD)
			l->kind = SC_SHARD;
	if (!k && l->shard_dim >= 0 && l->kind == SC_REPLICATE)
		l->shard_dim = -1;
}

void sc_layout_rank_text(const struct sc_spec *s, const int64_t *sizes, int world, int rank, char *buf, int n)
{
	if (!s->nmesh) {
		snprintf(buf, (size_t)n, "%d", rank);
		return;
	}
	const char *names[SC_MAX_MESH];
	for (int m = 0; m < s->nmesh; m++)
		names[m] = s->mesh_dim[m];
	const struct sc_mesh mesh = sc_spec_mesh(s, sizes, world);
	char co[80];
	sc_mesh_format_rank(&mesh, names, rank, co, sizeof co);
	snprintf(buf, (size_t)n, "%d = %s", rank, co);
}

int64_t sc_layout_granule(const struct sc_spec *s, const struct sc_layout *l, int dim, const int64_t *sizes,
			  int world)
{
	struct sc_place_entry ent[SC_MAX_MESH];
	const int n = sc_layout_entries(l, ent);
	const struct sc_mesh mesh = sc_spec_mesh(s, sizes, world);
	int64_t g = 1;
	int zig = 0; /* the entry before on the dim was a zigzag one */
	for (int i = 0; i < n; i++) {
		const struct sc_place_entry *en = &ent[i];
		if (en->kind != SC_SHARD || en->shard_dim != dim || en->shard_ndims > 1)
			continue;
		const int64_t G = s->nmesh ? sc_mesh_group_size(&mesh, &en->g) : world;
		if (en->rule == SC_RULE_EVEN)
			g *= zig && G % 2 == 0 ? G / 2 : G; /* a zigzag piece is 2b rows: b divisible by G/2 */
		else if (en->rule == SC_RULE_ZIGZAG)
			g *= 2 * G;
		else
			break; /* pieces inside an uneven one are checked per rank */
		zig = en->rule == SC_RULE_ZIGZAG;
	}
	return g;
}

int sc_layout_mesh_ok(const struct sc_spec *s, const struct sc_layout *l, const struct sc_countv *counts,
		      const int64_t *xsizes, char *why, size_t n)
{
	if (!l->nent)
		return 1;
	const struct sc_mesh mesh = sc_spec_mesh(s, xsizes, 0);
	const struct sc_layout_ctx lc = {s, counts, &mesh, xsizes};
	const int world = sc_mesh_world(&mesh);
	for (int rank = 0; rank < world; rank++) {
		int64_t len[SC_MAX_DIMS];
		memcpy(len, xsizes, sizeof(int64_t) * (size_t)s->ndims);
		for (int i = 0; i < l->nent; i++) {
			const struct sc_place_entry *en = &l->ent[i];
			if (en->kind != SC_SHARD || en->shard_ndims > 1)
				continue;
			const int d = en->shard_dim;
			const int64_t G = sc_mesh_group_size(&mesh, &en->g), r = sc_mesh_group_index(&mesh, &en->g, rank);
			if (en->rule == SC_RULE_SIZES) { /* the outermost: its piece is E(r) rows */
				struct sc_layout one = *l;
				int64_t a, k, total;
				one.sizes_expr = en->sizes_expr;
				if (sc_layout_sized_rows(&one, &lc, xsizes, (int)G, (int)r, &a, &k, &total, NULL) != SC_OK)
					return 0;
				len[d] = k;
				continue;
			}
			const int64_t mult = en->rule == SC_RULE_ZIGZAG ? 2 * G : en->rule == SC_RULE_EVEN ? G : 1;
			if (len[d] % mult) {
				if (why)
					snprintf(why, n, "rank %d's piece of '%s' (%lld) is not divisible by %lld (mesh entry %d)", rank,
						 s->dim[d], (long long)len[d], (long long)mult, i + 1);
				return 0;
			}
			int64_t a, k;
			sc_layout_rows(en->rule == SC_RULE_ZIGZAG ? SC_RULE_EVEN : en->rule, len[d], G, r, &a, &k);
			len[d] = k;
		}
	}
	return 1;
}

/* After `shard NAME`: chunk, split, zigzag or sizes=E (E of r). */
static enum sc_status parse_rule(struct sc_parse *p, struct sc_layout *l)
{
	struct sc_tok *r = sc_lex_peek(p);
	static const struct {
		const char *word;
		enum sc_shard_rule rule;
	} rules[] = {{"chunk", SC_RULE_CHUNK}, {"split", SC_RULE_SPLIT}, {"zigzag", SC_RULE_ZIGZAG}};
	for (size_t k = 0; r->kind == SC_T_NAME && k < sizeof rules / sizeof rules[0]; k++)
		if (strcmp(r->text, rules[k].word) == 0) {
			l->rule = rules[k].rule;
			p->pos++;
			break;
		}
	if (r->kind == SC_T_NAME && strcmp(r->text, "sizes") == 0 && sc_lex_is_op(&p->t[p->pos + 1], "=")) {
		p->pos += 2;
		p->bound[SC_VAR_R] = "r";
		enum sc_status rc = sc_expr_parse_arg(p, &l->sizes_expr);
		p->bound[SC_VAR_R] = NULL;
		SC_CHECK(rc);
		l->rule = SC_RULE_SIZES;
	}
	return SC_OK;
}

static int is_only(const struct sc_tok *t) { return t->kind == SC_T_NAME && strcmp(t->text, "only") == 0; }

/* `only E` ends a placement: E a rank index or a condition on `rank`. */
static enum sc_status parse_only(struct sc_parse *p, struct sc_layout *l)
{
	p->pos++;
	if (sc_lex_peek(p)->kind == SC_T_END)
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected a rank or a condition on rank after 'only'");
	int node;
	SC_CHECK(sc_expr_parse_any(p, &node));
	l->only1 = node + 1;
	return sc_lex_end(p);
}

int sc_layout_checks(const struct sc_spec *s, const struct sc_layout *l, const int64_t *sizes, int world, int rank)
{
	if (!l->only1)
		return 1;
	struct sc_expr_env v = sc_expr_env_global(sizes, world);
	v.rank = rank;
	int64_t got;
	if (sc_expr_eval_in(s, l->only1 - 1, &v, &got, NULL) != SC_OK)
		return 1; /* an `only` that cannot be evaluated checks everything */
	return sc_expr_is_cond(s, l->only1 - 1) ? got != 0 : got == rank;
}

/* `shard (a b ...)`: the group's names into pe. */
static enum sc_status parse_shard_group(struct sc_parse *p, struct sc_entry_names *pe)
{
	p->pos++; /* ( */
	pe->shard_n = 0;
	while (!sc_lex_is_op(sc_lex_peek(p), ")")) {
		struct sc_tok *t = sc_lex_peek(p);
		if (t->kind != SC_T_NAME)
			return sc_lex_err(p, t->col, "expected a dim name in 'shard (...)'");
		if (pe->shard_n >= SC_MAX_DIMS)
			return sc_lex_err(p, t->col, "too many dims in 'shard (...)'");
		snprintf(pe->shard_names[pe->shard_n], SC_NAME_MAX, "%s", t->text);
		pe->shard_cols[pe->shard_n++] = t->col;
		p->pos++;
	}
	p->pos++;
	if (pe->shard_n < 2)
		return sc_lex_err(p, sc_lex_peek(p)->col, "'shard (...)' merges two or more dims");
	return SC_OK;
}

/* A mesh entry's prefix at the cursor (`dp:` or `dp,tp:`), its names into
 * pe; nothing when the tokens there are not one. */
static enum sc_status parse_prefix(struct sc_parse *p, struct sc_entry_names *pe)
{
	int k = p->pos, n = 0;
	pe->ngroup = 0;
	for (;;) {
		if (p->t[k].kind != SC_T_NAME)
			return SC_OK;
		n++;
		k++;
		if (sc_lex_is_op(&p->t[k], ":"))
			break;
		if (!sc_lex_is_op(&p->t[k], ","))
			return SC_OK;
		k++;
	}
	if (n > SC_MAX_MESH)
		return sc_lex_err(p, p->t[p->pos].col, "too many mesh dims in one entry (at most %d)", SC_MAX_MESH);
	for (int i = 0; i < n; i++) {
		snprintf(pe->group[i], SC_NAME_MAX, "%s", p->t[p->pos + 2 * i].text);
		pe->group_cols[i] = p->t[p->pos + 2 * i].col;
	}
	pe->ngroup = n;
	p->pos = k + 1;
	return SC_OK;
}

/* One entry: shard NAME [rule] | shard (a b) rule | replicate | partial OP. */
static enum sc_status parse_entry(struct sc_parse *p, struct sc_place_entry *en, struct sc_entry_names *pe)
{
	struct sc_tok *t = sc_lex_peek(p);
	memset(en, 0, sizeof *en);
	en->shard_dim = -1;
	en->col = t->col;
	if (t->kind != SC_T_NAME)
		return sc_lex_err(p, t->col, "expected a placement: shard NAME, replicate or partial OP");
	if (strcmp(t->text, "shard") == 0) {
		p->pos++;
		struct sc_tok *n = sc_lex_peek(p);
		en->kind = SC_SHARD;
		if (sc_lex_is_op(n, "(")) { /* a merged group as a whole */
			SC_CHECK(parse_shard_group(p, pe));
			snprintf(pe->shard_name, SC_NAME_MAX, "%s", pe->shard_names[0]);
			pe->shard_col = pe->shard_cols[0];
		} else {
			if (n->kind != SC_T_NAME)
				return sc_lex_err(p, n->col, "expected a dim name after 'shard'");
			snprintf(pe->shard_name, SC_NAME_MAX, "%s", n->text);
			pe->shard_col = n->col;
			p->pos++;
		}
		struct sc_layout tmp;
		memset(&tmp, 0, sizeof tmp);
		SC_CHECK(parse_rule(p, &tmp));
		en->rule = tmp.rule;
		en->sizes_expr = tmp.sizes_expr;
		return SC_OK;
	}
	if (strcmp(t->text, "replicate") == 0) {
		en->kind = SC_REPLICATE;
		p->pos++;
		return SC_OK;
	}
	if (strcmp(t->text, "partial") == 0) {
		p->pos++;
		en->kind = SC_PARTIAL;
		return sc_lex_redop(p, &en->op);
	}
	return sc_lex_err(p, t->col, "unknown placement '%s' (expected shard, replicate or partial)", t->text);
}

static int is_as(const struct sc_tok *t) { return t->kind == SC_T_NAME && strcmp(t->text, "as") == 0; }

/* `shape [e, ...]`: an output known by its local shape only. */
static enum sc_status parse_shape(struct sc_parse *p, struct sc_layout *l)
{
	p->pos++;
	l->kind = SC_OPAQUE;
	if (!sc_lex_is_op(sc_lex_peek(p), "["))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '[' after 'shape'");
	p->pos++;
	while (!sc_lex_is_op(sc_lex_peek(p), "]")) {
		if (l->nshape >= SC_MAX_DIMS)
			return sc_lex_err(p, sc_lex_peek(p)->col, "too many dims (at most %d)", SC_MAX_DIMS);
		SC_CHECK(sc_expr_parse(p, &l->shape_expr[l->nshape]));
		l->nshape++;
		if (sc_lex_is_op(sc_lex_peek(p), ","))
			p->pos++;
		else if (!sc_lex_is_op(sc_lex_peek(p), "]"))
			return sc_lex_err(p, sc_lex_peek(p)->col, "expected ',' or ']'");
	}
	p->pos++;
	return sc_lex_end(p);
}

/* The `as` layout after the entries: names and (groups) into l and pp. */
static enum sc_status parse_as(struct sc_parse *p, struct sc_layout *l, struct sc_layout_names *pp)
{
	int in_group = 0, glen = 0, open_col = 0;
	struct sc_tok *t;
	p->pos++;
	for (;;) {
		t = sc_lex_peek(p);
		if (t->kind == SC_T_END)
			break;
		if (is_only(t) && !in_group)
			break;
		if (sc_lex_is_op(t, "(")) {
			if (in_group)
				return sc_lex_err(p, t->col, "nested '(' in a layout");
			in_group = 1;
			glen = 0;
			open_col = t->col;
			p->pos++;
			continue;
		}
		if (sc_lex_is_op(t, ")")) {
			if (!in_group)
				return sc_lex_err(p, t->col, "unbalanced ')' in a layout");
			if (glen == 0)
				return sc_lex_err(p, t->col, "empty group '()' in a layout");
			in_group = 0;
			l->group_len[l->ngroups++] = glen;
			p->pos++;
			continue;
		}
		if (t->kind != SC_T_NAME)
			return sc_lex_err(p, t->col, "expected a dim name in the layout, got '%s'", t->text);
		if (pp->nnames >= SC_MAX_DIMS)
			return sc_lex_err(p, t->col, "too many names in the layout");
		snprintf(pp->names[pp->nnames], SC_NAME_MAX, "%s", t->text);
		pp->name_cols[pp->nnames++] = t->col;
		if (in_group)
			glen++;
		else
			l->group_len[l->ngroups++] = 1;
		p->pos++;
	}
	if (in_group)
		return sc_lex_err(p, open_col, "unclosed '(' in a layout");
	if (pp->nnames == 0)
		return sc_lex_err(p, t->col, "expected dim names after 'as'");
	return SC_OK;
}

enum sc_status sc_layout_parse(struct sc_parse *p, struct sc_layout *l, struct sc_layout_names *pp)
{
	memset(l, 0, sizeof *l);
	l->shard_dim = -1;
	pp->nnames = 0;
	pp->nent = 0;
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind == SC_T_NAME && strcmp(t->text, "shape") == 0)
		return parse_shape(p, l);
	/* entries: one for a flat world, one per group of mesh dims */
	do {
		if (pp->nent >= SC_MAX_MESH)
			return sc_lex_err(p, sc_lex_peek(p)->col, "too many placement entries (at most %d)", SC_MAX_MESH);
		struct sc_entry_names *pe = &pp->ent[pp->nent];
		memset(pe, 0, sizeof *pe);
		SC_CHECK(parse_prefix(p, pe));
		if (pp->nent && !pe->ngroup) /* entries after the first name their mesh dims */
			return sc_lex_err(p, sc_lex_peek(p)->col, "expected 'as', 'only' or end of line, got '%s'",
					  sc_lex_peek(p)->text);
		SC_CHECK(parse_entry(p, &l->ent[pp->nent], pe));
		pp->nent++;
		t = sc_lex_peek(p);
	} while (t->kind != SC_T_END && !is_as(t) && !is_only(t));
	const struct sc_place_entry *e0 = &l->ent[0];
	l->kind = e0->kind;
	l->op = e0->op;
	l->rule = e0->rule;
	l->sizes_expr = e0->sizes_expr;
	if (is_as(t))
		SC_CHECK(parse_as(p, l, pp));
	if (is_only(sc_lex_peek(p)))
		return parse_only(p, l);
	return SC_OK;
}

/* `shard (a b)`: consecutive dims of X in order, a chunk or split rule. */
static enum sc_status resolve_shard_group(struct sc_parse *p, struct sc_place_entry *en,
					  const struct sc_entry_names *pe, const char *what)
{
	const struct sc_spec *s = p->s;
	en->shard_ndims = pe->shard_n > 1 ? pe->shard_n : 1;
	if (pe->shard_n < 2)
		return SC_OK;
	for (int k = 1; k < pe->shard_n; k++)
		if (sc_lex_dim(s, pe->shard_names[k]) != en->shard_dim + k)
			return sc_lex_err(p, pe->shard_cols[k],
					  "%s: 'shard (...)' merges consecutive dims of X in their order ('%s' is not the dim after '%s')",
					  what, pe->shard_names[k], pe->shard_names[k - 1]);
	if (en->rule != SC_RULE_CHUNK && en->rule != SC_RULE_SPLIT)
		return sc_lex_err(p, pe->shard_col, "%s: a merged group shards with chunk or split", what);
	return SC_OK;
}

/* `shard (a b)`: the layout must merge exactly that group. */
static enum sc_status check_shard_group(struct sc_parse *p, const struct sc_layout *l, const struct sc_place_entry *en,
					const struct sc_entry_names *pe, const char *what)
{
	if (en->kind != SC_SHARD || en->shard_ndims < 2)
		return SC_OK;
	int pos = 0, found = 0;
	for (int g = 0; g < l->ngroups && !found; g++) {
		if (l->group_len[g] == en->shard_ndims && l->order[pos] == en->shard_dim) {
			found = 1;
			for (int k = 1; k < en->shard_ndims; k++)
				found &= l->order[pos + k] == en->shard_dim + k;
		}
		pos += l->group_len[g];
	}
	if (!found)
		return sc_lex_err(p, pe->shard_col, "%s: 'shard (...)' needs the same group in its 'as' layout", what);
	return SC_OK;
}

/* An entry's mesh dims (none written: every mesh dim, in mesh order). */
static enum sc_status resolve_group(struct sc_parse *p, struct sc_place_entry *en, const struct sc_entry_names *pe,
				    const char *what)
{
	const struct sc_spec *s = p->s;
	if (!pe->ngroup) {
		en->g = sc_mesh_all(&(struct sc_mesh){s->nmesh, {0}});
		return SC_OK;
	}
	en->g.n = 0;
	for (int i = 0; i < pe->ngroup; i++) {
		const int m = sc_lex_mesh_dim(s, pe->group[i]);
		if (m < 0)
			return sc_lex_err(p, pe->group_cols[i], "%s: unknown mesh dim '%s'", what, pe->group[i]);
		for (int k = 0; k < en->g.n; k++)
			if (en->g.dim[k] == m)
				return sc_lex_err(p, pe->group_cols[i], "%s: mesh dim '%s' appears twice", what, pe->group[i]);
		en->g.dim[en->g.n++] = m;
	}
	return SC_OK;
}

static int first_dim(const struct sc_mesh_group *g)
{
	int m = g->n ? g->dim[0] : 0;
	for (int k = 1; k < g->n; k++)
		if (g->dim[k] < m)
			m = g->dim[k];
	return m;
}

/* A mesh placement's entries: each mesh dim in one entry at most, one
 * reduction op, nesting DTensor's (in mesh order), what cannot nest
 * refused; then the summary fields. */
static enum sc_status resolve_entries(struct sc_parse *p, struct sc_layout *l, const struct sc_layout_names *pp,
				      const char *what)
{
	const struct sc_spec *s = p->s;
	uint32_t used = 0;
	int n = 0;
	struct sc_place_entry ent[SC_MAX_MESH];
	int from[SC_MAX_MESH];
	for (int i = 0; i < pp->nent; i++) {
		struct sc_place_entry en = l->ent[i];
		SC_CHECK(resolve_group(p, &en, &pp->ent[i], what));
		for (int k = 0; k < en.g.n; k++) {
			if ((used >> en.g.dim[k]) & 1u)
				return sc_lex_err(p, pp->ent[i].ngroup ? pp->ent[i].group_cols[0] : en.col,
						  "%s: mesh dim '%s' is placed by two entries", what, s->mesh_dim[en.g.dim[k]]);
			used |= 1u << en.g.dim[k];
		}
		if (en.kind == SC_REPLICATE)
			continue; /* what a mesh dim not named does */
		/* nest in mesh order: by the entry's first mesh dim in mesh order
		 * (a group written tp,dp nests where dp stands) */
		int at = n;
		while (at > 0 && first_dim(&ent[at - 1].g) > first_dim(&en.g)) {
			ent[at] = ent[at - 1];
			from[at] = from[at - 1];
			at--;
		}
		ent[at] = en;
		from[at] = i;
		n++;
	}
	l->nent = n;
	memcpy(l->ent, ent, sizeof(struct sc_place_entry) * (size_t)n);
	l->kind = SC_REPLICATE;
	l->partial.n = 0;
	int zig = 0;             /* zigzag entries */
	unsigned zig_inner = 0u; /* the dims with an even entry nested inside a zigzag one */
	for (int i = 0; i < n; i++) {
		struct sc_place_entry *en = &l->ent[i];
		const struct sc_entry_names *pe = &pp->ent[from[i]];
		if (en->kind == SC_PARTIAL) {
			if (l->kind == SC_PARTIAL && en->op != l->op)
				return sc_lex_err(p, en->col, "%s: two partial entries take one op", what);
			l->kind = SC_PARTIAL;
			l->op = en->op;
			continue;
		}
		en->shard_dim = sc_lex_dim(s, pe->shard_name);
		if (en->shard_dim < 0)
			return sc_lex_err(p, pe->shard_col, "%s: unknown dim '%s'", what, pe->shard_name);
		SC_CHECK(resolve_shard_group(p, en, pe, what));
		zig += en->rule == SC_RULE_ZIGZAG;
		for (int k = 0; k < i; k++) {
			const struct sc_place_entry *o = &l->ent[k];
			if (o->kind != SC_SHARD)
				continue;
			const int over = en->shard_dim < o->shard_dim + o->shard_ndims && o->shard_dim < en->shard_dim + en->shard_ndims;
			if (over && (o->shard_ndims > 1 || en->shard_ndims > 1))
				return sc_lex_err(p, pe->shard_col, "%s: a merged group '(...)' is sharded by one entry alone", what);
			if (over && o->rule == SC_RULE_ZIGZAG) {
				if (en->rule != SC_RULE_EVEN || ((zig_inner >> en->shard_dim) & 1u))
					return sc_lex_err(p, pe->shard_col,
							  "%s: inside a zigzag shard only one even shard nests (`shard NAME`, "
							  "after it in mesh order; not chunk, split, sizes= or zigzag)",
							  what);
				zig_inner |= 1u << en->shard_dim;
			}
			if (over && en->rule == SC_RULE_SIZES)
				return sc_lex_err(p, pe->shard_col,
						  "%s: a sizes= shard gives its dim's size: it is the outermost on its dim (first in mesh order)",
						  what);
		}
		if (l->kind == SC_REPLICATE) {
			l->kind = SC_SHARD;
			l->shard_dim = en->shard_dim;
			l->shard_ndims = en->shard_ndims;
			l->rule = en->rule;
			l->sizes_expr = en->sizes_expr;
		}
	}
	for (int i = 0; i < n; i++) /* the partial group, in mesh order */
		if (l->ent[i].kind == SC_PARTIAL)
			for (int k = 0; k < l->ent[i].g.n; k++)
				l->partial.dim[l->partial.n++] = l->ent[i].g.dim[k];
	for (int a = 1; a < l->partial.n; a++)
		for (int b = a; b > 0 && l->partial.dim[b - 1] > l->partial.dim[b]; b--) {
			const int t = l->partial.dim[b];
			l->partial.dim[b] = l->partial.dim[b - 1];
			l->partial.dim[b - 1] = t;
		}
	if (zig && s->ndims + zig > SC_MAX_DIMS)
		return sc_lex_err(p, pp->ent[0].shard_col, "%s: each zigzag placement needs a spare dim (at most %d dims here)",
				  what, SC_MAX_DIMS - zig);
	if (l->kind == SC_SHARD && l->shard_dim < 0)
		l->kind = SC_REPLICATE;
	return SC_OK;
}

/* A flat world's placement: its one entry into the summary fields. */
static enum sc_status resolve_flat(struct sc_parse *p, struct sc_layout *l, const struct sc_layout_names *pp,
				   const char *what)
{
	const struct sc_spec *s = p->s;
	const struct sc_entry_names *pe = &pp->ent[0];
	if (pp->nent > 1 || pe->ngroup)
		return sc_lex_err(p, pe->ngroup ? pe->group_cols[0] : l->ent[1].col,
				  "%s: a placement per mesh dim ('dp:shard b tp:shard h') needs a 'mesh' declaration", what);
	l->nent = 0;
	if (l->kind != SC_SHARD)
		return SC_OK;
	struct sc_place_entry en = l->ent[0];
	en.shard_dim = sc_lex_dim(s, pe->shard_name);
	if (en.shard_dim < 0)
		return sc_lex_err(p, pe->shard_col, "%s: unknown dim '%s'", what, pe->shard_name);
	SC_CHECK(resolve_shard_group(p, &en, pe, what));
	l->shard_dim = en.shard_dim;
	l->shard_ndims = en.shard_ndims;
	return SC_OK;
}

enum sc_status sc_layout_resolve(struct sc_parse *p, struct sc_layout *l, const struct sc_layout_names *pp,
				 const char *what)
{
	struct sc_spec *s = p->s;
	p->line = pp->line;
	if (l->kind == SC_OPAQUE)
		return SC_OK;
	/* the entries as parsed, before resolving rewrites l->ent */
	struct sc_place_entry parsed[SC_MAX_MESH];
	memcpy(parsed, l->ent, sizeof parsed);
	SC_CHECK(s->nmesh ? resolve_entries(p, l, pp, what) : resolve_flat(p, l, pp, what));
	if (pp->nnames == 0) {
		l->norder = s->ndims;
		l->ngroups = s->ndims;
		for (int i = 0; i < s->ndims; i++) {
			l->order[i] = i;
			l->group_len[i] = 1;
		}
	} else {
		int seen[SC_MAX_DIMS] = {0};
		for (int i = 0; i < pp->nnames; i++) {
			int d = sc_lex_dim(s, pp->names[i]);
			if (d < 0)
				return sc_lex_err(p, pp->name_cols[i], "%s layout: unknown dim '%s'", what, pp->names[i]);
			if (seen[d])
				return sc_lex_err(p, pp->name_cols[i], "%s layout: dim '%s' appears twice", what, pp->names[i]);
			seen[d] = 1;
			l->order[i] = d;
		}
		l->norder = pp->nnames;
		for (int d = 0; d < s->ndims; d++)
			if (!seen[d])
				return sc_lex_err(p, pp->name_cols[0],
						  "%s layout: dim '%s' is missing (a layout is a permutation of the dims)", what,
						  s->dim[d]);
	}
	/* the rank's part is taken along the sharded dims first, then
	 * arranged: a sharded dim may stand anywhere in a merged group */
	struct sc_place_entry ent[SC_MAX_MESH];
	const int n = sc_layout_entries(l, ent);
	for (int i = 0; i < n; i++) {
		int w = 0; /* the written entry this one came from (by its column) */
		for (int k = 0; k < pp->nent; k++)
			if (parsed[k].col == ent[i].col)
				w = k;
		SC_CHECK(check_shard_group(p, l, &ent[i], &pp->ent[w], what));
	}
	return SC_OK;
}

int sc_layout_map_same(const struct sc_map *a, const struct sc_map *b)
{
	if (a->ndim != b->ndim || a->offset != b->offset)
		return 0;
	for (int d = 0; d < a->ndim; d++)
		if (a->shape[d] != b->shape[d] || a->stride[d] != b->stride[d])
			return 0;
	return 1;
}
