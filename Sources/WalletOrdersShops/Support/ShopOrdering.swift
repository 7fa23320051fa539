/// The order fulfillments are listed in, the same for every mapping of one payload: by identifier, numbers inside it
/// compared as numbers (`shopify-9` before `shopify-10`), so that platforms' ids, which grow, list oldest first.
enum ShopOrdering {
    /// Whether `a` comes before `b`; nil comes last.
    static func precedes(_ a: String?, _ b: String?) -> Bool {
        guard let a else { return false }
        guard let b else { return true }
        let (x, y) = (split(a), split(b))
        if x.prefix != y.prefix { return x.prefix < y.prefix }
        if let m = x.number, let n = y.number, m != n { return m < n }
        return a < b
    }

    /// `text` as the part before its trailing digits and those digits as a number (nil without them, or too many).
    private static func split(_ text: String) -> (prefix: Substring, number: Int?) {
        let digits = text.reversed().prefix { $0.isASCII && $0.isNumber }.count
        let prefix = text.dropLast(digits)
        return (prefix, digits > 0 && digits <= 18 ? Int(text.suffix(digits)) : nil)
    }
}
