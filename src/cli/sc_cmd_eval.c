/* shardcheck eval: one explicit case of a spec, a chain or a built-in,
 * checked by one property, with --dump writing every rank's input, output
 * and expected tensors as .npy files. */
#include <stdlib.h>
#include <string.h>

#include "sc_cli.h"
#include "sc_inflight.h"
#include "sc_fs.h"
#include "sc_npy.h"
#include "sc_report.h"

/* "s=4,b=2" into the case, by the spec's dim names; counts matrices as
 * C=a:b/c:d. */
static int parse_sizes(struct sc_target *t, const struct sc_spec *s, const char *arg, struct sc_case *cs)
{
	char buf[8192];
	snprintf(buf, sizeof buf, "%s", arg);
	int seen[SC_MAX_DIMS] = {0};
	sc_target_fixed_mesh(t, cs);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '=');
		uint64_t v;
		if (!eq)
			return sc_cli_die("--sizes: expected NAME=VALUE, got '%s'", tok);
		*eq = '\0';
		int d = sc_target_size_slot(t, cs, tok), counts = 0;
		struct sc_err ce;
		if (d < 0 && sc_target_counts_parse(t, cs, tok, eq + 1, &counts, &ce) != SC_OK)
			return sc_cli_die("--sizes: %s", ce.msg);
		if (counts)
			continue;
		if (d < 0)
			return sc_cli_die(s->nmesh ? "--sizes: '%s' is not a dim of the spec nor a mesh size" : "--sizes: '%s' is not a dim of the spec", tok);
		if (sc_cli_u64(eq + 1, &v) || v > (1ULL << 40))
			return sc_cli_die("--sizes: bad size '%s'", eq + 1);
		if (v < !(((s->derived_mask >> d) & 1u) || sc_spec_slot_param(s, d) >= 0))
			return sc_cli_die("--sizes: %s=0: a drawn dim is at least 1 (0 only where counts or sizes= give it)", tok);
		cs->sizes[d] = (int64_t)v;
		seen[d] = 1;
	}
	for (int k = 0; k < s->ndims; k++)
		if (!seen[k])
			return sc_cli_die("--sizes: missing a size for dim '%s'", s->dim[k]);
	for (int m = 0; m < s->nmesh; m++)
		if (!s->mesh_fixed[m] && !seen[sc_spec_mesh_slot(s, m)])
			return sc_cli_die("--sizes: missing the size of a mesh dim (%s=N)", s->mesh_sym[m]);
	for (int k = 0; k < s->nparams; k++)
		if (!seen[sc_spec_param_slot(s, k)]) {
			char form[2 * SC_NAME_MAX + 8];
			snprintf(form, sizeof form, "%s (%s=N)", s->param[k], s->param[k]);
			return sc_cli_die("--sizes: missing the value of parameter %s", form);
		}
	return 0;
}

static int parse_params(struct sc_target *t, const char *arg, struct sc_case *cs)
{
	char buf[256];
	int have_dim = 0, have_concat = 0;
	snprintf(buf, sizeof buf, "%s", arg ? arg : "");
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '=');
		if (!eq)
			return sc_cli_die("--params: expected KEY=VALUE, got '%s'", tok);
		*eq++ = '\0';
		enum sc_status ps = sc_target_param_set(t, cs, tok, eq);
		if (ps == SC_E_SPEC)
			return sc_cli_die("--params: unknown op '%s'", eq);
		if (ps != SC_OK)
			return sc_cli_die("--params: unknown key '%s' (dim, concat, op, ndims)", tok);
		have_dim |= strcmp(tok, "dim") == 0;
		have_concat |= strcmp(tok, "concat") == 0;
	}
	const int need_concat = sc_target_param_required(t, "concat");
	if (!have_dim || (need_concat && !have_concat))
		return sc_cli_die("builtin targets need --params dim=I%s", need_concat ? ",concat=J" : "");
	return 0;
}


static int eval_main(int argc, char **argv, int full_argc, char **full_argv)
{
	(void)full_argc;
	(void)full_argv;
	static struct sc_cli c;
	int rc = sc_cli_parse(&c, &sc_cmd_eval, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	c.backend = c.backend ? c.backend : "sim";
	if ((c.ntargets != 1 && !c.chain) || (c.chain && c.ntargets))
		return sc_cli_die("eval takes one target (a spec, builtin:NAME, or --chain A,B)%s", "");
	if (!c.world)
		return sc_cli_die("eval needs --world P%s", "");
	if (!c.sizes)
		return sc_cli_die("eval needs --sizes NAME=VALUE,...%s", "");
	static struct sc_target t;
	int nt = 0;
	if ((rc = sc_cli_load_targets(&c, &t, &nt, stderr)) != 0)
		return rc;
	struct sc_case cs;
	memset(&cs, 0, sizeof cs);
	cs.world = c.world;
	cs.dtype = c.dtype;
	cs.seed = c.co.seed;
	struct sc_err e;
	int nd_lo, nd_hi;
	if (sc_target_ndims_range(&t, &nd_lo, &nd_hi)) {
		if ((rc = parse_params(&t, c.params, &cs)) != 0)
			return rc;
		/* ndims from the number of sizes given */
		if (!cs.ndims) { /* the sizes given, less a mesh's sizes */
			const struct sc_spec *ms = sc_target_mesh_spec(&t);
			cs.ndims = 1;
			for (const char *p = c.sizes; *p; p++)
				cs.ndims += *p == ',';
			for (int m = 0; ms && m < ms->nmesh; m++)
				cs.ndims -= ms->mesh_sym[m][0] != 0;
		}
	}
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	if (sc_target_specs(&t, &cs, s, &ns, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		return 2;
	}
	cs.ndims = s[0]->ndims;
	if ((rc = parse_sizes(&t, s[0], c.sizes, &cs)) != 0)
		return rc;
	if (s[0]->ncounts && cs.counts.P != sc_spec_counts_P(s[0], cs.sizes, cs.world)) {
		char form[256];
		snprintf(form, sizeof form, "%s=%s", s[0]->counts[0].name, sc_spec_counts_form(s[0], 0));
		return sc_cli_die("--sizes: give the counts too (%s)", form);
	}
	/* any case the spec admits: `sizes` hints guide generation only */
	struct sc_gen_opts go = {.world_lo = 1, .world_hi = SC_MAX_WORLD, .max_elems = INT64_MAX / 2,
				 .hints_guide_only = 1};
	sc_gen_defaults(&go);
	char why[256];
	if (!sc_gen_valid(&t, &go, &cs, why, sizeof why)) {
		fprintf(stderr, "shardcheck: this case is not valid for %s: %s\n", t.name, why);
		return 2;
	}
	struct sc_backend *be;
	if (t.plugin)
		sc_backend_keep_gpu_free(); /* the plugin's processes make the CUDA contexts */
	if (sc_backend_open(c.backend, &be, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		return 2;
	}
	sc_inflight_quiet_followers(be);
	if (cs.world > sc_backend_max_world(be)) {
		fprintf(stderr, "shardcheck: world %d needs %d processes, this launch has %d\n", cs.world,
			cs.world, sc_backend_max_world(be));
		sc_backend_close(be);
		return 2;
	}
	struct sc_ctx *ctx = sc_ctx_new(be, c.co.gen.dtypes);
	if (ctx)
		ctx->arena.max_bytes = c.case_memory;
	const struct sc_property *p = sc_property_find(c.property ? c.property : "semantics");
	struct sc_result r;
	memset(&r, 0, sizeof r);
	r.tgt = &t;
	r.property = p->name;
	r.cx = cs;
	snprintf(r.target, sizeof r.target, "%s", t.name);
	t.fresh = 1; /* a plugin's runs each in a fresh child, as a confirmed failure's were */
	r.verdict = sc_check_case(ctx, &t, p, &cs, &r.fail);
	char desc[512];
	sc_target_case_format(&t, &cs, desc, sizeof desc);
	int code = 0;
	switch (r.verdict) {
	case SC_V_PASS: printf("pass  %s %s: %s\n", t.name, p->name, desc); break;
	case SC_V_SKIP:
		if (ctx->limited) { /* nothing ran to its end: nothing to show or dump */
			fprintf(stderr, "shardcheck: this case needs more than --case-memory (%lld MiB) allows\n",
				(long long)(c.case_memory ? c.case_memory >> 20 : 4096));
			code = 2;
			break;
		}
		printf("skip  %s %s: not applicable\n", t.name, p->name);
		break;
	case SC_V_ERROR:
		fprintf(stderr, "shardcheck: %s\n", ctx->err.msg);
		code = 2;
		break;
	case SC_V_FAIL:
		printf("FAIL  %s %s\n", t.name, p->name);
		r.have_cx = 1;
		sc_report_diagnose(&r);
		sc_report_failure_text(stdout, &r, "      ");
		code = 1;
		break;
	}
	if (c.dump && code != 2 && sc_cli_dump_case(ctx, &t, &cs, c.dump) != 0)
		code = 2;
	sc_ctx_free(ctx);
	sc_backend_close(be);
	sc_target_free(&t);
	return code;
}

const struct sc_cmd sc_cmd_eval = {
	"eval", SC_EVAL,
	"usage: shardcheck eval TARGET --world P --sizes n=v,... [options]\n"
	"\n"
	"Runs one explicit case of a spec (or --chain A,B, or builtin:NAME with\n"
	"--params dim=I[,concat=J][,op=OP]) and checks it.\n"
	"\n",
	"exit: 0 the property holds, 1 it fails (or a step fails at run time), 2 error\n",
	eval_main,
};
