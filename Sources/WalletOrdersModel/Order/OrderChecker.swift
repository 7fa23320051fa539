import Foundation

/// Walks one JSON object and collects every problem with its path, so a merchant sees them all at once.
///
/// A member set to null counts as left out. Each check here has its twin in Sources/WalletOrdersSchemas/order.schema.json; the two
/// are held to the same verdict by a test, so a change here needs the same change there.
struct OrderChecker {
    private(set) var problems: [OrderProblem] = []
    private(set) var warnings: [OrderProblem] = []
    /// Files the order refers to, with the path that refers to each.
    private(set) var fileReferences: [FileReference] = []
    /// Rules whose problems are left out.
    let skipping: Set<OrderRule>

    /// An image or attachment that order.json names.
    struct FileReference {
        let path: String
        let name: String
        /// Whether `name` is an image base name (`logo`) rather than a file name.
        let isBaseName: Bool
    }

    init(skipping: Set<OrderRule> = []) {
        self.skipping = skipping
    }

    mutating func report(_ path: String, _ message: String, rule: OrderRule? = nil) {
        if let rule, skipping.contains(rule) { return }
        problems.append(OrderProblem(path: path, message: message))
    }

    mutating func warn(_ path: String, _ message: String) {
        warnings.append(OrderProblem(path: path, message: message))
    }

    /// Limits on strings, counted in Unicode scalars (JSON Schema's `maxLength`).
    enum Length {
        static let text = 4_096
        static let name = 256
        static let code = 64
        static let url = 2_048
    }

    /// A view of one object at `path`.
    struct Object {
        let members: [String: JSONValue]
        let path: String

        func path(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

        /// Whether `key` holds something other than null.
        func has(_ key: String) -> Bool { members[key].map { $0 != .null } ?? false }
    }

    /// The object at `key`, reporting a missing required one or a wrong type.
    mutating func object(_ parent: Object, _ key: String, required: Bool = false) -> Object? {
        guard let value = value(parent, key, required: required) else { return nil }
        guard let members = value.objectValue else {
            report(parent.path(key), "must be an object, not \(value.typeName)")
            return nil
        }
        return Object(members: members, path: parent.path(key))
    }

    /// Each object of the array at `key`.
    mutating func objects(_ parent: Object, _ key: String, required: Bool = false) -> [Object] {
        var result: [Object] = []
        for (path, element) in array(parent, key, required: required) {
            guard let members = element.objectValue else {
                report(path, "must be an object, not \(element.typeName)")
                continue
            }
            result.append(Object(members: members, path: path))
        }
        return result
    }

    /// The elements of the array at `key`, each with its path.
    mutating func array(_ parent: Object, _ key: String, required: Bool = false) -> [(String, JSONValue)] {
        guard let value = value(parent, key, required: required) else { return [] }
        guard let elements = value.arrayValue else {
            report(parent.path(key), "must be an array, not \(value.typeName)")
            return []
        }
        return elements.enumerated().map { ("\(parent.path(key))[\($0.offset)]", $0.element) }
    }

    /// The string at `key`: not blank, at most `maxLength` characters. For what Apple requires (a title, a display
    /// name) and for strings that must hold a date, a URL or a name from a list.
    @discardableResult
    mutating func string(_ parent: Object, _ key: String, required: Bool = false, maxLength: Int = Length.text) -> String? {
        guard let value = value(parent, key, required: required) else { return nil }
        guard let text = check(value, at: parent.path(key), maxLength: maxLength) else { return nil }
        if Self.isBlank(text) {
            report(parent.path(key), "must not be empty")
            return nil
        }
        return text
    }

    /// The optional plain text at `key` (a subtitle, a postal code): at most `maxLength` characters. Apple's pages
    /// give these no minimum length, so an empty or blank one is accepted, with a warning.
    mutating func text(_ parent: Object, _ key: String, maxLength: Int = Length.text) {
        guard let value = value(parent, key, required: false) else { return }
        checkText(value, at: parent.path(key), maxLength: maxLength)
    }

    /// The array of plain texts at `key` (address lines), each checked as `text(_:_:maxLength:)` checks one.
    mutating func texts(_ parent: Object, _ key: String, maxLength: Int = Length.name) {
        for (path, element) in array(parent, key) {
            checkText(element, at: path, maxLength: maxLength)
        }
    }

    private mutating func checkText(_ value: JSONValue, at path: String, maxLength: Int) {
        guard let text = check(value, at: path, maxLength: maxLength), Self.isBlank(text) else { return }
        warn(path, (text.isEmpty ? "is empty" : "holds only white space") + "; Wallet has nothing to show: leave it out")
    }

    /// `value` as a string of at most `maxLength` characters, or nil with the problem reported.
    private mutating func check(_ value: JSONValue, at path: String, maxLength: Int) -> String? {
        guard let text = value.stringValue else {
            report(path, "must be a string, not \(value.typeName)")
            return nil
        }
        let length = text.unicodeScalars.count
        if length > maxLength {
            report(path, "is \(length) characters long; at most \(maxLength) are allowed")
            return nil
        }
        return text
    }

    /// Whether `text` holds nothing but Unicode white space (the White_Space property, listed out so that the
    /// schema's pattern can list the same).
    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
            default: false
            }
        }
    }

    /// The string at `key`, which must be one of `allowed`.
    @discardableResult
    mutating func oneOf(_ parent: Object, _ key: String, _ allowed: [String], required: Bool = false) -> String? {
        guard let text = string(parent, key, required: required) else { return nil }
        guard allowed.contains(text) else {
            report(parent.path(key), "\"\(text)\" is not one of \(allowed.joined(separator: ", "))")
            return nil
        }
        return text
    }

    /// The RFC 3339 date-time at `key`.
    @discardableResult
    mutating func date(_ parent: Object, _ key: String, required: Bool = false) -> Date? {
        guard let text = string(parent, key, required: required) else { return nil }
        guard let date = RFC3339.parseDateTime(text) else {
            report(parent.path(key), "\"\(text)\" is not an RFC 3339 date-time such as 2026-11-22T10:15:30Z")
            return nil
        }
        return date
    }

    /// The ISO 8601 duration at `key`.
    mutating func duration(_ parent: Object, _ key: String) {
        guard let text = string(parent, key, maxLength: Length.code) else { return }
        if !ISO8601Duration.isValid(text) {
            report(parent.path(key), "\"\(text)\" is not an ISO 8601 duration such as PT30M, PT2H or P1D")
        }
    }

    /// What a URL field may hold.
    enum URLKind {
        /// `webServiceURL`: https, which Wallet insists on (plain http only for a development server).
        case webService(allowHTTP: Bool)
        /// A link Wallet opens (Apple's `uri` fields): http or https; http gets a warning.
        case web
        /// An app's launch URL: any scheme, the app's own included (`myapp://orders/88`).
        case app
    }

    /// The absolute URL at `key`; true when it is good.
    @discardableResult
    mutating func url(_ parent: Object, _ key: String, _ kind: URLKind, required: Bool = false) -> Bool {
        let path = parent.path(key)
        guard let text = string(parent, key, required: required, maxLength: Length.url) else { return false }
        let scalars = Array(text.unicodeScalars)
        if scalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            report(path, "\"\(text)\" holds spaces or control characters, which a URL cannot")
            return false
        }
        switch kind {
        case .app:
            guard Self.hasScheme(scalars) else {
                report(path, "\"\(text)\" is not an absolute URL with a scheme, such as myapp://orders/88")
                return false
            }
        case .web, .webService:
            guard let secure = Self.isWebURL(scalars) else {
                report(path, "\"\(text)\" is not an http or https URL such as https://shop.example.com/orders/1001")
                return false
            }
            if case .webService(let allowHTTP) = kind, !secure, !allowHTTP {
                report(path, "must be an https URL: Wallet only talks to web services over https")
                return false
            }
            if case .web = kind, !secure {
                warn(path, "is plain http; https keeps the customer's connection private")
            }
        }
        return true
    }

    /// `scheme:rest`, the scheme a letter followed by letters, digits, `+`, `-` or `.`, the rest not empty.
    private static func hasScheme(_ scalars: [Unicode.Scalar]) -> Bool {
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        guard let colon = scalars.firstIndex(of: ":"), colon > 0, colon + 1 < scalars.count, isLetter(scalars[0])
        else { return false }
        return scalars[1..<colon].allSatisfy { scalar in
            isLetter(scalar) || ("0"..."9").contains(scalar) || scalar == "+" || scalar == "-" || scalar == "."
        }
    }

    /// For an `http://` or `https://` URL with a host (a name, or an IPv6 address in brackets), an optional
    /// user and port, then a path, query or fragment: whether it is https. Nil for anything else.
    private static func isWebURL(_ scalars: [Unicode.Scalar]) -> Bool? {
        func starts(with prefix: String) -> Bool {
            let expected = Array(prefix.unicodeScalars)
            return scalars.count >= expected.count
                && zip(scalars, expected).allSatisfy { scalar, lower in
                    scalar == lower || (("A"..."Z").contains(scalar) && scalar.value + 0x20 == lower.value)
                }
        }
        let secure: Bool
        if starts(with: "https://") {
            secure = true
        } else if starts(with: "http://") {
            secure = false
        } else {
            return nil
        }
        let start = secure ? 8 : 7
        let end = scalars[start...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? scalars.count
        var authority = scalars[start..<end]
        if let at = authority.firstIndex(of: "@") { authority = authority[(at + 1)...] }
        if authority.contains("@") { return nil }
        var port: ArraySlice<Unicode.Scalar>
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]"), close > authority.startIndex + 1,
                authority[(authority.startIndex + 1)..<close].allSatisfy({ $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." })
            else { return nil }
            port = authority[(close + 1)...]
        } else {
            let colon = authority.firstIndex(of: ":") ?? authority.endIndex
            let host = authority[..<colon]
            guard !host.isEmpty, !host.contains("["), !host.contains("]") else { return nil }
            port = authority[colon...]
        }
        if !port.isEmpty {
            guard port.first == ":", port.dropFirst().allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        }
        return secure
    }

    /// The largest whole number accepted: 15 digits, which every JSON reader holds exactly.
    static let largestInteger = 999_999_999_999_999

    /// The whole number at `key`, at least `minimum`.
    @discardableResult
    mutating func integer(_ parent: Object, _ key: String, required: Bool = false, minimum: Int = 0) -> Int? {
        guard let value = value(parent, key, required: required) else { return nil }
        guard let number = value.intValue else {
            report(parent.path(key), "must be a whole number, not \(value.typeName)")
            return nil
        }
        guard number <= Self.largestInteger else {
            report(parent.path(key), "must have at most 15 digits")
            return nil
        }
        guard number >= minimum else {
            report(parent.path(key), "must be at least \(minimum)")
            return nil
        }
        return number
    }

    /// The number at `key`, within `range` when one is given.
    mutating func number(_ parent: Object, _ key: String, required: Bool = false, in range: ClosedRange<Double>? = nil) {
        guard let value = value(parent, key, required: required) else { return }
        let number: Double
        switch value {
        case .int(let whole): number = Double(whole)
        case .double(let fraction): number = fraction
        default:
            report(parent.path(key), "must be a number, not \(value.typeName)")
            return
        }
        if let range, !range.contains(number) {
            report(parent.path(key), "must be a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
        }
    }

    /// The number above zero at `key`; fractions allowed (1.5 kg). A decimal string counts as the number it writes:
    /// Apple's "Creating the source for an order" writes `"quantity": "2"` where its LineItem page types a number.
    mutating func positiveNumber(_ parent: Object, _ key: String, required: Bool = false) {
        guard let value = value(parent, key, required: required) else { return }
        switch value {
        case .int(let whole) where whole > 0: break
        case .double(let fraction) where fraction > 0: break
        case .int, .double: report(parent.path(key), "must be greater than 0")
        case .string(let text):
            if let problem = Self.decimalProblem(text, example: "2") {
                report(parent.path(key), problem)
            } else if !Self.isPositiveDecimal(text) {
                report(parent.path(key), "must be greater than 0")
            }
        default: report(parent.path(key), "must be a number or a decimal string such as \"2\", not \(value.typeName)")
        }
    }

    private static func format(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
    }

    /// The boolean at `key`.
    mutating func boolean(_ parent: Object, _ key: String, required: Bool = false) {
        guard let value = value(parent, key, required: required) else { return }
        if case .bool = value { return }
        report(parent.path(key), "must be true or false, not \(value.typeName)")
    }

    /// The currency amount at `key`: `{"amount": "23.40", "currency": "EUR"}`.
    mutating func currencyAmount(_ parent: Object, _ key: String, required: Bool = false) {
        guard let money = object(parent, key, required: required) else { return }
        switch money.members["amount"] {
        case nil, .null?:
            report(money.path("amount"), "is required")
        case .int?, .double?:
            // Apple's CurrencyAmount page types the amount as a string; order builders that work send numbers.
            break
        case .string(let text)?:
            if let problem = Self.decimalProblem(text, example: "23.40") {
                report(money.path("amount"), problem)
            }
        case let other?:
            report(money.path("amount"), "must be a decimal string such as \"23.40\" or a number, not \(other.typeName)")
        }
        if let currency = string(money, "currency", required: true), !CurrencyCode.all.contains(currency) {
            report(money.path("currency"), "\"\(currency)\" is not an ISO 4217 currency code such as USD or EUR")
        }
    }

    /// The image named at `key`, by file name or base name, remembered so the package can be checked for it.
    mutating func image(_ parent: Object, _ key: String, required: Bool = false) {
        guard let name = string(parent, key, required: required, maxLength: PackagePath.maxLength) else { return }
        if let problem = PackagePath.imageReferenceProblem(name) {
            report(parent.path(key), problem)
            return
        }
        fileReferences.append(
            FileReference(
                path: parent.path(key),
                name: name,
                isBaseName: PackagePath.isImageBaseName(name)
            )
        )
    }

    /// The attached file (image or PDF) named at `key`, remembered so the package can be checked for it.
    mutating func attachment(_ parent: Object, _ key: String) {
        guard let name = string(parent, key, maxLength: PackagePath.maxLength) else { return }
        if let problem = PackagePath.attachmentReferenceProblem(name) {
            report(parent.path(key), problem)
            return
        }
        fileReferences.append(FileReference(path: parent.path(key), name: name, isBaseName: false))
    }

    private mutating func value(_ parent: Object, _ key: String, required: Bool) -> JSONValue? {
        guard let value = parent.members[key], value != .null else {
            if required { report(parent.path(key), "is required") }
            return nil
        }
        return value
    }
}
