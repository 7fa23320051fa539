import Foundation

/// Whether a key an operator configured is hard enough to guess: at least 128 bits, counted as its length times
/// the bits each character can carry (4 for hex digits, 6 for base64's alphabet, otherwise the character classes
/// it uses), with no character filling more than a third of it and at least 8 different characters, which turns
/// away placeholders (`aaaaaaaaaaaaaaaaaaaaaaaaaaaa`, `changeme-changeme-changeme`). `openssl rand -hex 16` and
/// longer pass.
public enum KeyStrength {
    public static let minimumBits = 128.0

    /// The bits `key` carries by that count.
    public static func bits(_ key: String) -> Double {
        let scalars = Array(key.unicodeScalars)
        guard !scalars.isEmpty else { return 0 }
        let isHex = scalars.allSatisfy { $0.properties.isASCIIHexDigit }
        let base64 = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "+/-_="))
        let isBase64 = scalars.allSatisfy { $0.isASCII && base64.contains($0) }
        let perCharacter: Double
        if isHex {
            perCharacter = 4
        } else if isBase64 {
            perCharacter = 6
        } else {
            var alphabet = 0
            if scalars.contains(where: { ("a"..."z").contains($0) }) { alphabet += 26 }
            if scalars.contains(where: { ("A"..."Z").contains($0) }) { alphabet += 26 }
            if scalars.contains(where: { ("0"..."9").contains($0) }) { alphabet += 10 }
            if scalars.contains(where: { !(("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)) }) {
                alphabet += 33
            }
            perCharacter = log2(Double(max(alphabet, 2)))
        }
        return Double(scalars.count) * perCharacter
    }

    /// What is wrong with `key` as the `role` key (`the admin key`), or nil when it is strong enough.
    public static func problem(_ key: String, role: String) -> String? {
        let bits = bits(key)
        guard bits >= minimumBits else {
            return "\(role) carries about \(Int(bits)) bits; it needs at least \(Int(minimumBits)) "
                + "(32 random hex digits: openssl rand -hex 16)"
        }
        var counts: [Character: Int] = [:]
        for character in key { counts[character, default: 0] += 1 }
        if counts.count < 8 || (counts.values.max() ?? 0) * 3 > key.count {
            return "\(role) repeats its characters too much to be a random key (32 random hex digits: openssl rand -hex 16)"
        }
        return nil
    }

    /// The problems with the configured keys: each strong enough, and no key given two roles.
    public static func problems(merchantKeys: [String], adminKey: String?, operatorKey: String?) -> [String] {
        var problems: [String] = []
        var keys: [(role: String, name: String, key: String)] = merchantKeys.enumerated().map {
            ("merchant", merchantKeys.count == 1 ? "the merchant key" : "merchant key \($0.offset + 1)", $0.element)
        }
        if let adminKey { keys.append(("admin", "the admin key", adminKey)) }
        if let operatorKey { keys.append(("operator", "the operator key", operatorKey)) }
        for (_, name, key) in keys {
            if let problem = problem(key, role: name) { problems.append(problem) }
        }
        for (index, first) in keys.enumerated() {
            for second in keys[(index + 1)...] where first.key == second.key && first.role != second.role {
                problems.append("\(first.name) and \(second.name) are the same key: give each role a key of its own")
            }
        }
        return problems
    }
}
