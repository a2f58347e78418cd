/* sc_casefile: writer and parser of .case files.
 *
 * The parser reads the whole text (at most 64 KiB) into a record first,
 * every line checked, every key at most once, and builds the target only
 * from a record whose every field parsed; then the case is checked against
 * the target as eval checks one. Every refusal is "path:line: message". */
#include "sc_casefile.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sc_backend.h"
#include "sc_builtin.h"
#include "sc_fs.h"
#include "sc_torch.h"
#include "sc_gen.h"
#include "sc_str.h"
#include "sc_plugin.h"
#include "sc_property.h"

/* " NAME=SIZE ..." of c (counts included). */
static void sizes_text(struct sc_str *b, struct sc_target *t, const struct sc_case *c)
{
	char tmp[32];
	for (int i = 0; i < sc_target_size_count(t, c); i++) {
		int slot;
		const char *name = sc_target_size_name(t, c, i, &slot, tmp, sizeof tmp);
		sc_str_printf(b, " %s=%lld", name, (long long)c->sizes[slot]);
	}
	if (c->counts.P) {
		char ct[4096];
		sc_target_counts_text(t, c, " ", 0, ct, sizeof ct);
		sc_str_put(b, ct);
	}
}

enum sc_status sc_casefile_format(struct sc_target *t, const char *property, const char *backend,
				  const struct sc_case *c, int expect, char *buf, size_t n,
				  struct sc_err *e)
{
	return sc_casefile_format_after(t, property, backend, NULL, 0, c, expect, buf, n, e);
}

enum sc_status sc_casefile_format_after(struct sc_target *t, const char *property, const char *backend,
					const struct sc_case *earlier, int nearlier, const struct sc_case *c, int expect,
					char *buf, size_t n, struct sc_err *e)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	SC_CHECK(sc_target_specs(t, c, s, &ns, e));
	struct sc_str b = SC_STR_INIT;
	char line[600], tmp[32];
	sc_target_describe(t, line, sizeof line);
	sc_str_printf(&b, "shardcheck-case %d\n%s\n", SC_CASEFILE_VERSION, line);
	if (t->baseline && t->baseline_path[0])
		sc_str_printf(&b, "baseline %s\n", t->baseline_path);
	sc_str_printf(&b, "property %s\nbackend %s\n", property, backend);
	if (nearlier)
		sc_str_printf(&b, "# the case fails only after these, run first in the same process\n");
	for (int k = 0; k < nearlier; k++) {
		sc_str_printf(&b, "earlier world %d dtype %s seed %llu sizes", earlier[k].world,
			      sc_dtype_name(earlier[k].dtype), (unsigned long long)earlier[k].seed);
		sizes_text(&b, t, &earlier[k]);
		sc_str_put(&b, "\n");
	}
	sc_str_printf(&b, "world %d\nsizes", c->world);
	sizes_text(&b, t, c);
	sc_str_put(&b, "\n");
	struct sc_case_param pa[SC_CASE_MAX_PARAMS];
	const int np = sc_target_params(t, c, pa);
	for (int i = 0; i < np; i++)
		sc_str_printf(&b, "%s%s=%s", i ? " " : "params ", pa[i].key, sc_case_param_text(&pa[i], tmp, sizeof tmp));
	if (np)
		sc_str_printf(&b, " ndims=%d\n", c->ndims);
	sc_str_printf(&b, "dtype %s\nseed %llu\n", sc_dtype_name(c->dtype), (unsigned long long)c->seed);
	if (t->torch) { /* the rules it ran under, where --torch chose them */
		sc_torch_text(t->torch, tmp, sizeof tmp);
		sc_str_printf(&b, "torch %s\n", tmp);
	}
	if (expect >= 0)
		sc_str_printf(&b, "expect %s\n", expect ? "fail" : "pass");
	const char *text = sc_str_cstr(&b);
	enum sc_status st = SC_OK;
	if (!text)
		st = SC_ERR(e, SC_E_NOMEM, "out of memory");
	else if (b.len >= n)
		st = SC_ERR(e, SC_E_INTERNAL, "case file text too long");
	else
		memcpy(buf, text, b.len + 1);
	sc_str_free(&b);
	return st;
}

/* One path of a target line, relative to dir when it names a file. */
static void relocate_path(struct sc_str *b, const char *p, size_t len, const char *dir)
{
	char path[1024], rel[1200];
	snprintf(path, sizeof path, "%.*s", (int)len, p);
	if (path[0] != '/' && strncmp(path, "builtin:", 8) != 0 && sc_fs_relpath(dir, path, rel, sizeof rel, NULL) == SC_OK)
		sc_str_put(b, rel);
	else
		sc_str_put(b, path);
}

enum sc_status sc_casefile_relocate(char *text, size_t n, const char *dir, struct sc_err *e)
{
	struct sc_str b = SC_STR_INIT;
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		const size_t l = nl ? (size_t)(nl - line) + 1 : strlen(line);
		const char *sp = memchr(line, ' ', l);
		const size_t kl = sp ? (size_t)(sp - line) : 0;
		if (sp && ((kl == 6 && !strncmp(line, "target", 6)) || (kl == 5 && !strncmp(line, "chain", 5)) ||
			   (kl == 8 && !strncmp(line, "baseline", 8)))) {
			sc_str_printf(&b, "%.*s ", (int)kl, line);
			const char *v = sp + 1, *end = line + l - (nl != NULL);
			while (v < end) { /* comma-separated (a chain); LIB.so:NAME keeps :NAME */
				const char *comma = memchr(v, ',', (size_t)(end - v));
				const char *stop = comma ? comma : end;
				const char *so = NULL;
				for (const char *q = v; q + 4 <= stop; q++)
					if (!strncmp(q, ".so:", 4))
						so = q + 3;
				relocate_path(&b, v, (size_t)((so ? so : stop) - v), dir);
				sc_str_printf(&b, "%.*s%s", (int)(so ? stop - so : 0), so ? so : "", comma ? "," : "");
				v = comma ? comma + 1 : end;
			}
			sc_str_put(&b, nl ? "\n" : "");
		} else {
			sc_str_printf(&b, "%.*s", (int)l, line);
		}
		line += l;
	}
	const char *out = sc_str_cstr(&b);
	enum sc_status st = SC_OK;
	if (!out)
		st = SC_ERR(e, SC_E_NOMEM, "out of memory");
	else if (b.len >= n)
		st = SC_ERR(e, SC_E_INTERNAL, "case file text too long");
	else
		memcpy(text, out, b.len + 1);
	sc_str_free(&b);
	return st;
}

static int file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* Resolves a path written in a case file: relative to the case file's
 * directory (where findings and reports write them), else to the working
 * directory (older case files). */
static void resolve(const char *casepath, const char *p, char *out, size_t n)
{
	const char *slash = strrchr(casepath, '/');
	if (p[0] != '/' && slash) {
		snprintf(out, n, "%.*s/%s", (int)(slash - casepath), casepath, p);
		if (file_exists(out))
			return;
	}
	snprintf(out, n, "%s", p);
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *h = strchr(s, '#');
	if (h)
		*h = '\0';
	size_t l = strlen(s);
	while (l && isspace((unsigned char)s[l - 1]))
		s[--l] = '\0';
	return s;
}

#define CASE_MAX_BYTES 65536
#define CASE_MAX_LINE 2047

/* The keys of a case file; each may be given once (target and chain are
 * one key under two names). */
enum key { K_TARGET, K_CHAIN, K_BASELINE, K_PROPERTY, K_BACKEND, K_WORLD, K_SIZES, K_PARAMS, K_DTYPE, K_SEED,
	   K_EXPECT, K_TORCH, NKEYS };
static const char *const keys[NKEYS] = {"target", "chain", "baseline", "property", "backend", "world",
					"sizes",  "params", "dtype",    "seed",     "expect", "torch"};

/* The lines of a case file, read before anything is built. */
struct record {
	char target[1024], baseline[1024], sizes[CASE_MAX_LINE + 1], params[CASE_MAX_LINE + 1];
	char property[32], backend[16];
	int lines, is_chain, expect, torch;
	int version_line;
	int at[NKEYS]; /* the line of each key; 0: not given */
	struct sc_case c;
	/* "earlier world W dtype D seed S sizes ...": the cases run before, in order */
	int nearlier;
	int earlier_at[SC_CASE_MAX_EARLIER];
	char earlier[SC_CASE_MAX_EARLIER][CASE_MAX_LINE + 1];
};

/* s is a non-empty run of decimal digits. */
static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* A name of the backend registry, whether or not this build has it. */
static int known_backend(const char *name)
{
	const struct sc_backend_info *list;
	const int n = sc_backend_list(&list);
	for (int i = 0; i < n; i++)
		if (strcmp(list[i].name, name) == 0)
			return 1;
	return 0;
}

#define FAIL_(...) return SC_ERR(e, SC_E_SPEC, __VA_ARGS__)

/* A path value (target, chain, baseline), whole or refused. */
static enum sc_status copy_path(const char *path, int lineno, const char *key, const char *val, char *out,
				size_t n, struct sc_err *e)
{
	if (strlen(val) >= n)
		FAIL_("%s:%d: '%s' is longer than %zu bytes", path, lineno, key, n - 1);
	memcpy(out, val, strlen(val) + 1);
	return SC_OK;
}

/* The value of one "key value" line (the key is known, given once). */
static enum sc_status read_value(const char *path, int lineno, enum key k, const char *val, struct record *r,
				 struct sc_err *e)
{
	switch (k) {
	case K_TARGET:
	case K_CHAIN:
		r->is_chain = k == K_CHAIN;
		return copy_path(path, lineno, keys[k], val, r->target, sizeof r->target, e);
	case K_BASELINE: return copy_path(path, lineno, keys[k], val, r->baseline, sizeof r->baseline, e);
	case K_PROPERTY:
		if (!sc_property_find(val) || strlen(val) >= sizeof r->property)
			FAIL_("%s:%d: unknown property '%s' (see shardcheck list)", path, lineno, val);
		snprintf(r->property, sizeof r->property, "%s", val);
		return SC_OK;
	case K_BACKEND:
		if (strlen(val) >= sizeof r->backend || !known_backend(val))
			FAIL_("%s:%d: unknown backend '%s' (see shardcheck list)", path, lineno, val);
		snprintf(r->backend, sizeof r->backend, "%s", val);
		return SC_OK;
	case K_WORLD: {
		const long w = all_digits(val) && strlen(val) < 6 ? strtol(val, NULL, 10) : -1;
		if (w < 1 || w > SC_MAX_WORLD)
			FAIL_("%s:%d: world must be a decimal in 1..%d, got '%s'", path, lineno, SC_MAX_WORLD, val);
		r->c.world = (int)w;
		return SC_OK;
	}
	case K_SIZES: snprintf(r->sizes, sizeof r->sizes, "%s", val); return SC_OK; /* by dim name, once built */
	case K_PARAMS: snprintf(r->params, sizeof r->params, "%s", val); return SC_OK;
	case K_DTYPE:
		if (sc_dtype_parse(val, &r->c.dtype) != SC_OK)
			FAIL_("%s:%d: unknown dtype '%s'", path, lineno, val);
		return SC_OK;
	case K_SEED: {
		errno = 0;
		const unsigned long long u = all_digits(val) ? strtoull(val, NULL, 10) : 0;
		if (!all_digits(val) || errno)
			FAIL_("%s:%d: seed must be a decimal integer in 0..2^64-1, got '%s'", path, lineno, val);
		r->c.seed = (uint64_t)u;
		return SC_OK;
	}
	case K_TORCH: {
		char why[160];
		if (sc_torch_parse(val, &r->torch, why, sizeof why) != 0)
			FAIL_("%s:%d: %s", path, lineno, why);
		return SC_OK;
	}
	case K_EXPECT:
		if (strcmp(val, "fail") != 0 && strcmp(val, "pass") != 0)
			FAIL_("%s:%d: expect must be 'fail' or 'pass', got '%s'", path, lineno, val);
		r->expect = val[0] == 'f';
		return SC_OK;
	case NKEYS: break;
	}
	return SC_ERR(e, SC_E_INTERNAL, "%s:%d: no such key", path, lineno);
}

/* One "key value" line. */
static enum sc_status read_key(const char *path, int lineno, const char *s, const char *val, struct record *r,
			       struct sc_err *e)
{
	int k = 0;
	while (k < NKEYS && strcmp(s, keys[k]) != 0)
		k++;
	if (k == NKEYS)
		FAIL_("%s:%d: unknown key '%s'", path, lineno, s);
	const int was = k <= K_CHAIN ? (r->at[K_TARGET] ? K_TARGET : K_CHAIN) : k;
	if (r->at[was] && was == k)
		FAIL_("%s:%d: '%s' given twice (first at line %d)", path, lineno, s, r->at[was]);
	if (r->at[was])
		FAIL_("%s:%d: '%s' after '%s' at line %d: a case has one target", path, lineno, s, keys[was],
		      r->at[was]);
	r->at[k] = lineno;
	if (!*val)
		FAIL_("%s:%d: '%s' needs a value (a truncated file?)", path, lineno, s);
	return read_value(path, lineno, (enum key)k, val, r, e);
}

/* The bytes of a line: printable text and tabs, a carriage return only at
 * its end (CRLF files). Bytes over 127 pass (UTF-8 in comments, paths). */
static enum sc_status check_line(const char *path, int lineno, const char *line, size_t len, struct sc_err *e)
{
	for (size_t i = 0; i < len; i++) {
		const unsigned char ch = (unsigned char)line[i];
		if (ch == 0)
			FAIL_("%s:%d: a NUL byte (column %zu): not a text file", path, lineno, i + 1);
		if ((ch < 32 && ch != '\t' && !(ch == '\r' && i + 1 == len)) || ch == 127)
			FAIL_("%s:%d: control character 0x%02x (column %zu)", path, lineno, ch, i + 1);
	}
	return SC_OK;
}

/* The first key: the format and its version. */
static enum sc_status read_version(const char *path, int lineno, const char *s, const char *val,
				   struct record *r, struct sc_err *e)
{
	char want[16];
	snprintf(want, sizeof want, "%d", SC_CASEFILE_VERSION);
	if (strcmp(s, "shardcheck-case") != 0 && !r->version_line)
		FAIL_("%s:%d: not a case file (the first line must be 'shardcheck-case %d')", path, lineno,
		      SC_CASEFILE_VERSION);
	if (r->version_line)
		FAIL_("%s:%d: 'shardcheck-case' given twice (first at line %d)", path, lineno, r->version_line);
	if (strcmp(val, want) != 0)
		FAIL_("%s:%d: case file version '%s' is not supported (this version reads %d)", path, lineno, val,
		      SC_CASEFILE_VERSION);
	r->version_line = lineno;
	return SC_OK;
}

/* An "earlier" line, kept whole (read once the target is built). */
static enum sc_status read_earlier(const char *path, int lineno, const char *val, struct record *r,
				   struct sc_err *e)
{
	if (r->nearlier == SC_CASE_MAX_EARLIER)
		FAIL_("%s:%d: more than %d 'earlier' lines", path, lineno, SC_CASE_MAX_EARLIER);
	if (r->at[K_WORLD] || r->at[K_SIZES])
		FAIL_("%s:%d: 'earlier' lines come before the case's own world and sizes (line %d)", path, lineno,
		      r->at[K_WORLD] ? r->at[K_WORLD] : r->at[K_SIZES]);
	r->earlier_at[r->nearlier] = lineno;
	snprintf(r->earlier[r->nearlier++], sizeof r->earlier[0], "%s", val);
	return SC_OK;
}

static enum sc_status read_record(const char *path, const char *text, size_t len, struct record *r,
				  struct sc_err *e)
{
	if (len > CASE_MAX_BYTES)
		FAIL_("%s:1: larger than %d bytes: not a case file", path, CASE_MAX_BYTES);
	for (size_t at = 0; at < len;) {
		const int lineno = ++r->lines;
		const char *nl = memchr(text + at, '\n', len - at);
		const size_t l = nl ? (size_t)(nl - (text + at)) : len - at;
		if (l > CASE_MAX_LINE)
			FAIL_("%s:%d: line longer than %d bytes", path, lineno, CASE_MAX_LINE);
		SC_CHECK(check_line(path, lineno, text + at, l, e));
		char line[CASE_MAX_LINE + 1];
		memcpy(line, text + at, l);
		line[l] = '\0';
		at += l + (nl != NULL);
		char *s = trim(line);
		if (!*s)
			continue; /* blank or a comment: comments may come before the first line */
		char *sp = s + strcspn(s, " \t");
		char *val = *sp ? trim(sp + 1) : sp;
		*sp = '\0';
		if (!r->version_line || strcmp(s, "shardcheck-case") == 0)
			SC_CHECK(read_version(path, lineno, s, val, r, e));
		else if (strcmp(s, "earlier") == 0)
			SC_CHECK(read_earlier(path, lineno, val, r, e));
		else
			SC_CHECK(read_key(path, lineno, s, val, r, e));
	}
	if (!r->version_line)
		FAIL_("%s:1: empty case file (no 'shardcheck-case %d' line)", path, SC_CASEFILE_VERSION);
	if (!r->at[K_TARGET] && !r->at[K_CHAIN])
		FAIL_("%s:%d: missing 'target' (or 'chain')", path, r->lines + 1);
	static const enum key required[] = {K_PROPERTY, K_WORLD, K_SIZES, K_DTYPE, K_SEED};
	for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
		if (!r->at[required[i]])
			FAIL_("%s:%d: missing '%s' (a truncated file?)", path, r->lines + 1, keys[required[i]]);
	return SC_OK;
}

/* A plugin transform: LIB.so:NAME (and its baseline's library). */
static enum sc_status plugin_target(const char *path, const struct record *r, struct sc_target *t,
				    struct sc_err *e)
{
	char lib[1024], res[1100];
	const char *colon = strstr(r->target, ".so:") + 3;
	snprintf(lib, sizeof lib, "%.*s", (int)(colon - r->target), r->target);
	resolve(path, lib, res, sizeof res);
	struct sc_plugin_lib *pl = NULL, *bl = NULL;
	SC_CHECK(sc_plugin_load(res, &pl, e));
	const struct sc_plugin_transform *tr = sc_plugin_find(pl, colon + 1), *bt = NULL;
	enum sc_status st = SC_OK;
	if (!tr) {
		st = SC_ERR(e, SC_E_SPEC, "the plugin %s has no transform '%s'", res, colon + 1);
		goto fail;
	}
	if (r->baseline[0]) {
		char bres[1100];
		resolve(path, r->baseline, bres, sizeof bres);
		SC_CHECK_GOTO(sc_plugin_load(bres, &bl, e), st, fail);
		bt = sc_plugin_find(bl, colon + 1);
	}
	SC_CHECK_GOTO(sc_target_plugin(t, res, tr, bt, e), st, fail);
	snprintf(t->name, sizeof t->name, "%.500s", r->target);
	t->own_lib = pl;
	t->own_baseline = bl;
	if (bl)
		snprintf(t->baseline_path, sizeof t->baseline_path, "%.500s", r->baseline);
	return SC_OK;
fail:
	sc_plugin_close(pl);
	sc_plugin_close(bl);
	return st;
}

/* The keys `params` takes, for every family (a key the family has no use
 * for is ignored by its spec, as --params does). */
static const char *const pkeys[] = {"dim", "concat", "op", "ndims", "mesh"};
#define NPKEYS 5

/* A built-in's `params`: each key once, each value well formed, ndims in
 * the family's range, every parameter of the family given, dim indexes
 * within ndims (before the family's spec is built from them). */
static enum sc_status builtin_params(const char *path, struct record *r, struct sc_target *t, struct sc_err *e)
{
	const int pl = r->at[K_PARAMS];
	if (!pl)
		FAIL_("%s:%d: a built-in case needs 'params'", path, r->lines + 1);
	int given[NPKEYS] = {0};
	char pb[sizeof r->params];
	snprintf(pb, sizeof pb, "%s", r->params);
	for (char *tok = strtok(pb, " \t"); tok; tok = strtok(NULL, " \t")) {
		char *eq = strchr(tok, '=');
		if (!eq)
			FAIL_("%s:%d: expected KEY=VALUE in params, got '%s'", path, pl, tok);
		*eq++ = '\0';
		int k = 0;
		while (k < NPKEYS && strcmp(tok, pkeys[k]) != 0)
			k++;
		if (k == NPKEYS)
			FAIL_("%s:%d: unknown param '%s' (dim, concat, op, ndims, mesh)", path, pl, tok);
		if (given[k])
			FAIL_("%s:%d: param '%s' given twice", path, pl, tok);
		given[k] = 1;
		enum sc_redop op;
		if (k == 2 ? sc_redop_parse(eq, &op) != SC_OK : !all_digits(eq) || strlen(eq) > 2)
			FAIL_("%s:%d: param %s: bad value '%s' (%s)", path, pl, tok, eq,
			      k == 2 ? "a reduction op" : "a small decimal");
		if (sc_target_param_set(t, &r->c, tok, eq) != SC_OK)
			FAIL_("%s:%d: param %s: bad value '%s'", path, pl, tok, eq);
	}
	int lo = 0, hi = 0;
	if (!sc_target_ndims_range(t, &lo, &hi) || !given[3] || r->c.ndims < lo || r->c.ndims > hi)
		FAIL_("%s:%d: params: %s takes ndims=%d..%d%s", path, pl, t->name, lo, hi,
		      given[3] ? "" : " (missing)");
	struct sc_case_param p[SC_CASE_MAX_PARAMS];
	const int np = sc_target_params(t, &r->c, p);
	for (int i = 0; i < np; i++) {
		for (int k = 0; k < NPKEYS; k++)
			if (strcmp(p[i].key, pkeys[k]) == 0 && !given[k])
				FAIL_("%s:%d: params: missing '%s' (%s needs it)", path, pl, p[i].key, t->name);
		if (p[i].kind == SC_PARAM_CHOICE && p[i].value >= p[i].other)
			FAIL_("%s:%d: params: %s=%d is out of range 0..%d", path, pl, p[i].key, p[i].value, p[i].other - 1);
		if (p[i].kind != SC_PARAM_OP && p[i].kind != SC_PARAM_CHOICE && p[i].value >= r->c.ndims)
			FAIL_("%s:%d: params: %s=%d is out of range for %d dims", path, pl, p[i].key, p[i].value,
			      r->c.ndims);
		if (p[i].kind == SC_PARAM_OTHER_DIM && p[i].value == p[p[i].other].value)
			FAIL_("%s:%d: params: %s=%d must differ from %s", path, pl, p[i].key, p[i].value, p[p[i].other].key);
	}
	return SC_OK;
}

/* "chain a.sc,b.sc": every entry named, at most SC_MAX_CHAIN. */
static enum sc_status chain_target(const char *path, const struct record *r, struct sc_target *t,
				   struct sc_err *e)
{
	char res[SC_MAX_CHAIN][1024], one[1024];
	const char *paths[SC_MAX_CHAIN];
	int np = 0;
	size_t all = 0; /* the target's name: the paths, comma-separated */
	for (const char *v = r->target;; np++) {
		const char *comma = strchr(v, ',');
		const size_t l = comma ? (size_t)(comma - v) : strlen(v);
		snprintf(one, sizeof one, "%.*s", (int)l, v);
		const char *name = trim(one);
		if (!*name)
			FAIL_("%s:%d: an empty entry in the chain", path, r->at[K_CHAIN]);
		if (np == SC_MAX_CHAIN)
			FAIL_("%s:%d: a chain has at most %d specs", path, r->at[K_CHAIN], SC_MAX_CHAIN);
		resolve(path, name, res[np], sizeof res[np]);
		paths[np] = res[np];
		if ((all += strlen(res[np]) + (np > 0)) >= sizeof t->name)
			FAIL_("%s:%d: the chain's paths are longer than %zu bytes together", path, r->at[K_CHAIN],
			      sizeof t->name - 1);
		if (!comma)
			break;
		v = comma + 1;
	}
	return sc_target_chain(t, paths, np + 1, e);
}

static enum sc_status build_target(const char *path, struct record *r, struct sc_target *t, struct sc_err *e)
{
	const int plugin = !r->is_chain && strstr(r->target, ".so:") != NULL;
	const int builtin = !r->is_chain && strncmp(r->target, "builtin:", 8) == 0;
	if (r->at[K_BASELINE] && !plugin)
		FAIL_("%s:%d: 'baseline' is for plugin targets (LIB.so:NAME) only", path, r->at[K_BASELINE]);
	if (r->at[K_PARAMS] && !builtin)
		FAIL_("%s:%d: 'params' is for built-in targets only", path, r->at[K_PARAMS]);
	if (builtin) {
		const struct sc_builtin_family *fam;
		if (sc_builtin_find(r->target + 8, &fam) != SC_OK)
			FAIL_("%s:%d: unknown built-in '%s' (see shardcheck list)", path, r->at[K_TARGET], r->target);
		SC_CHECK(sc_target_builtin(t, fam, e));
		return builtin_params(path, r, t, e);
	}
	enum sc_status st;
	if (r->is_chain) {
		st = chain_target(path, r, t, e);
	} else if (plugin) {
		st = plugin_target(path, r, t, e);
	} else {
		char res[1024];
		resolve(path, r->target, res, sizeof res);
		if (strlen(res) >= sizeof t->name) /* the target's name, and the case files it writes, hold it whole */
			FAIL_("%s:%d: the target's path is longer than %zu bytes", path, r->at[K_TARGET],
			      sizeof t->name - 1);
		st = sc_target_from_spec_file(t, res, e);
	}
	if (st != SC_OK && e) { /* the target line is where it went wrong */
		char inner[SC_ERR_MAX];
		snprintf(inner, sizeof inner, "%s", e->msg);
		const int line = r->at[r->is_chain ? K_CHAIN : K_TARGET];
		if (strncmp(inner, path, strlen(path)) != 0)
			SC_ERR(e, st, "%s:%d: %s", path, line, inner);
	}
	return st;
}

/* "sizes NAME=SIZE ..." by the target's dim names: each dim once, each a
 * decimal >= 1, the whole case (every rank's elements) within 2^40. */
static enum sc_status read_sizes(const char *path, struct record *r, struct sc_target *t, struct sc_err *e)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	const int sl = r->at[K_SIZES];
	struct sc_err se;
	if (sc_target_specs(t, &r->c, s, &ns, &se) != SC_OK)
		FAIL_("%s:%d: %s", path, r->at[K_PARAMS] ? r->at[K_PARAMS] : sl, se.msg);
	r->c.ndims = s[0]->ndims;
	int seen[SC_MAX_DIMS] = {0};
	sc_target_fixed_mesh(t, &r->c);
	char sb[sizeof r->sizes];
	snprintf(sb, sizeof sb, "%s", r->sizes);
	for (char *tok = strtok(sb, " \t"); tok; tok = strtok(NULL, " \t")) {
		char *eq = strchr(tok, '=');
		if (!eq)
			FAIL_("%s:%d: expected NAME=SIZE in sizes, got '%s'", path, sl, tok);
		*eq++ = '\0';
		int d = sc_target_size_slot(t, &r->c, tok), counts = 0;
		struct sc_err ce;
		if (d < 0 && sc_target_counts_parse(t, &r->c, tok, eq, &counts, &ce) != SC_OK)
			FAIL_("%s:%d: %s", path, sl, ce.msg);
		if (counts)
			continue;
		if (d < 0)
			FAIL_("%s:%d: '%s' is not a dim of %s", path, sl, tok, t->name);
		if (seen[d])
			FAIL_("%s:%d: size of '%s' given twice", path, sl, tok);
		const long long v = all_digits(eq) && strlen(eq) < 15 ? strtoll(eq, NULL, 10) : -1;
		/* sizes= may give no rows; a parameter may be 0 */
		const int derived = ((s[0]->derived_mask >> d) & 1u) || sc_spec_slot_param(s[0], d) >= 0;
		if (v < !derived || v > SC_CASE_MAX_ELEMS)
			FAIL_("%s:%d: size of '%s' must be a decimal in 1..2^40, got '%s'", path, sl, tok, eq);
		r->c.sizes[d] = v;
		seen[d] = 1;
	}
	if (s[0]->ncounts && r->c.counts.P != sc_spec_counts_P(s[0], r->c.sizes, r->c.world))
		FAIL_("%s:%d: no counts %s (%s=%s)", path, sl, s[0]->counts[0].name, s[0]->counts[0].name,
		      sc_spec_counts_form(s[0], 0));
	for (int m = 0; m < s[0]->nmesh; m++)
		if (!s[0]->mesh_fixed[m] && !seen[sc_spec_mesh_slot(s[0], m)])
			FAIL_("%s:%d: no size for mesh dim '%s' (%s=N)", path, sl, s[0]->mesh_dim[m], s[0]->mesh_sym[m]);
	for (int k = 0; k < s[0]->nparams; k++)
		if (!seen[sc_spec_param_slot(s[0], k)])
			FAIL_("%s:%d: no value for parameter '%s' (%s=N)", path, sl, s[0]->param[k], s[0]->param[k]);
	int64_t all = r->c.world;
	for (int d = 0; d < s[0]->ndims; d++) {
		if (!seen[d])
			FAIL_("%s:%d: no size for dim '%s'", path, sl, s[0]->dim[d]);
		if (__builtin_mul_overflow(all, r->c.sizes[d], &all) || all > SC_CASE_MAX_ELEMS)
			FAIL_("%s:%d: the sizes hold more than 2^40 elements (world included): not a case to run", path,
			      sl);
	}
	return SC_OK;
}

/* The case against the spec: divisibility, requires, dtypes, parameter
 * ranges, as eval checks a given case (`sizes` hints guide generation
 * only), blamed on the line that holds the broken part. */
static enum sc_status check_case(const char *path, const struct record *r, struct sc_target *t,
				 struct sc_err *e)
{
	struct sc_gen_opts o = {.world_lo = 1, .world_hi = SC_MAX_WORLD, .max_elems = SC_CASE_MAX_ELEMS,
				.hints_guide_only = 1};
	sc_gen_defaults(&o);
	char why[SC_ERR_MAX - 64];
	enum sc_gen_part part;
	if (sc_gen_check(t, &o, &r->c, why, sizeof why, &part))
		return SC_OK;
	int line = r->at[r->is_chain ? K_CHAIN : K_TARGET];
	switch (part) {
	case SC_GEN_PART_WORLD: line = r->at[K_WORLD]; break;
	case SC_GEN_PART_PARAMS: line = r->at[K_PARAMS] ? r->at[K_PARAMS] : line; break;
	case SC_GEN_PART_DTYPE: line = r->at[K_DTYPE]; break;
	case SC_GEN_PART_SIZES: line = r->at[K_SIZES]; break;
	}
	FAIL_("%s:%d: not a case of %s: %s", path, line, t->name, why);
}

#undef FAIL_

/* Earlier case k: "world W dtype D seed S sizes NAME=SIZE ...", checked as
 * the case itself is, errors on its line. */
static enum sc_status earlier_case(const char *path, const struct record *r, int k, struct sc_target *t,
				   struct sc_case *out, struct sc_err *e)
{
	const int line = r->earlier_at[k];
	struct record *q = malloc(sizeof *q);
	if (!q)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	*q = *r;
	memset(&q->c.counts, 0, sizeof q->c.counts);
	q->at[K_WORLD] = q->at[K_DTYPE] = q->at[K_SEED] = q->at[K_SIZES] = line;
	q->at[K_PARAMS] = 0;
	char buf[CASE_MAX_LINE + 1];
	snprintf(buf, sizeof buf, "%s", r->earlier[k]);
	static const enum key order[] = {K_WORLD, K_DTYPE, K_SEED};
	char *rest = buf, *tok;
	enum sc_status st = SC_OK;
	for (size_t i = 0; st == SC_OK && i < sizeof order / sizeof order[0]; i++) {
		char *key = strtok_r(rest, " \t", &rest), *val = key ? strtok_r(rest, " \t", &rest) : NULL;
		if (!key || !val || strcmp(key, keys[order[i]]) != 0)
			st = SC_ERR(e, SC_E_SPEC, "%s:%d: expected 'earlier world W dtype D seed S sizes NAME=SIZE ...'", path,
				    line);
		else
			st = read_value(path, line, order[i], val, q, e);
	}
	if (st == SC_OK && (!(tok = strtok_r(rest, " \t", &rest)) || strcmp(tok, "sizes") != 0))
		st = SC_ERR(e, SC_E_SPEC, "%s:%d: expected 'sizes NAME=SIZE ...' after the seed", path, line);
	if (st == SC_OK) {
		snprintf(q->sizes, sizeof q->sizes, "%s", rest);
		st = read_sizes(path, q, t, e);
	}
	if (st == SC_OK)
		st = check_case(path, q, t, e);
	if (st == SC_OK)
		*out = q->c;
	free(q);
	return st;
}

/* The case's earlier cases into t (plugin targets only: their worker
 * keeps state between calls). */
static enum sc_status earlier_cases(const char *path, const struct record *r, struct sc_target *t,
				    struct sc_err *e)
{
	if (!r->nearlier)
		return SC_OK;
	if (!t->plugin)
		return SC_ERR(e, SC_E_SPEC, "%s:%d: 'earlier' is for plugin targets (LIB.so:NAME) only", path,
			      r->earlier_at[0]);
	if (!(t->earlier = calloc((size_t)r->nearlier, sizeof *t->earlier)))
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	for (int k = 0; k < r->nearlier; k++)
		SC_CHECK(earlier_case(path, r, k, t, &t->earlier[k], e));
	t->nearlier = r->nearlier;
	return SC_OK;
}

enum sc_status sc_casefile_parse(const char *text, size_t len, const char *path, struct sc_target *t,
				 struct sc_err *e)
{
	struct record *r = calloc(1, sizeof *r);
	if (!r)
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	enum sc_status st = SC_OK;
	r->expect = -1;
	snprintf(r->backend, sizeof r->backend, "sim");
	memset(t, 0, sizeof *t);
	SC_CHECK_GOTO(read_record(path, text, len, r, e), st, out);
	SC_CHECK_GOTO(build_target(path, r, t, e), st, out);
	if (r->torch)
		sc_target_set_torch(t, r->torch);
	if (!sc_property_find(r->property)->applies(t)) {
		st = SC_ERR(e, SC_E_SPEC, "%s:%d: property '%s' does not apply to %s", path, r->at[K_PROPERTY],
			    r->property, t->name);
		goto out;
	}
	SC_CHECK_GOTO(read_sizes(path, r, t, e), st, out);
	SC_CHECK_GOTO(check_case(path, r, t, e), st, out);
	SC_CHECK_GOTO(earlier_cases(path, r, t, e), st, out);
	t->has_case = 1;
	t->fixed = r->c;
	t->expect = r->expect;
	snprintf(t->fixed_property, sizeof t->fixed_property, "%s", r->property);
	snprintf(t->fixed_backend, sizeof t->fixed_backend, "%s", r->backend);
	snprintf(t->case_path, sizeof t->case_path, "%s", path);
out:
	if (st != SC_OK) /* nothing half-built is left */
		sc_target_free(t);
	free(r);
	return st;
}

enum sc_status sc_casefile_load(const char *path, struct sc_target *t, struct sc_err *e)
{
	char *text;
	size_t len;
	/* regular files only (a FIFO finding would block a replay for good);
	 * one byte more than a case file may hold: a larger file is refused */
	SC_CHECK(sc_fs_read_regular(path, CASE_MAX_BYTES, &text, &len, e));
	const enum sc_status st = sc_casefile_parse(text, len, path, t, e);
	free(text);
	return st;
}
