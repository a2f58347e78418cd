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
/* Bytes are the text of a .case file (as if it were in the working
 * directory): it loads, or is refused with "fuzz.case:LINE: message"; one
 * that loads writes back as a case file that loads to the same text, and
 * its case runs once (sim, small buffers). Inputs naming a plugin library
 * or a device file are skipped: loading runs a library's code, reading a
 * device may not end. Crashes, leaks, hangs and sanitizer reports are
 * bugs too. */
int sc_fuzz_casefile(const uint8_t *data, size_t size);

#endif
