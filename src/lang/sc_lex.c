/* sc_lex: tokens and the primitive parsers. */
#include "sc_lex.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum sc_status sc_lex_err(struct sc_parse *p, int col, const char *fmt, ...)
{
	char msg[SC_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return SC_ERR(p->e, SC_E_SPEC, "%s:%d:%d: %s", p->path, p->line, col, msg);
}

/* A number at c: an integer, or a real with a fraction and/or an exponent;
 * *len is its length. */
static enum sc_status lex_number(struct sc_parse *p, const char *c, int col, struct sc_tok *t, size_t *len)
{
	size_t n = 0;
	int real = 0;
	while (isdigit((unsigned char)c[n]))
		n++;
	if (c[n] == '.' && c[n + 1] != '.') { /* `1..4` is a range */
		real = 1;
		n++;
		while (isdigit((unsigned char)c[n]))
			n++;
	}
	if (c[n] == 'e' || c[n] == 'E') {
		size_t k = n + 1;
		if (c[k] == '+' || c[k] == '-')
			k++;
		if (!isdigit((unsigned char)c[k]))
			return sc_lex_err(p, col, "malformed number '%.*s' (an exponent needs digits)", (int)k, c);
		while (isdigit((unsigned char)c[k]))
			k++;
		n = k;
		real = 1;
	}
	if (isalnum((unsigned char)c[n]) || c[n] == '_' || (c[n] == '.' && c[n + 1] != '.')) {
		size_t k = n;
		while (isalnum((unsigned char)c[k]) || c[k] == '_' || c[k] == '.')
			k++;
		return sc_lex_err(p, col, "malformed number '%.*s'", (int)k, c);
	}
	char buf[SC_NAME_MAX];
	if (n >= sizeof buf)
		return sc_lex_err(p, col, "number too long");
	memcpy(buf, c, n);
	buf[n] = '\0';
	errno = 0;
	if (real) {
		t->kind = SC_T_REAL;
		t->real = strtod(buf, NULL);
		if (errno == ERANGE || !isfinite(t->real))
			return sc_lex_err(p, col, "number '%s' out of range", buf);
	} else {
		t->kind = SC_T_NUM;
		t->num = strtoll(buf, NULL, 10);
		if (errno == ERANGE)
			return sc_lex_err(p, col, "integer too large");
		t->real = (double)t->num;
	}
	snprintf(t->text, sizeof t->text, "%s", buf);
	*len = n;
	return SC_OK;
}

enum sc_status sc_lex_tokenize(struct sc_parse *p, const char *line)
{
	p->nt = 0;
	p->pos = 0;
	p->arg_mode = p->depth = 0;
	memset(p->bound, 0, sizeof p->bound);
	p->nsums = 0;
	const char *c = line;
	int space = 1;
	while (*c && *c != '#' && *c != '\n') {
		int col = (int)(c - line) + 1;
		if (isspace((unsigned char)*c)) {
			c++;
			space = 1;
			continue;
		}
		if (p->nt >= SC_LEX_MAX_TOKS - 1)
			return sc_lex_err(p, col, "line too long (more than %d tokens)", SC_LEX_MAX_TOKS - 1);
		struct sc_tok *t = &p->t[p->nt];
		t->col = col;
		t->space = space;
		space = 0;
		if (isalpha((unsigned char)*c) || *c == '_') {
			size_t n = 0;
			while (isalnum((unsigned char)c[n]) || c[n] == '_')
				n++;
			if (n >= SC_NAME_MAX)
				return sc_lex_err(p, col, "name too long (at most %d characters)", SC_NAME_MAX - 1);
			t->kind = SC_T_NAME;
			memcpy(t->text, c, n);
			t->text[n] = '\0';
			c += n;
		} else if (isdigit((unsigned char)*c) || (*c == '.' && isdigit((unsigned char)c[1]))) {
			size_t n = 0;
			SC_CHECK(lex_number(p, c, col, t, &n));
			c += n;
		} else {
			static const char *const two[] = {"//", "..", "==", "!=", "<=", ">="};
			int n = 0;
			for (size_t k = 0; k < sizeof two / sizeof two[0]; k++)
				if (c[0] == two[k][0] && c[1] == two[k][1])
					n = 2;
			if (!n) {
				if (!strchr("+-*/%()[],=<>:", *c))
					return sc_lex_err(p, col, "unexpected character '%c'", *c);
				n = 1;
			}
			t->kind = SC_T_OP;
			memcpy(t->text, c, (size_t)n);
			t->text[n] = '\0';
			c += n;
		}
		p->nt++;
	}
	p->t[p->nt].kind = SC_T_END;
	p->t[p->nt].space = 1;
	p->t[p->nt].text[0] = '\0';
	p->t[p->nt].col = (int)(c - line) + 1;
	return SC_OK;
}

int sc_lex_is_op(const struct sc_tok *t, const char *op)
{
	return t->kind == SC_T_OP && strcmp(t->text, op) == 0;
}

enum sc_status sc_lex_end(struct sc_parse *p)
{
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind != SC_T_END)
		return sc_lex_err(p, t->col, "unexpected '%s' at end of line", t->text);
	return SC_OK;
}

int sc_lex_dim(const struct sc_spec *s, const char *name)
{
	for (int i = 0; i < s->ndims; i++)
		if (strcmp(s->dim[i], name) == 0)
			return i;
	return -1;
}

int sc_lex_mesh_dim(const struct sc_spec *s, const char *name)
{
	for (int m = 0; m < s->nmesh; m++)
		if (strcmp(s->mesh_dim[m], name) == 0)
			return m;
	return -1;
}

int sc_lex_mesh_sym(const struct sc_spec *s, const char *name)
{
	for (int m = 0; m < s->nmesh; m++)
		if (s->mesh_sym[m][0] && strcmp(s->mesh_sym[m], name) == 0)
			return m;
	return -1;
}

enum sc_status sc_lex_mesh_group(struct sc_parse *p, struct sc_mesh_group *g)
{
	const struct sc_spec *s = p->s;
	g->n = 0;
	uint32_t seen = 0;
	for (;;) {
		struct sc_tok *t = sc_lex_peek(p);
		if (t->kind != SC_T_NAME)
			return sc_lex_err(p, t->col, "expected a mesh dim name, got '%s'", t->text);
		const int m = sc_lex_mesh_dim(s, t->text);
		if (m < 0)
			return sc_lex_err(p, t->col, s->nmesh ? "unknown mesh dim '%s'" : "unknown mesh dim '%s' (declare 'mesh' first)",
					  t->text);
		if ((seen >> m) & 1u)
			return sc_lex_err(p, t->col, "mesh dim '%s' appears twice in the group", t->text);
		seen |= 1u << m;
		g->dim[g->n++] = m;
		p->pos++;
		if (!sc_lex_is_op(sc_lex_peek(p), ",") || sc_lex_peek(p)->space)
			return SC_OK;
		p->pos++;
	}
}

/* A signed integer literal (dim indices of steps). */
enum sc_status sc_lex_int(struct sc_parse *p, const char *what, int *out)
{
	struct sc_tok *t = sc_lex_peek(p);
	int neg = 0, col = t->col;
	if (sc_lex_is_op(t, "-")) {
		neg = 1;
		p->pos++;
		t = sc_lex_peek(p);
	}
	if (t->kind != SC_T_NUM) {
		if (t->kind == SC_T_END)
			return sc_lex_err(p, t->col, "expected %s (an integer)", what);
		return sc_lex_err(p, t->col, "expected %s (an integer), got '%s'", what, t->text);
	}
	if (t->num > 64)
		return sc_lex_err(p, col, "%s %s%lld out of range", what, neg ? "-" : "", (long long)t->num);
	p->pos++;
	*out = neg ? -(int)t->num : (int)t->num;
	return SC_OK;
}

/* key=INT */
enum sc_status sc_lex_kv_int(struct sc_parse *p, const char *key, int *out)
{
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind != SC_T_NAME || strcmp(t->text, key) != 0) {
		if (t->kind == SC_T_END)
			return sc_lex_err(p, t->col, "expected '%s='", key);
		return sc_lex_err(p, t->col, "expected '%s=', got '%s'", key, t->text);
	}
	p->pos++;
	if (!sc_lex_is_op(sc_lex_peek(p), "="))
		return sc_lex_err(p, sc_lex_peek(p)->col, "expected '=' after '%s'", key);
	p->pos++;
	return sc_lex_int(p, key, out);
}

enum sc_status sc_lex_redop(struct sc_parse *p, enum sc_redop *op)
{
	struct sc_tok *t = sc_lex_peek(p);
	if (t->kind != SC_T_NAME)
		return sc_lex_err(p, t->col, "expected a reduction op (sum, max, min, prod)");
	if (sc_redop_parse(t->text, op) != 0)
		return sc_lex_err(p, t->col, "unknown reduction op '%s' (expected sum, max, min or prod)", t->text);
	p->pos++;
	return SC_OK;
}
