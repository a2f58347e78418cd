/* sc_str: growable string builder. */
#include "sc_str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(struct sc_str *b, size_t need)
{
	if (b->s && b->len + need < b->cap)
		return 1;
	size_t nc = b->cap ? b->cap * 2 : 256;
	while (nc < b->len + need + 1)
		nc *= 2;
	char *ns = realloc(b->s, nc);
	if (!ns) {
		b->oom = 1;
		return 0;
	}
	if (!b->s)
		ns[0] = '\0';
	b->s = ns;
	b->cap = nc;
	return 1;
}

void sc_str_printf(struct sc_str *b, const char *fmt, ...)
{
	if (b->oom)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		if (!grow(b, (size_t)n))
			return;
	}
}

void sc_str_put(struct sc_str *b, const char *s)
{
	size_t n = strlen(s);
	if (b->oom || !grow(b, n))
		return;
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void sc_str_json(struct sc_str *b, const char *s)
{
	sc_str_put(b, "\"");
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			sc_str_printf(b, "\\%c", c);
		else if (c == '\n')
			sc_str_put(b, "\\n");
		else if (c < 0x20)
			sc_str_printf(b, "\\u%04x", c);
		else
			sc_str_printf(b, "%c", c);
	}
	sc_str_put(b, "\"");
}

const char *sc_str_cstr(const struct sc_str *b)
{
	if (b->oom)
		return NULL;
	return b->s ? b->s : "";
}

char *sc_str_take(struct sc_str *b)
{
	char *s = NULL;
	if (!b->oom)
		s = b->s ? b->s : calloc(1, 1);
	else
		free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
	return s;
}

void sc_str_free(struct sc_str *b)
{
	if (!b)
		return;
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}
