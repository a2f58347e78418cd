/* sc_choice: PRNG and byte-string choice streams. */
#include "sc_choice.h"

void sc_choices_prng(struct sc_choices *c, uint64_t seed)
{
	c->prng = 1;
	c->state = seed;
	c->bytes = 0;
	c->len = c->pos = 0;
}

void sc_choices_bytes(struct sc_choices *c, const uint8_t *bytes, size_t len)
{
	c->prng = 0;
	c->state = 0;
	c->bytes = bytes;
	c->len = len;
	c->pos = 0;
}

uint64_t sc_choice(struct sc_choices *c, uint64_t n)
{
	if (n <= 1)
		return 0;
	uint64_t v;
	if (c->prng) {
		v = sc_mix_next(&c->state);
	} else {
		/* as many bytes as n needs, big-endian; missing bytes are 0 */
		v = 0;
		for (uint64_t m = n - 1; m; m >>= 8) {
			v = (v << 8) | (c->pos < c->len ? c->bytes[c->pos] : 0);
			c->pos++;
		}
	}
	return v % n;
}
