#ifndef WALLET_ORDERS_CFUZZER_H
#define WALLET_ORDERS_CFUZZER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (LLVM 12 and later), in the runtime that `-sanitize=fuzzer` links: parses libFuzzer's flags
/// from argc/argv and runs `callback` on each input. Called from the targets' own main, because SwiftPM gives an
/// executable its Swift main and libFuzzer's would never run.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
