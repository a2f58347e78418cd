/* sc_suggest: the closest known name to a misspelt one (sc_suggest.h). */
#include "sc_suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define MAX_LEN 63

int sc_suggest_distance(const char *a, const char *b, int cap)
{
	const int la = (int)strlen(a), lb = (int)strlen(b);
	if (la > MAX_LEN || lb > MAX_LEN || la - lb > cap || lb - la > cap)
		return cap + 1;
	/* d[i][j]: a's first i characters against b's first j */
	int d[MAX_LEN + 1][MAX_LEN + 1];
	for (int i = 0; i <= la; i++)
		d[i][0] = i;
	for (int j = 0; j <= lb; j++)
		d[0][j] = j;
	for (int i = 1; i <= la; i++) {
		int row_min = cap + 1;
		for (int j = 1; j <= lb; j++) {
			const int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			int v = d[i - 1][j - 1] + (ca != cb);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1; /* two neighbours swapped */
			d[i][j] = v;
			if (v < row_min)
				row_min = v;
		}
		if (row_min > cap)
			return cap + 1;
	}
	return d[la][lb] <= cap ? d[la][lb] : cap + 1;
}

/* The most edits a slip of a word of this length makes. */
static int slip(const char *word)
{
	const size_t n = strlen(word);
	return n <= 4 ? 1 : n <= 8 ? 2 : 3;
}

void sc_suggest_init(struct sc_suggest *s, const char *word)
{
	s->word = word ? word : "";
	s->best = NULL;
	s->dist = slip(s->word) + 1;
}

void sc_suggest_add(struct sc_suggest *s, const char *name)
{
	if (!name || !*name || strcmp(name, s->word) == 0)
		return;
	const int d = sc_suggest_distance(s->word, name, s->dist - 1);
	if (d < s->dist) {
		s->dist = d;
		s->best = name;
	}
}

const char *sc_suggest_best(const struct sc_suggest *s) { return s->best; }

const char *sc_suggest_hint(const struct sc_suggest *s, char *buf, size_t n)
{
	if (!s->best)
		snprintf(buf, n, "%s", "");
	else
		snprintf(buf, n, " (did you mean '%s'?)", s->best);
	return buf;
}
