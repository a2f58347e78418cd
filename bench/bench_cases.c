/* bench_cases: cases per second of the semantics property on the sim
 * backend for small shapes (at most 4096 global elements, P <= 8), for
 * builtin:all_to_all and the DeepSpeed Ulysses spec. The baseline measured
 * in the same run is case generation alone (decode, no execution), so the
 * ratio says how much of a case's time is the transform itself.
 * Usage: sc_bench [CASES] [SPEC]  (run from the repository root)
 *        sc_bench --same-cases N SPEC FILE  (see same_cases) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sc_builtin.h"
#include "sc_check.h"
#include "sc_clock.h"

static double gen_only(struct sc_target *t, const struct sc_gen_opts *o, long n)
{
	double t0 = sc_clock_now();
	long ok = 0;
	for (long i = 0; i < n; i++) {
		struct sc_choices ch;
		uint64_t s = (uint64_t)i;
		sc_choices_prng(&ch, sc_mix_next(&s));
		struct sc_case c;
		ok += sc_gen_case(t, o, &ch, &c, NULL) == SC_OK;
	}
	double dt = sc_clock_now() - t0;
	return ok / dt;
}

static void bench(struct sc_ctx *ctx, struct sc_target *t, long n)
{
	struct sc_check_opts o;
	memset(&o, 0, sizeof o);
	o.cases = n;
	o.seed = 1;
	o.gen.world_hi = 8;
	o.gen.max_elems = 4096;
	sc_gen_defaults(&o.gen);
	struct sc_result r;
	sc_check_run(ctx, t, sc_property_find("semantics"), &o, &r);
	double cps = r.cases / r.seconds;
	double base = gen_only(t, &o.gen, n);
	printf("%-48s %8ld cases  %7.3f s  %10.0f cases/s  (generation alone %10.0f/s, ratio %.2f)  %s\n",
	       t->name, r.cases, r.seconds, cps, base, cps / base, r.verdict == SC_V_PASS ? "pass" : "FAIL");
}

/* --same-cases N SPEC FILE: N drawn cases of SPEC (a spec of four dims:
 * DeepSpeed's) written to FILE, one per line ("world s b h d"), and the
 * semantics property timed on exactly those cases: what a checker written
 * by hand (bench/numpy_checker.py) is compared with. */
static int same_cases(long n, const char *spec, const char *file)
{
	struct sc_backend *be;
	struct sc_err e;
	if (sc_backend_sim_open(&be, &e) != SC_OK) {
		fprintf(stderr, "%s\n", e.msg);
		return 2;
	}
	struct sc_ctx *ctx = sc_ctx_new(be, 0);
	struct sc_target t;
	if (sc_target_from_spec_file(&t, spec, &e) != SC_OK) {
		fprintf(stderr, "%s\n", e.msg);
		return 2;
	}
	struct sc_gen_opts o;
	memset(&o, 0, sizeof o);
	sc_gen_defaults(&o);
	o.world_hi = 8;
	struct sc_case *cs = calloc((size_t)n, sizeof *cs);
	FILE *f = fopen(file, "w");
	if (!cs || !f) {
		fprintf(stderr, "sc_bench: %s: cannot write\n", file);
		return 2;
	}
	long k = 0;
	for (long i = 0; k < n && i < 50 * n; i++) { /* a case the spec refuses is drawn again */
		struct sc_choices ch;
		uint64_t s = (uint64_t)i;
		sc_choices_prng(&ch, sc_mix_next(&s));
		if (sc_gen_case(&t, &o, &ch, &cs[k], NULL) != SC_OK || cs[k].ndims != 4)
			continue;
		fprintf(f, "%d %lld %lld %lld %lld\n", cs[k].world, (long long)cs[k].sizes[0], (long long)cs[k].sizes[1],
			(long long)cs[k].sizes[2], (long long)cs[k].sizes[3]);
		k++;
	}
	fclose(f);
	const struct sc_property *p = sc_property_find("semantics");
	long pass = 0;
	const double t0 = sc_clock_now();
	for (long i = 0; i < k; i++) {
		struct sc_failure fl;
		pass += sc_check_case(ctx, &t, p, &cs[i], &fl) == SC_V_PASS;
	}
	const double dt = sc_clock_now() - t0;
	printf("shardcheck %ld cases %.3f s %.0f cases/s %ld pass\n", k, dt, k / dt, pass);
	free(cs);
	sc_target_free(&t);
	sc_ctx_free(ctx);
	sc_backend_close(be);
	return pass == k ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "--same-cases") == 0)
		return same_cases(atol(argv[2]), argv[3], argv[4]);
	long n = argc > 1 ? atol(argv[1]) : 200000;
	const char *spec = argc > 2 ? argv[2] : "corpus/deepspeed/sf-head2seq-batchdim.sc";
	printf("shardcheck bench: %ld online cores (single-threaded run), max 4096 elements, P 1..8\n",
	       sysconf(_SC_NPROCESSORS_ONLN));
	struct sc_backend *be;
	sc_backend_sim_open(&be, NULL);
	struct sc_ctx *ctx = sc_ctx_new(be, 0);
	struct sc_target a2a, ds;
	struct sc_err e;
	sc_target_builtin(&a2a, sc_builtin_named("all_to_all"), &e);
	bench(ctx, &a2a, n);
	if (sc_target_from_spec_file(&ds, spec, &e) == SC_OK) {
		bench(ctx, &ds, n);
		sc_target_free(&ds);
	} else {
		fprintf(stderr, "%s\n", e.msg);
	}
	sc_target_free(&a2a);
	sc_ctx_free(ctx);
	sc_backend_close(be);
	return 0;
}
