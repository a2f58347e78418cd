/* sc_test: a minimal assertion harness; each suite ends with the line
 * "N passed, N failed" and exits nonzero on any failure (77 = skipped). */
#ifndef SC_TEST_H
#define SC_TEST_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

static int sc_t_pass, sc_t_fail;

#define T_CHECK(cond, ...)                                                     \
	do {                                                                   \
		if (cond) {                                                    \
			sc_t_pass++;                                           \
		} else {                                                       \
			sc_t_fail++;                                           \
			fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                          \
			fprintf(stderr, "\n");                                 \
		}                                                              \
	} while (0)

#define T_DONE()                                                               \
	do {                                                                   \
		printf("%d passed, %d failed\n", sc_t_pass, sc_t_fail);        \
		return sc_t_fail ? 1 : 0;                                      \
	} while (0)

/* Calls fn(path, u) for every .sc file below dir (subfolders whose names
 * have no dot are walked too). */
static inline void sc_test_walk_specs(const char *dir, void (*fn)(const char *path, void *u), void *u)
{
	DIR *dd = opendir(dir);
	if (!dd)
		return;
	struct dirent *de;
	while ((de = readdir(dd))) {
		char path[1024];
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		size_t l = strlen(path);
		if (l < 3 || strcmp(path + l - 3, ".sc") != 0) {
			if (!strchr(de->d_name, '.'))
				sc_test_walk_specs(path, fn, u);
			continue;
		}
		fn(path, u);
	}
	closedir(dd);
}

#endif
