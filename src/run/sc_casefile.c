/* sc_casefile: writer and parser of .case files. */
#include "sc_casefile.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sc_plugin.h"
#include "sc_property.h"

enum sc_status sc_casefile_format(struct sc_target *t, const char *property, const char *backend,
				  const struct sc_case *c, int expect, char *buf, size_t n,
				  struct sc_err *e)
{
	const struct sc_spec *s[SC_MAX_CHAIN];
	if (sc_target_specs(t, c, s, e) < 1)
		return e ? e->status : SC_E_INTERNAL;
	size_t k = 0;
#define P_(...) do { int w_ = snprintf(buf + k, k < n ? n - k : 0, __VA_ARGS__); if (w_ > 0) k += (size_t)w_; } while (0)
	P_("shardcheck-case %d\n", SC_CASEFILE_VERSION);
	if (t->kind == SC_TGT_CHAIN)
		P_("chain %s\n", t->name);
	else
		P_("target %s\n", t->name);
	if (t->kind == SC_TGT_PLUGIN && t->baseline && t->baseline_path[0])
		P_("baseline %s\n", t->baseline_path);
	P_("property %s\nbackend %s\nworld %d\nsizes", property, backend, c->world);
	for (int d = 0; d < c->ndims; d++)
		P_(" %s=%lld", s[0]->dim[d], (long long)c->sizes[d]);
	P_("\n");
	struct sc_case_param pa[SC_CASE_MAX_PARAMS];
	const int np = sc_case_params(t, c, pa);
	for (int i = 0; i < np; i++) {
		P_("%s%s=", i ? " " : "params ", pa[i].key);
		if (pa[i].is_op)
			P_("%s", sc_redop_name((enum sc_redop)pa[i].value));
		else
			P_("%d", pa[i].value);
	}
	if (np)
		P_(" ndims=%d\n", c->ndims);
	P_("dtype %s\nseed %llu\n", sc_dtype_name(c->dtype), (unsigned long long)c->seed);
	if (expect >= 0)
		P_("expect %s\n", expect ? "fail" : "pass");
#undef P_
	if (k >= n)
		return SC_ERR(e, SC_E_INTERNAL, "case file text too long");
	return SC_OK;
}

static int file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* Resolves a path written in a case file. */
static void resolve(const char *casepath, const char *p, char *out, size_t n)
{
	if (p[0] == '/' || file_exists(p)) {
		snprintf(out, n, "%s", p);
		return;
	}
	const char *slash = strrchr(casepath, '/');
	if (slash)
		snprintf(out, n, "%.*s/%s", (int)(slash - casepath), casepath, p);
	else
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

enum sc_status sc_casefile_load(const char *path, struct sc_target *t, struct sc_err *e)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return SC_ERR(e, SC_E_IO, "%s: cannot open: %s", path, strerror(errno));
	char line[2048], target[1024] = "", sizes[1024] = "", params[256] = "", property[32] = "",
	     backend[16] = "sim", baseline[1024] = "";
	int lineno = 0, is_chain = 0, have_world = 0, have_dtype = 0, expect = -1;
	int size_line = 0, params_line = 0;
	struct sc_case c;
	memset(&c, 0, sizeof c);
	enum sc_status st = SC_OK;
#define FAIL_(...) do { st = SC_ERR(e, SC_E_SPEC, __VA_ARGS__); goto out; } while (0)
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *s = trim(line);
		if (!*s)
			continue;
		char *sp = s + strcspn(s, " \t");
		char *val = *sp ? trim(sp + 1) : sp;
		*sp = '\0';
		if (lineno == 1 || (strcmp(s, "shardcheck-case") == 0)) {
			if (strcmp(s, "shardcheck-case") != 0)
				FAIL_("%s:%d: not a case file (first line must be 'shardcheck-case %d')", path,
				      lineno, SC_CASEFILE_VERSION);
			if (atoi(val) != SC_CASEFILE_VERSION)
				FAIL_("%s:%d: case file version %s is not supported (this version reads %d)",
				      path, lineno, val, SC_CASEFILE_VERSION);
			continue;
		}
		uint64_t u;
		char *end;
		if (strcmp(s, "target") == 0 || strcmp(s, "chain") == 0) {
			snprintf(target, sizeof target, "%s", val);
			is_chain = s[0] == 'c';
		} else if (strcmp(s, "baseline") == 0) {
			snprintf(baseline, sizeof baseline, "%s", val);
		} else if (strcmp(s, "property") == 0) {
			if (!sc_property_find(val))
				FAIL_("%s:%d: unknown property '%s'", path, lineno, val);
			snprintf(property, sizeof property, "%s", val);
		} else if (strcmp(s, "backend") == 0) {
			if (strlen(val) >= sizeof backend || !*val)
				FAIL_("%s:%d: unknown backend '%s'", path, lineno, val);
			snprintf(backend, sizeof backend, "%s", val);
		} else if (strcmp(s, "world") == 0) {
			long w = strtol(val, &end, 10);
			if (*end || w < 1 || w > SC_MAX_WORLD)
				FAIL_("%s:%d: world must be 1..%d, got '%s'", path, lineno, SC_MAX_WORLD, val);
			c.world = (int)w;
			have_world = 1;
		} else if (strcmp(s, "sizes") == 0) {
			snprintf(sizes, sizeof sizes, "%s", val);
			size_line = lineno;
		} else if (strcmp(s, "params") == 0) {
			snprintf(params, sizeof params, "%s", val);
			params_line = lineno;
		} else if (strcmp(s, "dtype") == 0) {
			if (sc_dtype_parse(val, &c.dtype))
				FAIL_("%s:%d: unknown dtype '%s'", path, lineno, val);
			have_dtype = 1;
		} else if (strcmp(s, "seed") == 0) {
			errno = 0;
			u = strtoull(val, &end, 10);
			if (errno || *end || !*val)
				FAIL_("%s:%d: bad seed '%s'", path, lineno, val);
			c.seed = u;
		} else if (strcmp(s, "expect") == 0) {
			if (strcmp(val, "fail") == 0)
				expect = 1;
			else if (strcmp(val, "pass") == 0)
				expect = 0;
			else
				FAIL_("%s:%d: expect must be 'fail' or 'pass'", path, lineno);
		} else {
			FAIL_("%s:%d: unknown key '%s'", path, lineno, s);
		}
	}
	if (lineno == 0)
		FAIL_("%s:1: empty case file", path);
	if (!target[0])
		FAIL_("%s:%d: missing 'target'", path, lineno + 1);
	if (!property[0])
		FAIL_("%s:%d: missing 'property'", path, lineno + 1);
	if (!have_world || !size_line || !have_dtype)
		FAIL_("%s:%d: missing %s", path, lineno + 1, !have_world ? "'world'" : !size_line ? "'sizes'" : "'dtype'");
	/* the target */
	if (is_chain) {
		char buf[1024], res[SC_MAX_CHAIN][1024];
		const char *paths[SC_MAX_CHAIN];
		int np = 0;
		snprintf(buf, sizeof buf, "%s", target);
		for (char *tok = strtok(buf, ","); tok && np < SC_MAX_CHAIN; tok = strtok(NULL, ",")) {
			resolve(path, tok, res[np], sizeof res[np]);
			paths[np] = res[np];
			np++;
		}
		if ((st = sc_target_chain(t, paths, np, e)) != SC_OK)
			goto out;
	} else if (strstr(target, ".so:")) {
		/* a plugin transform: LIB.so:NAME */
		char lib[1024], res[1100];
		const char *colon = strstr(target, ".so:") + 3;
		snprintf(lib, sizeof lib, "%.*s", (int)(colon - target), target);
		resolve(path, lib, res, sizeof res);
		struct sc_plugin_lib *pl = NULL, *bl = NULL;
		if ((st = sc_plugin_load(res, &pl, e)) != SC_OK)
			goto out;
		const struct sc_plugin_transform *tr = sc_plugin_find(pl, colon + 1), *bt = NULL;
		if (!tr) {
			sc_plugin_close(pl);
			FAIL_("%s: the plugin %s has no transform '%s'", path, res, colon + 1);
		}
		if (baseline[0]) {
			char bres[1100];
			resolve(path, baseline, bres, sizeof bres);
			if ((st = sc_plugin_load(bres, &bl, e)) != SC_OK) {
				sc_plugin_close(pl);
				goto out;
			}
			bt = sc_plugin_find(bl, colon + 1);
		}
		if ((st = sc_target_plugin(t, res, tr, bt, e)) != SC_OK) {
			sc_plugin_close(pl);
			sc_plugin_close(bl);
			goto out;
		}
		snprintf(t->name, sizeof t->name, "%.500s", target);
		t->own_lib = pl;
		t->own_baseline = bl;
		if (bl)
			snprintf(t->baseline_path, sizeof t->baseline_path, "%.500s", baseline);
	} else if (strncmp(target, "builtin:", 8) == 0) {
		enum sc_builtin b;
		if (sc_builtin_parse(target + 8, &b))
			FAIL_("%s: unknown builtin '%s'", path, target);
		if ((st = sc_target_builtin(t, b, e)) != SC_OK)
			goto out;
		if (!params_line)
			FAIL_("%s:%d: a built-in case needs 'params'", path, lineno + 1);
		char pb[256];
		snprintf(pb, sizeof pb, "%s", params);
		for (char *tok = strtok(pb, " "); tok; tok = strtok(NULL, " ")) {
			char *eq = strchr(tok, '=');
			if (!eq)
				FAIL_("%s:%d: expected KEY=VALUE in params", path, params_line);
			*eq++ = '\0';
			enum sc_status ps = sc_case_param_set(t, &c, tok, eq);
			if (ps == SC_E_SPEC)
				FAIL_("%s:%d: unknown op '%s'", path, params_line, eq);
			if (ps != SC_OK)
				FAIL_("%s:%d: unknown param '%s'", path, params_line, tok);
		}
	} else {
		char res[1024];
		resolve(path, target, res, sizeof res);
		if ((st = sc_target_from_spec_file(t, res, e)) != SC_OK)
			goto out;
	}
	{
		const struct sc_spec *s[SC_MAX_CHAIN];
		if (sc_target_specs(t, &c, s, e) < 1) {
			st = SC_E_SPEC;
			goto out;
		}
		c.ndims = s[0]->ndims;
		int seen[SC_MAX_DIMS] = {0};
		char sb[1024];
		snprintf(sb, sizeof sb, "%s", sizes);
		for (char *tok = strtok(sb, " "); tok; tok = strtok(NULL, " ")) {
			char *eq = strchr(tok, '=');
			if (!eq)
				FAIL_("%s:%d: expected NAME=SIZE in sizes", path, size_line);
			*eq++ = '\0';
			int d = -1;
			for (int k = 0; k < s[0]->ndims; k++)
				if (strcmp(s[0]->dim[k], tok) == 0)
					d = k;
			if (d < 0)
				FAIL_("%s:%d: '%s' is not a dim of %s", path, size_line, tok, t->name);
			char *vend;
			long long v = strtoll(eq, &vend, 10);
			if (*vend || v < 1)
				FAIL_("%s:%d: bad size '%s'", path, size_line, eq);
			c.sizes[d] = v;
			seen[d] = 1;
		}
		for (int d = 0; d < s[0]->ndims; d++)
			if (!seen[d])
				FAIL_("%s:%d: no size for dim '%s'", path, size_line, s[0]->dim[d]);
	}
	t->has_case = 1;
	t->fixed = c;
	t->expect = expect;
	snprintf(t->fixed_property, sizeof t->fixed_property, "%s", property);
	snprintf(t->fixed_backend, sizeof t->fixed_backend, "%s", backend);
	snprintf(t->case_path, sizeof t->case_path, "%s", path);
#undef FAIL_
out:
	fclose(f);
	return st;
}
