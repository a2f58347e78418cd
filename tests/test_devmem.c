/* The device path on the CPU: the shared element code against independent
 * arithmetic, the tiled transpose's index math, the emulated device's
 * guards (a host access to a device buffer faults, a kernel on the wrong
 * rank or out of bounds is an error), and planted device faults that the
 * in-place check must catch with the same first wrong element as sim. */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sc_builtin.h"
#include "sc_check.h"
#include "sc_devmem.h"
#include "sc_test.h"

static uint64_t st = 2024;
static uint64_t rnd(void)
{
	uint64_t z = (st += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* f16 against the compiler's own _Float16 (round to nearest even): every
 * bit pattern decoded, random floats encoded. */
static void test_f16_oracle(void)
{
	int bad = 0;
#if defined(__FLT16_MAX__) && defined(__GNUC__)
	__extension__ typedef _Float16 f16_t;
	for (uint32_t h = 0; h < 65536; h++) {
		f16_t x;
		uint16_t hb = (uint16_t)h;
		memcpy(&x, &hb, 2);
		float want = (float)x, got = sc_hd_mini_to_float(SC_F16, h);
		if (!(want == got || (want != want && got != got)))
			bad++;
	}
	T_CHECK(bad == 0, "f16 decode differs from _Float16 for %d patterns", bad);
	bad = 0;
	for (int i = 0; i < 200000; i++) {
		uint64_t u = rnd(); /* magnitudes from below f16's subnormals to past its max */
		float f = sc_hd_u2f((uint32_t)(u & 0x807fffffu) | (uint32_t)(97 + (u >> 32) % 50) << 23);
		if (f != f)
			continue;
		f16_t x = (f16_t)f;
		uint16_t want;
		memcpy(&want, &x, 2);
		if (sc_hd_float_to_mini(SC_F16, f) != want)
			bad++;
	}
	T_CHECK(bad == 0, "f16 encode differs from _Float16 for %d of 200000 floats", bad);
#else
	printf("  (no _Float16 in this compiler: f16 oracle skipped)\n");
#endif
	/* integers: the integer-only encoding equals the float path's bits */
	bad = 0;
	const int minis[] = {SC_F16, SC_BF16, SC_F8E4M3, SC_F8E5M2};
	for (int k = 0; k < 4; k++)
		for (int64_t v = -5000; v <= 5000; v++)
			bad += sc_hd_int_to_bits(minis[k], v) != sc_hd_float_to_mini(minis[k], (float)v);
	T_CHECK(bad == 0, "integers to minifloats: %d of 40004 differ from the float path", bad);
}

/* One-element reductions against the typed loops of sc_reduce (integers,
 * f32, f64), and minifloat reductions against float arithmetic. */
static void test_reduce1(void)
{
	int bad = 0;
	for (int dt = 0; dt < SC_NDTYPES; dt++)
		for (int op = 0; op < SC_NREDOPS; op++)
			for (int i = 0; i < 2000; i++) {
				const unsigned es = sc_hd_dtype_size(dt);
				uint64_t a = rnd(), b = rnd(), acc = 0, in = 0;
				if (es < 8) {
					a &= (1ULL << (8 * es)) - 1;
					b &= (1ULL << (8 * es)) - 1;
				}
				memcpy(&acc, &a, es);
				memcpy(&in, &b, es);
				uint64_t want;
				/* NaN payloads of an operation are the hardware's choice
				 * (and reductions only ever see small integers) */
				if ((dt == SC_F32 && (sc_hd_u2f((uint32_t)a) != sc_hd_u2f((uint32_t)a) ||
						      sc_hd_u2f((uint32_t)b) != sc_hd_u2f((uint32_t)b))) ||
				    (dt == SC_F64 && (sc_hd_u2d(a) != sc_hd_u2d(a) || sc_hd_u2d(b) != sc_hd_u2d(b))) ||
				    (dt >= SC_F16 && (sc_hd_mini_to_float(dt, a) != sc_hd_mini_to_float(dt, a) ||
						      sc_hd_mini_to_float(dt, b) != sc_hd_mini_to_float(dt, b))))
					continue;
				if (dt >= SC_F16) { /* minifloat: through float */
					float x = sc_hd_mini_to_float(dt, a), y = sc_hd_mini_to_float(dt, b);
					float r = op == SC_SUM ? x + y : op == SC_PROD ? x * y : op == SC_MAX ? (x > y ? x : y) : (x < y ? x : y);
					want = sc_hd_float_to_mini(dt, r);
				} else {
					sc_reduce((enum sc_dtype)dt, (enum sc_redop)op, &acc, &in, 1);
					want = acc;
				}
				if (sc_hd_reduce1(dt, op, a, b) != want)
					bad++;
			}
	T_CHECK(bad == 0, "%d one-element reductions differ", bad);
}

/* Every element of a batched transpose is written exactly once by the
 * tiles, with the element the plain strided copy would write. */
static void test_tile_plan(void)
{
	int applied = 0, bad = 0;
	for (int trial = 0; trial < 200; trial++) {
		/* [B, K, L] source contiguous along K (a transposed view) */
		const int64_t B = 1 + (int64_t)(rnd() % 3), K = 2 + (int64_t)(rnd() % 70), L = 2 + (int64_t)(rnd() % 70);
		const int64_t n = B * K * L;
		struct sc_strided sv = {3, {B, K, L}, {K * L, 1, K}, 0};
		struct sc_strided dv = {3, {B, K, L}, {K * L, L, 1}, 0};
		struct sc_strided d2 = dv, s2 = sv;
		sc_strided_coalesce2(&d2, &s2);
		struct sc_tile_plan p;
		if (!sc_tile_plan_make(&d2, &s2, &p))
			continue;
		applied++;
		int *count = calloc((size_t)n, sizeof *count);
		int64_t *from = calloc((size_t)n, sizeof *from);
		for (int64_t t = 0; t < p.ntiles; t++) {
			int64_t k0, l0, sb, db;
			sc_tile_origin(&p, t, &k0, &l0, &sb, &db);
			for (int ty = 0; ty < SC_TILE_ROWS; ty++)
				for (int tx = 0; tx < SC_TILE; tx++)
					for (int j = 0; j < SC_TILE; j += SC_TILE_ROWS) {
						const int64_t l = l0 + tx, k = k0 + ty + j;
						if (k < p.nk && l < p.nl) {
							const int64_t o = db + k * p.d_k + l;
							count[o]++;
							from[o] = sb + k + l * p.s_l;
						}
					}
		}
		for (int64_t i = 0; i < n; i++) {
			const int64_t o = sc_strided_offset(&dv, i);
			if (count[o] != 1 || from[o] != sc_strided_offset(&sv, i))
				bad++;
		}
		free(count);
		free(from);
	}
	T_CHECK(applied == 200, "the tile plan applied to %d of 200 transposes", applied);
	T_CHECK(bad == 0, "%d elements written wrongly or not exactly once by the tiles", bad);
	/* a plain contiguous copy is not tiled */
	struct sc_strided a = {2, {4, 5}, {5, 1}, 0}, b = a;
	struct sc_tile_plan p;
	sc_strided_coalesce2(&a, &b);
	T_CHECK(!sc_tile_plan_make(&a, &b, &p) && a.ndim == 1, "a contiguous copy coalesces to one run");
}

/* The emulated device: copies of random views equal the host copy; a host
 * read of a device buffer faults; wrong rank and out-of-bounds are errors. */
static void test_emu(void)
{
	struct sc_devmem *dm;
	struct sc_err e;
	T_CHECK(sc_devmem_emu_open(&dm, &e) == SC_OK, "emu opens");
	int bad = 0;
	for (int trial = 0; trial < 300; trial++) {
		const int64_t a = 1 + (int64_t)(rnd() % 9), b = 1 + (int64_t)(rnd() % 40), c = 1 + (int64_t)(rnd() % 40);
		const int64_t n = a * b * c;
		const unsigned es = 1u << (rnd() % 5);
		unsigned char *src = malloc((size_t)n * es), *want = malloc((size_t)n * es), *got = malloc((size_t)n * es);
		for (int64_t i = 0; i < n * (int64_t)es; i++)
			src[i] = (unsigned char)rnd();
		const int perm = (int)(rnd() % 3);
		struct sc_strided sv = {3, {a, b, c}, {b * c, c, 1}, 0};
		if (perm == 1)
			sv = (struct sc_strided){3, {a, c, b}, {b * c, 1, c}, 0};
		else if (perm == 2)
			sv = (struct sc_strided){3, {c, b, a}, {1, c, b * c}, 0};
		struct sc_strided dv = {3, {sv.shape[0], sv.shape[1], sv.shape[2]},
					{sv.shape[1] * sv.shape[2], sv.shape[2], 1}, 0};
		for (int64_t i = 0; i < n; i++)
			memcpy(want + i * es, src + sc_strided_offset(&sv, i) * es, es);
		void *ds = dm->ops->alloc(dm, 0, (size_t)n * es), *dd = dm->ops->alloc(dm, 0, (size_t)n * es);
		int err = dm->ops->upload(dm, ds, src, (size_t)n * es);
		err |= dm->ops->copy(dm, 0, dd, &dv, ds, &sv, n, es);
		err |= dm->ops->download(dm, got, dd, (size_t)n * es);
		if (err || memcmp(got, want, (size_t)n * es))
			bad++;
		free(src);
		free(want);
		free(got);
		dm->ops->reset(dm);
	}
	T_CHECK(bad == 0, "%d of 300 emulated copies differ from the host's", bad);

	void *p = dm->ops->alloc(dm, 1, 64), *q = dm->ops->alloc(dm, 0, 64);
	T_CHECK(dm->ops->is_device(dm, p) && !dm->ops->is_device(dm, &bad), "device pointers are known");
	pid_t pid = fork();
	if (pid == 0) {
		struct sigaction sa; /* the default action, whatever a sanitizer installed */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_DFL;
		sigaction(SIGSEGV, &sa, NULL);
		volatile unsigned char v = *(volatile unsigned char *)p; /* a host access */
		(void)v;
		_exit(0);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	T_CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) || (WIFEXITED(status) && WEXITSTATUS(status) != 0),
		"a host read of a device buffer faults (status %d)", status);

	struct sc_strided v8 = {1, {8}, {1}, 0}, v9 = {1, {9}, {1}, 0};
	sc_devmem_fail(dm, dm->ops->copy(dm, 0, q, &v8, p, &v8, 8, 8), "copy", 0);
	T_CHECK(sc_devmem_status(dm, 1, &e) != SC_OK && strstr(e.msg, "another rank"),
		"a copy from rank 1's buffer on rank 0 is an error (%s)", e.msg);
	sc_devmem_fail(dm, dm->ops->copy(dm, 0, q, &v9, q, &v8, 9, 8), "copy", 0);
	T_CHECK(sc_devmem_status(dm, 1, &e) != SC_OK && strstr(e.msg, "out of bounds") && strstr(e.msg, "rank 0"),
		"a copy past the allocation is an error (%s)", e.msg);
	T_CHECK(sc_devmem_status(dm, 1, &e) == SC_OK, "the error is reported once");
	sc_devmem_close(dm);
}

/* Planted device faults: a collective that corrupts what it moves, and a
 * copy kernel that drops the last element. */
static const struct sc_devmem_ops *honest;
static int corrupt_rank = 1;

static int bad_move(struct sc_devmem *dm, int dst_rank, void *dst, int src_rank, const void *src, size_t bytes)
{
	int err = honest->move(dm, dst_rank, dst, src_rank, src, bytes);
	if (!err && dst_rank == corrupt_rank && src_rank == 0 && bytes) {
		unsigned char b;
		honest->download(dm, &b, dst, 1);
		b ^= 0x40;
		honest->upload(dm, dst, &b, 1);
	}
	return err;
}

static int bad_copy(struct sc_devmem *dm, int rank, void *dst, const struct sc_strided *dv, const void *src,
		    const struct sc_strided *sv, int64_t n, unsigned esize)
{
	return honest->copy(dm, rank, dst, dv, src, sv, n > 1 ? n - 1 : n, esize);
}

static enum sc_verdict run(struct sc_ctx *ctx, struct sc_target *t, struct sc_result *r)
{
	struct sc_check_opts o;
	memset(&o, 0, sizeof o);
	o.cases = 300;
	o.seed = 5;
	o.gen.world_lo = 2;
	o.gen.world_hi = 4;
	sc_gen_defaults(&o.gen);
	sc_check_run(ctx, t, sc_property_find("semantics"), &o, r);
	if (r->verdict == SC_V_ERROR)
		fprintf(stderr, "  error: %s\n", r->error);
	return r->verdict;
}

static void test_planted(void)
{
	struct sc_backend *sim = NULL, *emu = NULL;
	struct sc_err e;
	const int open = sc_backend_sim_open(&sim, &e) == SC_OK && sc_backend_emu_open(&emu, &e) == SC_OK;
	T_CHECK(open, "backends open");
	if (!open)
		return;
	struct sc_devmem *dm = sc_backend_devmem(emu);
	honest = dm->ops;
	static struct sc_devmem_ops faulty;
	struct sc_ctx *cs = sc_ctx_new(sim, 0), *ce = sc_ctx_new(emu, 0);
	struct sc_target a2a;
	sc_target_builtin(&a2a, sc_builtin_named("all_to_all"), NULL);
	struct sc_result rs, re;
	T_CHECK(run(cs, &a2a, &rs) == SC_V_PASS && run(ce, &a2a, &re) == SC_V_PASS, "all_to_all passes on sim and emu");

	faulty = *honest;
	faulty.move = bad_move;
	dm->ops = &faulty;
	T_CHECK(run(ce, &a2a, &re) == SC_V_FAIL, "a collective that corrupts rank 1's data is caught");
	T_CHECK(re.have_cx && re.fail.nfirst > 0 && re.fail.first[0].rank == 1,
		"the first wrong element is on rank 1 (rank %d)", re.fail.nfirst ? re.fail.first[0].rank : -1);
	T_CHECK(re.have_cx && re.cx.world == 2, "shrunk to world 2 (world %d)", re.cx.world);

	faulty = *honest;
	faulty.copy = bad_copy;
	T_CHECK(run(ce, &a2a, &re) == SC_V_FAIL, "a copy kernel that drops an element is caught");
	T_CHECK(re.fail.nfirst > 0 && re.fail.first[0].have_prov, "the failure is explained by a provenance run");
	dm->ops = honest;

	/* the same failing spec gives the same minimal case and first wrong
	 * elements on sim and emu */
	struct sc_target ds;
	T_CHECK(sc_target_from_spec_file(&ds, "corpus/deepspeed/sf-head2seq-after-5664.sc", &e) == SC_OK, "%s", e.msg);
	T_CHECK(run(cs, &ds, &rs) == SC_V_FAIL && run(ce, &ds, &re) == SC_V_FAIL, "PR 5664's fix fails on both");
	char ms[256] = "", me[256] = ""; /* as written (a case's unused counts are not set) */
	if (rs.have_cx && re.have_cx) {
		sc_target_case_format(&ds, &rs.cx, ms, sizeof ms);
		sc_target_case_format(&ds, &re.cx, me, sizeof me);
	}
	T_CHECK(ms[0] && strcmp(ms, me) == 0, "the same minimal case (%s; %s)", ms, me);
	T_CHECK(rs.fail.wrong == re.fail.wrong && rs.fail.nfirst == re.fail.nfirst &&
		memcmp(rs.fail.first, re.fail.first, sizeof rs.fail.first) == 0,
		"the same wrong elements (%lld vs %lld)", (long long)rs.fail.wrong, (long long)re.fail.wrong);
	sc_target_free(&ds);
	sc_target_free(&a2a);
	sc_ctx_free(cs);
	sc_ctx_free(ce);
	sc_backend_close(sim);
	sc_backend_close(emu);
}

int main(int argc, char **argv)
{
	if (argc > 1 && chdir(argv[1]) != 0)
		return 2;
	test_f16_oracle();
	test_reduce1();
	test_tile_plan();
	test_emu();
	test_planted();
	T_DONE();
}
