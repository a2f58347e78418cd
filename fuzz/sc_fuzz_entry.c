/* sc_fuzz_entry: decoding and checking behind the fuzz targets.
 *
 * The state (backend, context, targets) is built on the first call and
 * kept: libFuzzer calls the entry point millions of times in one process. */
#include "sc_fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc_builtin.h"
#include "sc_casefile.h"
#include "sc_check.h"
#include "sc_fuzz_specs.h" /* generated: the compiled-in correct specs */
#include "sc_report.h"

#define MAX_FUZZ_TARGETS 32

struct fuzz_state {
	struct sc_backend *be;
	struct sc_ctx *ctx;
	struct sc_target t[MAX_FUZZ_TARGETS];
	int nt;
};

static struct fuzz_state *state(void)
{
	static struct fuzz_state *S;
	if (S)
		return S;
	S = calloc(1, sizeof *S);
	if (!S || sc_backend_sim_open(&S->be, NULL) != SC_OK || !(S->ctx = sc_ctx_new(S->be, 0)))
		abort();
	struct sc_err e;
	const struct sc_builtin_family *const *fams;
	const int nf = sc_builtin_families(&fams);
	for (int b = 0; b < nf; b++)
		if (sc_target_builtin(&S->t[S->nt++], fams[b], &e) != SC_OK)
			abort();
	for (size_t i = 0; i < sizeof sc_fuzz_spec_text / sizeof sc_fuzz_spec_text[0] && S->nt < MAX_FUZZ_TARGETS; i++) {
		struct sc_spec *s = malloc(sizeof *s);
		if (!s || sc_spec_parse(sc_fuzz_spec_text[i], sc_fuzz_spec_name[i], s, &e) != SC_OK) {
			fprintf(stderr, "fuzz: compiled-in spec %s: %s\n", sc_fuzz_spec_name[i], e.msg);
			abort();
		}
		sc_target_from_spec(&S->t[S->nt++], s);
	}
	return S;
}

int sc_fuzz_case(const uint8_t *data, size_t size)
{
	struct fuzz_state *S = state();
	/* room for the largest case decoded here (256 elements, 8 ranks, 8-byte
	 * elements, the buffers of every property) */
	S->ctx->arena.max_bytes = (size_t)16 << 20;
	struct sc_choices ch;
	sc_choices_bytes(&ch, data, size);
	struct sc_target *t = &S->t[sc_choice(&ch, (uint64_t)S->nt)];
	/* small cases: the decisions (shapes, worlds, placements) are what the
	 * fuzzer explores; elements only cost time */
	struct sc_gen_opts o = {.world_lo = 1, .world_hi = 8, .max_elems = 256};
	sc_gen_defaults(&o);
	struct sc_case c;
	if (sc_gen_case(t, &o, &ch, &c, NULL) != SC_OK)
		return 0;
	const struct sc_property *const *props;
	int np = sc_properties(&props);
	/* one property per execution, chosen by the input (the next applicable
	 * one from the choice), so every property is reached at a fraction of
	 * the cost of running all */
	const int k0 = (int)sc_choice(&ch, (uint64_t)np);
	for (int i = 0; i < np; i++) {
		const int k = (k0 + i) % np;
		if (!props[k]->applies(t))
			continue;
		struct sc_result r;
		memset(&r, 0, sizeof r);
		r.verdict = sc_check_case(S->ctx, t, props[k], &c, &r.fail);
		if (r.verdict != SC_V_FAIL && r.verdict != SC_V_ERROR)
			break;
		char text[4096];
		r.tgt = t;
		r.property = props[k]->name;
		r.cx = c;
		r.have_cx = 1;
		snprintf(r.target, sizeof r.target, "%s", t->name);
		fprintf(stderr, "\nfuzz_case: %s %s %s\n", t->name, props[k]->name,
			r.verdict == SC_V_ERROR ? S->ctx->err.msg : "fails");
		if (sc_casefile_format(t, props[k]->name, "sim", &c, -1, text, sizeof text, NULL) == SC_OK)
			fprintf(stderr, "--- case file (save as x.case; shardcheck repro x.case) ---\n%s---\n", text);
		sc_report_failure_text(stderr, &r, "  ");
		abort();
	}
	return 0;
}

int sc_fuzz_spec(const uint8_t *data, size_t size)
{
	struct fuzz_state *S = state();
	/* small cases only: a spec that grows its tensors hits the limit fast */
	S->ctx->arena.max_bytes = (size_t)1 << 20;
	if (size > 1 << 16)
		return 0;
	char *text = malloc(size + 1);
	struct sc_spec *s = malloc(sizeof *s);
	if (!text || !s)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	struct sc_err e;
	if (strlen(text) != size || sc_spec_parse(text, "fuzz.sc", s, &e) != SC_OK) {
		free(text);
		free(s);
		return 0;
	}
	free(text);
	struct sc_target t;
	sc_target_from_spec(&t, s);
	struct sc_gen_opts o = {.world_lo = 1, .world_hi = 4, .max_elems = 512};
	sc_gen_defaults(&o);
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ULL;
	const struct sc_property *const *props;
	int np = sc_properties(&props);
	for (int i = 0; i < 3; i++) {
		struct sc_choices ch;
		sc_choices_prng(&ch, h + (uint64_t)i);
		struct sc_case c;
		if (sc_gen_case(&t, &o, &ch, &c, NULL) != SC_OK)
			continue;
		char text2[4096];
		sc_casefile_format(&t, "semantics", "sim", &c, -1, text2, sizeof text2, NULL);
		for (int k = 0; k < np; k++) {
			if (!props[k]->applies(&t))
				continue;
			struct sc_failure f;
			enum sc_verdict v = sc_check_case(S->ctx, &t, props[k], &c, &f);
			if (v == SC_V_ERROR && S->ctx->err.status != SC_E_NOMEM) {
				fprintf(stderr, "fuzz_spec: %s: internal error: %s\n", props[k]->name, S->ctx->err.msg);
				abort();
			}
		}
	}
	sc_target_free(&t);
	return 0;
}

static int mentions(const uint8_t *data, size_t size, const char *what)
{
	const size_t n = strlen(what);
	for (size_t i = 0; i + n <= size; i++)
		if (memcmp(data + i, what, n) == 0)
			return 1;
	return 0;
}

/* The text a loaded case file writes back, in buf. */
static void casefile_text(struct sc_target *t, char *buf, size_t n)
{
	struct sc_err e;
	if (sc_casefile_format(t, t->fixed_property, t->fixed_backend, &t->fixed, t->expect, buf, n, &e) != SC_OK) {
		fprintf(stderr, "fuzz_casefile: a loaded case does not format: %s\n", e.msg);
		abort();
	}
}

int sc_fuzz_casefile(const uint8_t *data, size_t size)
{
	struct fuzz_state *S = state();
	S->ctx->arena.max_bytes = (size_t)1 << 20;
	/* no dlopen of whatever a path names, no endless read of a device */
	static const char *const skip[] = {".so", "/dev", "/proc", "/sys"};
	for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
		if (mentions(data, size, skip[i]))
			return 0;
	static struct sc_target t, t2;
	struct sc_err e;
	enum sc_status st = sc_casefile_parse((const char *)data, size, "fuzz.case", &t, &e);
	if (st != SC_OK) {
		/* a refusal says where: fuzz.case:LINE: */
		if (st == SC_E_SPEC && strncmp(e.msg, "fuzz.case:", 10) != 0) {
			fprintf(stderr, "fuzz_casefile: a refusal without its line: %s\n", e.msg);
			abort();
		}
		return 0;
	}
	static char a[8192], b[8192];
	casefile_text(&t, a, sizeof a);
	if (sc_casefile_parse(a, strlen(a), "fuzz.case", &t2, &e) != SC_OK) {
		fprintf(stderr, "fuzz_casefile: a loaded case writes a file that does not load: %s\n---\n%s---\n",
			e.msg, a);
		abort();
	}
	casefile_text(&t2, b, sizeof b);
	if (strcmp(a, b) != 0) {
		fprintf(stderr, "fuzz_casefile: the case changes when written and read back:\n---\n%s---\n%s---\n", a, b);
		abort();
	}
	sc_target_free(&t2);
	const struct sc_property *p = sc_property_find(t.fixed_property);
	struct sc_failure f;
	if (sc_case_numel(&t.fixed) <= 4096)
		sc_check_case(S->ctx, &t, p, &t.fixed, &f);
	sc_target_free(&t);
	return 0;
}
