import Foundation
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersTesting

// Builds and signs packages of the sample template in process, then does the same job with the `openssl cms -sign`
// and `zip` commands, and prints both with their ratio. Usage: package-benchmark [ITERATIONS]

let iterations = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 500
let commandIterations = max(20, iterations / 10)

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let keys = DevelopmentKeys.shared
let template = try OrderTemplate(directory: SampleOrder.templateFolder)
let builder = PackageBuilder(identity: keys.identity)
var order = SampleOrder.document()

// Warm up, and keep one package for the size line.
let sample = try builder.build(order: order, template: template, signingTime: Date())
var times: [Double] = []
for index in 0..<iterations {
    order["updatedAt"] = .string(RFC3339.format(Date(timeIntervalSince1970: 1_795_342_530 + Double(index))))
    let document = order
    times.append(try seconds { _ = try builder.build(order: document, template: template, signingTime: Date()) })
}
times.sort()
let ours = times.reduce(0, +) / Double(times.count)

// The same job with the command-line tools, each package in a fresh process set, as shell-scripted servers do.
let work = try TemporaryDirectory("bench")
for (path, data) in template.files { try work.write("files/\(path)", data) }
try work.write("files/order.json", order.withDefaults(template.defaults!).serialized)
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
let commandTotal = try seconds {
    let result = try Command.run("bash", ["-c", script])
    guard result.status == 0 else { fatalError("the command baseline failed: \(result.error)") }
}
let theirs = commandTotal / Double(commandIterations)

func ms(_ value: Double) -> String { String(format: "%.3f ms", value * 1000) }
print("package of the sample template (\(template.files.count + 3) files, \(sample.count) bytes)")
print("  wallet-orders PackageBuilder, in process: \(iterations) packages, mean \(ms(ours)), "
    + "median \(ms(times[times.count / 2])), p99 \(ms(times[Int(Double(times.count) * 0.99)])), "
    + String(format: "%.0f packages/s", 1 / ours))
print("  sha256sum + openssl cms -sign + zip commands: \(commandIterations) packages, mean \(ms(theirs)), "
    + String(format: "%.0f packages/s", 1 / theirs))
print(String(format: "  ratio: in-process is %.1fx faster", theirs / ours))
