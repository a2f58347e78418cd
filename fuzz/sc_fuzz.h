/* sc_fuzz: the fuzzing entry points, shared by the libFuzzer targets and
 * the replay driver (so the fuzz corpus is a regression suite in every
 * build). Both return 0; a bug in shardcheck or a built-in transform is an
 * abort() with the decoded case on stderr, or a sanitizer report. */
#ifndef SC_FUZZ_H
#define SC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Bytes are the choice stream: a target (a built-in, or a correct spec
 * compiled in), then a case; every property must hold. */
int sc_fuzz_case(const uint8_t *data, size_t size);
/* Bytes are spec text: parse; when it parses, run a few small cases of
 * every property. Findings of the spec are fine; crashes, leaks, hangs and
 * sanitizer reports are bugs. */
int sc_fuzz_spec(const uint8_t *data, size_t size);
/* Bytes are the text of a .case file: parse it (as if it were in the
 * working directory); when it parses, run its case once (sim, small
 * buffers). Plugin targets are not loaded. Refusals are fine; crashes,
 * leaks, hangs and sanitizer reports are bugs. */
int sc_fuzz_casefile(const uint8_t *data, size_t size);

#endif
