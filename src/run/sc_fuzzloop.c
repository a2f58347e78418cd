/* sc_fuzzloop: findings replay, round-robin fuzzing, dedup, immediate writes. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "sc_fuzzloop.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sc_casefile.h"
#include "sc_npy.h"
#include "sc_report.h"
#include "sc_clock.h"
#include "sc_fs.h"


static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

/* The target as a canonical name, however it was reached: the real path
 * of a spec (or of a plugin library, with :NAME), else the name. */
static void canonical(const char *name, char *out, size_t n)
{
	char lib[PATH_MAX], real[PATH_MAX];
	const char *so = strstr(name, ".so:");
	snprintf(lib, sizeof lib, "%.*s", so ? (int)(so + 3 - name) : (int)strlen(name), name);
	if (realpath(lib, real))
		snprintf(out, n, "%s%s", real, so ? so + 3 : "");
	else
		snprintf(out, n, "%s", name);
}

/* The same bug shrinks to the same case: hash what identifies it. */
static uint64_t signature(const struct sc_result *r)
{
	char name[PATH_MAX + 256];
	canonical(r->target, name, sizeof name);
	uint64_t h = fnv(name, strlen(name), 0xcbf29ce484222325ULL);
	h = fnv(r->property, strlen(r->property), h);
	const struct sc_case *c = &r->cx;
	h = fnv(&c->world, sizeof c->world, h);
	h = fnv(c->sizes, sizeof c->sizes, h); /* mesh sizes at the end included */
	h = fnv(&c->dtype, sizeof c->dtype, h);
	h = fnv(&c->p0, sizeof c->p0, h);
	h = fnv(&c->p1, sizeof c->p1, h);
	h = fnv(&c->p2, sizeof c->p2, h);
	if (c->counts.P) /* drawn counts are part of the case: P x P, or a longer vector up to its last entry */
		for (int k = 0; k < SC_MAX_COUNTS; k++) {
			int n = SC_COUNTS_MAX_LEN;
			while (n > c->counts.P * c->counts.P && !c->counts.v[k][n - 1])
				n--;
			h = fnv(c->counts.v[k], sizeof(int32_t) * (size_t)n, h);
		}
	return fnv(&c->op, sizeof c->op, h);
}

/* Open addressing over a power of two; 0 marks an empty slot (a zero
 * signature is stored as 1). Slots are claimed with compare-and-swap, so
 * forked jobs share the table through MAP_SHARED memory. */
#define SIG_SLOTS (1u << 16)
struct sc_fuzz_sigs {
	uint64_t slot[SIG_SLOTS];
};

struct sc_fuzz_sigs *sc_fuzz_sigs_new(void)
{
	void *p = mmap(NULL, sizeof(struct sc_fuzz_sigs), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void sc_fuzz_sigs_free(struct sc_fuzz_sigs *s)
{
	if (s)
		munmap(s, sizeof *s);
}

int sc_fuzz_sigs_add(struct sc_fuzz_sigs *s, uint64_t sig)
{
	sig = sig ? sig : 1;
	for (uint32_t i = 0, h = (uint32_t)sig & (SIG_SLOTS - 1); i < SIG_SLOTS; i++, h = (h + 1) & (SIG_SLOTS - 1)) {
		uint64_t cur = __atomic_load_n(&s->slot[h], __ATOMIC_ACQUIRE);
		if (cur == sig)
			return 0;
		if (cur == 0) {
			uint64_t expect = 0;
			if (__atomic_compare_exchange_n(&s->slot[h], &expect, sig, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return 1;
			if (expect == sig)
				return 0;
		}
	}
	return 1; /* full: 65536 distinct failures; the rest are announced unmerged */
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_case(const char *name)
{
	const size_t l = strlen(name);
	return l > 5 && strcmp(name + l - 5, ".case") == 0;
}

int sc_fuzz_count_findings(const char *dir)
{
	DIR *d = dir ? opendir(dir) : NULL;
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += is_case(de->d_name);
	if (d)
		closedir(d);
	return n;
}

static void emit(const struct sc_fuzz_opts *o, struct sc_fuzz_event ev)
{
	ev.job = o->job;
	if (o->event)
		o->event(o->u, &ev);
}

/* One earlier finding: still failing, fixed, or stale (it cannot be
 * loaded any more: its spec was renamed, the file is garbled, ...). */
static void replay_one(struct sc_ctx *ctx, const struct sc_fuzz_opts *o, double t0, const char *path,
		       struct sc_result *r, struct sc_fuzz_sigs *sigs)
{
	if (sc_clock_now() - t0 >= o->seconds) { /* --time bounds the run: not a pass, an error (exit 2) */
		memset(r, 0, sizeof *r);
		snprintf(r->target, sizeof r->target, "%.500s", path);
		r->property = "replay";
		r->verdict = SC_V_ERROR;
		r->expected = -1;
		snprintf(r->error, sizeof r->error,
			 "not replayed: the --time budget of %g s ran out before it (raise --time, or replay it "
			 "with shardcheck repro)",
			 o->seconds);
		snprintf(r->case_file, sizeof r->case_file, "%.590s", path);
		emit(o, (struct sc_fuzz_event){.kind = SC_FZ_ERROR, .res = r, .case_file = path});
		return;
	}
	struct sc_target *t = calloc(1, sizeof *t);
	struct sc_err e;
	memset(r, 0, sizeof *r);
	if (!t || sc_casefile_load(path, t, &e) != SC_OK) {
		free(t);
		snprintf(r->target, sizeof r->target, "%.500s", path);
		r->property = "replay";
		r->verdict = SC_V_SKIP;
		r->stale = 1;
		r->expected = -1;
		snprintf(r->error, sizeof r->error, "%s", t ? e.msg : "out of memory");
		snprintf(r->case_file, sizeof r->case_file, "%.590s", path);
		emit(o, (struct sc_fuzz_event){.kind = SC_FZ_STALE, .res = r, .case_file = path});
		return;
	}
	const struct sc_property *p = sc_property_find(t->fixed_property);
	sc_check_run(ctx, t, p, &o->co, r);
	r->tgt = t; /* owned by the result now; freed by the caller */
	snprintf(r->case_file, sizeof r->case_file, "%.590s", path);
	emit(o, (struct sc_fuzz_event){.kind = r->verdict == SC_V_FAIL    ? SC_FZ_STILL
					      : r->verdict == SC_V_ERROR ? SC_FZ_ERROR
									 : SC_FZ_FIXED,
				       .res = r, .case_file = path});
	if (r->verdict == SC_V_FAIL) {
		/* the same bug found again is not new: its signature, as found */
		struct sc_result k = *r;
		snprintf(k.target, sizeof k.target, "%s", t->name);
		sc_fuzz_sigs_add(sigs, signature(&k));
	}
}

/* Earlier findings first, every one of them, in name order. */
static enum sc_status replay_findings(struct sc_ctx *ctx, const struct sc_fuzz_opts *o, double t0, struct sc_result *res,
				      int cap, int *nres, struct sc_fuzz_sigs *sigs, struct sc_err *e)
{
	DIR *d = o->findings_dir ? opendir(o->findings_dir) : NULL;
	if (!d)
		return SC_OK;
	char **names = NULL;
	int n = 0, room = 0;
	struct dirent *de;
	enum sc_status st = SC_OK;
	while (st == SC_OK && (de = readdir(d))) {
		if (!is_case(de->d_name))
			continue;
		if (n == room) {
			room = room ? 2 * room : 64;
			char **nn = realloc(names, (size_t)room * sizeof *nn);
			if (!nn) {
				st = SC_ERR(e, SC_E_NOMEM, "out of memory");
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(de->d_name)))
			st = SC_ERR(e, SC_E_NOMEM, "out of memory");
		else
			n++;
	}
	closedir(d);
	if (st == SC_OK && *nres + n > cap)
		st = SC_ERR(e, SC_E_INTERNAL, "%d findings in %s, room for %d", n, o->findings_dir, cap - *nres);
	if (names)
		qsort(names, (size_t)n, sizeof names[0], cmp_str);
	for (int i = 0; i < n; i++) {
		if (st == SC_OK && !(o->stop && *o->stop)) {
			char path[2048];
			snprintf(path, sizeof path, "%s/%s", o->findings_dir, names[i]);
			replay_one(ctx, o, t0, path, &res[(*nres)++], sigs);
		}
		free(names[i]);
	}
	free(names);
	return st;
}

/* Corpus first (the finding is what a nightly job must not lose), then
 * the report's copy: a failure there is a warning, and the run goes on. */
static enum sc_status write_finding(const struct sc_fuzz_opts *o, struct sc_result *r, uint64_t sig,
				    struct sc_err *e)
{
	char text[16384];
	SC_CHECK(sc_casefile_format_after(r->tgt, r->property, o->backend, r->earlier, r->nearlier, &r->cx, -1, text,
					  sizeof text, e));
	if (o->findings_dir) {
		char path[1200];
		SC_CHECK(sc_fs_mkdirs(o->findings_dir, e));
		SC_CHECK(sc_casefile_relocate(text, sizeof text, o->findings_dir, e));
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
		snprintf(r->case_file, sizeof r->case_file, "%.590s", path);
	}
	char kept[sizeof r->case_file];
	memcpy(kept, r->case_file, sizeof kept);
	struct sc_err re;
	if (o->report_dir && sc_report_write_failure(o->report_dir, r, o->backend, &re) != SC_OK)
		emit(o, (struct sc_fuzz_event){.kind = SC_FZ_WARNING, .msg = re.msg});
	if (kept[0]) /* the corpus copy is the one that lasts */
		memcpy(r->case_file, kept, sizeof kept);
	return SC_OK;
}

enum sc_status sc_fuzz_campaign(struct sc_ctx *ctx, struct sc_target *t, int nt,
				const struct sc_fuzz_opts *o, struct sc_result *res, int cap,
				int *nres, struct sc_err *e)
{
	const double t0 = sc_clock_now();
	const double every = o->progress_every > 0 ? o->progress_every : 10;
	struct sc_fuzz_sigs *own = o->sigs ? NULL : sc_fuzz_sigs_new(), *sigs = o->sigs ? o->sigs : own;
	if (!sigs)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	*nres = 0;
	/* pairs first: res[0..npairs) accumulate over rounds */
	const struct sc_property *const *props;
	int np = sc_properties(&props);
	struct pair {
		struct sc_target *t;
		const struct sc_property *p;
	} *pairs = calloc((size_t)nt * (size_t)np + 1, sizeof *pairs);
	if (!pairs) {
		sc_fuzz_sigs_free(own);
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
	enum sc_status st = SC_OK;
	if (!o->no_replay && (st = replay_findings(ctx, o, t0, res, cap, nres, sigs, e)) != SC_OK)
		goto done;
	if (o->replay_only)
		goto done;
	long cases = 0, failures = 0;
	double last = sc_clock_now();
	for (uint64_t round = 0; npairs > 0; round++) {
		for (int i = 0; i < npairs; i++) {
			double el = sc_clock_now() - t0;
			if ((o->stop && *o->stop) || el >= o->seconds)
				goto done;
			struct sc_check_opts co = o->co;
			co.deadline = t0 + o->seconds; /* shrinking included */
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
				const uint64_t sig = signature(&r);
				if (sc_fuzz_sigs_add(sigs, sig)) {
					failures++;
					const int expected = pairs[i].t->expect == 1 && pairs[i].t->corpus;
					if (!expected && (st = write_finding(o, &r, sig, e)) != SC_OK)
						goto done;
					if (acc->verdict != SC_V_FAIL) {
						long c0 = acc->cases;
						double s0 = acc->seconds;
						*acc = r;
						acc->cases = c0;
						acc->seconds = s0;
						acc->expected = pairs[i].t->expect;
					}
					emit(o, (struct sc_fuzz_event){.kind = expected ? SC_FZ_EXPECTED : SC_FZ_NEW, .res = &r,
								       .case_file = r.case_file});
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
	sc_fuzz_sigs_free(own);
	free(pairs);
	return st;
}
