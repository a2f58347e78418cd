/* bench_shrink: time to shrink each corpus bug from a large failing case
 * (world 7, every dim drawn up to 64, at most 2^20 elements), against the
 * time of one run of that large case measured in the same process.
 * Usage: sc_bench_shrink [CORPUS_DIR]  (run from the repository root) */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_check.h"
#include "sc_clock.h"

static struct sc_ctx *ctx;
static const struct sc_property *sem;

static int fails(void *u, const struct sc_case *c)
{
	struct sc_failure f;
	return sc_check_case(ctx, u, sem, c, &f) == SC_V_FAIL;
}

static void bench_spec(const char *path)
{
	struct sc_target t;
	struct sc_err e;
	if (sc_target_from_spec_file(&t, path, &e) != SC_OK || t.expect != 1) {
		sc_target_free(&t);
		return;
	}
	struct sc_gen_opts o = {.world_lo = 1, .world_hi = 8, .max_elems = 1 << 20};
	sc_gen_defaults(&o);
	uint64_t st = 12345;
	struct sc_case c;
	int found = 0;
	for (int tries = 0; tries < 5000 && !found; tries++) {
		memset(&c, 0, sizeof c);
		c.world = 7;
		c.ndims = t.spec->ndims;
		c.dtype = (enum sc_dtype)(sc_mix_next(&st) % SC_NDTYPES);
		c.seed = sc_mix_next(&st) % 1000;
		for (int d = 0; d < c.ndims; d++) {
			int sharded = (t.spec->in.kind == SC_SHARD && t.spec->in.shard_dim == d) ||
				      (t.spec->out.kind == SC_SHARD && t.spec->out.shard_dim == d);
			c.sizes[d] = sharded ? 7 * (int64_t)(1 + sc_mix_next(&st) % 9)
					     : (int64_t)(1 + sc_mix_next(&st) % 64);
		}
		found = sc_gen_valid(&t, &o, &c, NULL, 0) && fails(&t, &c);
	}
	if (!found) {
		printf("%-56s no large failing case found\n", path);
		sc_target_free(&t);
		return;
	}
	char from[256], to[256];
	sc_target_case_format(&t, &c, from, sizeof from);
	int64_t n = 1;
	for (int d = 0; d < c.ndims; d++)
		n *= c.sizes[d];
	double r0 = sc_clock_now();
	fails(&t, &c);
	double one = sc_clock_now() - r0;
	struct sc_shrink_stats stats;
	double s0 = sc_clock_now();
	sc_shrink(&t, &o, &c, fails, &t, &stats);
	double dt = sc_clock_now() - s0;
	sc_target_case_format(&t, &c, to, sizeof to);
	printf("%s\n  from %s (%lld elements)\n  to   %s\n  %d steps, %ld cases run, %.4f s (= %.1f runs of the large case)\n",
	       path, from, (long long)n, to, stats.steps, stats.tries, dt, dt / one);
	sc_target_free(&t);
}

static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char *names[256];
	int k = 0;
	struct dirent *de;
	while ((de = readdir(d)) && k < 256)
		if (de->d_name[0] != '.')
			names[k++] = strdup(de->d_name);
	closedir(d);
	for (int i = 0; i < k; i++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		size_t l = strlen(path);
		if (l > 3 && strcmp(path + l - 3, ".sc") == 0)
			bench_spec(path);
		else if (!strchr(names[i], '.'))
			walk(path);
		free(names[i]);
	}
}

int main(int argc, char **argv)
{
	struct sc_backend *be;
	sc_backend_sim_open(&be, NULL);
	ctx = sc_ctx_new(be, 0);
	sem = sc_property_find("semantics");
	printf("shrink from large cases (world 7, dims up to 64), sim backend, one core\n");
	walk(argc > 1 ? argv[1] : "corpus");
	sc_ctx_free(ctx);
	sc_backend_close(be);
	return 0;
}
