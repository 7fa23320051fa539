import Foundation

/// Walks one JSON object and collects every problem with its path, so a merchant sees them all at once.
struct OrderChecker {
    private(set) var problems: [OrderProblem] = []
    /// File names the order refers to, with the path that refers to each.
    private(set) var fileReferences: [(path: String, file: String)] = []

    mutating func report(_ path: String, _ message: String) {
        problems.append(OrderProblem(path: path, message: message))
    }

    /// A view of one object at `path`.
    struct Object {
        let members: [String: JSONValue]
        let path: String

        func path(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
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
    mutating func objects(_ parent: Object, _ key: String, required: Bool = false, nonEmpty: Bool = false) -> [Object] {
        guard let value = value(parent, key, required: required) else { return [] }
        guard let elements = value.arrayValue else {
            report(parent.path(key), "must be an array, not \(value.typeName)")
            return []
        }
        if nonEmpty, elements.isEmpty { report(parent.path(key), "must not be empty") }
        var result: [Object] = []
        for (index, element) in elements.enumerated() {
            let path = "\(parent.path(key))[\(index)]"
            guard let members = element.objectValue else {
                report(path, "must be an object, not \(element.typeName)")
                continue
            }
            result.append(Object(members: members, path: path))
        }
        return result
    }

    /// The string at `key`: not empty, at most `maxLength` characters.
    @discardableResult
    mutating func string(_ parent: Object, _ key: String, required: Bool = false, maxLength: Int = 4_096) -> String? {
        guard let value = value(parent, key, required: required) else { return nil }
        guard let text = value.stringValue else {
            report(parent.path(key), "must be a string, not \(value.typeName)")
            return nil
        }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            report(parent.path(key), "must not be empty")
            return nil
        }
        if text.count > maxLength {
            report(parent.path(key), "is \(text.count) characters long; at most \(maxLength) are allowed")
            return nil
        }
        return text
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

    /// The RFC 3339 date at `key`.
    @discardableResult
    mutating func date(_ parent: Object, _ key: String, required: Bool = false) -> Date? {
        guard let text = string(parent, key, required: required) else { return nil }
        guard let date = RFC3339.parse(text) else {
            report(parent.path(key), "\"\(text)\" is not an RFC 3339 date such as 2026-11-22T10:15:30Z")
            return nil
        }
        return date
    }

    /// The absolute URL at `key`; with `httpsOnly`, it must use https.
    @discardableResult
    mutating func url(_ parent: Object, _ key: String, required: Bool = false, httpsOnly: Bool = true) -> URL? {
        guard let text = string(parent, key, required: required, maxLength: 2_048) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false else {
            report(parent.path(key), "\"\(text)\" is not an absolute URL")
            return nil
        }
        if httpsOnly, scheme != "https" {
            report(parent.path(key), "must be an https URL")
            return nil
        }
        if !httpsOnly, scheme != "https", scheme != "http" {
            report(parent.path(key), "must be an http or https URL")
            return nil
        }
        return url
    }

    /// The whole number at `key`, at least `minimum`.
    @discardableResult
    mutating func integer(_ parent: Object, _ key: String, required: Bool = false, minimum: Int = 0) -> Int? {
        guard let value = value(parent, key, required: required) else { return nil }
        guard let number = value.intValue else {
            report(parent.path(key), "must be a whole number, not \(value.typeName)")
            return nil
        }
        guard number >= minimum else {
            report(parent.path(key), "must be at least \(minimum)")
            return nil
        }
        return number
    }

    /// The boolean at `key`.
    mutating func boolean(_ parent: Object, _ key: String, required: Bool = false) {
        guard let value = value(parent, key, required: required) else { return }
        if case .bool = value { return }
        report(parent.path(key), "must be true or false, not \(value.typeName)")
    }

    /// The currency amount at `key`: `{"amount": 12.5, "currency": "EUR"}`.
    mutating func currencyAmount(_ parent: Object, _ key: String, required: Bool = false) {
        guard let money = object(parent, key, required: required) else { return }
        switch money.members["amount"] {
        case nil, .null?:
            report(money.path("amount"), "is required")
        case .int?, .double?:
            break
        case .string(let text)?:
            // Apple types the amount as a JSON number; Wallet does not read one sent as a string.
            report(money.path("amount"), "must be a JSON number such as 12.5, not the string \"\(text)\"")
        case let other?:
            report(money.path("amount"), "must be a JSON number such as 12.5, not \(other.typeName)")
        }
        if let currency = string(money, "currency", required: true), !CurrencyCode.all.contains(currency) {
            report(money.path("currency"), "\"\(currency)\" is not an ISO 4217 currency code such as USD or EUR")
        }
    }

    /// The image file name at `key`, remembered so the package can be checked for it.
    mutating func image(_ parent: Object, _ key: String, required: Bool = false) {
        guard let name = string(parent, key, required: required, maxLength: PackagePath.maxLength) else { return }
        guard PackagePath.isImageName(name) else {
            report(parent.path(key), "\"\(name)\" is not the name of a PNG or JPEG file in the package")
            return
        }
        fileReferences.append((parent.path(key), name))
    }

    /// The attached file (image or PDF) named at `key`, remembered so the package can be checked for it.
    mutating func attachment(_ parent: Object, _ key: String) {
        guard let name = string(parent, key, maxLength: PackagePath.maxLength) else { return }
        guard PackagePath.isAttachmentName(name) else {
            report(parent.path(key), "\"\(name)\" is not the name of a PNG, JPEG or PDF file in the package")
            return
        }
        fileReferences.append((parent.path(key), name))
    }

    private mutating func value(_ parent: Object, _ key: String, required: Bool) -> JSONValue? {
        guard let value = parent.members[key], value != .null else {
            if required { report(parent.path(key), "is required") }
            return nil
        }
        return value
    }
}
