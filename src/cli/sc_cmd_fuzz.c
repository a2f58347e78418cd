/* shardcheck fuzz: the unattended campaign (src/run/sc_fuzzloop.c, and
 * sc_fuzzjobs.c for --jobs): prints its events as they come, stops
 * cleanly on SIGTERM, SIGINT or SIGHUP (sc_inflight: the campaign polls
 * its flag between checks; a check that does not end within the grace
 * period takes the last-resort path) with the report written, "status":
 * "interrupted", and exit 2. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sc_cli.h"
#include "sc_inflight.h"
#include "sc_fs.h"
#include "sc_fuzzjobs.h"
#include "sc_report.h"

struct fuzz_print {
	int jobs, quiet;
};

static void fmt_dur(double s, char *buf, size_t n)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, n, "%lds", t);
}

static void fuzz_event(void *u, const struct sc_fuzz_event *ev)
{
	const struct fuzz_print *fp = u;
	char pre[24] = "";
	if (fp->jobs > 1)
		snprintf(pre, sizeof pre, "[job %d] ", ev->job);
	char a[32], b[32];
	switch (ev->kind) {
	case SC_FZ_PROGRESS:
		fmt_dur(ev->elapsed, a, sizeof a);
		fmt_dur(ev->left > 0 ? ev->left : 0, b, sizeof b);
		printf("%sfuzz: %s elapsed, %s left: %ld cases (%.0f/s), %ld failure%s\n", pre, a, b, ev->cases,
		       ev->elapsed > 0 ? ev->cases / ev->elapsed : 0.0, ev->failures, ev->failures == 1 ? "" : "s");
		break;
	case SC_FZ_NEW:
		printf("%sNEW   %s %s: saved %s\n", pre, ev->res->target, ev->res->property, ev->case_file);
		sc_report_failure_text(stdout, ev->res, "      ");
		break;
	case SC_FZ_EXPECTED:
		if (!fp->quiet) {
			char cs[256];
			sc_target_case_format(ev->res->tgt, &ev->res->cx, cs, sizeof cs);
			printf("%sknown %s %s (expect fail): %s\n", pre, ev->res->target, ev->res->property, cs);
		}
		break;
	case SC_FZ_STILL:
		printf("%sSTILL %s: %s %s still fails\n", pre, ev->case_file, ev->res->tgt->name, ev->res->property);
		break;
	case SC_FZ_FIXED:
		printf("%sFIXED %s: %s %s passes now\n", pre, ev->case_file, ev->res->tgt->name, ev->res->property);
		break;
	case SC_FZ_ERROR:
		printf("%sERROR %s %s: %s\n", pre, ev->res->target, ev->res->property, ev->res->error);
		break;
	case SC_FZ_STALE:
		printf("%sSTALE %s: cannot be replayed, skipped: %s\n", pre, ev->case_file, ev->res->error);
		break;
	case SC_FZ_WARNING:
		printf("%sWARN  %s\n", pre, ev->msg);
		break;
	}
	fflush(stdout); /* a run killed at any point keeps what it printed */
}

/* The campaign's setup: options, backend, targets (.case files are
 * findings or regressions, not fuzzable), report folder, signals. */
struct fuzz_run {
	struct sc_cli c;
	double total;
	int jobs;
	const char *report;
	char findings[1100];
	struct sc_backend *be;
	struct sc_target targets[SC_CLI_MAX_TARGETS];
	int nt;
};

static int fuzz_setup(struct fuzz_run *f, int argc, char **argv)
{
	struct sc_cli *c = &f->c;
	int rc = sc_cli_parse(c, &sc_cmd_fuzz, argc, argv);
	if (rc)
		return rc < 0 ? -1 : rc;
	c->backend = c->backend ? c->backend : "sim";
	sc_gen_defaults(&c->co.gen);
	if (!c->seed_given)
		c->co.seed = sc_cli_random_seed();
	f->total = c->total > 0 ? c->total : 60;
	f->jobs = c->jobs > 0 ? c->jobs : 1;
	const char *corpus = c->corpus ? c->corpus : "corpus";
	f->report = c->report_dir ? c->report_dir : "reports/fuzz";
	if (f->jobs > 1 && strcmp(c->backend, "sim") != 0)
		return sc_cli_die("--jobs needs the sim backend (launch more processes with mpirun instead)%s", "");
	struct stat st;
	if (c->ntargets == 0) {
		c->targets[c->ntargets++] = "builtin:all";
		if (stat(corpus, &st) == 0)
			c->targets[c->ntargets++] = corpus;
	}
	/* findings live beside the reports (not in the source checkout) unless
	 * a corpus folder or a findings folder is named */
	if (c->findings)
		snprintf(f->findings, sizeof f->findings, "%s", c->findings);
	else if (c->corpus)
		snprintf(f->findings, sizeof f->findings, "%s/findings", corpus);
	else
		snprintf(f->findings, sizeof f->findings, "reports/findings");
	struct sc_err e;
	if (sc_backend_open(c->backend, &f->be, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		return 2;
	}
	sc_inflight_quiet_followers(f->be);
	sc_backend_bcast(f->be, &c->co.seed, sizeof c->co.seed, 0);
	if (!sc_gen_world_clamp(&c->co.gen, sc_backend_max_world(f->be))) {
		fprintf(stderr, "shardcheck: --world needs at least %d processes, this launch has %d (mpirun -np)\n",
			c->co.gen.world_lo, sc_backend_max_world(f->be));
		return 2;
	}
	static struct sc_target all[SC_CLI_MAX_TARGETS];
	int na = 0;
	c->specs_only = 1; /* findings are replayed on their own, a stale one skipped */
	c->skip_irregular = 1; /* a FIFO in the corpus is said and skipped, not waited on */
	if ((rc = sc_cli_load_targets(c, all, &na, stderr)) != 0) {
		fprintf(stderr, "shardcheck: nothing run\n");
		return rc;
	}
	/* the run goes on without them, and exits 2: a spec that stopped
	 * loading must not drop out of a nightly job unnoticed */
	for (int i = 0; i < c->nbroken && i < SC_CLI_MAX_BROKEN; i++)
		printf("ERROR %s did not load, left out (the run goes on, then exits 2): %s\n", c->broken[i].path,
		       c->broken[i].msg);
	if (c->nbroken > SC_CLI_MAX_BROKEN)
		printf("ERROR and %d more files that did not load\n", c->nbroken - SC_CLI_MAX_BROKEN);
	for (int i = 0; i < na; i++) {
		if (all[i].has_case)
			sc_target_free(&all[i]);
		else
			f->targets[f->nt++] = all[i];
	}
	if (sc_fs_mkdirs(f->report, &e) != SC_OK) /* findings still go to the corpus */
		printf("WARN  %s; the run goes on, findings are saved in %s\n", e.msg, f->findings);
	sc_inflight_watch(c, f->be);
	sc_inflight_report_dir(f->report);
	return 0;
}

/* The report (pairs never run left out) and the closing line; the exit
 * code. Replayed findings own their targets: freed here. */
static int fuzz_finish(struct fuzz_run *f, struct sc_result *res, int nres, int full_argc, char **full_argv)
{
	struct sc_cli *c = &f->c;
	struct sc_target **owned = calloc((size_t)nres + 1, sizeof *owned);
	int nowned = 0;
	for (int i = 0; owned && i < nres; i++)
		if (res[i].tgt && res[i].tgt->has_case)
			owned[nowned++] = res[i].tgt;
	int n = 0, newf = 0, still = 0, fixed = 0, expected = 0, errors = 0, stale = 0;
	long cases = 0;
	for (int i = 0; i < nres; i++) {
		struct sc_result *r = &res[i];
		if (r->verdict == SC_V_SKIP && r->cases == 0 && !r->stale)
			continue;
		cases += r->cases;
		stale += r->stale;
		if (r->stale) {
		} else if (r->tgt && r->tgt->has_case) {
			still += r->verdict == SC_V_FAIL;
			fixed += r->verdict == SC_V_PASS;
		} else if (r->verdict == SC_V_FAIL) {
			if (r->tgt->expect == 1 && r->tgt->corpus)
				expected++;
			else
				newf++;
		}
		errors += r->verdict == SC_V_ERROR;
		if (n != i)
			res[n] = *r;
		n++;
	}
	errors += c->nbroken; /* files that did not load */
	/* corpus entries that are not regular files: in the report, as skipped */
	for (int i = 0; i < c->nskipped && i < SC_CLI_MAX_BROKEN; i++, n++) {
		struct sc_result *r = &res[n];
		memset(r, 0, sizeof *r);
		snprintf(r->target, sizeof r->target, "%s", c->skipped[i].path);
		r->property = "file";
		r->verdict = SC_V_SKIP;
		r->stale = 1;
		r->expected = -1;
		snprintf(r->error, sizeof r->error, "%s", c->skipped[i].msg);
	}
	const int sig = sc_inflight_signal();
	sc_inflight_stopped();
	struct sc_report_meta meta = {SC_VERSION, c->co.seed, c->backend, full_argc, full_argv,
				      sig ? "interrupted" : "complete", sig ? sc_inflight_reason() : NULL, NULL, c->torch};
	int code = sig || errors ? 2 : (newf || still) ? 1 : 0;
	struct sc_err e;
	if (sc_backend_leader(f->be)) {
		int wrote = sc_report_write(f->report, &meta, res, n, &e) == SC_OK;
		if (!wrote) {
			fprintf(stderr, "shardcheck: %s (the findings are in %s)\n", e.msg, f->findings);
			code = 2;
		}
		printf("fuzz %s: %ld cases; %d new failure%s, %d earlier still failing, %d fixed, %d stale, %d expected, %d error%s; report %s\n",
		       sig ? "stopped" : "done", cases, newf, newf == 1 ? "" : "s", still, fixed, stale, expected,
		       errors, errors == 1 ? "" : "s", wrote ? f->report : "NOT written");
		if (sig) { /* the check in flight ran to its end: no case was cut off */
			char msg[4096];
			sc_inflight_idle();
			sc_inflight_message(NULL, msg, sizeof msg);
			fflush(stdout);
			fprintf(stderr, "%s\n", msg);
		}
	}
	for (int i = 0; i < nowned; i++) {
		sc_target_free(owned[i]);
		free(owned[i]);
	}
	free(owned);
	return code;
}

static int fuzz_main(int argc, char **argv, int full_argc, char **full_argv)
{
	static struct fuzz_run f;
	memset(&f, 0, sizeof f);
	int code = fuzz_setup(&f, argc, argv);
	struct sc_result *res = NULL;
	struct sc_ctx *ctx = NULL;
	struct sc_fuzz_sigs *sigs = NULL;
	if (code)
		goto out;
	struct sc_cli *c = &f.c;
	char dur[32];
	fmt_dur(f.total, dur, sizeof dur);
	printf("shardcheck %s fuzz: seed %llu, backend %s, %d target%s, %s, %d job%s, report %s, findings %s\n",
	       SC_VERSION, (unsigned long long)c->co.seed, c->backend, f.nt, f.nt == 1 ? "" : "s", dur, f.jobs,
	       f.jobs == 1 ? "" : "s",
	       f.report, f.findings);
	fflush(stdout);
	const struct sc_property *const *props;
	const int cap = f.nt * sc_properties(&props) + sc_fuzz_count_findings(f.findings) + 16;
	res = calloc((size_t)cap + SC_CLI_MAX_BROKEN, sizeof *res); /* + the skipped corpus entries */
	ctx = sc_ctx_new(f.be, c->co.gen.dtypes);
	sigs = sc_fuzz_sigs_new();
	if (ctx)
		ctx->arena.max_bytes = c->case_memory;
	if (!res || !ctx || !sigs) {
		fprintf(stderr, "shardcheck: out of memory\n");
		code = 2;
		goto out;
	}
	struct sc_err e;
	/* a report that says it is incomplete until the run ends: a run killed
	 * (even by kill -9) leaves no report that looks current */
	struct sc_report_meta running = {SC_VERSION, c->co.seed, c->backend, full_argc, full_argv, "running", NULL, NULL, c->torch};
	if (sc_backend_leader(f.be) && sc_report_write(f.report, &running, res, 0, &e) != SC_OK)
		printf("WARN  %s\n", e.msg);
	sc_inflight_report(&running, res, 0); /* what a signal's last resort writes */
	struct fuzz_print fp = {f.jobs, c->quiet};
	struct sc_fuzz_opts fo = {.co = c->co, .seconds = f.total, .backend = c->backend, .report_dir = f.report,
				  .findings_dir = f.findings, .sigs = sigs, .stop = sc_inflight_flag(), .event = fuzz_event,
				  .u = &fp};
	int nres = 0;
	enum sc_status st = f.jobs == 1 ? sc_fuzz_campaign(ctx, f.targets, f.nt, &fo, res, cap, &nres, &e)
					: sc_fuzz_jobs(ctx, f.targets, f.nt, &fo, f.jobs, res, cap, &nres, &e);
	if (st != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		code = 2;
		goto out;
	}
	code = fuzz_finish(&f, res, nres, full_argc, full_argv);
out:
	free(res);
	sc_ctx_free(ctx);
	sc_fuzz_sigs_free(sigs);
	sc_backend_close(f.be);
	for (int i = 0; i < f.nt; i++)
		sc_target_free(&f.targets[i]);
	return code < 0 ? 0 : code;
}

const struct sc_cmd sc_cmd_fuzz = {
	"fuzz", SC_FUZZ,
	"usage: shardcheck fuzz [options] [TARGET...]\n"
	"\n"
	"An unattended fuzz campaign: replays the findings of earlier runs\n"
	"(FINDINGS/*.case: still failing, or fixed), then cycles every target\n"
	"and property with fresh seeds until the time is up, shrinking each failure,\n"
	"deduplicating by signature (target, property, shrunk case) and writing each\n"
	"new one to REPORT/failures and FINDINGS before announcing it.\n"
	"FINDINGS is --findings DIR, else CORPUS/findings when --corpus is given,\n"
	"else reports/findings: a run writes nothing into the corpus by default.\n"
	"SIGTERM, SIGINT or SIGHUP stop it cleanly with the report written\n"
	"(\"status\": \"interrupted\") and exit 2.\n"
	"Default targets: builtin:all and every spec in CORPUS.\n"
	"\n",
	"exit: 0 nothing new and no earlier finding still failing, 1 otherwise, 2 an error (a spec\n"
	"      of a directory that did not load counts: the others are fuzzed first) or a signal\n",
	fuzz_main,
};
