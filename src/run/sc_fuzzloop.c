/* sc_fuzzloop: findings replay, round-robin fuzzing, dedup, immediate writes. */
#include "sc_fuzzloop.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_casefile.h"
#include "sc_npy.h"
#include "sc_report.h"
#include "sc_clock.h"
#include "sc_fs.h"

#define MAX_SIGS 4096

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

/* The same bug shrinks to the same case: hash what identifies it. */
static uint64_t signature(const struct sc_result *r)
{
	uint64_t h = fnv(r->target, strlen(r->target), 0xcbf29ce484222325ULL);
	h = fnv(r->property, strlen(r->property), h);
	const struct sc_case *c = &r->cx;
	h = fnv(&c->world, sizeof c->world, h);
	h = fnv(c->sizes, sizeof(int64_t) * (size_t)c->ndims, h);
	h = fnv(&c->dtype, sizeof c->dtype, h);
	h = fnv(&c->p0, sizeof c->p0, h);
	h = fnv(&c->p1, sizeof c->p1, h);
	return fnv(&c->op, sizeof c->op, h);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Earlier findings first: each still fails, or is fixed. */
static void replay_findings(struct sc_ctx *ctx, const struct sc_fuzz_opts *o, struct sc_result *res,
			    int cap, int *nres, uint64_t *sigs, int *nsigs)
{
	if (!o->findings_dir)
		return;
	DIR *d = opendir(o->findings_dir);
	if (!d)
		return;
	char *names[1024];
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < 1024) {
		size_t l = strlen(de->d_name);
		if (l > 5 && strcmp(de->d_name + l - 5, ".case") == 0)
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0], cmp_str);
	for (int i = 0; i < n && *nres < cap; i++) {
		char path[2048];
		snprintf(path, sizeof path, "%s/%s", o->findings_dir, names[i]);
		free(names[i]);
		struct sc_target *t = calloc(1, sizeof *t);
		struct sc_err e;
		if (!t || sc_casefile_load(path, t, &e) != SC_OK) {
			free(t);
			continue;
		}
		struct sc_result *r = &res[(*nres)++];
		const struct sc_property *p = sc_property_find(t->fixed_property);
		sc_check_run(ctx, t, p, &o->co, r);
		r->tgt = t; /* owned by the result now; freed by sc_fuzz_free_results */
		snprintf(r->case_file, sizeof r->case_file, "%.590s", path);
		struct sc_fuzz_event ev = {.job = o->job, .kind = r->verdict == SC_V_FAIL ? SC_FZ_STILL : SC_FZ_FIXED,
					   .res = r, .case_file = path};
		if (r->verdict == SC_V_ERROR)
			ev.kind = SC_FZ_ERROR;
		if (o->event)
			o->event(o->u, &ev);
		if (r->verdict == SC_V_FAIL && *nsigs < MAX_SIGS) {
			/* the same bug found again is not new: its signature, as found */
			struct sc_result k = *r;
			snprintf(k.target, sizeof k.target, "%s", t->name);
			sigs[(*nsigs)++] = signature(&k);
		}
	}
}

static enum sc_status write_finding(const struct sc_fuzz_opts *o, struct sc_result *r, uint64_t sig,
				    struct sc_err *e)
{
	char text[4096];
	SC_CHECK(sc_casefile_format(r->tgt, r->property, o->backend, &r->cx, -1, text, sizeof text, e));
	if (o->report_dir) {
		/* failures/NAME.case + NAME.md, and the replay line points there */
		SC_CHECK(sc_report_write_failure(o->report_dir, r, o->backend, e));
	}
	if (o->findings_dir) {
		char path[1200];
		SC_CHECK(sc_fs_mkdirs(o->findings_dir, e));
		const char *base = strrchr(r->target, '/');
		base = base ? base + 1 : r->target;
		char clean[256];
		snprintf(clean, sizeof clean, "%.250s", base);
		for (char *c = clean; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
				*c = '-';
		snprintf(path, sizeof path, "%.800s/%.200s-%s-%08llx.case", o->findings_dir, clean, r->property,
			 (unsigned long long)(sig & 0xffffffffULL));
		SC_CHECK(sc_fs_write_atomic(path, text, strlen(text), e));
		if (!r->case_file[0])
			snprintf(r->case_file, sizeof r->case_file, "%.590s", path);
	}
	return SC_OK;
}

enum sc_status sc_fuzz_campaign(struct sc_ctx *ctx, struct sc_target *t, int nt,
				const struct sc_fuzz_opts *o, struct sc_result *res, int cap,
				int *nres, struct sc_err *e)
{
	const double t0 = sc_clock_now();
	const double every = o->progress_every > 0 ? o->progress_every : 10;
	uint64_t *sigs = calloc(MAX_SIGS, sizeof *sigs);
	if (!sigs)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	int nsigs = 0;
	*nres = 0;
	/* pairs first: res[0..npairs) accumulate over rounds */
	const struct sc_property *const *props;
	int np = sc_properties(&props);
	struct pair {
		struct sc_target *t;
		const struct sc_property *p;
	} *pairs = calloc((size_t)nt * (size_t)np + 1, sizeof *pairs);
	if (!pairs) {
		free(sigs);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	int npairs = 0;
	for (int i = 0; i < nt; i++)
		for (int k = 0; k < np; k++)
			if (props[k]->applies(&t[i]) && !t[i].has_case && npairs < cap) {
				pairs[npairs].t = &t[i];
				pairs[npairs].p = props[k];
				struct sc_result *r = &res[npairs];
				memset(r, 0, sizeof *r);
				r->tgt = &t[i];
				r->property = props[k]->name;
				r->expected = t[i].expect;
				r->verdict = SC_V_SKIP;
				snprintf(r->target, sizeof r->target, "%s", t[i].name);
				npairs++;
			}
	*nres = npairs;
	/* every pair gets at least four turns in the budget, within 20-500 ms */
	double slice = o->slice > 0 ? o->slice : o->seconds / (4.0 * (npairs ? npairs : 1));
	if (o->slice <= 0)
		slice = slice < 0.02 ? 0.02 : slice > 0.5 ? 0.5 : slice;
	if (!o->no_replay)
		replay_findings(ctx, o, res, cap, nres, sigs, &nsigs);
	long cases = 0, failures = 0;
	double last = sc_clock_now();
	for (uint64_t round = 0; npairs > 0; round++) {
		for (int i = 0; i < npairs; i++) {
			double el = sc_clock_now() - t0;
			if ((o->stop && *o->stop) || el >= o->seconds)
				goto done;
			struct sc_check_opts co = o->co;
			uint64_t s = o->co.seed ^ (round * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)i << 32);
			co.seed = sc_mix_next(&s);
			co.cases = 1L << 40;
			co.seconds = slice < o->seconds - el ? slice : o->seconds - el;
			struct sc_result r;
			sc_check_run(ctx, pairs[i].t, pairs[i].p, &co, &r);
			struct sc_result *acc = &res[i];
			acc->cases += r.cases;
			acc->seconds += r.seconds;
			cases += r.cases;
			if (r.verdict == SC_V_PASS && acc->verdict == SC_V_SKIP)
				acc->verdict = SC_V_PASS;
			if (r.verdict == SC_V_ERROR && acc->verdict != SC_V_ERROR) {
				acc->verdict = SC_V_ERROR;
				snprintf(acc->error, sizeof acc->error, "%s", r.error);
				struct sc_fuzz_event ev = {.job = o->job, .kind = SC_FZ_ERROR, .res = acc};
				if (o->event)
					o->event(o->u, &ev);
			}
			if (r.verdict == SC_V_FAIL) {
				uint64_t sig = signature(&r);
				int seen = 0;
				for (int k = 0; k < nsigs; k++)
					seen |= sigs[k] == sig;
				if (!seen) {
					if (nsigs < MAX_SIGS)
						sigs[nsigs++] = sig;
					failures++;
					const int expected = pairs[i].t->expect == 1 && pairs[i].t->corpus;
					if (!expected) {
						enum sc_status st = write_finding(o, &r, sig, e);
						if (st != SC_OK) {
							free(sigs);
							free(pairs);
							return st;
						}
					}
					if (acc->verdict != SC_V_FAIL) {
						long c0 = acc->cases;
						double s0 = acc->seconds;
						*acc = r;
						acc->cases = c0;
						acc->seconds = s0;
						acc->expected = pairs[i].t->expect;
					}
					struct sc_fuzz_event ev = {.job = o->job, .kind = expected ? SC_FZ_EXPECTED : SC_FZ_NEW,
								   .res = &r, .case_file = r.case_file};
					if (o->event)
						o->event(o->u, &ev);
				}
			}
			if (sc_clock_now() - last >= every && o->event) {
				last = sc_clock_now();
				struct sc_fuzz_event ev = {.job = o->job, .kind = SC_FZ_PROGRESS, .elapsed = last - t0,
							   .left = o->seconds - (last - t0), .cases = cases,
							   .failures = failures};
				o->event(o->u, &ev);
			}
		}
	}
done:
	free(sigs);
	free(pairs);
	return SC_OK;
}
