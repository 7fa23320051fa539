import Foundation
import WalletOrdersCrypto

/// RFC 9421 (HTTP Message Signatures) as a receiver checks a request: the signature base rebuilt from what the request
/// holds, the digest of its body (RFC 9530), the signature checked with one of the sender's keys.
///
/// Components are the derived ones of a request (`@method`, `@target-uri`, `@authority`, `@scheme`,
/// `@request-target`, `@path`, `@query`) and header fields by name; a component with parameters (`;sf`, `;key`,
/// `;bs`, `;req`) is refused, as is `@query-param`.
struct HTTPMessageSignature {
    /// Bounds on what is read: a header's length, how many signatures and components.
    static let maxSignatureHeaderLength = 4_096
    static let maxFieldLength = 8_192
    static let maxComponents = 24
    static let maxSignatures = 4

    let request: UCPWebhook.Request

    /// `Content-Digest` for `body`, with SHA-256 (RFC 9530).
    static func contentDigest(of body: [UInt8]) -> String {
        "sha-256=:" + Data(DigestAlgorithm.sha256.digest(Data(body))).base64EncodedString() + ":"
    }

    /// Whether one of the request's signatures verifies with one of `keys`.
    func verify(keys: [UCPSigningKey], now: Date, freshness: UCPWebhook.Freshness) -> Bool {
        guard let inputs = dictionary(UCPWebhook.signatureInputHeader), let signatures = dictionary(UCPWebhook.signatureHeader),
            inputs.count <= Self.maxSignatures, digestMatches()
        else { return false }
        for (label, member) in inputs {
            guard case .innerList(let components, let parameters) = member,
                case .item(let value)? = signatures.first(where: { $0.key == label })?.member, case .bytes(let signature) = value.bare,
                covers(components), isFresh(parameters, components: components, now: now, freshness: freshness),
                let signed = base(components: components, parameters: parameters)
            else { continue }
            let keyID: String?
            switch parameters.parameter("keyid") {
            case .string(let id)?: keyID = id
            case nil: keyID = nil
            default: continue
            }
            let algorithm: UCPSigningKey.Algorithm?
            switch parameters.parameter("alg") {
            case .string(let name)?:
                // An algorithm this service does not check is refused, never ignored.
                guard let known = UCPSigningKey.Algorithm(rawValue: name) else { continue }
                algorithm = known
            case nil: algorithm = nil
            default: continue
            }
            let candidates = keys.filter { key in
                (keyID == nil || key.id == nil || key.id == keyID) && (algorithm == nil || key.algorithm == algorithm)
            }
            if candidates.contains(where: { $0.isValid(signature, for: Data(signed.utf8)) }) { return true }
        }
        return false
    }

    /// The signature base for the `Signature-Input` member `label`, or nil.
    func base(label: String) -> String? {
        guard let inputs = dictionary(UCPWebhook.signatureInputHeader),
            case .innerList(let components, let parameters)? = inputs.first(where: { $0.key == label })?.member
        else { return nil }
        return base(components: components, parameters: parameters)
    }

    /// RFC 9421 section 2.5: one line per covered component, then `@signature-params`.
    private func base(components: [StructuredField.Item], parameters: StructuredField.Item) -> String? {
        guard components.count <= Self.maxComponents else { return nil }
        var lines: [String] = []
        var seen: Set<String> = []
        for component in components {
            guard case .string(let name) = component.bare, component.parameters.isEmpty, seen.insert(name).inserted,
                let text = value(of: name)
            else { return nil }
            lines.append("\"\(name)\": \(text)")
        }
        lines.append("\"@signature-params\": " + StructuredField.serialize(innerList: components, parameters: parameters))
        return lines.joined(separator: "\n")
    }

    /// The value of the component `name` in this request; nil when it has none, or one a line cannot hold.
    private func value(of name: String) -> String? {
        let query = request.query.map { "?" + $0 }
        let path = request.path.isEmpty ? "/" : request.path
        let resolved: String?
        switch name {
        case "@method": resolved = request.method
        case "@scheme": resolved = request.scheme.lowercased()
        case "@authority": resolved = request.authority.lowercased()
        case "@target-uri": resolved = "\(request.scheme.lowercased())://\(request.authority.lowercased())\(path)\(query ?? "")"
        case "@request-target": resolved = path + (query ?? "")
        case "@path": resolved = path
        case "@query": resolved = query ?? "?"
        case "@signature-params", "@status", "@query-param": resolved = nil
        default: resolved = name.hasPrefix("@") || name != name.lowercased() ? nil : field(name)
        }
        guard let value = resolved, value.utf8.count <= Self.maxFieldLength,
            !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" })
        else { return nil }
        return value
    }

    /// The header field `name` as RFC 9421 section 2.1 reads one: each value trimmed, repeated fields joined by `, `.
    private func field(_ name: String) -> String? {
        var values: [String] = []
        var length = 0
        // The HTTP layer bounds how many fields a request has; this bounds what one call looks at all the same.
        for (field, value) in request.headers.prefix(256) where field.lowercased() == name {
            length += value.utf8.count
            guard length <= Self.maxFieldLength else { return nil }
            values.append(value.trimmingCharacters(in: CharacterSet(charactersIn: " \t")))
        }
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The dictionary in header `name`, within the bounds.
    private func dictionary(_ name: String) -> [(key: String, member: StructuredField.Member)]? {
        guard let text = field(name), text.utf8.count <= Self.maxSignatureHeaderLength else { return nil }
        return StructuredField.dictionary(text)
    }

    /// Whether `Content-Digest` holds the SHA-256 of the body (other digests it may hold are not looked at).
    private func digestMatches() -> Bool {
        guard let digests = dictionary(UCPWebhook.contentDigestHeader),
            case .item(let item)? = digests.first(where: { $0.key == "sha-256" })?.member, case .bytes(let given) = item.bare
        else { return false }
        return ConstantTime.equals(given, Data(DigestAlgorithm.sha256.digest(Data(request.body))))
    }

    /// Whether the covered components include every one of `UCPWebhook.requiredComponents`.
    private func covers(_ components: [StructuredField.Item]) -> Bool {
        let names = Set(
            components.compactMap { item -> String? in
                if case .string(let name) = item.bare { return name }
                return nil
            }
        )
        return UCPWebhook.requiredComponents.allSatisfy { required in
            required.split(separator: "|").contains { names.contains(String($0)) }
        }
    }

    /// Whether the signature's `created` (and `expires`), and a covered `Webhook-Timestamp`, fit `freshness` at `now`.
    private func isFresh(
        _ parameters: StructuredField.Item,
        components: [StructuredField.Item],
        now: Date,
        freshness: UCPWebhook.Freshness
    ) -> Bool {
        let seconds = now.timeIntervalSince1970
        func fits(_ stamp: Int) -> Bool {
            let time = TimeInterval(stamp)
            return time >= seconds - freshness.maxAge && time <= seconds + freshness.maxSkew
        }
        var stamped = false
        switch parameters.parameter("created") {
        case .integer(let created)?:
            guard fits(created) else { return false }
            stamped = true
        case nil: break
        default: return false
        }
        switch parameters.parameter("expires") {
        case .integer(let expires)?: guard TimeInterval(expires) >= seconds else { return false }
        case nil: break
        default: return false
        }
        if components.contains(where: { $0.bare == .string(UCPWebhook.webhookTimestampHeader) }) {
            guard let text = field(UCPWebhook.webhookTimestampHeader), text.utf8.count <= 15, let stamp = Int(text), fits(stamp) else {
                return false
            }
            stamped = true
        }
        return stamped || !freshness.requireTimestamp
    }
}
