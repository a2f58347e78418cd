/* sc_choice: the stream of choices every case is decoded from.
 *
 * A stream is a seeded PRNG (property runs) or a byte string (libFuzzer,
 * replay). Like FuzzedDataProvider, an exhausted byte stream never fails:
 * it yields 0, so an empty or all-zero stream decodes to the smallest
 * valid case. */
#ifndef SC_CHOICE_H
#define SC_CHOICE_H

#include <stddef.h>
#include <stdint.h>

#include "sc_mix.h"

struct sc_choices {
	int prng;
	uint64_t state;
	const uint8_t *bytes;
	size_t len, pos;
};

void sc_choices_prng(struct sc_choices *c, uint64_t seed);
void sc_choices_bytes(struct sc_choices *c, const uint8_t *bytes, size_t len);
/* A value in [0, n); n == 0 or 1 gives 0. */
uint64_t sc_choice(struct sc_choices *c, uint64_t n);

#endif
