/* libFuzzer target: the input bytes are spec text. */
#include "sc_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return sc_fuzz_spec(data, size); }
