import Foundation
import WalletOrdersModel

/// The files a package of the fuzzed order holds, so that file references are checked too.
let packageFiles: Set<String> = [
    "logo.png", "logo@2x.png", "en.lproj/mug.png", "fr.lproj/mug.png", "label.pdf", "en.lproj/order.strings",
]

/// One input: any bytes as order.json.
///
/// Properties besides not crashing: serialization is readable and a fixed point after one round (equal orders
/// give equal bytes, which signed packages depend on); validation gives the same verdict twice.
func fuzzOrderValidator(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let data = Data(bytes: bytes, count: count)
    guard let json = try? JSONValue.parse(data) else { return 0 }
    let compact = json.serialized()
    guard let reread = try? JSONValue.parse(compact) else {
        fatalError("serialized JSON does not parse: \(String(decoding: compact, as: UTF8.self))")
    }
    precondition(reread.serialized() == compact, "serialization is not a fixed point")
    precondition(json.serialized(pretty: true) == reread.serialized(pretty: true), "pretty serialization differs")
    let validation = OrderValidator.validate(json, files: packageFiles)
    let again = OrderValidator.validate(reread, files: packageFiles)
    precondition(validation.problems == again.problems, "the verdict changed after a round trip")
    _ = OrderValidator.validate(json, files: nil, allowHTTPWebService: true)
    if let document = try? OrderDocument(json) {
        _ = document.serialized
        if validation.problems.isEmpty { _ = try? document.typed() }
    }
    return 0
}
