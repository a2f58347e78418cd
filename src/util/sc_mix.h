/* sc_mix: the one 64-bit mixer (splitmix64), for seeds, value encodings
 * and PRNG streams, on the host and in CUDA kernels. */
#ifndef SC_MIX_H
#define SC_MIX_H

#include <stdint.h>

#if defined(__CUDACC__)
#define SC_HD __host__ __device__
#else
#define SC_HD
#endif

/* splitmix64's finalizer: a bijection on 64 bits with full avalanche. */
SC_HD static inline uint64_t sc_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* One splitmix64 step: advances *state by the golden gamma, returns the
 * mixed value (a PRNG stream, or a seed derived from another). */
SC_HD static inline uint64_t sc_mix_next(uint64_t *state)
{
	*state += 0x9e3779b97f4a7c15ULL;
	return sc_mix64(*state);
}

/* FNV-1a of a string: stable seeds from names (targets, properties). */
static inline uint64_t sc_mix_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

#endif
