/* libFuzzer target: the input bytes are the text of a .case file. */
#include "sc_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return sc_fuzz_casefile(data, size); }
