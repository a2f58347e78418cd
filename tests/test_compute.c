/* Compute specs: the correct nvFuser MLP never exceeds its bound over
 * 10,000 random cases per float dtype (the no-flake guarantee), nor does a
 * correct program of each op (tests/specs/compute/op-*.sc) on bf16, f16,
 * f32 and f64; every wrong variant is caught; on bf16 each bound is at most
 * a stated multiple of the worst observed error (the largest error/bound
 * ratio seen reaches the fraction in `bounded`).
 * Usage: test_compute CORPUS_DIR [CASES] */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sc_check.h"
#include "sc_test.h"

static struct sc_ctx *ctx;

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *b = calloc(1, 1 << 16);
	size_t n = fread(b, 1, (1 << 16) - 1, f);
	b[n] = 0;
	fclose(f);
	return b;
}

/* The spec with its `dtypes` line removed, so every float dtype is drawn. */
static int load_any_dtype(const char *path, struct sc_target *t)
{
	char *text = slurp(path);
	if (!text)
		return -1;
	char *d = strstr(text, "\ndtypes ");
	if (d) {
		char *eol = strchr(d + 1, '\n');
		memmove(d + 1, eol + 1, strlen(eol + 1) + 1);
	}
	struct sc_spec *s = malloc(sizeof *s);
	struct sc_err e;
	int rc = sc_spec_parse(text, path, s, &e) == SC_OK ? 0 : -1;
	if (rc)
		fprintf(stderr, "%s\n", e.msg);
	free(text);
	if (!rc)
		sc_target_from_spec(t, s);
	else
		free(s);
	return rc;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "corpus";
	const long ncases = argc > 2 ? atol(argv[2]) : 10000;
	struct sc_backend *be;
	sc_backend_sim_open(&be, NULL);
	ctx = sc_ctx_new(be, 0);
	const struct sc_property *sem = sc_property_find("semantics");
	char path[1024];
	static const enum sc_dtype fl[] = {SC_BF16, SC_F16, SC_F32, SC_F64, SC_F8E4M3, SC_F8E5M2};
	/* the MLP over every float dtype, the ops' programs over the four
	 * training dtypes; the smallest worst ratio each must reach on bf16 */
	static const struct {
		const char *path;
		int ndt;
		double tight;
	} bounded[] = {
		{"corpus/nvfuser/tp-mlp-bf16.sc", 6, 0.1},
		{"tests/specs/compute/op-sub-div.sc", 4, 0.4},
		{"tests/specs/compute/op-pow-sqrt.sc", 4, 0.25},
		{"tests/specs/compute/op-exp-log.sc", 4, 0.35},
		{"tests/specs/compute/op-max-mean.sc", 4, 0.45},
		{"tests/specs/compute/op-softmax.sc", 4, 0.45},
		{"tests/specs/compute/op-causal-softmax.sc", 4, 0.45},
		{"tests/specs/compute/op-layernorm.sc", 4, 0.45},
		{"tests/specs/compute/op-rmsnorm.sc", 4, 0.3},
		{"tests/specs/compute/op-embedding-pick.sc", 4, 0.45},
		{"corpus/vllm/row-parallel-bias-rank0.sc", 6, 0.1},
		{"corpus/minivllm/row-parallel-linear-bias-pr81.sc", 6, 0.1},
		{"corpus/megatron/vocab-parallel-cross-entropy.sc", 6, 0.1},
		{"corpus/megatron/vocab-parallel-cross-entropy-after-5128.sc", 6, 0.1},
		{"corpus/megatron/sp-layernorm-wgrad-allreduce.sc", 6, 0.1},
		{"corpus/nemo/sp-layernorm-wgrad-after-7199.sc", 6, 0.1},
		{"corpus/megatron/sp-rmsnorm-wgrad-allreduce.sc", 6, 0.1},
		{"corpus/megatron/qk-layernorm-wgrad-allreduce.sc", 6, 0.1},
		{"corpus/megatron/gdn-out-norm-wgrad-allreduce.sc", 6, 0.1},
		{"corpus/transformers/gradient-accumulation-v4.46.0.sc", 6, 0.1},
		{"corpus/yalis/rmsnorm-tp-after-36.sc", 6, 0.1},
		{"tests/specs/compute/microbatch-wgrad.sc", 4, 0.3},
		{"corpus/bigscience/alibi-tp-after-244.sc", 6, 0.1},
		{"tests/specs/compute/mesh-placements.sc", 4, 0.3},
	};
	printf("correct programs, %ld cases per dtype: largest error/bound seen (must stay <= 1)\n", ncases);
	for (size_t b = 0; b < sizeof bounded / sizeof bounded[0]; b++) {
		snprintf(path, sizeof path, "%s/../%s", dir, bounded[b].path);
		struct sc_target mlp;
		if (load_any_dtype(path, &mlp) != 0) {
			T_CHECK(0, "load %s", path);
			continue;
		}
		printf(" %s\n", bounded[b].path);
		for (int k = 0; k < bounded[b].ndt; k++) {
			struct sc_gen_opts o = {.world_lo = 1, .world_hi = 8, .dtypes = 1u << fl[k]};
			sc_gen_defaults(&o);
			double worst = 0, worst_err = 0, worst_bound = 0;
			long over = 0, runs = 0;
			for (long i = 0; i < ncases; i++) {
				struct sc_choices ch;
				uint64_t st = 1000003ULL * (uint64_t)i + (uint64_t)k;
				sc_choices_prng(&ch, sc_mix_next(&st));
				struct sc_case c;
				if (sc_gen_case(&mlp, &o, &ch, &c, NULL) != SC_OK)
					continue;
				struct sc_failure f;
				enum sc_verdict v = sc_check_case(ctx, &mlp, sem, &c, &f);
				runs++;
				if (v != SC_V_PASS) {
					if (!over)
						fprintf(stderr, "  %s case %ld: %s\n", sc_dtype_name(fl[k]), i,
							v == SC_V_ERROR ? ctx->err.msg : f.msg);
					over++;
				}
				if (f.has_worst && f.worst_ratio > worst) {
					worst = f.worst_ratio;
					worst_err = f.worst_error;
					worst_bound = f.worst_bound;
				}
			}
			printf("  %-7s %ld cases: %ld over the bound; worst ratio %.3f (error %.3g, bound %.3g)\n",
			       sc_dtype_name(fl[k]), runs, over, worst, worst_err, worst_bound);
			T_CHECK(over == 0 && runs > ncases / 2, "%s %s: %ld of %ld cases over the bound", bounded[b].path,
				sc_dtype_name(fl[k]), over, runs);
			if (fl[k] == SC_BF16)
				T_CHECK(worst >= bounded[b].tight, "%s bf16: the bound is more than %.0fx the worst error (ratio %.3f)",
					bounded[b].path, 1 / bounded[b].tight, worst);
		}
		sc_target_free(&mlp);
	}

	/* every wrong variant is caught */
	static const char *const wrong[] = {"nvfuser/tp-mlp-bias-before-allreduce.sc", "nvfuser/tp-mlp-w1-wrong-dim.sc",
					    "nvfuser/tp-mlp-seqpar-wrong-axis.sc", "slapo/seqpar-linear-rs-ag-wrong.sc",
					    "../tests/specs/compute/when-mesh-wrong-dim.sc", "minivllm/row-parallel-linear-bias-e5c02ffb.sc",
					    "megatron/vocab-parallel-cross-entropy-before-5128.sc",
					    "nemo/sp-layernorm-wgrad-before-7199.sc", "nemo/sp-rmsnorm-wgrad-994c9cd6.sc", "megatron/gdn-out-norm-wgrad-not-reduced.sc",
					    "transformers/gradient-accumulation-v4.45.2.sc", "yalis/rmsnorm-tp-before-36.sc",
					    "../tests/specs/compute/microbatch-wgrad-last-only.sc", "bigscience/alibi-tp-before-244.sc",
					    "../tests/specs/compute/mesh-placements-global-reduce.sc",
					    "../tests/specs/compute/uneven-only-wrong.sc",
					    "../tests/specs/compute/mesh-placements-uneven-split.sc"};
	/* the minimal cases of the micro-batch bugs: two micro-batches, the
	 * fewest rows that tell them apart */
	static const char *const minimal[][2] = {
		{"transformers/gradient-accumulation-v4.45.2.sc", "world=1 g=2 n=3 v=2 N=1:2 "},
		{"../tests/specs/compute/microbatch-wgrad-last-only.sc", "world=1 g=2 t=1 h=1 f=1 N=1:0 "},
		{"bigscience/alibi-tp-before-244.sc", "world=2 b=1 h=2 s=1 t=2 d=1 "},
		{"../tests/specs/compute/mesh-placements-global-reduce.sc", "world=2 D=2 T=1 b=2 k=1 n=1 "},
		{"megatron/vocab-parallel-cross-entropy-before-5128.sc", "world=2 D=2 T=1 s=1 b=1 v=2 "},
		{"../tests/specs/compute/uneven-only-wrong.sc", "world=2 b=1 h=1 "},
		{"../tests/specs/compute/mesh-placements-uneven-split.sc", "world=3 D=3 T=1 b=4 k=1 n=1 "},
	};
	static const char *const right[] = {"nvfuser/tp-mlp-f32.sc", "slapo/seqpar-linear-rs-ag.sc",
					    "../tests/specs/compute/when-mesh.sc", "../tests/specs/compute/uneven-only.sc",
					    "../tests/specs/compute/mesh-placements-uneven.sc"};
	struct sc_check_opts co;
	memset(&co, 0, sizeof co);
	co.cases = 500;
	co.seed = 7;
	sc_gen_defaults(&co.gen);
	for (size_t i = 0; i < sizeof wrong / sizeof wrong[0] + sizeof right / sizeof right[0]; i++) {
		const int bad = i < sizeof wrong / sizeof wrong[0];
		snprintf(path, sizeof path, "%s/%s", dir, bad ? wrong[i] : right[i - sizeof wrong / sizeof wrong[0]]);
		struct sc_target t;
		struct sc_err e;
		if (sc_target_from_spec_file(&t, path, &e) != SC_OK) {
			T_CHECK(0, "%s", e.msg);
			continue;
		}
		struct sc_result r;
		sc_check_run(ctx, &t, sem, &co, &r);
		char cs[256] = "";
		if (r.have_cx)
			sc_target_case_format(&t, &r.cx, cs, sizeof cs);
		printf("  %-52s %s %s\n", path, r.verdict == SC_V_FAIL ? "caught:" : "passes", cs);
		T_CHECK(r.verdict == (bad ? SC_V_FAIL : SC_V_PASS), "%s: verdict %d", path, r.verdict);
		for (size_t m = 0; bad && m < sizeof minimal / sizeof minimal[0]; m++)
			if (strcmp(wrong[i], minimal[m][0]) == 0)
				T_CHECK(strncmp(cs, minimal[m][1], strlen(minimal[m][1])) == 0, "%s: minimal case %s, want %s",
					path, cs, minimal[m][1]);
		sc_target_free(&t);
	}
	sc_ctx_free(ctx);
	sc_backend_close(be);
	T_DONE();
}
