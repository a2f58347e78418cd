/* sc_suggest: "did you mean" for a misspelt name (an option, a step, a
 * property, a backend, a command, a dtype): the known name closest to the
 * word typed, when it is close enough to be a slip of the keyboard.
 *
 *     struct sc_suggest s;
 *     sc_suggest_init(&s, word);
 *     for (each known name) sc_suggest_add(&s, name);
 *     ... "unknown step '%s'%s", word, sc_suggest_hint(&s, buf, sizeof buf)
 */
#ifndef SC_SUGGEST_H
#define SC_SUGGEST_H

#include <stddef.h>

struct sc_suggest {
	const char *word;
	const char *best; /* the closest so far (NULL: none close enough) */
	int dist;
};

void sc_suggest_init(struct sc_suggest *s, const char *word);
/* Considers one known name (kept by pointer: it must outlive s). */
void sc_suggest_add(struct sc_suggest *s, const char *name);
/* The closest known name within the slip distance (1 edit for names of up
 * to 4 characters, 2 up to 8, 3 beyond; an edit inserts, deletes or
 * replaces a character, or swaps two neighbours; case is ignored), or
 * NULL. */
const char *sc_suggest_best(const struct sc_suggest *s);
/* " (did you mean 'NAME'?)", or "" when there is none; buf holds it. */
const char *sc_suggest_hint(const struct sc_suggest *s, char *buf, size_t n);

/* Edit distance between a and b as above (optimal string alignment),
 * capped at cap + 1 (names longer than 63 characters: cap + 1). */
int sc_suggest_distance(const char *a, const char *b, int cap);

#endif
