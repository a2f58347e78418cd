/* libFuzzer target: the input bytes are the choice stream of a case. */
#include "sc_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return sc_fuzz_case(data, size); }
