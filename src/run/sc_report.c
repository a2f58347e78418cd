/* sc_report: JSON and text renderings of results. */
#include "sc_report.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sc_casefile.h"
#include "sc_plugin.h"
#include "sc_npy.h"
#include "sc_fs.h"
#include "sc_str.h"
#include "sc_svg.h"
#include "sc_torch.h"

static void failure_name(const struct sc_result *r, char *buf, size_t n);

static const char *verdict_name(const struct sc_result *r)
{
	if (r->stale)
		return "stale";
	switch (r->verdict) {
	case SC_V_PASS: return "pass";
	case SC_V_FAIL: return "fail";
	case SC_V_SKIP: return "skip";
	case SC_V_ERROR: return "error";
	}
	return "error";
}

static void coords(struct sc_str *b, const struct sc_case *c, uint64_t g)
{
	if (!SC_PROV_IS_INDEX(g)) { /* what the element holds instead of one of X's */
		sc_str_printf(b, "%s", g == SC_PROV_PAD ? "\"padding\"" : g == SC_PROV_POISON ? "\"nothing\"" : "\"mixed\"");
		return;
	}
	int64_t idx[SC_MAX_DIMS];
	for (int d = c->ndims - 1; d >= 0; d--) {
		idx[d] = (int64_t)(g % (uint64_t)c->sizes[d]);
		g /= (uint64_t)c->sizes[d];
	}
	sc_str_printf(b, "[");
	for (int d = 0; d < c->ndims; d++)
		sc_str_printf(b, "%s%lld", d ? ", " : "", (long long)idx[d]);
	sc_str_printf(b, "]");
}

/* s as one shell word: as it is when it holds only characters no shell
 * treats specially, else in single quotes (each ' as '\'') */
static const char *shell_word(const char *s, char *out, size_t n)
{
	if (s[0] && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,:/+=@%-") == strlen(s))
		return s;
	size_t k = 0;
	out[k++] = '\'';
	for (; *s && k + 6 < n; s++) {
		if (*s == '\'') {
			memcpy(out + k, "'\\''", 4);
			k += 4;
		} else {
			out[k++] = *s;
		}
	}
	out[k++] = '\'';
	out[k] = '\0';
	return out;
}

void sc_report_replay_cmd(const struct sc_result *r, char *buf, size_t n)
{
	char sizes[4096], params[96] = "", word[1100];
	const struct sc_case *c = &r->cx;
	if (r->case_file[0]) {
		snprintf(buf, n, "shardcheck repro %s", shell_word(r->case_file, word, sizeof word));
		return;
	}
	if (r->tgt->has_case) { /* a .case file replays as itself, as a written one does */
		snprintf(buf, n, "shardcheck repro %s", shell_word(r->tgt->case_path, word, sizeof word));
		return;
	}
	sc_target_sizes_arg(r->tgt, c, sizes, sizeof sizes);
	struct sc_case_param pa[SC_CASE_MAX_PARAMS];
	const int np = sc_target_params(r->tgt, c, pa);
	for (int i = 0, k = 0; i < np && k < (int)sizeof params; i++) {
		char v[32];
		snprintf(v, sizeof v, "%d", pa[i].value);
		k += snprintf(params + k, sizeof params - (size_t)k, "%s%s=%s", i ? "," : " --params ", pa[i].key,
			      pa[i].is_op ? sc_redop_name((enum sc_redop)pa[i].value) : v);
	}
	if (r->tgt->plugin) { /* same seed, same cases, same backend: the gate replays it */
		char lib[1100], base[1100], name[600];
		/* a device transform fails only where it gets device memory (cuda,
		 * emu, nccl); mpi's needs its mpirun line, which this one is not */
		const int named = r->backend[0] && strcmp(r->backend, "sim") != 0 && strcmp(r->backend, "mpi") != 0;
		snprintf(buf, n, "shardcheck gate --plugin %s%s%s %s --property %s --world %d..%d%s%s",
			 shell_word(r->tgt->plugin_path, lib, sizeof lib), r->tgt->baseline ? " --baseline " : "",
			 r->tgt->baseline ? shell_word(r->tgt->baseline_path, base, sizeof base) : "",
			 shell_word(sc_plugin_name(r->tgt->plugin), name, sizeof name), r->property, c->world, c->world,
			 named ? " --backend " : "", named ? r->backend : "");
		return;
	}
	const char *tname = shell_word(r->tgt->name, word, sizeof word);
	char chain[1200];
	if (r->tgt->nchain) {
		snprintf(chain, sizeof chain, "--chain %s", tname);
		tname = chain;
	}
	char torch[32] = ""; /* the rules it failed under, where --torch chose them */
	if (r->tgt->torch) {
		memcpy(torch, " --torch ", 10);
		sc_torch_text(r->tgt->torch, torch + 9, sizeof torch - 9);
	}
	snprintf(buf, n, "shardcheck eval %s%s --world %d --sizes %s --dtype %s --seed %llu%s%s%s",
		 tname, params, c->world, sizes, sc_dtype_name(c->dtype), (unsigned long long)c->seed,
		 strcmp(r->property, "semantics") ? " --property " : "",
		 strcmp(r->property, "semantics") ? r->property : "", torch);
}

/* The failure's first wrong elements, each with its rank's mesh
 * coordinates in a mesh spec (s0). */
static void first_wrong_json(struct sc_str *b, const struct sc_result *r, const struct sc_spec *s0)
{
	const struct sc_case *c = &r->cx;
	sc_str_printf(b, ", \"first_wrong\": [");
	for (int k = 0; k < r->fail.nfirst; k++) {
		const struct sc_wrong *w = &r->fail.first[k];
		sc_str_printf(b, "%s{\"rank\": %d, ", k ? ", " : "", w->rank);
		if (s0 && s0->nmesh) { /* the rank's mesh coordinates, by mesh dim */
			const struct sc_mesh m = sc_spec_mesh(s0, c->sizes, c->world);
			sc_str_put(b, "\"mesh\": {");
			for (int q = 0; q < m.n; q++) {
				sc_str_printf(b, "%s", q ? ", " : "");
				sc_str_json(b, s0->mesh_dim[q]);
				sc_str_printf(b, ": %d", sc_mesh_coord(&m, w->rank, q));
			}
			sc_str_put(b, "}, ");
		}
		sc_str_put(b, "\"index\": [");
		for (int d = 0; d < w->ndim; d++)
			sc_str_printf(b, "%s%lld", d ? ", " : "", (long long)w->index[d]);
		sc_str_printf(b, "], \"expected_from\": ");
		coords(b, c, w->expected_from);
		sc_str_printf(b, ", \"actual_from\": ");
		if (w->have_prov)
			coords(b, c, w->actual_from);
		else
			sc_str_printf(b, "null");
		sc_str_printf(b, ", \"expected_bits\": \"0x%llx\", \"actual_bits\": \"0x%llx\"}",
		       (unsigned long long)w->expected_bits, (unsigned long long)w->actual_bits);
	}
}

/* The picture of a failure (sc_svg), when one was written: in the
 * report's folder dir, or with dir NULL beside r's case file. 1 and its
 * path in buf, or 0. */
static int picture_path(const struct sc_result *r, const char *dir, char *buf, size_t n)
{
	if (!r->have_cx || !r->case_file[0] || r->verdict != SC_V_FAIL)
		return 0;
	if (dir) {
		char name[600];
		failure_name(r, name, sizeof name);
		snprintf(buf, n, "%.1000s/failures/%s.svg", dir, name);
	} else {
		const size_t l = strlen(r->case_file);
		if (l < 5 || strcmp(r->case_file + l - 5, ".case") != 0)
			return 0;
		snprintf(buf, n, "%.*s.svg", (int)(l - 5), r->case_file);
	}
	return access(buf, F_OK) == 0;
}

/* The earlier calls a failure needs in its process, in order. */
static void earlier_json(struct sc_str *b, const struct sc_result *r)
{
	if (!r->nearlier)
		return;
	sc_str_put(b, ", \"after_earlier_cases\": [");
	for (int k = 0; k < r->nearlier; k++) {
		char one[600];
		sc_target_case_format(r->tgt, &r->earlier[k], one, sizeof one);
		sc_str_put(b, k ? ", " : "");
		sc_str_json(b, one);
	}
	sc_str_put(b, "]");
}

static void json_head(struct sc_str *b, const struct sc_report_meta *m)
{
	sc_str_printf(b, "{\"tool\": \"shardcheck\", \"version\": ");
	sc_str_json(b, m->version);
	sc_str_printf(b, ", \"seed\": \"%llu\", \"backend\": ", (unsigned long long)m->seed);
	sc_str_json(b, m->backend);
	char torch[16];
	sc_torch_text(m->torch, torch, sizeof torch);
	sc_str_printf(b, ", \"torch\": \"%s\", \"status\": ", torch);
	sc_str_json(b, m->status ? m->status : "complete");
	if (m->reason) {
		sc_str_printf(b, ", \"reason\": ");
		sc_str_json(b, m->reason);
	}
	if (m->note) {
		sc_str_printf(b, ", \"note\": ");
		sc_str_json(b, m->note);
	}
	sc_str_printf(b, ",\n \"argv\": [");
	for (int i = 0; i < m->argc; i++) {
		if (i)
			sc_str_printf(b, ", ");
		sc_str_json(b, m->argv[i]);
	}
	sc_str_printf(b, "],\n \"results\": [");
}

/* One result of the list (first: no comma before it). */
static void json_result(struct sc_str *b, const struct sc_result *r, int first, const char *dir)
{
	sc_str_printf(b, "%s\n  {\"target\": ", first ? "" : ",");
	sc_str_json(b, r->target);
	sc_str_printf(b, ", \"property\": ");
	sc_str_json(b, r->property);
	sc_str_printf(b, ", \"verdict\": \"%s\", \"expected\": %s, \"cases\": %ld, \"seconds\": %.4f",
	       verdict_name(r),
	       r->expected < 0 ? "null" : (r->expected ? "\"fail\"" : "\"pass\""), r->cases,
	       r->seconds);
	if (r->verdict == SC_V_ERROR || r->stale) {
		sc_str_printf(b, ", \"%s\": ", r->stale ? "reason" : "error");
		sc_str_json(b, r->error);
	}
	if (r->limited)
		sc_str_printf(b, ", \"over_case_memory\": %ld", r->limited);
	earlier_json(b, r);
	if (r->exhaustive_total) /* --exhaustive: a pass with cases == this holds for every case */
		sc_str_printf(b, ", \"exhaustive_cases\": %ld", r->exhaustive_total);
	if (r->shrink_cut)
		sc_str_printf(b, ", \"shrink_stopped_at_time_limit\": true");
	if (r->sanitizer) {
		sc_str_printf(b, ", \"sanitizer\": {\"tool\": ");
		sc_str_json(b, r->sanitizer_tool);
		if (r->sanitizer_errors >= 0)
			sc_str_printf(b, ", \"errors\": %d, \"report\": ", r->sanitizer_errors);
		else
			sc_str_printf(b, ", \"errors\": null, \"report\": ");
		sc_str_json(b, r->sanitizer);
		sc_str_printf(b, "}");
	}
	sc_str_printf(b, ", \"counterexample\": ");
	if (!r->have_cx) {
		sc_str_printf(b, "null}");
		return;
	}
	const struct sc_case *c = &r->cx;
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns = 0;
	if (sc_target_specs(r->tgt, c, s, &ns, NULL) != SC_OK)
		ns = 0;
	sc_str_printf(b, "{\"world\": %d, \"sizes\": {", c->world);
	for (int i = 0; i < sc_target_size_count(r->tgt, c); i++) {
		int slot;
		char tmp[16];
		const char *name = sc_target_size_name(r->tgt, c, i, &slot, tmp, sizeof tmp);
		sc_str_printf(b, "%s", i ? ", " : "");
		sc_str_json(b, ns > 0 ? name : "?");
		sc_str_printf(b, ": %lld", (long long)c->sizes[slot]);
	}
	if (c->counts.P) {
		char ct[8192];
		sc_target_counts_text(r->tgt, c, ", ", 1, ct, sizeof ct);
		sc_str_put(b, ct);
	}
	sc_str_printf(b, "}, \"dtype\": \"%s\", \"seed\": %llu", sc_dtype_name(c->dtype),
	       (unsigned long long)c->seed);
	struct sc_case_param pa[SC_CASE_MAX_PARAMS];
	const int np = sc_target_params(r->tgt, c, pa);
	for (int i = 0; i < np; i++) {
		sc_str_printf(b, "%s\"%s\": ", i ? ", " : ", \"params\": {", pa[i].key);
		if (pa[i].is_op)
			sc_str_printf(b, "\"%s\"", sc_redop_name((enum sc_redop)pa[i].value));
		else
			sc_str_printf(b, "%d", pa[i].value);
	}
	if (np)
		sc_str_printf(b, "}");
	sc_str_printf(b, ", \"shrink_steps\": %d, \"shrink_seconds\": %.4f, \"wrong\": %lld, \"error\": ",
	       r->shrink.steps, r->shrink_seconds, (long long)r->fail.wrong);
	if (r->fail.runtime_error || r->fail.msg[0])
		sc_str_json(b, r->fail.msg);
	else
		sc_str_printf(b, "null");
	char replay[1024];
	sc_report_replay_cmd(r, replay, sizeof replay);
	sc_str_printf(b, ", \"case_file\": ");
	if (r->case_file[0])
		sc_str_json(b, r->case_file);
	else
		sc_str_printf(b, "null");
	sc_str_printf(b, ", \"replay\": ");
	sc_str_json(b, replay);
	char pic[1700];
	sc_str_printf(b, ", \"diagnosis\": ");
	if (r->diagnosis[0])
		sc_str_json(b, r->diagnosis);
	else
		sc_str_printf(b, "null");
	sc_str_printf(b, ", \"picture\": ");
	if (picture_path(r, dir, pic, sizeof pic))
		sc_str_json(b, pic);
	else
		sc_str_printf(b, "null");
	if (r->fail.has_worst) {
		sc_str_printf(b, ", \"worst\": {\"rank\": %d, \"index\": [", r->fail.worst_rank);
		for (int d = 0; d < r->fail.worst_ndim; d++)
			sc_str_printf(b, "%s%lld", d ? ", " : "", (long long)r->fail.worst_index[d]);
		sc_str_printf(b, "], \"value\": %.17g, \"reference\": %.17g, \"error\": %.6g, \"bound\": %.6g, \"ratio\": %.6g}",
		       r->fail.worst_value, r->fail.worst_reference, r->fail.worst_error, r->fail.worst_bound,
		       isfinite(r->fail.worst_ratio) ? r->fail.worst_ratio : 1e308);
	}
	first_wrong_json(b, r, ns > 0 ? s[0] : NULL);
	sc_str_printf(b, "]}}");
}

static char *json_doc(const struct sc_report_meta *m, const struct sc_result *res, int n, const char *dir)
{
	struct sc_str b = SC_STR_INIT;
	json_head(&b, m);
	for (int i = 0; i < n; i++)
		json_result(&b, &res[i], i == 0, dir);
	sc_str_printf(&b, "\n]}\n");
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

enum sc_status sc_report_json_head(const struct sc_report_meta *m, char **out, struct sc_err *e)
{
	struct sc_str b = SC_STR_INIT;
	json_head(&b, m);
	if (b.oom) {
		free(b.s);
		return SC_ERR(e, SC_E_NOMEM, "out of memory writing the JSON report");
	}
	*out = b.s;
	return SC_OK;
}

enum sc_status sc_report_json_result(const struct sc_result *r, int first, const char *dir, char **out,
				     struct sc_err *e)
{
	struct sc_str b = SC_STR_INIT;
	json_result(&b, r, first, dir);
	if (b.oom) {
		free(b.s);
		return SC_ERR(e, SC_E_NOMEM, "out of memory writing the JSON report");
	}
	*out = b.s;
	return SC_OK;
}

enum sc_status sc_report_json(const struct sc_report_meta *m, const struct sc_result *res, int n, char **out,
			      struct sc_err *e)
{
	char *doc = json_doc(m, res, n, NULL);
	if (!doc)
		return SC_ERR(e, SC_E_NOMEM, "out of memory writing the JSON report");
	*out = doc;
	return SC_OK;
}

static int expected_fail(const struct sc_result *r)
{
	return r->verdict == SC_V_FAIL && r->expected == 1 && r->tgt && r->tgt->corpus;
}

/* "deepspeed-sf-head2seq-before-5664-semantics" from the target and property */
static void failure_name(const struct sc_result *r, char *buf, size_t n)
{
	char tmp[512];
	const char *name = r->target;
	const char *slash = strrchr(name, '/');
	const char *start = name;
	if (slash) { /* keep the parent folder: corpus/deepspeed/x.sc -> deepspeed-x */
		const char *p = slash;
		while (p > name && p[-1] != '/')
			p--;
		start = p > name ? p : name;
		if (p == name && slash)
			start = name;
	}
	snprintf(tmp, sizeof tmp, "%s", start);
	char *dot = strrchr(tmp, '.');
	if (dot && (strcmp(dot, ".sc") == 0 || strcmp(dot, ".case") == 0))
		*dot = '\0';
	for (char *c = tmp; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '-' || *c == '_'))
			*c = '-';
	snprintf(buf, n, "%.480s-%.40s", tmp, r->property);
}

/* Draws failures/NAME.svg (sc_svg, replayed on a private sim backend:
 * the leader may be one process of many) and embeds it in NAME.md, or
 * says there why nothing is drawn; a picture left by an earlier run is
 * removed, so the report never links one of another case. */
static void picture_md(FILE *m, const char *fdir, const char *name, struct sc_result *r)
{
	char path[1700];
	snprintf(path, sizeof path, "%s/%s.svg", fdir, name);
	struct sc_err e;
	struct sc_svg_info info;
	const struct sc_svg_opts o = {.target = r->target, .fail = &r->fail};
	if (sc_svg_write(NULL, r->tgt, r->property, &r->cx, &o, path, &info, &e) != SC_OK) {
		unlink(path);
		SC_LOG(REPORT, "no picture of %s: %s", name, e.msg);
		fprintf(m, "No picture: %s.\n\n", e.msg);
		return;
	}
	fprintf(m, "![picture](%s.svg)\n\n", name);
	snprintf(r->diagnosis, sizeof r->diagnosis, "%s", info.diagnosis);
	r->diagnosed = 1;
	if (info.diagnosis[0])
		fprintf(m, "Diagnosis: %s.\n\n", info.diagnosis);
	if (info.not_drawn)
		fprintf(m, "(%lld of %lld elements not drawn.)\n\n", (long long)info.not_drawn,
			(long long)info.elements);
}

void sc_report_diagnose(struct sc_result *r)
{
	if (r->verdict != SC_V_FAIL || !r->have_cx || r->diagnosed)
		return;
	r->diagnosed = 1;
	struct sc_err e;
	if (r->fail.shape_rank) { /* where its shape went wrong, replayed step by step on sim */
		struct sc_backend *be;
		if (sc_backend_open("sim", &be, &e) != SC_OK)
			return;
		if (!sc_verify_shape_trail(r->tgt, &r->cx, be, r->fail.shape_rank - 1, r->diagnosis, sizeof r->diagnosis))
			r->diagnosis[0] = '\0';
		sc_backend_close(be);
		return;
	}
	struct sc_svg_info info;
	const struct sc_svg_opts o = {.target = r->target, .fail = &r->fail};
	if (sc_svg_write(NULL, r->tgt, r->property, &r->cx, &o, NULL, &info, &e) == SC_OK)
		snprintf(r->diagnosis, sizeof r->diagnosis, "%s", info.diagnosis);
	else
		SC_LOG(REPORT, "no diagnosis of %s %s: %s", r->target, r->property, e.msg);
}

enum sc_status sc_report_write_failure(const char *dir, struct sc_result *r, const char *backend,
				       struct sc_err *e)
{
	char fdir[1024], name[600], path[1700];
	snprintf(fdir, sizeof fdir, "%.1000s/failures", dir);
	SC_CHECK(sc_fs_mkdirs(fdir, e));
	failure_name(r, name, sizeof name);
	char text[16384];
	SC_CHECK(sc_casefile_format_after(r->tgt, r->property, backend, r->earlier, r->nearlier, &r->cx,
					  r->tgt->corpus ? r->expected : -1, text, sizeof text, e));
	SC_CHECK(sc_casefile_relocate(text, sizeof text, fdir, e));
	snprintf(path, sizeof path, "%s/%s.case", fdir, name);
	SC_CHECK(sc_fs_write_atomic(path, text, strlen(text), e));
	SC_LOG(REPORT, "wrote %s", path);
	snprintf(r->case_file, sizeof r->case_file, "%.590s", path);
	char *md = NULL;
	size_t mdlen = 0;
	FILE *m = open_memstream(&md, &mdlen);
	if (!m)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	fprintf(m, "# %s: %s\n\n", r->target, r->property);
	if (expected_fail(r))
		fprintf(m, "Expected failure (the spec says `expect fail`).\n\n");
	fprintf(m, "```\n");
	sc_report_failure_text(m, r, "");
	fprintf(m, "```\n\n");
	picture_md(m, fdir, name, r);
	fprintf(m, "Case file (`%s`):\n\n```\n%s```\n", path, text);
	fclose(m);
	snprintf(path, sizeof path, "%s/%s.md", fdir, name);
	enum sc_status st = sc_fs_write_atomic(path, md, mdlen, e);
	free(md);
	return st;
}

static void xml_str(struct sc_str *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': sc_str_printf(b, "&amp;"); break;
		case '<': sc_str_printf(b, "&lt;"); break;
		case '>': sc_str_printf(b, "&gt;"); break;
		case '"': sc_str_printf(b, "&quot;"); break;
		case '\'': sc_str_printf(b, "&apos;"); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				sc_str_printf(b, " ");
			else
				sc_str_printf(b, "%c", *s);
		}
	}
}

static char *failure_block(const struct sc_result *r)
{
	char *txt = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&txt, &len);
	if (!m)
		return NULL;
	sc_report_failure_text(m, r, "");
	fclose(m);
	return txt;
}

/* A target's expectation unmet: expect fail but nothing failed, or the reverse. */
static int unmet(const struct sc_result *res, int n, int i)
{
	const struct sc_target *t = res[i].tgt;
	if (!t || !t->corpus || t->expect < 0)
		return 0;
	for (int k = 0; k < i; k++)
		if (res[k].tgt == t)
			return 0; /* judged once, at the target's first result */
	int failed = 0;
	for (int k = 0; k < n; k++)
		if (res[k].tgt == t && res[k].verdict == SC_V_FAIL)
			failed = 1;
	return (t->expect == 1) != failed;
}

/* One result's testcase element. */
static void junit_case(struct sc_str *b, const struct sc_result *r)
{
	sc_str_printf(b, "    <testcase classname=\"");
	xml_str(b, r->target);
	sc_str_printf(b, "\" name=\"");
	xml_str(b, r->property);
	sc_str_printf(b, "\" time=\"%.4f\">", r->seconds);
	char replay[1024] = "";
	if (r->have_cx)
		sc_report_replay_cmd(r, replay, sizeof replay);
	if (r->stale) {
		sc_str_printf(b, "\n      <skipped message=\"stale finding: ");
		xml_str(b, r->error);
		sc_str_printf(b, "\"/>\n    ");
	} else if (r->verdict == SC_V_ERROR) {
		sc_str_printf(b, "\n      <error message=\"");
		xml_str(b, r->error);
		sc_str_printf(b, "\" type=\"error\"/>\n    ");
	} else if (r->verdict == SC_V_FAIL) {
		char *txt = failure_block(r);
		if (expected_fail(r)) {
			sc_str_printf(b, "\n      <system-out>expected failure (expect fail)\n");
			xml_str(b, txt);
			sc_str_printf(b, "</system-out>\n    ");
		} else {
			char cs[512];
			sc_target_case_format(r->tgt, &r->cx, cs, sizeof cs);
			sc_str_printf(b, "\n      <failure message=\"");
			xml_str(b, replay);
			sc_str_printf(b, "\" type=\"counterexample\">");
			xml_str(b, txt);
			sc_str_printf(b, "</failure>\n    ");
		}
		free(txt);
	}
	sc_str_printf(b, "</testcase>\n");
}

static char *junit_xml(const struct sc_report_meta *m, const struct sc_result *res, int n)
{
	struct sc_str b = SC_STR_INIT;
	int fails = 0, errors = 0, tests = 0;
	double secs = 0;
	for (int i = 0; i < n; i++) {
		tests++;
		secs += res[i].seconds;
		if (res[i].verdict == SC_V_ERROR)
			errors++;
		else if (res[i].verdict == SC_V_FAIL && !expected_fail(&res[i]))
			fails++;
		if (unmet(res, n, i)) {
			tests++;
			fails++;
		}
	}
	sc_str_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	sc_str_printf(&b, "<testsuites name=\"shardcheck\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n",
	       tests, fails, errors, secs);
	sc_str_printf(&b, "  <testsuite name=\"shardcheck seed %llu backend ", (unsigned long long)m->seed);
	xml_str(&b, m->backend);
	sc_str_printf(&b, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n", tests, fails, errors, secs);
	for (int i = 0; i < n; i++) {
		const struct sc_result *r = &res[i];
		if (unmet(res, n, i)) {
			sc_str_printf(&b, "    <testcase classname=\"");
			xml_str(&b, r->target);
			sc_str_printf(&b, "\" name=\"expect %s\" time=\"0\">\n      <failure message=\"expected %s\" type=\"expectation\"/>\n    </testcase>\n",
			       r->tgt->expect ? "fail" : "pass",
			       r->tgt->expect ? "a failure, but every property held" : "every property to hold, but one failed");
		}
		junit_case(&b, r);
	}
	sc_str_printf(&b, "  </testsuite>\n</testsuites>\n");
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

enum sc_status sc_report_junit_case(const struct sc_result *r, char **out, int *kind, struct sc_err *e)
{
	struct sc_str b = SC_STR_INIT;
	junit_case(&b, r);
	if (b.oom) {
		free(b.s);
		return SC_ERR(e, SC_E_NOMEM, "out of memory writing junit.xml");
	}
	*kind = r->verdict == SC_V_ERROR ? 2 : r->verdict == SC_V_FAIL && !expected_fail(r) ? 1 : 0;
	*out = b.s;
	return SC_OK;
}

static char *summary_md(const struct sc_report_meta *m, const struct sc_result *res, int n, const char *dir)
{
	struct sc_str b = SC_STR_INIT;
	int pass = 0, fail = 0, exp = 0, err = 0, um = 0;
	for (int i = 0; i < n; i++) {
		pass += res[i].verdict == SC_V_PASS;
		fail += res[i].verdict == SC_V_FAIL;
		exp += expected_fail(&res[i]);
		err += res[i].verdict == SC_V_ERROR;
		um += unmet(res, n, i);
	}
	const int ok = err == 0 && um == 0 && fail == exp;
	sc_str_printf(&b, "# shardcheck: %s\n\n", ok ? "every check passed" : "failures found");
	if (m->status && (strcmp(m->status, "interrupted") == 0 || strcmp(m->status, "aborted") == 0))
		sc_str_printf(&b, "**Status: %s.** %s%sThe run ended before its checks were done: the table lists the "
			   "checks that finished; the failures below were saved as they were found.\n\n", m->status,
			   m->reason ? m->reason : "", m->reason ? ". " : "");
	else if (m->status && strcmp(m->status, "complete") != 0)
		sc_str_printf(&b, "**Status: %s.** This report was written while the run was %s; the failures "
			   "below were saved as they were found.\n\n", m->status,
			   strcmp(m->status, "running") == 0 ? "still going (a run killed now leaves it so)" : "ending early");
	if (m->note)
		sc_str_printf(&b, "**Note: %s.**\n\n", m->note);
	int skip = 0;
	for (int i = 0; i < n; i++)
		skip += res[i].verdict == SC_V_SKIP && !res[i].stale;
	sc_str_printf(&b, "%d checks: %d pass, %d fail (%d expected), %d error", n, pass, fail, exp, err);
	if (skip)
		sc_str_printf(&b, ", %d not run", skip);
	sc_str_printf(&b, "; %d expectation%s unmet. Seed `%llu`, backend `%s`, shardcheck %s.\n\n", um,
		      um == 1 ? "" : "s", (unsigned long long)m->seed, m->backend, m->version);
	sc_str_printf(&b, "| target | property | verdict | cases | seconds |\n|---|---|---|---|---|\n");
	for (int i = 0; i < n; i++) {
		const struct sc_result *r = &res[i];
		const char *v = r->stale ? "stale" : r->verdict == SC_V_PASS ? "pass"
				: r->verdict == SC_V_ERROR ? "**error**"
				: r->verdict == SC_V_SKIP ? "skip (not run)"
				: expected_fail(r) ? "fail (expected)" : "**FAIL**";
		sc_str_printf(&b, "| `%s` | %s | %s | %ld | %.2f |\n", r->target, r->property, v, r->cases, r->seconds);
	}
	int first = 1;
	for (int i = 0; i < n; i++) {
		const struct sc_result *r = &res[i];
		if (r->verdict == SC_V_ERROR || r->stale) {
			sc_str_printf(&b, "%s### `%s` %s: %s\n\n%s\n\n", first ? "\n## Details\n\n" : "", r->target,
			       r->property, r->stale ? "stale finding, skipped" : "error", r->error);
			first = 0;
		}
		if (unmet(res, n, i)) {
			sc_str_printf(&b, "%s### `%s`: expectation unmet\n\nThe spec says `expect %s`.\n\n",
			       first ? "\n## Details\n\n" : "", r->target, r->tgt->expect ? "fail" : "pass");
			first = 0;
		}
		if (r->verdict != SC_V_FAIL)
			continue;
		char *txt = failure_block(r);
		char replay[1024];
		sc_report_replay_cmd(r, replay, sizeof replay);
		sc_str_printf(&b, "%s### `%s` %s%s\n\n```\n%s```\n\nReplay: `%s`\n\n", first ? "\n## Minimal repros\n\n" : "",
		       r->target, r->property, expected_fail(r) ? " (expected)" : "", txt ? txt : "", replay);
		char pic[1700];
		if (picture_path(r, dir, pic, sizeof pic)) /* relative to summary.md, so it shows on a code host */
			sc_str_printf(&b, "![picture](failures/%s)\n\n", strrchr(pic, '/') + 1);
		first = 0;
		free(txt);
	}
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

enum sc_status sc_report_fresh(const char *dir, int *moved, struct sc_err *e)
{
	static const char *const ours[] = {"report.json", "junit.xml", "summary.md", "failures"};
	char path[4096], prev[4096], to[4200];
	int found = 0;
	for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++) {
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, ours[i]);
		found += lstat(path, &st) == 0;
	}
	*moved = 0;
	if (!found)
		return SC_OK;
	/* beside dir, so that the relative paths in its case files still hold */
	char real[4000];
	SC_CHECK(sc_fs_absolute(dir, real, sizeof real, e));
	if (strcmp(real, "/") == 0)
		return SC_ERR(e, SC_E_USAGE, "the report folder cannot be /");
	snprintf(prev, sizeof prev, "%s.previous", real);
	SC_CHECK(sc_fs_remove_tree(prev, e));
	SC_CHECK(sc_fs_mkdirs(prev, e));
	for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, ours[i]);
		snprintf(to, sizeof to, "%s/%s", prev, ours[i]);
		if (rename(path, to) != 0 && errno != ENOENT)
			return SC_ERR(e, SC_E_IO, "cannot move %s to %s: %s", path, to, strerror(errno));
	}
	*moved = 1;
	return SC_OK;
}

enum sc_status sc_report_write(const char *dir, const struct sc_report_meta *m,
			       const struct sc_result *res, int n, struct sc_err *e)
{
	SC_CHECK(sc_fs_mkdirs(dir, e));
	char path[4096];
	char *doc[3] = {json_doc(m, res, n, dir), junit_xml(m, res, n), summary_md(m, res, n, dir)};
	static const char *const names[3] = {"report.json", "junit.xml", "summary.md"};
	enum sc_status st = SC_OK;
	for (int i = 0; i < 3; i++) {
		if (!doc[i]) {
			st = SC_ERR(e, SC_E_NOMEM, "out of memory");
			continue;
		}
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (st == SC_OK && (st = sc_fs_write_atomic(path, doc[i], strlen(doc[i]), e)) == SC_OK)
			SC_LOG(REPORT, "wrote %s", path);
		free(doc[i]);
	}
	return st;
}

void sc_report_failure_text(FILE *out, const struct sc_result *r, const char *ind)
{
	char cs[512];
	sc_target_case_format(r->tgt, &r->cx, cs, sizeof cs);
	fprintf(out, "%sminimal case: %s", ind, cs);
	if (r->shrink.steps || r->shrink.tries)
		fprintf(out, "  (%d shrink steps, %ld cases tried, %.3fs)", r->shrink.steps,
			r->shrink.tries, r->shrink_seconds);
	fprintf(out, "\n");
	if (r->shrink_cut)
		fprintf(out, "%sshrinking stopped when the time was up: this case may not be minimal\n", ind);
	if (r->fail.msg[0])
		fprintf(out, "%s%s\n", ind, r->fail.msg);
	if (r->diagnosis[0])
		fprintf(out, "%sdiagnosis: %s\n", ind, r->diagnosis);
	if (r->fail.wrong && !r->fail.runtime_error)
		fprintf(out, "%s%lld wrong element%s%s\n", ind, (long long)r->fail.wrong,
			r->fail.wrong == 1 ? "" : "s", r->fail.nfirst ? "; first:" : "");
	for (int k = 0; k < r->fail.nfirst; k++) {
		const struct sc_wrong *w = &r->fail.first[k];
		char idx[160], ef[160], af[160], eb[96], ab[96];
		sc_shape_format(w->index, w->ndim, idx, sizeof idx);
		sc_verify_format_from(&r->cx, w->expected_from, ef, sizeof ef);
		sc_dtype_format(r->cx.dtype, w->expected_bits, eb, sizeof eb);
		if (!SC_PROV_IS_INDEX(w->expected_from)) /* padding the reference put there */
			snprintf(eb, sizeof eb, "0");
		char rk[96], co[80];
		sc_target_mesh_coords(r->tgt, &r->cx, w->rank, co, sizeof co);
		snprintf(rk, sizeof rk, co[0] ? "%d = %s" : "%d%s", w->rank, co);
		if (w->have_prov) {
			sc_verify_format_from(&r->cx, w->actual_from, af, sizeof af);
			if (w->bits_unknown) {
				fprintf(out, "%s  rank %s %s holds %s, expected %s = %s\n", ind, rk, idx, af, ef, eb);
			} else if (SC_PROV_IS_INDEX(w->actual_from)) {
				sc_dtype_format(r->cx.dtype, w->actual_bits, ab, sizeof ab);
				fprintf(out, "%s  rank %s %s holds %s = %s, expected %s = %s\n", ind, rk, idx, af, ab, ef, eb);
			} else {
				fprintf(out, "%s  rank %s %s holds %s, expected %s = %s\n", ind, rk, idx, af, ef, eb);
			}
		} else {
			sc_dtype_format(r->cx.dtype, w->actual_bits, ab, sizeof ab);
			fprintf(out, "%s  rank %s %s holds %s, expected %s = %s\n", ind, rk, idx, ab, ef, eb);
		}
	}
	char replay[1024];
	sc_report_replay_cmd(r, replay, sizeof replay);
	fprintf(out, "%sreplay: %s\n", ind, replay);
	if (r->sanitizer) { /* its first lines here; all of it in report.json */
		if (r->sanitizer_errors >= 0)
			fprintf(out, "%scompute-sanitizer %s, the minimal case run again under it: %d error%s\n", ind,
				r->sanitizer_tool, r->sanitizer_errors, r->sanitizer_errors == 1 ? "" : "s");
		else
			fprintf(out, "%scompute-sanitizer %s, the minimal case run again under it: no summary (its output "
				"ends:)\n", ind, r->sanitizer_tool);
		int lines = 0, more = 0;
		for (const char *p = r->sanitizer; *p;) {
			const char *nl = strchr(p, '\n');
			const int len = nl ? (int)(nl - p) : (int)strlen(p);
			if (lines++ < SC_REPORT_SANITIZER_LINES)
				fprintf(out, "%s  %.*s\n", ind, len > 240 ? 240 : len, p);
			else
				more++;
			p = nl ? nl + 1 : p + len;
		}
		if (more)
			fprintf(out, "%s  ... %d more line%s (all of them in report.json with --report)\n", ind, more,
				more == 1 ? "" : "s");
	}
}
