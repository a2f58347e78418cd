/* shardcheck check, and shardcheck gate (the same loop over a plugin's
 * transforms): every applicable property of every target, a line per
 * (target, property), failures shrunk and written at once, then the
 * summary, the report and the JSON document.
 *
 * SIGTERM, SIGINT or SIGHUP (sc_inflight) end the run between cases: the
 * check in flight is dropped (its case saved as failures/inflight.case)
 * unless it had found a failure, which is kept as found so far; the
 * checks that finished, --jobs workers' included, are reported with
 * "status": "interrupted"; workers and plugins' sandboxes are ended;
 * exit 2 with one line on stderr. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sc_checkjobs.h"
#include "sc_cli.h"
#include "sc_plugin_dev.h"
#include "sc_clock.h"
#include "sc_fs.h"
#include "sc_exhaust.h"
#include "sc_inflight.h"
#include "sc_report.h"
#include "sc_sandbox.h"
#include "sc_sanitize.h"
#include "sc_torch.h"

/* A run: its options, backend, targets, results and tallies. */
struct run {
	struct sc_cli c;
	int gate, json_stdout, tty;
	FILE *out;
	struct sc_backend *be;
	struct sc_target targets[SC_CLI_MAX_TARGETS];
	int nt;
	struct sc_plugin_lib *libs[2];
	struct sc_ctx *ctx;
	struct sc_result *res;
	int nres, errors, unmet, fails, passes, expected_fails, not_run;
	char skip_why[512]; /* why the current target's properties were skipped (a mesh outside --world) */
	char fewer[384];    /* the worlds --world asks for that this launch has no ranks for, in words */
	char bounds[384];   /* --exhaustive: the bounds every case lies within, as printed */
	int per_prop;       /* a pass line per property (-v, or one property), else one per target */
	int argc;           /* the whole command line, for the reports */
	char **argv;
	char sanitizer[4096]; /* gate --sanitize: compute-sanitizer's path; "": not asked for (or inside it) */
};

static void run_free(struct run *r)
{
	for (int i = 0; r->res && i < r->nres; i++)
		free(r->res[i].sanitizer);
	free(r->res);
	sc_ctx_free(r->ctx);
	sc_backend_close(r->be);
	for (int i = 0; i < r->nt; i++)
		sc_target_free(&r->targets[i]);
	sc_plugin_close(r->libs[0]);
	sc_plugin_close(r->libs[1]);
}

/* A plugin that cannot be loaded (what: "load"), or a launch that cannot
 * run the worlds asked for ("world"), is the gate's one result, an error,
 * so that --report and --json say why the gate is red. */
static void load_error(struct run *r, const char *what, const char *why)
{
	r->res = calloc(1, sizeof *r->res);
	if (!r->res)
		return;
	snprintf(r->res->target, sizeof r->res->target, "%s", r->c.plugin);
	r->res->property = what;
	r->res->verdict = SC_V_ERROR;
	r->res->expected = -1;
	snprintf(r->res->error, sizeof r->res->error, "%s", why);
	r->nres = 1;
	r->errors = 1;
}

/* The report folder rid of an earlier run's report (moved to
 * DIR/previous/ by the leader) before this run writes into it; every
 * process waits for it. 0, or 2 when it cannot be done. */
static int fresh_report(struct run *r)
{
	if (!r->c.report_dir)
		return 0;
	int rc = 0, moved = 0;
	if (sc_backend_leader(r->be)) {
		struct sc_err e;
		if (sc_report_fresh(r->c.report_dir, &moved, &e) != SC_OK) {
			fprintf(stderr, "shardcheck: --report %s: %s\n", r->c.report_dir, e.msg);
			rc = 2;
		}
	}
	sc_backend_bcast(r->be, &rc, sizeof rc, 0);
	return rc;
}

/* Options, backend, world range, targets: 0 or an exit code. */
static int setup(struct run *r, const struct sc_cmd *cmd, int argc, char **argv)
{
	struct sc_cli *c = &r->c;
	int rc = sc_cli_parse(c, cmd, argc, argv);
	if (rc)
		return rc < 0 ? -1 : rc;
	c->backend = c->backend ? c->backend : "sim";
	if (r->gate && !c->plugin)
		return sc_cli_die("gate needs --plugin LIB.so%s", "");
	if (!r->gate && (c->plugin || c->baseline))
		return sc_cli_die("--plugin and --baseline belong to `shardcheck gate`%s", "");
	if (!r->gate && (c->sanitize || c->sanitize_all))
		return sc_cli_die("--sanitize and --sanitize-all belong to `shardcheck gate`%s", "");
	if ((c->sanitize || c->sanitize_all) && !sc_sanitize_inside()) {
		if (strcmp(c->backend, "cuda") != 0 && strcmp(c->backend, "emu") != 0)
			return sc_cli_die("--sanitize and --sanitize-all need --backend cuda, where a plugin's CUDA code "
					  "runs (or emu, the device path on the CPU; got --backend %s)", c->backend);
		struct sc_err se;
		if (sc_sanitize_find(r->sanitizer, sizeof r->sanitizer, &se) != SC_OK) {
			fprintf(stderr, "shardcheck: %s\n", se.msg);
			return 2;
		}
		if (c->sanitize_all) { /* this command again, under the tool (returns only when it cannot) */
			sc_sanitize_reexec(r->sanitizer, c->sanitize ? c->sanitize : "memcheck", r->argc, r->argv, &se);
			fprintf(stderr, "shardcheck: %s\n", se.msg);
			return 2;
		}
	}
	sc_gen_defaults(&c->co.gen);
	if (c->seed_random || (!c->seed_given && !r->gate))
		c->co.seed = sc_cli_random_seed();
	r->json_stdout = c->json && strcmp(c->json, "-") == 0;
	r->out = r->json_stdout ? stderr : stdout;
	struct sc_err e;
	if (r->gate)
		sc_backend_keep_gpu_free(); /* the plugin's processes make the CUDA contexts */
	if (sc_backend_open(c->backend, &r->be, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		return 2;
	}
	sc_inflight_quiet_followers(r->be);
	/* one seed and one world range for every process */
	sc_backend_bcast(r->be, &c->co.seed, sizeof c->co.seed, 0);
	const int maxw = sc_backend_max_world(r->be), asked = c->co.gen.world_hi;
	char ws[128];
	sc_gen_world_text(&c->co.gen, ws, sizeof ws);
	if (!sc_gen_world_clamp(&c->co.gen, maxw)) {
		fprintf(stderr, "shardcheck: --world %s needs at least %d processes, this launch has %d (mpirun -np)\n",
			ws, c->co.gen.world_lo, maxw);
		return 2;
	}
	if (c->co.gen.world_hi < asked) { /* worlds this launch cannot run: said, and a gate does not pass on the rest */
		snprintf(r->fewer, sizeof r->fewer, "worlds above %d skipped: --world %s asks for up to %d ranks, this launch "
			 "has %d (mpirun -np; one rank per GPU on nccl)", c->co.gen.world_hi, ws, asked, maxw);
		if (r->gate && !c->allow_fewer_ranks) {
			char why[SC_ERR_MAX];
			snprintf(why, sizeof why, "%s; a pass at fewer ranks is not a pass: launch more ranks, narrow --world, or "
				 "give --allow-fewer-ranks", r->fewer);
			if (fresh_report(r))
				return 2;
			load_error(r, "world", why);
			fprintf(r->out, "ERROR %-44s %-18s %s\n", c->plugin, "world", why);
			fprintf(stderr, "shardcheck: nothing run\n");
			return 2;
		}
	}
	if (r->gate && (rc = sc_cli_load_plugins(c, r->targets, &r->nt, r->libs, &e)) != 0) {
		if (fresh_report(r))
			return 2;
		load_error(r, "load", e.msg);
		fprintf(r->out, "ERROR %-44s %-18s %s\n", c->plugin, "load", e.msg);
		fprintf(stderr, "shardcheck: nothing run\n");
		return rc;
	}
	if (!r->gate && (rc = sc_cli_load_targets(c, r->targets, &r->nt, stderr)) != 0) {
		fprintf(stderr, "shardcheck: nothing run\n");
		return rc;
	}
	if (fresh_report(r)) {
		fprintf(stderr, "shardcheck: nothing run\n");
		return 2;
	}
	/* a case that can hang or crash the process is saved first (on sim, a
	 * gate's timeout is the plugin's own: its child is killed instead) */
	if (r->be->ops->combine || (c->timeout > 0 && !r->gate))
		sc_inflight_arm(c, r->be);
	else
		sc_inflight_watch(c, r->be);
	if (r->gate) /* a plugin's case can hang until its --timeout: the last resort saves it */
		sc_inflight_format_cases();
	r->ctx = sc_ctx_new(r->be, c->co.gen.dtypes);
	if (r->ctx)
		r->ctx->arena.max_bytes = c->case_memory;
	r->tty = isatty(2) && !c->quiet && sc_backend_leader(r->be);
	if (r->tty)
		c->co.progress = sc_cli_progress;
	else if (!c->quiet && sc_backend_leader(r->be) && !(c->json && strcmp(c->json, "-") == 0))
		c->co.progress = sc_cli_progress_lines; /* a log (CI): a line when a check runs long */
	const struct sc_property *const *props;
	const int np = sc_properties(&props);
	r->res = calloc((size_t)r->nt * (size_t)np + 1 + SC_CLI_MAX_BROKEN, sizeof *r->res);
	if (!r->ctx || !r->res) {
		fprintf(stderr, "shardcheck: out of memory\n");
		return 2;
	}
	return 0;
}

/* When an earlier property of the same target failed at another minimal
 * case, says why they differ: each property is shrunk on its own, to the
 * smallest case where that property fails. */
static void note_other_minimum(struct run *r, const struct sc_target *t, const struct sc_property *p)
{
	const struct sc_result *res = &r->res[r->nres - 1];
	for (int j = r->nres - 2; j >= 0 && r->res[j].tgt == t; j--) {
		const struct sc_result *o = &r->res[j];
		if (o->verdict != SC_V_FAIL || !o->have_cx || !res->have_cx)
			continue;
		if (o->cx.world == res->cx.world && memcmp(o->cx.sizes, res->cx.sizes, sizeof o->cx.sizes) == 0)
			return;
		char a[256];
		sc_target_case_format(o->tgt, &o->cx, a, sizeof a);
		char *dt = strstr(a, " dtype=");
		if (dt)
			*dt = '\0';
		fprintf(r->out, "      (unlike %s, minimal at %s: each property is shrunk on its own, to the smallest case "
			"where it fails; %s: %s)\n", o->property, a, p->name, p->doc);
		return;
	}
}

/* A result before r->res[upto] of an earlier property of the same target
 * that failed at the same minimal case with the same message as res, or
 * NULL. */
static const struct sc_result *same_failure_as(const struct run *r, const struct sc_target *t,
					       const struct sc_result *res, int upto)
{
	for (int j = upto - 1; j >= 0 && r->res[j].tgt == t; j--) {
		const struct sc_result *o = &r->res[j];
		if (o->verdict == SC_V_FAIL && o->have_cx && res->have_cx && o->cx.world == res->cx.world &&
		    o->cx.dtype == res->cx.dtype && o->cx.seed == res->cx.seed &&
		    !memcmp(o->cx.sizes, res->cx.sizes, sizeof o->cx.sizes) && o->nearlier == 0 && res->nearlier == 0 &&
		    res->fail.msg[0] && strcmp(o->fail.msg, res->fail.msg) == 0 && o->fail.wrong == res->fail.wrong)
			return o;
	}
	return NULL;
}

/* The same for the last result (its text need not be printed twice). */
static const struct sc_result *same_failure(const struct run *r, const struct sc_target *t)
{
	return same_failure_as(r, t, &r->res[r->nres - 1], r->nres - 1);
}

/* gate --sanitize: the failure's minimal case run again under the tool
 * (once per minimal case: a twin's report is shared), its report kept in
 * res; a tool that could not run says why there instead. */
static void sanitize(struct run *r, const struct sc_target *t, struct sc_result *res)
{
	const char *tool = r->c.sanitize;
	const struct sc_result *twin = same_failure_as(r, t, res, r->nres);
	if (twin && twin->sanitizer) {
		res->sanitizer = strdup(twin->sanitizer);
		res->sanitizer_errors = twin->sanitizer_errors;
		snprintf(res->sanitizer_tool, sizeof res->sanitizer_tool, "%s", twin->sanitizer_tool);
		return;
	}
	if (r->tty)
		fprintf(stderr, "\r\033[Kthe minimal case again, under compute-sanitizer %s ...", tool);
	const double per = r->c.timeout > 0 ? r->c.timeout : 10;
	struct sc_err e;
	if (sc_sanitize_failure(r->sanitizer, tool, res, r->c.backend, per * 30 > 120 ? per * 30 : 120, &e) != SC_OK) {
		res->sanitizer = strdup(e.msg);
		res->sanitizer_errors = -1;
		snprintf(res->sanitizer_tool, sizeof res->sanitizer_tool, "%s", tool);
	}
	if (r->tty)
		fprintf(stderr, "\r\033[K");
}

/* The report the last-resort path of an interrupt writes (sc_inflight),
 * kept up to date after every check. */
static void ready_report(struct run *r)
{
	if (!r->c.report_dir || !sc_backend_leader(r->be))
		return;
	const struct sc_report_meta meta = {SC_VERSION, r->c.co.seed, r->c.backend, r->argc, r->argv, NULL, NULL,
					    r->fewer[0] ? r->fewer : NULL, r->c.torch};
	sc_inflight_report(&meta, r->res, r->nres);
}

/* One (target, property): runs it (or takes the result a worker left in
 * pre) and prints its line. Returns 1 when it failed. */
static int check_one(struct run *r, struct sc_target *t, const struct sc_property *p, const struct sc_result *pre)
{
	struct sc_cli *c = &r->c;
	struct sc_result *res = &r->res[r->nres];
	struct sc_err e;
	if (pre) {
		*res = *pre;
		res->sanitizer = NULL; /* never set in a --jobs worker; not this process's */
	} else {
		sc_check_run(r->ctx, t, p, &c->co, res);
	}
	/* interrupted while it ran: what it saw is no verdict, unless it had
	 * found a failure (a real counterexample, perhaps not shrunk all the
	 * way: shrink_cut says so); its case in flight is kept instead */
	if (!pre && sc_inflight_signal() && !(res->verdict == SC_V_FAIL && res->have_cx))
		return 0;
	sc_inflight_idle();
	if (r->tty)
		fprintf(stderr, "\r\033[K");
	if (res->verdict == SC_V_FAIL && res->have_cx && r->sanitizer[0] && sc_backend_leader(r->be))
		sanitize(r, t, res);
	if (res->verdict == SC_V_FAIL && c->report_dir && !t->has_case && sc_backend_leader(r->be) &&
	    sc_report_write_failure(c->report_dir, res, c->backend, &e) != SC_OK)
		fprintf(stderr, "shardcheck: %s\n", e.msg);
	if (res->verdict == SC_V_FAIL && sc_backend_leader(r->be))
		sc_report_diagnose(res); /* the hint for the terminal, when the report did not find it */
	if (res->verdict == SC_V_SKIP) {
		if (res->error[0]) /* (a mesh outside --world: said once per target) */
			snprintf(r->skip_why, sizeof r->skip_why, "%s", res->error);
		else if (c->verbose)
			fprintf(r->out, "skip  %-44s %-18s not applicable to these cases\n", res->target, p->name);
		return 0;
	}
	r->nres++;
	if (res->verdict == SC_V_ERROR) {
		r->errors++;
		fprintf(r->out, "ERROR %-44s %-18s %s\n", res->target, p->name, res->error);
		return 0;
	}
	if (res->verdict == SC_V_FAIL) {
		r->fails++;
		const int exp = t->expect == 1 && t->corpus;
		r->expected_fails += exp;
		if (!c->quiet || !exp) {
			fprintf(r->out, "FAIL  %-44s %-18s %s(case %ld, %.2fs)\n", res->target, p->name,
				exp ? "as expected " : "", res->cases, res->seconds);
			const struct sc_result *twin = c->verbose ? NULL : same_failure(r, t);
			if (twin) {
				char replay[2048];
				sc_report_replay_cmd(res, replay, sizeof replay);
				fprintf(r->out, "      the same minimal case and message as %s (above)\n      replay: %s\n",
					twin->property, replay);
			} else {
				sc_report_failure_text(r->out, res, "      ");
				note_other_minimum(r, t, p);
			}
		}
		fflush(r->out);
		return 1;
	}
	r->passes++;
	char extra[256] = "";
	if (res->limited)
		snprintf(extra, sizeof extra, " (%ld over --case-memory, skipped)", res->limited);
	if (!r->per_prop)
		return 0; /* said in the target's line */
	if (!c->quiet && c->co.exhaustive && !res->out_of_time)
		fprintf(r->out, "pass  %-44s %-18s holds for all %ld cases, %.2fs%s\n", res->target, p->name,
			res->cases, res->seconds, extra);
	else if (!c->quiet && c->co.exhaustive)
		fprintf(r->out, "pass  %-44s %-18s %ld of %ld cases: --time was up, not every case ran, %.2fs%s\n",
			res->target, p->name, res->cases, res->exhaustive_total, res->seconds, extra);
	else if (!c->quiet)
		fprintf(r->out, "pass  %-44s %-18s %ld cases, %.2fs%s\n", res->target, p->name, res->cases,
			res->seconds, extra);
	fflush(r->out);
	return 0;
}

/* --jobs: the checks, in the run's order, spread over worker processes
 * (NULL: the caller runs them); *pairs for sc_checkjobs_stop's caller to free. */
static struct sc_checkjobs *start_jobs(struct run *r, int left, struct sc_checkjobs_pair **pairs, int *npairs)
{
	struct sc_cli *c = &r->c;
	const struct sc_property *const *props;
	const int np = sc_properties(&props);
	const int njobs = c->jobs > 0 ? c->jobs : sc_checkjobs_default();
	if (njobs <= 1 || r->gate || strcmp(c->backend, "sim") != 0 || c->timeout > 0 ||
	    !(*pairs = calloc((size_t)(left > 0 ? left : 1), sizeof **pairs)))
		return NULL;
	for (int i = 0; i < r->nt; i++)
		for (int k = 0; k < np; k++)
			if ((!c->property || strcmp(c->property, props[k]->name) == 0) && props[k]->applies(&r->targets[i]))
				(*pairs)[(*npairs)++] = (struct sc_checkjobs_pair){&r->targets[i], props[k]};
	struct sc_checkjobs *jobs = sc_checkjobs_start(njobs, r->ctx, &c->co, *pairs, *npairs, sc_inflight_flag());
	if (jobs) { /* the last resort kills them */
		const int *nw;
		const pid_t *pids = sc_checkjobs_pids(jobs, &nw);
		sc_inflight_children(pids, nw);
	}
	return jobs;
}

/* Interrupted: every worker ended; the checks they finished are reported
 * (failures written), in order, from check next on; the case of the first
 * check still running is the one kept. */
static void interrupted(struct run *r, struct sc_checkjobs *jobs, const struct sc_checkjobs_pair *pairs, int npairs,
			int next)
{
	sc_inflight_stopped();
	r->per_prop = 1; /* what finished is listed as it is taken */
	if (jobs) {
		static struct sc_result pre;
		sc_checkjobs_kill(jobs);
		for (int k = next; k < npairs; k++)
			if (sc_checkjobs_peek(jobs, k, &pre))
				check_one(r, pairs[k].t, pairs[k].p, &pre);
		struct sc_checkjobs_pair pair;
		struct sc_case cs;
		if (sc_checkjobs_inflight(jobs, &pair, &cs))
			sc_inflight_set_case(pair.t, pair.p, &cs);
	}
	sc_sandbox_workers_end(); /* plugins' workers (gate) */
}

/* The target's one line for its properties that passed (results
 * res[from..nres)): "pass  NAME  4 properties  4000 cases, 0.12s", or
 * naming them when others failed. */
static void target_line(struct run *r, const struct sc_target *t, int from)
{
	const struct sc_cli *c = &r->c;
	long cases = 0, limited = 0;
	double seconds = 0;
	int n = 0, all = 0, cut = 0;
	char names[256] = "";
	for (int j = from; j < r->nres; j++) {
		const struct sc_result *res = &r->res[j];
		all++;
		if (res->verdict != SC_V_PASS)
			continue;
		const size_t at = strlen(names);
		snprintf(names + at, sizeof names - at, "%s%s", n ? ", " : "", res->property);
		n++;
		cases += res->cases;
		limited += res->limited;
		seconds += res->seconds;
		cut |= res->out_of_time;
	}
	if (!n)
		return;
	char what[64], extra[128] = "";
	if (n == all)
		snprintf(what, sizeof what, "%d propert%s", n, n == 1 ? "y" : "ies");
	if (limited)
		snprintf(extra, sizeof extra, " (%ld over --case-memory, skipped)", limited);
	fprintf(r->out, "pass  %-44s %-18s %s%ld cases%s, %.2fs%s\n", t->name, n == all ? what : names,
		c->co.exhaustive && !cut ? "every case: " : "", cases,
		c->co.exhaustive && cut ? " (--time was up, not every case ran)" : "", seconds, extra);
	fflush(r->out);
}

/* On a backend with device memory, which transforms get it and which get
 * host buffers: "note: on emu, device memory for gather; host memory for
 * heads_to_seq (transforms that do not accept device memory)". */
static void memory_note(const struct run *r)
{
	const char *staged = sc_plugin_dev_staged(r->be);
	if (!staged)
		return;
	char dev[256] = "", host[256] = "";
	int cuda = 0;
	for (int i = 0; i < r->nt; i++) {
		const struct sc_target *t = &r->targets[i];
		char why[300];
		const int kind = t->plugin ? sc_plugin_dev_kind(r->be, t->plugin->memory, why, sizeof why) : -1;
		if (kind < 0)
			continue; /* not a plugin, or refused: said as its error */
		cuda |= kind == SC_PLUGIN_DEV_CUDA;
		char *to = kind ? dev : host;
		const size_t at = strlen(to);
		if (at + 4 < 256)
			snprintf(to + at, 256 - at, "%s%s", at ? ", " : "", sc_plugin_name(t->plugin));
	}
	fprintf(r->out, "note: on %s, %s%s%s%s%s%s\n", r->c.backend, dev[0] ? "device memory for " : "", dev,
		dev[0] && host[0] ? "; " : "", host[0] ? "host memory for " : "", host, host[0] ? staged : "");
	if (cuda)
		fprintf(r->out, "note: each process that runs a plugin's ranks on the GPU has a CUDA context of its own, "
			"and no --plugin-memory limit (CUDA reserves more address space than one leaves)\n");
}

/* A plugin transform that cannot get the memory it accepts on this
 * backend: one error (property `memory`), not one per property; 1 then. */
static int refused_memory(struct run *r, struct sc_target *t, int nprops)
{
	char why[300];
	if (!r->gate || !t->plugin || !nprops || sc_plugin_dev_kind(r->be, t->plugin->memory, why, sizeof why) >= 0)
		return 0;
	struct sc_result *res = &r->res[r->nres++];
	snprintf(res->target, sizeof res->target, "%s", t->name);
	res->tgt = t;
	res->property = "memory";
	res->verdict = SC_V_ERROR;
	res->expected = -1;
	snprintf(res->error, sizeof res->error, "transform '%s' cannot run on %s: %s", sc_plugin_name(t->plugin),
		 r->c.backend, why);
	r->errors++;
	fprintf(r->out, "ERROR %-44s %-18s %s\n", res->target, res->property, res->error);
	ready_report(r);
	return 1;
}

/* The run's first line (and its bounds, exhaustive) and notes. */
static void header(struct run *r)
{
	struct sc_cli *c = &r->c;
	char ws[128], dts[96];
	if (c->co.exhaustive) {
		snprintf(r->bounds, sizeof r->bounds, "world %s, each dim <= %d, dtypes %s, within each spec's sizes ranges and declared dtypes",
			 sc_gen_world_text(&c->co.gen, ws, sizeof ws),
			 c->co.max_dim ? c->co.max_dim : SC_EXHAUST_DEFAULT_MAX_DIM,
			 sc_exhaust_dtypes_text(&c->co.gen, dts, sizeof dts));
		fprintf(r->out, "shardcheck %s: backend %s, %d target%s, exhaustive: every case with %s\n", SC_VERSION,
			c->backend, r->nt, r->nt == 1 ? "" : "s", r->bounds);
	} else {
		fprintf(r->out, "shardcheck %s: seed %llu, backend %s, %d target%s, world %s, %ld cases per property\n",
			SC_VERSION, (unsigned long long)c->co.seed, c->backend, r->nt, r->nt == 1 ? "" : "s",
			sc_gen_world_text(&c->co.gen, ws, sizeof ws), c->co.cases ? c->co.cases : 1000L);
	}
	if (c->torch) { /* rules other than the newest: said */
		char rules[512];
		sc_torch_describe(c->torch, rules, sizeof rules);
		fprintf(r->out, "%s\n", rules);
	}
	if (r->fewer[0] && sc_backend_leader(r->be))
		fprintf(r->out, "note: %s\n", r->fewer);
	if (r->gate && sc_backend_leader(r->be))
		memory_note(r);
}

static void check_all(struct run *r)
{
	struct sc_cli *c = &r->c;
	const struct sc_property *const *props;
	const int np = sc_properties(&props);
	header(r);
	/* the files of a directory that did not load: an error each, the rest run */
	for (int i = 0; i < c->nbroken && i < SC_CLI_MAX_BROKEN; i++) {
		struct sc_result *res = &r->res[r->nres++];
		snprintf(res->target, sizeof res->target, "%s", c->broken[i].path);
		res->property = "load";
		res->verdict = SC_V_ERROR;
		res->expected = -1;
		snprintf(res->error, sizeof res->error, "%s", c->broken[i].msg);
		r->errors++;
		fprintf(r->out, "ERROR %-44s %-18s %s\n", res->target, res->property, res->error);
	}
	if (c->nbroken > SC_CLI_MAX_BROKEN) {
		r->errors += c->nbroken - SC_CLI_MAX_BROKEN;
		fprintf(r->out, "ERROR and %d more files that did not load (listed above)\n", c->nbroken - SC_CLI_MAX_BROKEN);
	}
	/* --time bounds the run, shrinking included: each check gets a fair
	 * share of what is left, and shrinking stops at the deadline */
	int left = 0;
	for (int i = 0; i < r->nt; i++)
		for (int k = 0; k < np; k++)
			left += (!c->property || strcmp(c->property, props[k]->name) == 0) && props[k]->applies(&r->targets[i]);
	const double t0 = sc_clock_now();
	if (c->total > 0)
		c->co.deadline = t0 + c->total;
	struct sc_checkjobs_pair *pairs = NULL;
	int npairs = 0, next = 0;
	struct sc_checkjobs *jobs = start_jobs(r, left, &pairs, &npairs);
	static struct sc_result pre;
	ready_report(r);
	for (int i = 0; i < r->nt && !sc_inflight_signal(); i++) {
		struct sc_target *t = &r->targets[i];
		int target_failed = 0;
		const int nres0 = r->nres;
		r->skip_why[0] = '\0';
		long total;
		struct sc_err xe;
		if (c->co.exhaustive && !c->quiet && !t->has_case &&
		    sc_exhaust_walk(t, &c->co.gen, c->co.max_dim, NULL, NULL, &total, &xe) == SC_OK)
			fprintf(r->out, "      %s: %ld cases within the bounds\n", t->name, total);
		int nprops = 0;
		for (int k = 0; k < np; k++)
			nprops += (!c->property || strcmp(c->property, props[k]->name) == 0) && props[k]->applies(t);
		r->per_prop = c->verbose || nprops <= 1;
		if (refused_memory(r, t, nprops)) {
			left -= nprops;
			continue;
		}
		for (int k = 0; k < np && !sc_inflight_signal(); k++) {
			if (!((!c->property || strcmp(c->property, props[k]->name) == 0) && props[k]->applies(t)))
				continue;
			if (jobs) {
				left--;
				const enum sc_checkjobs_got got = sc_checkjobs_take(jobs, next++, &pre);
				if (got == SC_CHECKJOBS_STOPPED) {
					next--; /* taken below, if a worker finished it after all */
					break;
				}
				if (got == SC_CHECKJOBS_NOT_RUN) {
					r->not_run++;
					continue;
				}
				target_failed |= check_one(r, t, props[k], &pre);
				ready_report(r);
				continue;
			}
			if (c->total > 0) {
				const double rest = c->co.deadline - sc_clock_now();
				if (rest <= 0) {
					r->not_run += left;
					left = 0;
					break;
				}
				c->co.seconds = rest / left;
			}
			left--;
			target_failed |= check_one(r, t, props[k], NULL);
			ready_report(r);
		}
		if (!r->per_prop && !c->quiet)
			target_line(r, t, nres0);
		if (sc_inflight_signal()) /* the target's checks did not all run: no expectation judged */
			break;
		if (r->nres == nres0 && r->skip_why[0]) { /* nothing checked: no verdict, no expectation */
			fprintf(r->out, "skip  %-44s %s\n", t->name, r->skip_why);
			continue;
		}
		int target_errored = 0; /* a property that could not be checked says nothing either way */
		for (int j = nres0; j < r->nres; j++)
			target_errored |= r->res[j].verdict == SC_V_ERROR;
		if (t->corpus && t->expect >= 0 && !target_errored && (t->expect == 1) != target_failed) {
			r->unmet++;
			fprintf(r->out, "UNMET %-44s expected %s, but %s\n", t->name,
				t->expect ? "a failure" : "every property to hold",
				target_failed ? "a property failed" : "every property held");
		}
	}
	if (sc_inflight_signal())
		interrupted(r, jobs, pairs, npairs, next);
	sc_inflight_children(NULL, NULL);
	sc_checkjobs_stop(jobs);
	free(pairs);
}

/* The summary line, the report and the JSON document; the exit code. */
static int finish(struct run *r, int full_argc, char **full_argv)
{
	struct sc_cli *c = &r->c;
	struct sc_err e;
	int code;
	const int sig = sc_inflight_signal();
	char kept[1100];
	const int have_kept = sig && sc_backend_leader(r->be) && sc_inflight_save(kept, sizeof kept);
	if (sig) {
		code = 2; /* the run did not finish */
	} else if (r->errors) {
		code = 2;
	} else if (r->unmet) {
		code = 1;
	} else {
		int unexpected = 0;
		for (int i = 0; i < r->nres; i++)
			if (r->res[i].verdict == SC_V_FAIL && !(r->res[i].expected == 1 && r->res[i].tgt->corpus))
				unexpected = 1;
		code = unexpected ? 1 : 0;
	}
	if (r->not_run && !sig)
		fprintf(r->out, "time: --time %.0f s was up with %d check%s not run\n", c->total, r->not_run,
			r->not_run == 1 ? "" : "s");
	fprintf(r->out, "%d checks: %d pass, %d fail (%d expected), %d error; %d expectation%s unmet; seed %llu\n",
		r->nres, r->passes, r->fails, r->expected_fails, r->errors, r->unmet, r->unmet == 1 ? "" : "s",
		(unsigned long long)c->co.seed);
	struct sc_report_meta meta = {SC_VERSION, c->co.seed, c->backend, full_argc, full_argv,
				      sig ? "interrupted" : r->not_run ? "out of time" : NULL,
				      sig ? sc_inflight_reason() : NULL, r->fewer[0] ? r->fewer : NULL, c->torch};
	if (c->report_dir && sc_backend_leader(r->be)) {
		if (sc_report_write(c->report_dir, &meta, r->res, r->nres, &e) != SC_OK) {
			fprintf(stderr, "shardcheck: %s\n", e.msg);
			code = 2;
		} else {
			fprintf(r->out, "report: %s/{report.json,junit.xml,summary.md}\n", c->report_dir);
		}
	}
	if (c->json && sc_backend_leader(r->be)) {
		char *doc = NULL;
		if (sc_report_json(&meta, r->res, r->nres, &doc, &e) != SC_OK) {
			fprintf(stderr, "shardcheck: %s\n", e.msg);
			code = 2;
		} else if (r->json_stdout) {
			fputs(doc, stdout);
		} else if (sc_fs_write_atomic(c->json, doc, strlen(doc), &e) != SC_OK) {
			fprintf(stderr, "shardcheck: %s\n", e.msg);
			code = 2;
		}
		free(doc);
	}
	if (sig && sc_backend_leader(r->be)) {
		char msg[4096];
		sc_inflight_message(have_kept ? kept : NULL, msg, sizeof msg);
		fflush(r->out);
		fprintf(stderr, "%s\n", msg);
	}
	return code;
}

static int check_or_gate(const struct sc_cmd *cmd, int gate, int argc, char **argv, int full_argc, char **full_argv)
{
	static struct run r;
	memset(&r, 0, sizeof r);
	r.gate = gate;
	r.argc = full_argc;
	r.argv = full_argv;
	int code = setup(&r, cmd, argc, argv);
	if (code == 0)
		check_all(&r);
	if (code == 0 || r.nres > 0)
		code = finish(&r, full_argc, full_argv);
	run_free(&r);
	return code < 0 ? 0 : code;
}

static int check_main(int argc, char **argv, int full_argc, char **full_argv)
{
	return check_or_gate(&sc_cmd_check, 0, argc, argv, full_argc, full_argv);
}

static int gate_main(int argc, char **argv, int full_argc, char **full_argv)
{
	return check_or_gate(&sc_cmd_gate, 1, argc, argv, full_argc, full_argv);
}

const struct sc_cmd sc_cmd_check = {
	"check", SC_CHECK,
	"usage: shardcheck check [options] [TARGET...]\n"
	"\n"
	"TARGET: a .sc spec, a .case file, a directory (every .sc and .case below it),\n"
	"builtin:NAME, builtin:all.\n"
	"No target: builtin:all.\n"
	"\n",
	"exit: 0 every property held (or every corpus expectation was met), 1 a\n"
	"counterexample was found (or an expectation was not met), 2 error, or the\n"
	"run was interrupted (SIGTERM, SIGINT, SIGHUP: the checks that finished are\n"
	"reported with \"status\": \"interrupted\", the case in flight is kept in\n"
	"DIR/failures/inflight.case, one line on stderr says so)\n",
	check_main,
};

const struct sc_cmd sc_cmd_gate = {
	"gate", SC_GATE,
	"usage: shardcheck gate --plugin LIB.so [--baseline OLD.so] [options] [TRANSFORM...]\n"
	"\n"
	"Loads a plugin (shardcheck/plugin.h) and checks every property on every\n"
	"transform (or the ones named) against the contract it declares; with\n"
	"--baseline, also that it gives the baseline's output bits on the same cases\n"
	"(differential), which needs no stated output placement. Each case runs the\n"
	"plugin in a child process: a crash, abort, exception or hang (--timeout) is a\n"
	"failure of that case, shrunk like any other. Failures are shrunk and written\n"
	"with --report DIR (junit.xml for the CI page, summary.md for the pull request).\n"
	"The seed is 0 unless --seed S or --seed random, so a gate never flakes.\n"
	"\n",
	"exit: 0 every property holds, 1 a failure (with a minimal case), 2 error or\n"
	"an interrupt (SIGTERM, SIGINT, SIGHUP: reported as for check)\n",
	gate_main,
};
