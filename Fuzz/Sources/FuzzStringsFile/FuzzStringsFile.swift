import Foundation
import WalletOrdersModel

/// A strings file that agrees with most fuzzed ones on nothing, so that the localization check has work to do.
let otherLocalization = Data("\"MERCHANT_NAME\" = \"Exemple\";\n\"ITEM_MUG\" = \"Tasse\";\n".utf8)

/// One input: any bytes as an order.strings file.
///
/// Properties besides not crashing: a file that reads is written back (every key and value quoted, `"` and `\`
/// escaped, NUL as `\U0000`) and reads again to the same strings in the same order.
func fuzzStringsFile(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let data = Data(bytes: bytes, count: count)
    _ = Localizations.problems(in: ["en.lproj/order.strings": data, "fr.lproj/order.strings": otherLocalization])
    guard let file = try? StringsFile(data: data) else { return 0 }
    precondition(file.keys.count == file.strings.count, "keys and strings disagree")
    var text = ""
    for key in file.keys {
        text += "\(quoted(key)) = \(quoted(file.strings[key]!));\n"
    }
    let written = Data(text.utf8)
    let reread: StringsFile
    do {
        reread = try StringsFile(data: written)
    } catch {
        fatalError("a written strings file does not read: \(error)\n\(text)")
    }
    precondition(reread.keys == file.keys && reread.strings == file.strings, "the strings changed on a round trip")
    return 0
}

func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\u{0}": out += "\\U0000"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
