/* sc_svg: the picture of a counterexample (sc_svg.h).
 *
 * The case is replayed as the semantics check runs it: a data run (the
 * dtype's bits against the bits X[g] must have) and a provenance run
 * (64-bit global indices against g), and an element is wrong in the set
 * whose count the check reports (the larger: sc_explain keeps the larger
 * count). The expected source of each output element is the output
 * placement's map of X (through Y's provenance when the spec has a
 * reference), walked in the same row-major order as the output.
 *
 * Drawing: each rank's output as tiles of its last two dims (higher dims
 * as small multiples, captioned "[0, 1, :, :]"), at most 64 x 64 cells a
 * tile and max_cells in all: tiles with a wrong element first, a tile of
 * each rank in turn. Text is escaped for XML; bytes that are not UTF-8
 * become '?'. */
#include "sc_svg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_fs.h"
#include "sc_reference.h"
#include "sc_str.h"

#define TILE_MAX 64  /* rows, and columns, drawn of one tile */
#define CELL_H 40    /* two text lines with the cell's centre free between them */
#define GAP 2        /* between cells */
#define MARGIN 16
#define WRAP_W 1600  /* tiles flow to a new row past this width */
#define CAPTION 16   /* a tile's caption above it */
#define CHAR_W 7     /* 11px monospace, rounded up */

/* One rank's output, row-major. */
struct rank_out {
	int checked; /* the output placement checks this rank (`only E`) */
	int ndim;
	int64_t shape[SC_MAX_DIMS];
	int64_t n;
	uint64_t *exp, *act;           /* sources: X's global index, SC_PROV_PAD, ... */
	uint64_t *exp_bits, *act_bits; /* the data run's */
	unsigned char *wrong;
	int64_t nwrong, drawn; /* wrong elements; cells drawn */
};

struct pic {
	struct sc_target *t;
	const struct sc_case *c;
	const struct sc_spec *s0, *sl; /* first and last spec */
	int64_t total, wrong, drawn_wrong, not_drawn;
	char diag[256];
	struct rank_out r[SC_MAX_WORLD];
};

struct tile {
	int rank;
	int64_t first;        /* row-major index of its first element */
	int64_t rows, cols;   /* its shape */
	int64_t drows, dcols; /* the part drawn */
};

static void pic_free(struct pic *p)
{
	if (!p)
		return;
	for (int r = 0; r < SC_MAX_WORLD; r++) {
		struct rank_out *o = &p->r[r];
		free(o->exp);
		free(o->act);
		free(o->exp_bits);
		free(o->act_bits);
		free(o->wrong);
	}
	free(p);
}

const char *sc_svg_skip_reason(struct sc_target *t, const char *property, const struct sc_case *c,
			       const struct sc_failure *f)
{
	if (strcmp(property, "semantics") != 0 && strcmp(property, "compose") != 0)
		return "only semantics and compose failures are drawn (this property compares something else)";
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	if (sc_target_specs(t, c, s, &ns, NULL) != SC_OK)
		return "the case has no spec to draw from";
	if (s[0]->compute)
		return "compute specs are not drawn: each element is compared with the reference within its "
		       "error bound (see the worst element)";
	if (s[ns - 1]->out.kind == SC_PARTIAL)
		return "partial outputs are not drawn: each rank holds a summand, and only their reduction is "
		       "compared";
	if (s[ns - 1]->out.kind == SC_OPAQUE)
		return "an output declared by its shape only has no placement to draw";
	if (f && f->runtime_error)
		return "a step fails at run time: there is no output to draw";
	if (f && f->msg[0])
		return "an output has another shape than its placement: there is nothing to compare element "
		       "by element";
	return NULL;
}

/* Rank r's output, row-major, into a fresh array. */
static enum sc_status read_output(struct sc_ctx *ctx, int r, uint64_t **out, struct sc_err *e)
{
	const struct sc_tensor *tt = &ctx->x.t[r];
	const int64_t n = sc_tensor_numel(tt);
	uint64_t *v = malloc(sizeof *v * (size_t)(n ? n : 1));
	if (!v)
		return SC_ERR(e, SC_E_NOMEM, "out of memory drawing rank %d's output", r);
	const unsigned char *base = n ? sc_tensor_host(&ctx->arena, tt) : NULL;
	if (n && !base) {
		free(v);
		return SC_ERR(e, SC_E_IO, "could not read rank %d's output from the device", r);
	}
	struct sc_iter it;
	sc_iter_init(&it, tt->shape, tt->stride, tt->ndim, tt->offset);
	for (int64_t k = 0; k < n; k++, sc_iter_next(&it))
		v[k] = sc_load_bits(base + (size_t)it.off * tt->buf->esize, tt->buf->esize);
	*out = v;
	return SC_OK;
}

/* The data run (act_bits) and the provenance run (act; poisoned, so an
 * element no step wrote reads SC_PROV_POISON). */
static enum sc_status replay(struct sc_ctx *ctx, struct pic *p, struct sc_err *e)
{
	const struct sc_case *c = p->c;
	ctx->arena.shared = (p->t->ops->flags & SC_TARGET_HOST_ONLY) != 0; /* a plugin's child writes */
	for (int prov = 0; prov <= 1; prov++) {
		sc_ctx_begin(ctx, prov, prov);
		struct sc_err re;
		enum sc_status st = sc_verify_run(p->t, c, &ctx->x, NULL, &re);
		if (st == SC_E_RUNTIME && ctx->arena.over_limit)
			return SC_ERR(e, SC_E_UNAVAIL, "the replay is over the memory a case may use (%.400s)", re.msg);
		if (st == SC_E_RUNTIME)
			return SC_ERR(e, SC_E_UNAVAIL, "a step fails at run time (%.400s): there is no output to draw",
				      re.msg);
		if (st != SC_OK) {
			*e = re;
			return st;
		}
		if (ctx->x.first != 0 || ctx->x.nlocal != c->world)
			return SC_ERR(e, SC_E_UNAVAIL, "a picture needs every rank in one process");
		for (int r = 0; r < c->world; r++) {
			const struct sc_tensor *tt = &ctx->x.t[r];
			struct rank_out *o = &p->r[r];
			if (!prov) {
				o->ndim = tt->ndim;
				memcpy(o->shape, tt->shape, sizeof o->shape);
				o->n = sc_tensor_numel(tt);
				p->total += o->n;
				if (p->total > SC_SVG_MAX_ELEMS)
					return SC_ERR(e, SC_E_UNAVAIL, "the outputs are too large to draw (over %d elements)",
						      SC_SVG_MAX_ELEMS);
			} else if (tt->ndim != o->ndim || memcmp(tt->shape, o->shape, sizeof(int64_t) * (size_t)o->ndim)) {
				return SC_ERR(e, SC_E_INTERNAL, "rank %d's output has another shape in the provenance run", r);
			}
			SC_CHECK(read_output(ctx, r, prov ? &o->act : &o->act_bits, e));
		}
	}
	return SC_OK;
}

/* Each checked rank's expected sources and bits: the output placement's
 * map of X, or of Y (whose elements are X's indices or padding). */
static enum sc_status expected(struct sc_ctx *ctx, struct pic *p, struct sc_err *e)
{
	const struct sc_case *c = p->c;
	const struct sc_spec *sl = p->sl;
	ctx->arena.use_dm = 0; /* what is made here is read here */
	struct sc_tensor y;
	const uint64_t *yp = NULL;
	const int64_t *ysizes = c->sizes;
	int64_t ymerged[SC_MAX_DIMS];
	if (sl->ref_line) {
		struct sc_err re;
		enum sc_status st = sc_reference_run(&ctx->arena, sl, c->sizes, c->world, &c->counts, &y, &re);
		if (st == SC_E_RUNTIME)
			return SC_ERR(e, SC_E_UNAVAIL, "the reference fails (%.400s): nothing to compare with", re.msg);
		if (st != SC_OK) {
			*e = re;
			return st;
		}
		yp = (const uint64_t *)(const void *)y.buf->data + y.offset;
		ysizes = sc_reference_sizes(&y, c->sizes, ymerged);
	}
	struct sc_mesh lcm;
	const struct sc_layout_ctx lc = sc_layout_ctx_case(sl, &c->counts, c->sizes, c->world, &lcm);
	for (int r = 0; r < c->world; r++) {
		struct rank_out *o = &p->r[r];
		if (!(o->checked = sc_layout_checks(sl, &sl->out, c->sizes, c->world, r)))
			continue;
		struct sc_map m;
		sc_layout_map_in(&sl->out, &lc, ysizes, c->ndims, c->world, r, &m);
		int same = m.lndim == o->ndim;
		for (int d = 0; same && d < o->ndim; d++)
			same = m.lshape[d] == o->shape[d];
		if (!same) {
			char a[160], b[160], rk[96];
			sc_shape_format(o->shape, o->ndim, a, sizeof a);
			sc_shape_format(m.lshape, m.lndim, b, sizeof b);
			sc_layout_rank_text(p->s0, c->sizes, c->world, r, rk, sizeof rk);
			return SC_ERR(e, SC_E_UNAVAIL, "rank %s's output has shape %s, but the output placement needs %s: "
				      "there is nothing to compare element by element", rk, a, b);
		}
		const size_t n = (size_t)(o->n ? o->n : 1);
		o->exp = malloc(sizeof *o->exp * n);
		o->exp_bits = malloc(sizeof *o->exp_bits * n);
		o->wrong = calloc(n, 1);
		if (!o->exp || !o->exp_bits || !o->wrong)
			return SC_ERR(e, SC_E_NOMEM, "out of memory drawing rank %d's output", r);
		struct sc_iter it;
		sc_iter_init(&it, m.shape, m.stride, m.ndim, m.offset);
		for (int64_t k = 0; k < o->n; k++, sc_iter_next(&it)) {
			const uint64_t g = yp ? yp[it.off] : (uint64_t)it.off;
			o->exp[k] = g;
			o->exp_bits[k] = g == SC_PROV_PAD ? 0 : sc_verify_expected_bits(p->t, c, g);
		}
	}
	return SC_OK;
}

/* Marks the wrong elements: the data run's or the provenance run's
 * mismatches, whichever are more (the count the check reports). */
static void classify(struct pic *p)
{
	int64_t nd = 0, np = 0;
	for (int r = 0; r < p->c->world; r++) {
		const struct rank_out *o = &p->r[r];
		for (int64_t k = 0; o->checked && k < o->n; k++) {
			nd += o->act_bits[k] != o->exp_bits[k];
			np += o->act[k] != o->exp[k];
		}
	}
	const int by_prov = np >= nd;
	for (int r = 0; r < p->c->world; r++) {
		struct rank_out *o = &p->r[r];
		for (int64_t k = 0; o->checked && k < o->n; k++) {
			o->wrong[k] = by_prov ? o->act[k] != o->exp[k] : o->act_bits[k] != o->exp_bits[k];
			o->nwrong += o->wrong[k];
		}
		p->wrong += o->nwrong;
	}
}

/* ---- the diagnosis: only what holds for every wrong element ---- */

struct facts {
	int64_t n;
	int all_pad, all_nothing, all_mixed, all_same, all_index, all_pad_expected;
	int swap_i, swap_j, swap_ok;
	int64_t delta[SC_MAX_DIMS];
	int delta_ok;
	int cyc_dim, cyc_ok;
	int64_t cyc;
};

static void decode(const struct sc_case *c, uint64_t g, int64_t *idx)
{
	for (int d = c->ndims - 1; d >= 0; d--) {
		const uint64_t sz = c->sizes[d] > 0 ? (uint64_t)c->sizes[d] : 1;
		idx[d] = (int64_t)(g % sz);
		g /= sz;
	}
}

/* One wrong element whose expected and held sources are both elements
 * of X (x and a their coordinates): what its first sets up, the others
 * keep or refute. */
static void index_facts(struct facts *f, const struct sc_case *c, const int64_t *x, const int64_t *a)
{
	int diff[SC_MAX_DIMS], nd = 0;
	for (int d = 0; d < c->ndims; d++)
		if (a[d] != x[d])
			diff[nd++] = d;
	if (f->n == 1) {
		f->swap_ok = nd == 2 && a[diff[0]] == x[diff[1]] && a[diff[1]] == x[diff[0]];
		f->swap_i = nd == 2 ? diff[0] : -1;
		f->swap_j = nd == 2 ? diff[1] : -1;
		f->delta_ok = 1;
		for (int d = 0; d < c->ndims; d++)
			f->delta[d] = a[d] - x[d];
		f->cyc_ok = nd == 1;
		f->cyc_dim = nd == 1 ? diff[0] : -1;
		if (f->cyc_ok)
			f->cyc = ((a[diff[0]] - x[diff[0]]) % c->sizes[diff[0]] + c->sizes[diff[0]]) % c->sizes[diff[0]];
		return;
	}
	if (f->swap_ok)
		f->swap_ok = nd == 2 && diff[0] == f->swap_i && diff[1] == f->swap_j && a[f->swap_i] == x[f->swap_j] &&
			     a[f->swap_j] == x[f->swap_i];
	for (int d = 0; f->delta_ok && d < c->ndims; d++)
		f->delta_ok = a[d] - x[d] == f->delta[d];
	if (f->cyc_ok) {
		const int d = f->cyc_dim;
		f->cyc_ok = nd == 1 && diff[0] == d &&
			    ((a[d] - x[d]) % c->sizes[d] + c->sizes[d]) % c->sizes[d] == f->cyc;
	}
}

static void gather_facts(const struct pic *p, struct facts *f)
{
	memset(f, 0, sizeof *f);
	f->all_pad = f->all_nothing = f->all_mixed = f->all_same = f->all_index = f->all_pad_expected = 1;
	const struct sc_case *c = p->c;
	uint64_t nx = 1; /* X's elements: a source past them (a raw read) has no coordinates */
	for (int d = 0; d < c->ndims; d++)
		nx *= (uint64_t)c->sizes[d];
	for (int r = 0; r < c->world; r++) {
		const struct rank_out *o = &p->r[r];
		for (int64_t k = 0; o->checked && k < o->n; k++) {
			if (!o->wrong[k])
				continue;
			const uint64_t g = o->exp[k], a = o->act[k];
			f->n++;
			f->all_pad &= a == SC_PROV_PAD;
			f->all_nothing &= a == SC_PROV_POISON;
			f->all_mixed &= a == SC_PROV_MIXED;
			f->all_same &= a == g;
			f->all_pad_expected &= g == SC_PROV_PAD && SC_PROV_IS_INDEX(a);
			const int both = SC_PROV_IS_INDEX(g) && SC_PROV_IS_INDEX(a) && a != g && a < nx && g < nx;
			f->all_index &= both;
			if (!f->all_index)
				continue;
			int64_t x[SC_MAX_DIMS], h[SC_MAX_DIMS];
			decode(c, g, x);
			decode(c, a, h);
			index_facts(f, c, x, h);
		}
	}
}

static void diagnose(struct pic *p)
{
	struct facts f;
	gather_facts(p, &f);
	char *b = p->diag;
	const size_t n = sizeof p->diag;
	char t1[32], t2[32];
	b[0] = '\0';
	if (!f.n)
		return;
	const char *every = f.n == 1 ? "the wrong element" : "every wrong element";
	if (f.all_pad) {
		snprintf(b, n, "%s holds padding", every);
	} else if (f.all_nothing) {
		snprintf(b, n, "%s was never written (nothing)", every);
	} else if (f.all_mixed) {
		snprintf(b, n, "%s is a reduction of different elements", every);
	} else if (f.all_same) {
		snprintf(b, n, "%s comes from the right element of X, with other bits", every);
	} else if (f.all_index && f.swap_ok) {
		const char *a = sc_target_dim_name(p->t, p->c, f.swap_i, t1, sizeof t1);
		const char *d = sc_target_dim_name(p->t, p->c, f.swap_j, t2, sizeof t2);
		snprintf(b, n, "dims %s and %s swapped: %s holds the element of X at its expected index with the %s and %s "
			 "coordinates exchanged", a, d, every, a, d);
	} else if (f.all_index && f.delta_ok) {
		size_t k = (size_t)snprintf(b, n, "%s holds the element of X at its expected index shifted by ", every);
		for (int d = 0, first = 1; d < p->c->ndims && k < n; d++) {
			if (!f.delta[d])
				continue;
			k += (size_t)snprintf(b + k, n - k, "%s%+lld along %s", first ? "" : ", ", (long long)f.delta[d],
					      sc_target_dim_name(p->t, p->c, d, t1, sizeof t1));
			first = 0;
		}
	} else if (f.all_index && f.cyc_ok) {
		const char *a = sc_target_dim_name(p->t, p->c, f.cyc_dim, t1, sizeof t1);
		snprintf(b, n, "%s holds the element of X at its expected index shifted by %+lld along %s, modulo %lld "
			 "(a wrap-around)", every, (long long)f.cyc, a, (long long)p->c->sizes[f.cyc_dim]);
	} else if (f.all_pad_expected) {
		snprintf(b, n, "padding belongs at %s, which holds an element of X", f.n == 1 ? "the wrong element" :
			 "every wrong element");
	}
}

/* ---- the drawing ---- */

/* Text for XML: escaped, control characters as spaces, bytes that do
 * not form UTF-8 as '?'. */
static void xml_put(struct sc_str *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (*p >= 0x80) { /* a UTF-8 sequence passes whole, anything else is replaced */
			int len = (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
			int ok = len > 0 && *p >= 0xC2 && *p <= 0xF4;
			for (int i = 1; ok && i < len; i++)
				ok = (p[i] & 0xC0) == 0x80;
			/* no overlong form, surrogate or code point past U+10FFFF */
			ok = ok && !(*p == 0xE0 && p[1] < 0xA0) && !(*p == 0xED && p[1] > 0x9F) &&
			     !(*p == 0xF0 && p[1] < 0x90) && !(*p == 0xF4 && p[1] > 0x8F);
			if (!ok) {
				sc_str_put(b, "?");
				continue;
			}
			sc_str_printf(b, "%.*s", len, (const char *)p);
			p += len - 1;
			continue;
		}
		switch (*p) {
		case '&': sc_str_put(b, "&amp;"); break;
		case '<': sc_str_put(b, "&lt;"); break;
		case '>': sc_str_put(b, "&gt;"); break;
		case '"': sc_str_put(b, "&quot;"); break;
		case '\'': sc_str_put(b, "&apos;"); break;
		default: sc_str_printf(b, "%c", *p < 0x20 ? ' ' : *p);
		}
	}
}

static void text_at(struct sc_str *b, int x, int y, const char *attrs, const char *s)
{
	sc_str_printf(b, "<text x=\"%d\" y=\"%d\"%s%s>", x, y, attrs[0] ? " " : "", attrs);
	xml_put(b, s);
	sc_str_put(b, "</text>\n");
}

/* A source as a cell shows it. */
static void fmt_src(const struct sc_case *c, uint64_t g, char *buf, size_t n)
{
	if (g == SC_PROV_PAD)
		snprintf(buf, n, "padding");
	else if (g == SC_PROV_POISON)
		snprintf(buf, n, "nothing");
	else if (g == SC_PROV_MIXED)
		snprintf(buf, n, "mixed");
	else
		sc_verify_format_from(c, g, buf, n);
}

/* A value's short text: a float's value without its bits. */
static void short_value(enum sc_dtype dt, uint64_t bits, char *buf, size_t n)
{
	char full[64];
	sc_dtype_format(dt, bits, full, sizeof full);
	const char *paren = strchr(full, '(');
	if (paren)
		snprintf(buf, n, "%.*s", (int)strcspn(paren + 1, ")"), paren + 1);
	else
		snprintf(buf, n, "%.63s", full);
}

/* A cell's two lines: the expected source; what it holds, when wrong. */
static void cell_text(const struct pic *p, const struct rank_out *o, int64_t k, char *l1, char *l2, size_t n)
{
	fmt_src(p->c, o->exp[k], l1, n);
	l2[0] = '\0';
	if (!o->wrong[k])
		return;
	char v[96];
	if (o->act[k] != o->exp[k])
		fmt_src(p->c, o->act[k], v, sizeof v);
	else { /* the right source, other bits */
		char s[80];
		short_value(p->c->dtype, o->act_bits[k], s, sizeof s);
		snprintf(v, sizeof v, "value %.80s", s);
	}
	snprintf(l2, n, "got %s", v);
}

static int has_wrong(const struct rank_out *o, int64_t first, int64_t n)
{
	for (int64_t k = first; k < first + n && k < o->n; k++)
		if (o->wrong[k])
			return 1;
	return 0;
}

static void tile_shape(const struct rank_out *o, int64_t *rows, int64_t *cols)
{
	*rows = o->ndim >= 2 ? o->shape[o->ndim - 2] : 1;
	*cols = o->ndim >= 1 ? o->shape[o->ndim - 1] : 1;
}

static int cmp_tile(const void *a, const void *b)
{
	const struct tile *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* From element *f on, the first tile of o that has (want 1) or has no
 * (want 0) wrong element: 1 with *f at it, or 0. */
static int next_tile(const struct rank_out *o, int64_t *f, int want)
{
	int64_t rows, cols;
	tile_shape(o, &rows, &cols);
	for (; o->checked && *f < o->n; *f += rows * cols)
		if (has_wrong(o, *f, rows * cols) == want)
			return 1;
	return 0;
}

/* The tiles drawn, at most max cells: those with a wrong element first,
 * then the others, a tile of each rank in turn, so that every rank with
 * a wrong element shows one; returned in rank and element order. */
static struct tile *select_tiles(struct pic *p, int max, int *nt)
{
	const int world = p->c->world;
	struct tile *ts = malloc(sizeof *ts * (size_t)max);
	int64_t *next = malloc(sizeof *next * (size_t)world);
	if (!ts || !next) {
		free(ts);
		free(next);
		return NULL;
	}
	int n = 0;
	int64_t left = max;
	for (int pass = 0; pass < 2; pass++) {
		memset(next, 0, sizeof *next * (size_t)world);
		for (int more = 1; more && left > 0;) {
			more = 0;
			for (int r = 0; r < world && left > 0; r++) {
				struct rank_out *o = &p->r[r];
				if (!next_tile(o, &next[r], pass == 0))
					continue;
				int64_t rows, cols;
				tile_shape(o, &rows, &cols);
				struct tile tl = {r, next[r], rows, cols, rows < TILE_MAX ? rows : TILE_MAX,
						  cols < TILE_MAX ? cols : TILE_MAX};
				if (tl.dcols > left)
					tl.dcols = left;
				if (tl.drows * tl.dcols > left)
					tl.drows = left / tl.dcols;
				ts[n++] = tl;
				left -= tl.drows * tl.dcols;
				o->drawn += tl.drows * tl.dcols;
				for (int64_t i = 0; i < tl.drows; i++)
					for (int64_t j = 0; j < tl.dcols; j++)
						p->drawn_wrong += o->wrong[tl.first + i * cols + j];
				next[r] += rows * cols;
				more = 1;
			}
		}
	}
	free(next);
	for (int r = 0; r < world; r++)
		p->not_drawn += p->r[r].checked ? p->r[r].n - p->r[r].drawn : 0;
	qsort(ts, (size_t)n, sizeof *ts, cmp_tile);
	*nt = n;
	return ts;
}

/* The widest cell text of the tiles drawn, in characters. */
static int widest(const struct pic *p, const struct tile *ts, int nt)
{
	int w = 7;
	char l1[160], l2[176];
	for (int i = 0; i < nt; i++) {
		const struct rank_out *o = &p->r[ts[i].rank];
		for (int64_t a = 0; a < ts[i].drows; a++)
			for (int64_t b = 0; b < ts[i].dcols; b++) {
				cell_text(p, o, ts[i].first + a * ts[i].cols + b, l1, l2, sizeof l1);
				const int m = (int)(strlen(l1) > strlen(l2) ? strlen(l1) : strlen(l2));
				w = m > w ? m : w;
			}
	}
	return w;
}

/* Element k of rank r's output at (x, y): its rect (text 0) or its text
 * (text 1); a tile draws its rects, then its texts, each in a group that
 * gives what they share. */
static void cell(struct sc_str *b, const struct pic *p, int r, int64_t k, int x, int y, int cw, int text)
{
	const struct rank_out *o = &p->r[r];
	const uint64_t a = o->act[k];
	const int wrong = o->wrong[k];
	const char *cls = a == SC_PROV_PAD ? "pad" : a == SC_PROV_POISON ? "nothing" : wrong ? "wrong" : "ok";
	const char *fill = a == SC_PROV_PAD ? SC_SVG_PAD : a == SC_PROV_POISON ? SC_SVG_NOTHING
			   : wrong ? SC_SVG_WRONG : SC_SVG_OK;
	const int border = wrong && strcmp(cls, "wrong") != 0; /* padding or nothing where X belongs */
	if (text) {
		char l1[160], l2[176];
		cell_text(p, o, k, l1, l2, sizeof l1);
		text_at(b, x + cw / 2, y + 14, "", l1);
		if (l2[0])
			text_at(b, x + cw / 2, y + 33, "", l2);
		return;
	}
	char idx[200];
	int64_t rem = k, ix[SC_MAX_DIMS];
	for (int d = o->ndim - 1; d >= 0; d--) {
		ix[d] = o->shape[d] ? rem % o->shape[d] : 0;
		rem = o->shape[d] ? rem / o->shape[d] : 0;
	}
	size_t w = 0;
	idx[0] = '\0';
	for (int d = 0; d < o->ndim && w < sizeof idx; d++)
		w += (size_t)snprintf(idx + w, sizeof idx - w, "%s%lld", d ? "," : "", (long long)ix[d]);
	sc_str_printf(b, "<rect class=\"%s\" data-rank=\"%d\" data-index=\"%s\"%s x=\"%d\" y=\"%d\" width=\"%d\" "
		      "height=\"%d\" fill=\"%s\"%s/>\n", cls, r, idx, wrong ? " data-wrong=\"1\"" : "", x, y, cw, CELL_H,
		      fill, border ? " stroke=\"" SC_SVG_WRONG "\" stroke-width=\"3\"" : "");
}

/* "[0, 1, :, :]  b=0, h=1; rows s, columns d": the tile's index in the
 * leading dims, and, where the output has the case's dims, their names
 * and those of its rows and columns. */
static void tile_caption(const struct pic *p, const struct rank_out *o, const struct tile *tl, char *buf, size_t n)
{
	int64_t lead[SC_MAX_DIMS];
	const int64_t per = tl->rows * tl->cols;
	int64_t rem = per > 0 ? tl->first / per : 0;
	const int nl = o->ndim > 2 ? o->ndim - 2 : 0;
	for (int d = nl - 1; d >= 0; d--) {
		lead[d] = o->shape[d] ? rem % o->shape[d] : 0;
		rem = o->shape[d] ? rem / o->shape[d] : 0;
	}
	size_t k = (size_t)snprintf(buf, n, "[");
	for (int d = 0; d < nl && k < n; d++)
		k += (size_t)snprintf(buf + k, n - k, "%lld, ", (long long)lead[d]);
	if (k < n)
		k += (size_t)snprintf(buf + k, n - k, "%s]", o->ndim >= 2 ? ":, :" : o->ndim == 1 ? ":" : "");
	if (o->ndim >= 1 && o->ndim == p->c->ndims) { /* the dims by name */
		char tmp[32];
		if (k < n)
			k += (size_t)snprintf(buf + k, n - k, "  ");
		for (int d = 0; d < nl && k < n; d++)
			k += (size_t)snprintf(buf + k, n - k, "%s=%lld%s", sc_target_dim_name(p->t, p->c, d, tmp, sizeof tmp),
					      (long long)lead[d], d + 1 < nl ? ", " : "; ");
		if (k < n && o->ndim >= 2)
			k += (size_t)snprintf(buf + k, n - k, "rows %s, ",
					      sc_target_dim_name(p->t, p->c, o->ndim - 2, tmp, sizeof tmp));
		if (k < n)
			k += (size_t)snprintf(buf + k, n - k, "columns %s",
					      sc_target_dim_name(p->t, p->c, o->ndim - 1, tmp, sizeof tmp));
	}
	if (k < n && (tl->drows < tl->rows || tl->dcols < tl->cols))
		snprintf(buf + k, n - k, "  (first %lld of %lld rows, %lld of %lld columns)", (long long)tl->drows,
			 (long long)tl->rows, (long long)tl->dcols, (long long)tl->cols);
}

struct canvas {
	struct sc_str b;
	int y, w; /* the next free line; the widest extent */
	int cw;   /* a cell's width */
};

static void widen(struct canvas *cv, int right)
{
	if (right + MARGIN > cv->w)
		cv->w = right + MARGIN;
}

/* Rank r's header and its tiles (ts[i..], those of rank r) as a block at
 * (x0, y0), its size in *bw, *bh; b NULL: measured only. Returns the
 * index past its tiles. */
static int draw_rank(struct sc_str *b, const struct pic *p, int r, const struct tile *ts, int nt, int i, int x0,
		     int y0, int cw, int *bw, int *bh)
{
	const struct rank_out *o = &p->r[r];
	char rk[96], sh[160], line[400];
	sc_layout_rank_text(p->s0, p->c->sizes, p->c->world, r, rk, sizeof rk);
	sc_shape_format(o->shape, o->ndim, sh, sizeof sh);
	if (!o->checked)
		snprintf(line, sizeof line, "rank %s: output %s, not checked (the output placement names other ranks)",
			 rk, sh);
	else
		snprintf(line, sizeof line, "rank %s: output %s%s, %lld wrong%s", rk, sh, o->n ? "" : " (empty)",
			 (long long)o->nwrong, o->drawn < o->n ? " (not all drawn)" : "");
	if (b)
		text_at(b, x0, y0 + 14, "font-size=\"13\" font-weight=\"bold\"", line);
	int w = 8 * (int)strlen(line), y = y0 + 22, x = x0, rowh = 0;
	for (; i < nt && ts[i].rank == r; i++) {
		const struct tile *tl = &ts[i];
		const int tw = (int)tl->dcols * (cw + GAP), th = CAPTION + (int)tl->drows * (CELL_H + GAP);
		if (x > x0 && x - x0 + tw > WRAP_W) {
			x = x0;
			y += rowh + 10;
			rowh = 0;
		}
		char cap[200];
		tile_caption(p, o, tl, cap, sizeof cap);
		const int capw = CHAR_W * (int)strlen(cap);
		w = x - x0 + (tw > capw ? tw : capw) > w ? x - x0 + (tw > capw ? tw : capw) : w;
		rowh = th > rowh ? th : rowh;
		if (b) {
			text_at(b, x, y + 12, "fill=\"#555555\"", cap);
			for (int text = 0; text <= 1; text++) {
				sc_str_put(b, text ? "<g text-anchor=\"middle\">\n" : "<g stroke=\"#9e9e9e\" stroke-width=\"1\">\n");
				for (int64_t a = 0; a < tl->drows; a++)
					for (int64_t c = 0; c < tl->dcols; c++)
						cell(b, p, r, tl->first + a * tl->cols + c, x + (int)c * (cw + GAP),
						     y + CAPTION + (int)a * (CELL_H + GAP), cw, text);
				sc_str_put(b, "</g>\n");
			}
		}
		x += (tw > capw ? tw : capw) + 18;
	}
	*bw = w;
	*bh = y + rowh - y0;
	return i;
}

/* The ranks' blocks, flowing left to right (a new row past WRAP_W). */
static void draw_ranks(struct canvas *cv, const struct pic *p, const struct tile *ts, int nt)
{
	int x = MARGIN, y = cv->y, rowh = 0;
	for (int r = 0, i = 0; r < p->c->world; r++) {
		int w, h;
		draw_rank(NULL, p, r, ts, nt, i, 0, 0, cv->cw, &w, &h);
		if (x > MARGIN && x + w > WRAP_W) {
			x = MARGIN;
			y += rowh + 20;
			rowh = 0;
		}
		i = draw_rank(&cv->b, p, r, ts, nt, i, x, y, cv->cw, &w, &h);
		widen(cv, x + w);
		x += w + 40;
		rowh = h > rowh ? h : rowh;
	}
	cv->y = y + rowh + 14;
}

/* Title, case, counts, diagnosis and legend. */
static void draw_head(struct canvas *cv, const struct pic *p, const char *target, const char *property)
{
	char line[1200], cs[512];
	snprintf(line, sizeof line, "%.900s: %s", target, property);
	text_at(&cv->b, MARGIN, 26, "font-size=\"16\" font-weight=\"bold\"", line);
	widen(cv, MARGIN + 10 * (int)strlen(line));
	sc_target_case_format(p->t, p->c, cs, sizeof cs);
	snprintf(line, sizeof line, "case: %s", cs);
	text_at(&cv->b, MARGIN, 46, "font-size=\"13\"", line);
	widen(cv, MARGIN + 8 * (int)strlen(line));
	snprintf(line, sizeof line, "%lld wrong element%s of %lld. Each cell: the element of X the output placement "
		 "puts there; in a wrong cell, below it, what the output holds.", (long long)p->wrong,
		 p->wrong == 1 ? "" : "s", (long long)p->total);
	text_at(&cv->b, MARGIN, 64, "font-size=\"13\"", line);
	widen(cv, MARGIN + 8 * (int)strlen(line));
	cv->y = 64;
	if (p->diag[0]) {
		snprintf(line, sizeof line, "diagnosis: %s", p->diag);
		cv->y += 18;
		text_at(&cv->b, MARGIN, cv->y, "class=\"diagnosis\" font-size=\"13\" font-weight=\"bold\"", line);
		widen(cv, MARGIN + 8 * (int)strlen(line));
	}
	static const struct {
		const char *fill, *stroke, *text;
	} legend[] = {
		{SC_SVG_OK, "#9e9e9e", "correct"},
		{SC_SVG_WRONG, "#9e9e9e", "wrong: another element of X (or other bits)"},
		{SC_SVG_PAD, "#9e9e9e", "padding"},
		{SC_SVG_NOTHING, "#9e9e9e", "nothing (no step wrote it)"},
		{"#ffffff", SC_SVG_WRONG, "red border: padding or nothing where X belongs"},
	};
	cv->y += 14;
	int x = MARGIN;
	for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++) {
		sc_str_printf(&cv->b, "<rect class=\"legend\" x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\" "
			      "stroke=\"%s\" stroke-width=\"2\"/>\n", x, cv->y, legend[i].fill, legend[i].stroke);
		text_at(&cv->b, x + 20, cv->y + 11, "", legend[i].text);
		x += 20 + CHAR_W * (int)strlen(legend[i].text) + 18;
	}
	widen(cv, x);
	cv->y += 22;
}

static enum sc_status draw(struct pic *p, const char *target, const char *property, int max_cells, char **out,
			   struct sc_err *e)
{
	int nt = 0;
	struct tile *ts = select_tiles(p, max_cells, &nt);
	if (!ts)
		return SC_ERR(e, SC_E_NOMEM, "out of memory drawing the picture");
	struct canvas cv = {SC_STR_INIT, 0, 0, 0};
	cv.cw = CHAR_W * widest(p, ts, nt) + 14;
	draw_head(&cv, p, target, property);
	draw_ranks(&cv, p, ts, nt);
	if (p->not_drawn) {
		char line[200];
		snprintf(line, sizeof line, "... %lld more element%s not drawn (%lld of them wrong)",
			 (long long)p->not_drawn, p->not_drawn == 1 ? "" : "s", (long long)(p->wrong - p->drawn_wrong));
		cv.y += 6;
		text_at(&cv.b, MARGIN, cv.y, "class=\"not-drawn\" font-size=\"13\"", line);
		widen(&cv, MARGIN + 8 * (int)strlen(line));
	}
	free(ts);
	const int h = cv.y + MARGIN;
	struct sc_str doc = SC_STR_INIT;
	sc_str_printf(&doc, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		      "font-family=\"monospace\" font-size=\"11\">\n<title>shardcheck: ", cv.w, h, cv.w, h);
	xml_put(&doc, target);
	sc_str_printf(&doc, " %s</title>\n<rect class=\"background\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		      property, cv.w, h);
	sc_str_put(&doc, sc_str_cstr(&cv.b));
	sc_str_put(&doc, "</svg>\n");
	const int oom = cv.b.oom;
	sc_str_free(&cv.b);
	char *s = sc_str_take(&doc);
	if (!s || oom) {
		free(s);
		return SC_ERR(e, SC_E_NOMEM, "out of memory drawing the picture");
	}
	*out = s;
	return SC_OK;
}

enum sc_status sc_svg_render(struct sc_ctx *ctx, struct sc_target *t, const char *property,
			     const struct sc_case *c, const struct sc_svg_opts *o, char **out,
			     struct sc_svg_info *info, struct sc_err *e)
{
	const struct sc_svg_opts none = {0};
	if (!o)
		o = &none;
	const char *why = sc_svg_skip_reason(t, property, c, o->fail);
	if (why)
		return SC_ERR(e, SC_E_UNAVAIL, "%s", why);
	struct pic *p = calloc(1, sizeof *p);
	if (!p)
		return SC_ERR(e, SC_E_NOMEM, "out of memory drawing the picture");
	p->t = t;
	p->c = c;
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns = 0;
	enum sc_status st;
	SC_CHECK_GOTO(sc_target_specs(t, c, s, &ns, e), st, done);
	p->s0 = s[0];
	p->sl = s[ns - 1];
	SC_CHECK_GOTO(replay(ctx, p, e), st, done);
	SC_CHECK_GOTO(expected(ctx, p, e), st, done);
	classify(p);
	if (o->fail && o->fail->wrong != p->wrong) {
		st = SC_ERR(e, SC_E_UNAVAIL, "the replay here finds %lld wrong element%s where the check found %lld "
			    "(a failure of another backend?): not drawn", (long long)p->wrong, p->wrong == 1 ? "" : "s",
			    (long long)o->fail->wrong);
		goto done;
	}
	diagnose(p);
	SC_CHECK_GOTO(draw(p, o->target ? o->target : t->name, property,
			   o->max_cells > 0 ? o->max_cells : SC_SVG_MAX_CELLS, out, e), st, done);
	if (info) {
		info->elements = p->total;
		info->wrong = p->wrong;
		info->not_drawn = p->not_drawn;
		snprintf(info->diagnosis, sizeof info->diagnosis, "%s", p->diag);
	}
done:
	pic_free(p);
	return st;
}

enum sc_status sc_svg_write(struct sc_ctx *ctx, struct sc_target *t, const char *property, const struct sc_case *c,
			    const struct sc_svg_opts *o, const char *path, struct sc_svg_info *info,
			    struct sc_err *e)
{
	const char *why = sc_svg_skip_reason(t, property, c, o ? o->fail : NULL);
	if (why)
		return SC_ERR(e, SC_E_UNAVAIL, "%s", why);
	struct sc_backend *be = NULL;
	struct sc_ctx *own = NULL;
	int first = 0;
	if (!ctx || ctx->be->ops->local_ranks(ctx->be, c->world, &first) != c->world || first != 0) {
		SC_CHECK(sc_backend_open("sim", &be, e));
		if (!(own = sc_ctx_new(be, 0))) {
			sc_backend_close(be);
			return SC_ERR(e, SC_E_NOMEM, "out of memory");
		}
		ctx = own;
	}
	char *doc = NULL;
	const int fresh = t->fresh;
	t->fresh = 1; /* a plugin's runs in fresh children, as its failure was confirmed */
	enum sc_status st = sc_svg_render(ctx, t, property, c, o, &doc, info, e);
	t->fresh = fresh;
	if (st == SC_OK && path)
		st = sc_fs_write_atomic(path, doc, strlen(doc), e);
	if (st == SC_OK && path)
		SC_LOG(REPORT, "wrote %s", path);
	free(doc);
	sc_ctx_free(own);
	sc_backend_close(be);
	return st;
}
