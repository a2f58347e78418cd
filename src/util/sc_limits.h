/* sc_limits: the one definition of every size limit and provenance
 * sentinel, shared by the C library and the CUDA kernels. */
#ifndef SC_LIMITS_H
#define SC_LIMITS_H

#include <stdint.h>

#define SC_MAX_DIMS 8    /* dims of a tensor (global or local) */
#define SC_MAX_WORLD 256 /* ranks of a case */

/* Provenance values that are not a global index: an element no step
 * wrote (buffers are poisoned), one a reduction combined from different
 * elements, and padding (`pad`; every byte 0xFD, so a memset writes it).
 * Every value from SC_PROV_PAD up is one of these. */
#define SC_PROV_POISON UINT64_MAX
#define SC_PROV_MIXED (UINT64_MAX - 1)
#define SC_PROV_PAD_BYTE 0xFD
#define SC_PROV_PAD 0xFDFDFDFDFDFDFDFDULL
#define SC_PROV_IS_INDEX(g) ((uint64_t)(g) < SC_PROV_PAD)

/* On a loop over elements: no coverage instrumentation under libFuzzer
 * (its branches say nothing about the decisions a fuzzer should explore,
 * and they cost most of an execution). Not inlined: coverage is added
 * after inlining, and a loop inlined into an instrumented caller is
 * instrumented with it. */
#if defined(__clang__) && __clang_major__ >= 13
#define SC_ELEMENT_LOOP __attribute__((no_sanitize("coverage"), noinline))
#else
#define SC_ELEMENT_LOOP
#endif

#endif
