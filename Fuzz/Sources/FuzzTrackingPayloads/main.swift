import CFuzzer
import Foundation

// libFuzzer's driver with this target's function; libFuzzer's flags are the process's arguments.
var arguments = CommandLine.argc
var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &values, { fuzzTrackingPayloads($0, $1) }))
