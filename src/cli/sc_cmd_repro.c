/* shardcheck repro: replays one .case file exactly and shows, per rank,
 * the expected and actual tensors (in full when small, wrong elements
 * marked) and the first wrong elements with their provenance.
 * SIGTERM, SIGINT or SIGHUP (sc_inflight) end it with exit 2 and a line
 * that names the signal and the case file (a case that does not return
 * within the grace period: at once, from the handler). */
#include <stdlib.h>
#include <string.h>

#include "sc_casefile.h"
#include "sc_cli.h"
#include "sc_history.h"
#include "sc_inflight.h"
#include "sc_fs.h"
#include "sc_report.h"
#include "sc_sandbox.h"
#include "sc_svg.h"

static void short_value(enum sc_dtype dt, uint64_t bits, char *buf, size_t n)
{
	char full[96];
	sc_dtype_format(dt, bits, full, sizeof full);
	const char *paren = strchr(full, '(');
	if (paren) { /* floats: the value only */
		snprintf(buf, n, "%.*s", (int)(strcspn(paren + 1, ")")), paren + 1);
		return;
	}
	snprintf(buf, n, "%s", full);
}

/* Prints t row by row, a row along the last dim labelled with its full
 * index ("[0, 1, 0, :]", as the FAIL lines count dims); '!' where it
 * differs from ref; prov (row-major, may be NULL) names the elements that
 * hold padding or that nothing wrote. */
static void print_tensor(const char *title, const struct sc_tensor *t, const struct sc_tensor *ref,
			 const uint64_t *prov, enum sc_dtype dt)
{
	char sh[160];
	sc_shape_format(t->shape, t->ndim, sh, sizeof sh);
	printf("    %s %s:\n", title, sh);
	struct sc_iter it, ir;
	sc_iter_init(&it, t->shape, t->stride, t->ndim, t->offset);
	if (ref)
		sc_iter_init(&ir, ref->shape, ref->stride, ref->ndim, ref->offset);
	const int64_t n = sc_tensor_numel(t), row = t->ndim ? t->shape[t->ndim - 1] : 1;
	const unsigned es = t->buf->esize;
	for (int64_t k = 0; k < n; k++) {
		if (k % row == 0) {
			char idx[160] = "[";
			size_t w = 1;
			for (int d = 0; d + 1 < t->ndim && w < sizeof idx; d++)
				w += (size_t)snprintf(idx + w, sizeof idx - w, "%lld, ", (long long)it.idx[d]);
			if (w < sizeof idx)
				snprintf(idx + w, sizeof idx - w, "%s]", t->ndim ? ":" : "");
			printf("      %-14s", idx);
		}
		uint64_t v = sc_load_bits(t->buf->data + (size_t)it.off * es, es);
		int differs = 0;
		if (ref) {
			differs = v != sc_load_bits(ref->buf->data + (size_t)ir.off * es, es);
			sc_iter_next(&ir);
		}
		char val[96];
		short_value(dt, v, val, sizeof val);
		if (prov && prov[k] == SC_PROV_PAD)
			snprintf(val, sizeof val, "(padding)");
		else if (prov && prov[k] == SC_PROV_POISON)
			snprintf(val, sizeof val, "(nothing)");
		printf(" %12s%s", val, differs ? "!" : " ");
		if (k % row == row - 1)
			printf("\n");
		sc_iter_next(&it);
	}
}

/* Each local rank's output provenance, row-major, in fresh arrays (the
 * arena is reset by the next run); nothing where the run fails. */
static void provenance(struct sc_ctx *ctx, struct sc_target *t, const struct sc_case *cs, uint64_t **prov,
		       int64_t *pn)
{
	struct sc_err e;
	sc_ctx_begin(ctx, 1, 1); /* poisoned: an unwritten element shows as such */
	if (sc_verify_run(t, cs, &ctx->x, NULL, &e) != SC_OK)
		return;
	const struct sc_exec *x = &ctx->x;
	for (int r = 0; r < x->nlocal; r++) {
		const struct sc_tensor *tt = &x->t[r];
		const unsigned char *base = sc_tensor_host(&ctx->arena, tt);
		const int64_t n = sc_tensor_numel(tt);
		if (!base || n > 256 || !(prov[r] = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1))))
			continue;
		struct sc_iter it;
		sc_iter_init(&it, tt->shape, tt->stride, tt->ndim, tt->offset);
		for (int64_t k = 0; k < n; k++, sc_iter_next(&it))
			prov[r][k] = sc_load_bits(base + (size_t)it.off * 8, 8);
		pn[r] = n;
	}
}

/* --svg FILE: the picture of the replayed case (sc_svg). A case that
 * cannot be drawn is said so and keeps its exit code; an error writing
 * the picture is exit 2. */
static int write_picture(struct sc_ctx *ctx, struct sc_target *t, const struct sc_result *r,
			 const struct sc_case *cs, const char *path, int code)
{
	struct sc_err e;
	struct sc_svg_info info;
	const struct sc_svg_opts o = {.fail = r->verdict == SC_V_FAIL ? &r->fail : NULL};
	enum sc_status st = sc_svg_write(ctx, t, r->property, cs, &o, path, &info, &e);
	if (st == SC_E_UNAVAIL) {
		printf("picture: nothing drawn: %s\n", e.msg);
		return code;
	}
	if (st != SC_OK) {
		fprintf(stderr, "shardcheck: --svg: %s\n", e.msg);
		return 2;
	}
	printf("picture: %s (%lld elements, %lld wrong", path, (long long)info.elements, (long long)info.wrong);
	if (info.not_drawn)
		printf(", %lld not drawn", (long long)info.not_drawn);
	printf(")\n");
	if (info.diagnosis[0])
		printf("  diagnosis: %s\n", info.diagnosis);
	return code;
}

/* The replay's verdict in words: a failure in full, with its diagnosis. */
static void say_verdict(struct sc_target *t, const struct sc_property *p, struct sc_result *r, const char *case_path)
{
	if (r->verdict == SC_V_FAIL) {
		printf("FAIL  %s %s: the case still fails\n", t->name, p->name);
		r->have_cx = 1;
		snprintf(r->case_file, sizeof r->case_file, "%.590s", case_path);
		if (!t->nearlier) /* (a case that needs earlier calls is not drawn alone) */
			sc_report_diagnose(r);
		sc_report_failure_text(stdout, r, "      ");
	} else if (r->verdict == SC_V_PASS) {
		printf("pass  %s %s: the case no longer fails%s\n", t->name, p->name,
		       t->expect == 1 ? " (the case file expects a failure)" : "");
	}
}

/* The case's verdict into r: after its earlier cases in one new process
 * when it has them, else in a fresh one. */
static enum sc_verdict replay(struct sc_ctx *ctx, struct sc_target *t, const struct sc_property *p, struct sc_result *r)
{
	if (!t->nearlier) {
		t->fresh = 1; /* a plugin's runs each in a fresh child, as a confirmed failure's were */
		return sc_check_case(ctx, t, p, &t->fixed, &r->fail);
	}
	printf("  after %d earlier case%s in the same process (the case file's 'earlier' lines)\n", t->nearlier,
	       t->nearlier == 1 ? "" : "s");
	r->nearlier = t->nearlier < SC_CASE_MAX_EARLIER ? t->nearlier : SC_CASE_MAX_EARLIER;
	memcpy(r->earlier, t->earlier, sizeof *r->earlier * (size_t)r->nearlier);
	const enum sc_verdict v = sc_check_after(ctx, t, p, t->earlier, t->nearlier, &t->fixed, &r->fail);
	if (v == SC_V_FAIL)
		sc_history_note_replay(&r->fail, t->nearlier);
	return v;
}

/* A signal came: the replay did not finish, whatever it said so far is no
 * verdict. Exit 2. */
static int interrupted(struct sc_backend *be)
{
	sc_inflight_stopped();
	sc_sandbox_workers_end();
	if (sc_backend_leader(be)) {
		char msg[2048];
		sc_inflight_message(NULL, msg, sizeof msg);
		fflush(stdout);
		fprintf(stderr, "%s\n", msg);
	}
	return 2;
}

static int repro_main(int argc, char **argv, int full_argc, char **full_argv)
{
	(void)full_argc;
	(void)full_argv;
	static struct sc_cli c;
	int rc = sc_cli_parse(&c, &sc_cmd_repro, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (c.ntargets != 1)
		return sc_cli_die("repro takes one .case file%s", "");
	static struct sc_target t;
	struct sc_err e;
	if (sc_casefile_load(c.targets[0], &t, &e) != SC_OK) {
		fprintf(stderr, "%s\n", e.msg);
		return 2;
	}
	if (c.torch) /* over the case file's torch line */
		sc_target_set_torch(&t, c.torch);
	const char *bname = c.backend ? c.backend : t.fixed_backend;
	struct sc_backend *be;
	if (t.plugin)
		sc_backend_keep_gpu_free(); /* the plugin's processes make the CUDA contexts */
	if (sc_backend_open(bname, &be, &e) != SC_OK) {
		fprintf(stderr, "shardcheck: %s\n", e.msg);
		sc_target_free(&t);
		return 2;
	}
	sc_inflight_quiet_followers(be);
	sc_inflight_watch(&c, be);
	sc_inflight_keep(c.targets[0]);
	if (t.fixed.world > sc_backend_max_world(be)) {
		fprintf(stderr, "shardcheck: world %d needs %d processes, this launch has %d\n",
			t.fixed.world, t.fixed.world, sc_backend_max_world(be));
		sc_backend_close(be);
		sc_target_free(&t);
		return 2;
	}
	struct sc_ctx *ctx = sc_ctx_new(be, 0);
	if (ctx)
		ctx->arena.max_bytes = c.case_memory;
	const struct sc_property *p = sc_property_find(t.fixed_property);
	const struct sc_case *cs = &t.fixed;
	struct sc_result r;
	memset(&r, 0, sizeof r);
	r.tgt = &t;
	r.property = p->name;
	r.cx = *cs;
	snprintf(r.target, sizeof r.target, "%s", t.name);
	char desc[512];
	sc_target_case_format(&t, cs, desc, sizeof desc);
	printf("replay %s: %s %s on %s\n  %s\n", c.targets[0], t.name, p->name, bname, desc);
	r.verdict = replay(ctx, &t, p, &r);
	int code = 0;
	if (sc_inflight_signal())
		goto out;
	code = r.verdict == SC_V_FAIL ? 1 : r.verdict == SC_V_ERROR ? 2 : 0;
	if (r.verdict == SC_V_ERROR)
		fprintf(stderr, "shardcheck: %s\n", ctx->err.msg);
	/* per rank, expected and actual: in full when small */
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns = 0;
	uint64_t *prov[SC_MAX_WORLD] = {NULL};
	int64_t pn[SC_MAX_WORLD] = {0};
	if (code != 2 && sc_target_specs(&t, cs, s, &ns, &e) == SC_OK && !s[0]->compute)
		provenance(ctx, &t, cs, prov, pn); /* where padding and unwritten elements are */
	if (code != 2 && sc_target_specs(&t, cs, s, &ns, &e) == SC_OK) {
		if (t.nearlier) /* the run shown comes after the earlier cases, as the failure did */
			sc_check_prime(ctx, &t, p, t.earlier, t.nearlier);
		sc_ctx_begin(ctx, 0, 0);
		enum sc_status st = sc_verify_run(&t, cs, &ctx->x, NULL, &e);
		struct sc_exec *x = &ctx->x;
		int64_t per_rank = sc_tensor_numel(&x->t[0]);
		if (st == SC_E_RUNTIME) {
			printf("  a step fails at run time: %s\n", e.msg);
		} else if (st == SC_OK && per_rank <= 256 && strcmp(p->name, "semantics") == 0 && !s[0]->compute) {
			const struct sc_layout *ol = &s[ns - 1]->out;
			for (int rr = 0; rr < x->nlocal; rr++) {
				struct sc_tensor et;
				if (sc_cli_expected_tensor(ctx, &t, cs, ol, x->first + rr, &et, &e) != SC_OK)
					break;
				char rk[96];
				sc_layout_rank_text(s[0], cs->sizes, cs->world, x->first + rr, rk, sizeof rk);
				printf("  rank %s:\n", rk);
				print_tensor("expected", &et, NULL, NULL, cs->dtype);
				int same_shape = et.ndim == x->t[rr].ndim;
				for (int d = 0; same_shape && d < et.ndim; d++)
					same_shape = et.shape[d] == x->t[rr].shape[d];
				struct sc_tensor at = x->t[rr];
				struct sc_buf hb = *at.buf;
				if (at.buf->dm) { /* a device buffer: print its bits from here */
					if (!(hb.data = (unsigned char *)sc_tensor_host(&ctx->arena, &at)))
						break;
					hb.dm = NULL;
					at.buf = &hb;
				}
				print_tensor(ol->kind == SC_PARTIAL ? "actual (this rank's partial)" : "actual",
					     &at, same_shape && ol->kind != SC_PARTIAL ? &et : NULL,
					     prov[rr] && pn[rr] == sc_tensor_numel(&at) ? prov[rr] : NULL, cs->dtype);
			}
		}
	}
	for (int rr = 0; rr < SC_MAX_WORLD; rr++)
		free(prov[rr]);
	say_verdict(&t, p, &r, c.targets[0]);
	if (c.dump && code != 2 && sc_cli_dump_case(ctx, &t, cs, c.dump) != 0)
		code = 2;
	if (c.svg && code != 2 && sc_backend_leader(be))
		code = write_picture(ctx, &t, &r, cs, c.svg, code);
out:
	if (sc_inflight_signal())
		code = interrupted(be);
	sc_ctx_free(ctx);
	sc_backend_close(be);
	sc_target_free(&t);
	return code;
}

const struct sc_cmd sc_cmd_repro = {
	"repro", SC_REPRO,
	"usage: shardcheck repro CASE [--dump DIR] [--svg FILE] [--backend NAME]\n"
	"\n"
	"Replays one .case file exactly: prints, per rank, the expected and actual\n"
	"tensors in full when small (wrong elements marked '!'), and the first wrong\n"
	"elements with coordinates and provenance; --svg draws every rank's output.\n"
	"\n",
	"exit: 0 the case passes now, 1 it still fails, 2 error or an interrupt\n"
	"(SIGTERM, SIGINT, SIGHUP)\n",
	repro_main,
};
