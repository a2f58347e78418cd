/* sc_casefile: writer and parser of .case files. */
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
#include "sc_str.h"
#include "sc_plugin.h"
#include "sc_property.h"

enum sc_status sc_casefile_format(struct sc_target *t, const char *property, const char *backend,
				  const struct sc_case *c, int expect, char *buf, size_t n,
				  struct sc_err *e)
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
	sc_str_printf(&b, "property %s\nbackend %s\nworld %d\nsizes", property, backend, c->world);
	for (int d = 0; d < c->ndims; d++)
		sc_str_printf(&b, " %s=%lld", s[0]->dim[d], (long long)c->sizes[d]);
	sc_str_put(&b, "\n");
	struct sc_case_param pa[SC_CASE_MAX_PARAMS];
	const int np = sc_target_params(t, c, pa);
	for (int i = 0; i < np; i++)
		sc_str_printf(&b, "%s%s=%s", i ? " " : "params ", pa[i].key, sc_case_param_text(&pa[i], tmp, sizeof tmp));
	if (np)
		sc_str_printf(&b, " ndims=%d\n", c->ndims);
	sc_str_printf(&b, "dtype %s\nseed %llu\n", sc_dtype_name(c->dtype), (unsigned long long)c->seed);
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

/* The lines of a case file, read before anything is built. */
struct record {
	char target[1024], sizes[1024], params[256], property[32], backend[16], baseline[1024];
	int lines, is_chain, have_world, have_dtype, expect, size_line, params_line;
	int key_line[10]; /* where each key was given (duplicates are errors) */
	int version_line;
	struct sc_case c;
};

static const char *const keys[10] = {"target", "chain", "baseline", "property", "backend",
				     "world", "sizes", "params", "dtype", "seed"};

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

/* One "key value" line. */
static enum sc_status read_key(const char *path, int lineno, const char *s, const char *val, struct record *r,
			       struct sc_err *e)
{
	for (int k = 0; k < 10; k++)
		if (strcmp(s, keys[k]) == 0) {
			/* target and chain are one key under two names */
			const int first = k <= 1 ? (r->key_line[0] ? r->key_line[0] : r->key_line[1]) : r->key_line[k];
			if (first)
				FAIL_("%s:%d: '%s' given twice (first at line %d)", path, lineno, s, first);
			r->key_line[k] = lineno;
			break;
		}
	if (strcmp(s, "target") == 0 || strcmp(s, "chain") == 0) {
		if (!*val)
			FAIL_("%s:%d: '%s' needs a value", path, lineno, s);
		snprintf(r->target, sizeof r->target, "%s", val);
		r->is_chain = s[0] == 'c';
	} else if (strcmp(s, "baseline") == 0) {
		snprintf(r->baseline, sizeof r->baseline, "%s", val);
	} else if (strcmp(s, "property") == 0) {
		if (!sc_property_find(val))
			FAIL_("%s:%d: unknown property '%s'", path, lineno, val);
		snprintf(r->property, sizeof r->property, "%s", val);
	} else if (strcmp(s, "backend") == 0) {
		if (strlen(val) >= sizeof r->backend || !known_backend(val))
			FAIL_("%s:%d: unknown backend '%s' (see shardcheck list)", path, lineno, val);
		snprintf(r->backend, sizeof r->backend, "%s", val);
	} else if (strcmp(s, "world") == 0) {
		const long w = all_digits(val) && strlen(val) < 6 ? strtol(val, NULL, 10) : -1;
		if (w < 1 || w > SC_MAX_WORLD)
			FAIL_("%s:%d: world must be 1..%d, got '%s'", path, lineno, SC_MAX_WORLD, val);
		r->c.world = (int)w;
		r->have_world = 1;
	} else if (strcmp(s, "sizes") == 0) {
		snprintf(r->sizes, sizeof r->sizes, "%s", val);
		r->size_line = lineno;
	} else if (strcmp(s, "params") == 0) {
		snprintf(r->params, sizeof r->params, "%s", val);
		r->params_line = lineno;
	} else if (strcmp(s, "dtype") == 0) {
		if (sc_dtype_parse(val, &r->c.dtype) != SC_OK)
			FAIL_("%s:%d: unknown dtype '%s'", path, lineno, val);
		r->have_dtype = 1;
	} else if (strcmp(s, "seed") == 0) {
		errno = 0;
		const uint64_t u = all_digits(val) ? strtoull(val, NULL, 10) : 0;
		if (!all_digits(val) || errno)
			FAIL_("%s:%d: seed must be a decimal integer in 0..2^64-1, got '%s'", path, lineno, val);
		r->c.seed = u;
	} else if (strcmp(s, "expect") == 0) {
		if (strcmp(val, "fail") == 0)
			r->expect = 1;
		else if (strcmp(val, "pass") == 0)
			r->expect = 0;
		else
			FAIL_("%s:%d: expect must be 'fail' or 'pass'", path, lineno);
	} else {
		FAIL_("%s:%d: unknown key '%s'", path, lineno, s);
	}
	return SC_OK;
}

/* The bytes of a line: printable text and tabs only. */
static enum sc_status check_line(const char *path, int lineno, const char *line, size_t len, struct sc_err *e)
{
	for (size_t i = 0; i < len; i++) {
		const unsigned char ch = (unsigned char)line[i];
		if (ch == 0)
			FAIL_("%s:%d: a NUL byte (column %zu): not a text file", path, lineno, i + 1);
		if (ch < 32 && ch != '\t' && ch != '\r')
			FAIL_("%s:%d: control character 0x%02x (column %zu)", path, lineno, ch, i + 1);
	}
	return SC_OK;
}

#define CASE_MAX_BYTES 65536
#define CASE_MAX_LINE 2047

static enum sc_status read_record(const char *text, size_t len, const char *path, struct record *r,
				  struct sc_err *e)
{
	enum sc_status st = SC_OK;
	size_t at = 0;
	while (st == SC_OK && at < len) {
		const int lineno = ++r->lines;
		const char *nl = memchr(text + at, '\n', len - at);
		const size_t l = nl ? (size_t)(nl - (text + at)) : len - at;
		if (l > CASE_MAX_LINE) {
			st = SC_ERR(e, SC_E_SPEC, "%s:%d: line longer than %d bytes", path, lineno, CASE_MAX_LINE);
			break;
		}
		if ((st = check_line(path, lineno, text + at, l, e)) != SC_OK)
			break;
		char line[CASE_MAX_LINE + 1];
		memcpy(line, text + at, l);
		line[l] = '\0';
		at += l + (nl != NULL);
		char *s = trim(line);
		if (!*s)
			continue;
		char *sp = s + strcspn(s, " \t");
		char *val = *sp ? trim(sp + 1) : sp;
		*sp = '\0';
		if (!r->version_line || strcmp(s, "shardcheck-case") == 0) { /* comments may come first */
			if (strcmp(s, "shardcheck-case") != 0 || r->version_line)
				st = SC_ERR(e, SC_E_SPEC, "%s:%d: not a case file (the first line must be 'shardcheck-case %d')",
					    path, lineno, SC_CASEFILE_VERSION);
			else if (!all_digits(val) || strtol(val, NULL, 10) != SC_CASEFILE_VERSION)
				st = SC_ERR(e, SC_E_SPEC, "%s:%d: case file version '%s' is not supported (this version reads %d)",
					    path, lineno, val, SC_CASEFILE_VERSION);
			r->version_line = lineno;
			continue;
		}
		st = read_key(path, lineno, s, val, r, e);
	}
	SC_CHECK(st);
	if (r->lines == 0 || !r->version_line)
		FAIL_("%s:1: empty case file", path);
	if (!r->target[0])
		FAIL_("%s:%d: missing 'target'", path, r->lines + 1);
	if (!r->property[0])
		FAIL_("%s:%d: missing 'property'", path, r->lines + 1);
	if (!r->have_world || !r->size_line || !r->have_dtype || !r->key_line[9])
		FAIL_("%s:%d: missing %s (a truncated file?)", path, r->lines + 1,
		      !r->have_world ? "'world'" : !r->size_line ? "'sizes'" : !r->have_dtype ? "'dtype'" : "'seed'");
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
		st = SC_ERR(e, SC_E_SPEC, "%s: the plugin %s has no transform '%s'", path, res, colon + 1);
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

/* A built-in and its parameters. */
static enum sc_status builtin_target(const char *path, struct record *r, struct sc_target *t, struct sc_err *e)
{
	const struct sc_builtin_family *fam;
	if (sc_builtin_find(r->target + 8, &fam) != SC_OK)
		FAIL_("%s: unknown builtin '%s'", path, r->target);
	SC_CHECK(sc_target_builtin(t, fam, e));
	if (!r->params_line)
		FAIL_("%s:%d: a built-in case needs 'params'", path, r->lines + 1);
	char pb[256];
	snprintf(pb, sizeof pb, "%s", r->params);
	char seen[8][32];
	int nseen = 0;
	for (char *tok = strtok(pb, " "); tok; tok = strtok(NULL, " ")) {
		char *eq = strchr(tok, '=');
		if (!eq)
			FAIL_("%s:%d: expected KEY=VALUE in params", path, r->params_line);
		*eq++ = '\0';
		for (int k = 0; k < nseen; k++)
			if (strcmp(seen[k], tok) == 0)
				FAIL_("%s:%d: param '%s' given twice", path, r->params_line, tok);
		if (nseen < 8)
			snprintf(seen[nseen++], sizeof seen[0], "%.31s", tok);
		enum sc_redop op;
		if ((!all_digits(eq) || strlen(eq) > 3) && sc_redop_parse(eq, &op) != SC_OK)
			FAIL_("%s:%d: param %s: bad value '%s'", path, r->params_line, tok, eq);
		enum sc_status ps = sc_target_param_set(t, &r->c, tok, eq);
		if (ps == SC_E_SPEC)
			FAIL_("%s:%d: unknown op '%s'", path, r->params_line, eq);
		if (ps != SC_OK)
			FAIL_("%s:%d: unknown param '%s'", path, r->params_line, tok);
	}
	return SC_OK;
}

static enum sc_status build_target(const char *path, struct record *r, struct sc_target *t, struct sc_err *e)
{
	char res[SC_MAX_CHAIN][1024];
	if (r->is_chain) {
		char buf[1024];
		const char *paths[SC_MAX_CHAIN];
		int np = 0;
		snprintf(buf, sizeof buf, "%s", r->target);
		for (char *tok = strtok(buf, ","); tok && np < SC_MAX_CHAIN; tok = strtok(NULL, ",")) {
			resolve(path, tok, res[np], sizeof res[np]);
			paths[np] = res[np];
			np++;
		}
		return sc_target_chain(t, paths, np, e);
	}
	if (strstr(r->target, ".so:"))
		return plugin_target(path, r, t, e);
	if (strncmp(r->target, "builtin:", 8) == 0)
		return builtin_target(path, r, t, e);
	resolve(path, r->target, res[0], sizeof res[0]);
	return sc_target_from_spec_file(t, res[0], e);
}

/* "sizes NAME=SIZE ..." by the target's dim names. */
static enum sc_status read_sizes(const char *path, struct record *r, struct sc_target *t, struct sc_err *e)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	int ns;
	if (sc_target_specs(t, &r->c, s, &ns, e) != SC_OK)
		return SC_E_SPEC;
	r->c.ndims = s[0]->ndims;
	int seen[SC_MAX_DIMS] = {0};
	char sb[1024];
	snprintf(sb, sizeof sb, "%s", r->sizes);
	for (char *tok = strtok(sb, " "); tok; tok = strtok(NULL, " ")) {
		char *eq = strchr(tok, '=');
		if (!eq)
			FAIL_("%s:%d: expected NAME=SIZE in sizes", path, r->size_line);
		*eq++ = '\0';
		int d = -1;
		for (int k = 0; k < s[0]->ndims; k++)
			if (strcmp(s[0]->dim[k], tok) == 0)
				d = k;
		if (d < 0)
			FAIL_("%s:%d: '%s' is not a dim of %s", path, r->size_line, tok, t->name);
		const long long v = all_digits(eq) && strlen(eq) < 15 ? strtoll(eq, NULL, 10) : -1;
		if (v < 1 || v > SC_CASE_MAX_ELEMS)
			FAIL_("%s:%d: size of '%s' must be 1..2^40, got '%s'", path, r->size_line, tok, eq);
		if (seen[d])
			FAIL_("%s:%d: '%s' given twice", path, r->size_line, tok);
		r->c.sizes[d] = v;
		seen[d] = 1;
	}
	int64_t all = r->c.world;
	for (int d = 0; d < s[0]->ndims; d++) {
		if (!seen[d])
			FAIL_("%s:%d: no size for dim '%s'", path, r->size_line, s[0]->dim[d]);
		if (__builtin_mul_overflow(all, r->c.sizes[d], &all) || all > SC_CASE_MAX_ELEMS)
			FAIL_("%s:%d: the sizes hold more than 2^40 elements (world included): not a case to run",
			      path, r->size_line);
	}
	return SC_OK;
}

#undef FAIL_

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
	SC_CHECK_GOTO(read_record(text, len, path, r, e), st, out);
	SC_CHECK_GOTO(build_target(path, r, t, e), st, out);
	if (!sc_property_find(r->property)->applies(t)) {
		st = SC_ERR(e, SC_E_SPEC, "%s:%d: property '%s' does not apply to %s", path, r->key_line[3], r->property,
			    t->name);
		goto out;
	}
	SC_CHECK_GOTO(read_sizes(path, r, t, e), st, out);
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
	FILE *f = fopen(path, "r");
	if (!f)
		return SC_ERR(e, SC_E_IO, "%s: cannot open: %s", path, strerror(errno));
	char *text = malloc(CASE_MAX_BYTES + 1);
	if (!text) {
		fclose(f);
		return SC_ERR(e, SC_E_NOMEM, "out of memory");
	}
	const size_t len = fread(text, 1, CASE_MAX_BYTES + 1, f);
	fclose(f);
	enum sc_status st = len > CASE_MAX_BYTES
				    ? SC_ERR(e, SC_E_SPEC, "%s:1: larger than %d bytes: not a case file", path, CASE_MAX_BYTES)
				    : sc_casefile_parse(text, len, path, t, e);
	free(text);
	return st;
}
