/* sc_test: a minimal assertion harness; each suite ends with the line
 * "N passed, N failed" and exits nonzero on any failure (77 = skipped). */
#ifndef SC_TEST_H
#define SC_TEST_H

#include <stdio.h>

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

#endif
