// Nothing to compile: the module only declares LLVMFuzzerRunDriver, which the libFuzzer runtime defines.
#include "CFuzzer.h"
