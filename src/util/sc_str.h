/* sc_str: the one string builder: a growable, always NUL-terminated
 * buffer. Out of memory is sticky: later appends are no-ops and
 * sc_str_take returns NULL, so callers check once, at the end. */
#ifndef SC_STR_H
#define SC_STR_H

#include <stddef.h>

struct sc_str {
	char *s;      /* NULL until the first append */
	size_t len, cap;
	int oom;
};

#define SC_STR_INIT {0, 0, 0, 0}

void sc_str_printf(struct sc_str *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
void sc_str_put(struct sc_str *b, const char *s);
/* s as a JSON string literal, quotes included (NULL: \"\"). */
void sc_str_json(struct sc_str *b, const char *s);
/* The text, "" when nothing was appended (never NULL unless out of memory). */
const char *sc_str_cstr(const struct sc_str *b);
/* Hands the buffer to the caller (free it); NULL when out of memory.
 * The builder is empty afterwards. */
char *sc_str_take(struct sc_str *b);
void sc_str_free(struct sc_str *b); /* NULL-safe */

#endif
