/* sc_limits: the one definition of every size limit and provenance
 * sentinel, shared by the C library and the CUDA kernels. */
#ifndef SC_LIMITS_H
#define SC_LIMITS_H

#include <stdint.h>

#define SC_MAX_DIMS 8    /* dims of a tensor (global or local) */
#define SC_MAX_WORLD 256 /* ranks of a case */

/* Provenance values that are not a global index: an element no step
 * wrote (buffers are poisoned), and one a reduction combined from
 * different elements. */
#define SC_PROV_POISON UINT64_MAX
#define SC_PROV_MIXED (UINT64_MAX - 1)

#endif
