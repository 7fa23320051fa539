import Foundation
import Synchronization
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersTesting

// Builds and signs packages of the sample template in process, on one thread and then on every core, and sets
// each figure beside `openssl speed rsa2048` from the same run: one RSA-2048 signature is the floor of a package.
// Then does the same job with the `sha256sum`, `openssl cms -sign` and `zip` commands.
// Usage: package-benchmark [ITERATIONS] [SECONDS]
//        package-benchmark profile [ITERATIONS]: builds packages and nothing else, for `perf record` or callgrind.

let profiling = CommandLine.arguments.dropFirst().first == "profile"
let arguments = Array(CommandLine.arguments.dropFirst(profiling ? 2 : 1))
let iterations = arguments.first.flatMap(Int.init) ?? 2000
let seconds = arguments.dropFirst().first.flatMap(Double.init) ?? 5
let commandIterations = max(20, iterations / 40)
let cores = ProcessInfo.processInfo.activeProcessorCount

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// CPU time (user and system) of the calling thread, in seconds.
func threadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func ms(_ value: Double) -> String { String(format: "%.3f ms", value * 1000) }

let keys = DevelopmentKeys.shared
let template = try OrderTemplate(directory: SampleOrder.templateFolder)
let builder = PackageBuilder(identity: keys.identity)

/// The sample order at its `index`th update, as the service signs one per update.
func order(_ index: Int) -> OrderDocument {
    var order = SampleOrder.document()
    order["updatedAt"] = .string(RFC3339.format(Date(timeIntervalSince1970: 1_795_342_530 + Double(index))))
    return order
}

if profiling {
    for index in 0..<iterations { _ = try builder.build(order: order(index), template: template, signingTime: Date()) }
    exit(0)
}

// Warm up, and keep one package for the size line.
let sample = try builder.build(order: order(0), template: template, signingTime: Date())
for index in 0..<50 { _ = try builder.build(order: order(index), template: template, signingTime: Date()) }

// One thread: wall time of each package, and the thread's CPU time over all of them.
let orders = (0..<iterations).map(order)
var times: [Double] = []
times.reserveCapacity(iterations)
let cpuStart = threadCPUTime()
for document in orders {
    let start = now()
    _ = try builder.build(order: document, template: template, signingTime: Date())
    times.append(Double(now() - start) / 1e9)
}
let cpuPerPackage = (threadCPUTime() - cpuStart) / Double(iterations)
times.sort()
let mean = times.reduce(0, +) / Double(times.count)
let median = times[times.count / 2]
let p99 = times[min(times.count - 1, Int(Double(times.count) * 0.99))]

// Every core: one builder shared by `cores` threads, as the service signs outside any lock, for `seconds`.
let built = Atomic<Int>(0)
let deadline = now() + UInt64(seconds * 1e9)
let parallelStart = now()
DispatchQueue.concurrentPerform(iterations: cores) { thread in
    var count = 0
    while now() < deadline {
        guard
            (try? builder.build(order: order(thread * 1_000_000 + count), template: template, signingTime: Date()))
                != nil
        else { fatalError("a package failed to build") }
        count += 1
    }
    built.wrappingAdd(count, ordering: .relaxed)
}
let parallelRate = Double(built.load(ordering: .relaxed)) / (Double(now() - parallelStart) / 1e9)

/// What `openssl speed` reports for RSA-2048 signing: seconds per signature and signatures per second.
func opensslSpeed(_ arguments: [String]) throws -> (seconds: Double, perSecond: Double) {
    let result = try Command.runBlocking("openssl", ["speed", "-seconds", String(Int(seconds))] + arguments + ["rsa2048"])
    guard result.status == 0,
        let line = result.output.split(separator: "\n").last(where: { $0.hasPrefix("rsa 2048 bits") })
    else { fatalError("openssl speed failed: \(result.error)") }
    // rsa 2048 bits 0.000243s 0.000016s   4111.7  61530.7
    let fields = line.split(separator: " ").dropFirst(3)
    guard fields.count >= 3, let time = Double(fields[fields.startIndex].dropLast()),
        let rate = Double(fields[fields.startIndex + 2])
    else { fatalError("cannot read openssl speed's line: \(line)") }
    return (time, rate)
}
let opensslCPU = try opensslSpeed([])
let opensslWall = try opensslSpeed(["-elapsed"])
let opensslMulti = try opensslSpeed(["-multi", String(cores)])
let opensslMultiWall = try opensslSpeed(["-multi", String(cores), "-elapsed"])

// The same job with the command-line tools, each package in a fresh process set, as shell-scripted servers do.
let work = try TemporaryDirectory("bench")
for (path, data) in template.files { try work.write("files/\(path)", data) }
try work.write("files/order.json", order(0).withDefaults(template.defaults!).serialized)
let names = (["order.json"] + template.files.keys.sorted()).joined(separator: " ")
let script = """
    set -e
    cd "\(work.path("files"))"
    for i in $(seq \(commandIterations)); do
      sha256sum \(names) | awk 'BEGIN{printf "{"} {printf "%s\\"%s\\":\\"%s\\"", (NR>1?",":""), $2, $1} END{printf "}"}' > manifest.json
      openssl cms -sign -binary -nosmimecap -md sha256 -outform DER -in manifest.json -out signature \\
        -signer "\(keys.certificatePath)" -inkey "\(keys.keyPath)" -certfile "\(keys.wwdrPath)"
      rm -f ../out.order
      zip -q -X ../out.order \(names) manifest.json signature
    done
    """
let commandStart = now()
let commandResult = try Command.runBlocking("bash", ["-c", script])
guard commandResult.status == 0 else { fatalError("the command baseline failed: \(commandResult.error)") }
let theirs = Double(now() - commandStart) / 1e9 / Double(commandIterations)

// Besides its package, an update parses the order's stored document: our reader beside JSONDecoder, which it replaced.
let stored = order(0).withDefaults(template.defaults!).json.serialized()
func parseTime(_ parse: (Data) throws -> JSONValue) throws -> Double {
    let rounds = 20_000
    let start = now()
    for _ in 0..<rounds { _ = try parse(stored) }
    return Double(now() - start) / 1e9 / Double(rounds)
}
var readerTimes: [Double] = []
var decoderTimes: [Double] = []
for _ in 0..<3 {
    readerTimes.append(try parseTime { try JSONValue.parse($0) })
    decoderTimes.append(try parseTime { try JSONDecoder().decode(JSONValue.self, from: $0) })
}
let readerTime = readerTimes.min()!
let decoderTime = decoderTimes.min()!

let load =
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
    .joined(separator: " ") ?? "unknown"
print(
    "package of the sample template (\(template.files.count + 3) files, \(sample.count) bytes); "
        + "\(cores) cores, load average \(load)"
)
print(
    "  one thread, \(iterations) packages: mean \(ms(mean)), median \(ms(median)), p99 \(ms(p99)) "
        + String(format: "(%.0f packages/s); ", 1 / mean) + "CPU time \(ms(cpuPerPackage)) per package"
)
print(
    "  openssl speed -seconds \(Int(seconds)) rsa2048, same run: \(ms(opensslCPU.seconds)) per signature "
        + "(user CPU time, its default), \(ms(opensslWall.seconds)) with -elapsed (wall time)"
)
print(
    String(
        format: "  package / signature: %.2fx in CPU time (against openssl's default); in wall time "
            + "(against -elapsed) %.2fx for the mean, %.2fx for the median",
        cpuPerPackage / opensslCPU.seconds,
        mean / opensslWall.seconds,
        median / opensslWall.seconds
    )
)
print(
    String(
        format: "  %d threads sharing one builder, %.0f s: %.0f packages/s; openssl speed -multi %d: %.0f "
            + "signatures/s (its default), %.0f with -elapsed; packages / signatures %.2f and %.2f",
        cores,
        seconds,
        parallelRate,
        cores,
        opensslMulti.perSecond,
        opensslMultiWall.perSecond,
        parallelRate / opensslMulti.perSecond,
        parallelRate / opensslMultiWall.perSecond
    )
)
print(
    String(
        format: "  stored order document (%d bytes) parsed: %.1f µs, JSONDecoder %.1f µs (%.1fx); "
            + "best of 3 x 20,000",
        stored.count,
        readerTime * 1e6,
        decoderTime * 1e6,
        decoderTime / readerTime
    )
)
print(
    "  sha256sum + openssl cms -sign + zip commands: \(commandIterations) packages, mean \(ms(theirs)), "
        + String(format: "%.0f packages/s; in process is %.1fx faster (mean)", 1 / theirs, theirs / mean)
)
