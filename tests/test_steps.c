/* The step table: every row parses from a sample line, is found by its
 * keyword, and behaves as its flags say: a collective calls the backend
 * (and only a collective does), a reducing step calls a reduction, a
 * dim-0 collective raises on a non-contiguous input unless `raw`. The
 * backend is sim wrapped in counters. A row without a sample below fails
 * this test: a new step comes with its line here. */
#include <stdio.h>
#include <string.h>

#include "sc_interp.h"
#include "sc_spec.h"
#include "sc_test.h"

static const char *const samples[][2] = {
	{"reshape", "reshape [-1]"},
	{"view", "view [-1]"},
	{"flatten", "flatten 0 1"},
	{"unsqueeze", "unsqueeze 0"},
	{"squeeze", "squeeze 0"},
	{"movedim", "movedim 0 1"},
	{"chunk_cat", "chunk_cat chunk=0 cat=1"},
	{"transpose", "transpose 0 1"},
	{"permute", "permute 1 0"},
	{"contiguous", "contiguous"},
	{"narrow", "narrow 0 rank size(0)-rank"},
	{"take", "take 1 2 [1-k for k]"},
	{"flip", "flip 1"},
	{"pad", "pad 0 1 rank"},
	{"repeat_interleave", "repeat_interleave 2 -1"},
	{"assert", "assert size(0) == 2 or rank > 1"},
	{"all_to_all_single", "all_to_all_single"},
	{"all_gather_into_tensor", "all_gather_into_tensor"},
	{"reduce_scatter_tensor", "reduce_scatter_tensor sum"},
	{"all_reduce", "all_reduce sum"},
	{"all_to_all", "all_to_all split=0 concat=1"},
	{"all_gather", "all_gather dim=0"},
	{"reduce_scatter", "reduce_scatter dim=0 op=sum"},
	{"shift", "shift 1"},
	{"broadcast", "broadcast src=1"},
	{"gather", "gather dim=1 dst=1"},
	{"scatter", "scatter dim=0 src=1"},
	{"zeros", "zeros [size(0)+1, 2]"},
	{"empty", "empty [2, 2]"},
	{"write", "tensor x = input\nbuf = zeros x [size(0)+1, size(1)]\ny = write buf x dim=0 start=1"},
	{"sort_by", "routes R[a] 0..1\nsort_by R dim=0"},
	{"unsort_by", "routes R[a] 0..1\nunsort_by R dim=0 start=rank*2"},
	{"select", "routes R[a] 0..1\nselect R dim=0 experts=0..0"},
	{"combine_by", "routes R[a] 0..1\ncombine_by R dim=0 start=rank*2"},
	{"for", "for i in 0..1\nnarrow 1 0 2-i\nend"}, /* a loop: its lines, its end */
	{"end", "for i in 1..0\nflip 0\nend"},
	{"sendrecv", "sendrecv to=1-rank from=1-rank"},
	{"reduce", "reduce sum dst=0"},
	{"cat", "y = cat input input dim=1"},
	{"split", "x, y = split input [1, 1] dim=1"},
};

/* Sized forms of rows above: each must run through the variable-size exchange. */
static const char *const sized[] = {"all_to_all_single splits=1", "all_to_all_single in=(2 if dst==src else 0) out=(2 if src==dst else 0)",
				    "all_gather dim=1 sizes=2", "shift 1-2*rank", "broadcast src=0", "gather dim=0 dst=0",
				    "sendrecv to=(1 if rank==0 else none) from=(0 if rank==1 else none)"};
/* ...and inconsistent ones, refused before any byte moves. */
static const char *const sized_bad[][2] = {
	{"all_to_all_single in=(2 if dst==src else 0) out=1", "rank 0 sends 2 rows to rank 0, which expects 1"},
	{"all_to_all_single splits=2", "Split sizes doesn't match"},
	{"all_gather dim=1 sizes=1", "rank 0 expects 1 row from rank 0, which sends 2"},
	{"shift rank+1", "ranks 0 and 1 both send to rank 1"},
	{"broadcast src=rank", "must name the same src"},
	{"gather dim=0 dst=rank", "must name the same dst"},
	{"sendrecv to=1-rank from=none", "rank 0 sends to rank 1, which receives nothing"},
	{"sendrecv to=none from=1-rank", "rank 0 waits for rank 1, which sends nothing"},
	{"reduce_scatter dim=0 op=sum sizes=2", "the sizes sum to 4 but dim 0 is 2"},
	{"reduce_scatter dim=0 op=sum sizes=rank+dst", "disagree"},
	{"reduce sum dst=rank", "disagree"},
};
static int vcalls;

static int calls, reductions;
static const struct sc_backend_ops *sim;

static enum sc_status c_a2a(struct sc_backend *be, int w, void *const *s, void *const *r, size_t n, struct sc_err *e)
{
	calls++;
	return sim->all_to_all(be, w, s, r, n, e);
}
static enum sc_status c_ag(struct sc_backend *be, int w, void *const *s, void *const *r, size_t n, struct sc_err *e)
{
	calls++;
	return sim->all_gather(be, w, s, r, n, e);
}
static enum sc_status c_a2av(struct sc_backend *be, int w, void *const *s, void *const *r, const size_t *sb,
			     const size_t *rb, struct sc_err *e)
{
	calls++;
	vcalls++;
	return sim->all_to_allv(be, w, s, r, sb, rb, e);
}
static enum sc_status c_rs(struct sc_backend *be, int w, void *const *s, void *const *r, size_t n,
			   enum sc_dtype dt, enum sc_redop op, struct sc_err *e)
{
	calls++;
	reductions++;
	return sim->reduce_scatter(be, w, s, r, n, dt, op, e);
}
static enum sc_status c_ar(struct sc_backend *be, int w, void *const *s, void *const *r, size_t n,
			   enum sc_dtype dt, enum sc_redop op, struct sc_err *e)
{
	calls++;
	reductions++;
	return sim->all_reduce(be, w, s, r, n, dt, op, e);
}

/* Runs line on 2 ranks holding [2, 2] i32 tensors (transposed views when
 * strided): the status, the backend calls counted. */
static enum sc_status run(struct sc_backend *be, struct sc_arena *a, const char *line, int strided, struct sc_err *e)
{
	char text[256];
	snprintf(text, sizeof text, "dims a b\ninput shard a\noutput shard a\n%s\n", line);
	static struct sc_spec s;
	if (sc_spec_parse(text, "sample.sc", &s, e) != SC_OK)
		return SC_E_SPEC;
	static struct sc_exec x;
	memset(&x, 0, sizeof x);
	x.arena = a;
	x.be = be;
	x.world = 2;
	x.nlocal = 2;
	x.dtype = SC_I32;
	sc_arena_reset(a);
	const int64_t shape[2] = {2, 2}, sizes[2] = {4, 2};
	for (int r = 0; r < 2; r++) {
		if (sc_tensor_empty(a, shape, 2, 4, &x.t[r], e) != SC_OK)
			return SC_E_NOMEM;
		if (strided) { /* a transposed view */
			x.t[r].stride[0] = 1;
			x.t[r].stride[1] = 2;
		}
	}
	static struct sc_countv cv = {.P = 2, .v = {{1, 0, 0, 1}}}; /* a routes line's: token q to expert v[q] */
	x.counts = &cv;
	calls = reductions = 0;
	return sc_exec_spec(&x, &s, sizes, e);
}

int main(void)
{
	const struct sc_step_def *const *rows;
	int n;
	sc_step_table(&rows, &n);
	T_CHECK(n == (int)(sizeof samples / sizeof samples[0]), "%d rows in the table, %d samples", n,
		(int)(sizeof samples / sizeof samples[0]));
	struct sc_backend *be;
	sc_backend_sim_open(&be, NULL);
	sim = be->ops;
	struct sc_backend_ops counted = *sim;
	counted.all_to_all = c_a2a;
	counted.all_gather = c_ag;
	counted.reduce_scatter = c_rs;
	counted.all_reduce = c_ar;
	counted.all_to_allv = c_a2av;
	be->ops = &counted;
	struct sc_arena a;
	sc_arena_init(&a);
	for (int i = 0; i < n; i++) {
		const struct sc_step_def *d = rows[i];
		T_CHECK(sc_step_find(d->keyword) == d, "%s: not found by its keyword", d->keyword);
		const char *line = NULL;
		for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++)
			if (strcmp(samples[k][0], d->keyword) == 0)
				line = samples[k][1];
		T_CHECK(line != NULL, "%s: no sample line in tests/test_steps.c", d->keyword);
		if (!line)
			continue;
		T_CHECK(!(d->flags & SC_STEP_REDUCES) || (d->flags & SC_STEP_COLLECTIVE), "%s: reduces but is not a collective",
			d->keyword);
		T_CHECK(!!(d->flags & SC_STEP_NEEDS_CONTIG) == !!(d->flags & SC_STEP_RAW_OK), "%s: contiguity and raw disagree",
			d->keyword);
		struct sc_err e;
		enum sc_status st = run(be, &a, line, 0, &e);
		T_CHECK(st == SC_OK, "%s: `%s` fails: %s", d->keyword, line, e.msg);
		T_CHECK((calls > 0) == !!(d->flags & SC_STEP_COLLECTIVE), "%s: %d backend calls, collective flag %d",
			d->keyword, calls, !!(d->flags & SC_STEP_COLLECTIVE));
		T_CHECK((reductions > 0) == !!(d->flags & SC_STEP_REDUCES), "%s: %d reductions, reduces flag %d", d->keyword,
			reductions, !!(d->flags & SC_STEP_REDUCES));
		if (!(d->flags & SC_STEP_NEEDS_CONTIG))
			continue;
		st = run(be, &a, line, 1, &e);
		T_CHECK(st == SC_E_RUNTIME && strstr(e.msg, "contiguous"), "%s: a non-contiguous input is not refused",
			d->keyword);
		char raw[128];
		snprintf(raw, sizeof raw, "%s raw", line);
		T_CHECK(run(be, &a, raw, 1, &e) == SC_OK, "%s raw: refused: %s", d->keyword, e.msg);
	}
	for (size_t k = 0; k < sizeof sized / sizeof sized[0]; k++) {
		struct sc_err e;
		vcalls = 0;
		enum sc_status st = run(be, &a, sized[k], 0, &e);
		T_CHECK(st == SC_OK && vcalls == 1, "`%s`: status %d, %d variable-size exchanges: %s", sized[k], st, vcalls,
			st == SC_OK ? "" : e.msg);
	}
	for (size_t k = 0; k < sizeof sized_bad / sizeof sized_bad[0]; k++) {
		struct sc_err e;
		vcalls = 0;
		enum sc_status st = run(be, &a, sized_bad[k][0], 0, &e);
		T_CHECK(st == SC_E_RUNTIME && strstr(e.msg, sized_bad[k][1]) && vcalls == 0,
			"`%s`: status %d, %d exchanges, message: %s", sized_bad[k][0], st, vcalls, e.msg);
	}
	printf("%d steps in the table\n", n);
	sc_arena_free(&a);
	be->ops = sim;
	sc_backend_close(be);
	T_DONE();
}
