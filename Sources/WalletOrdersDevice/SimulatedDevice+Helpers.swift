import Foundation
import Synchronization
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage

/// URLs, headers and the sentences of the transcript and of the log messages the device posts.
extension SimulatedDevice {
    func registrationURL(_ base: String, _ key: OrderKey) -> String {
        WebServicePath.registration(base, device: identifier, type: key.type, id: key.id)
    }

    static func orderURL(_ base: String, _ key: OrderKey) -> String {
        WebServicePath.order(base, type: key.type, id: key.id)
    }

    static func authorization(_ token: String) -> DeviceHTTPClient.HeaderField {
        .init("Authorization", "AppleOrder \(token)")
    }

    /// A web service URL without a trailing slash.
    static func base(_ url: String) -> String { WebServicePath.base(url) }

    static func orderDocument(in package: Data) -> OrderDocument? {
        guard let entries = try? ZipArchive.read(package),
            let data = entries.first(where: { $0.path == "order.json" })?.data
        else { return nil }
        return try? OrderDocument(data: data)
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        let value = Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
        return (value * 10).rounded() / 10
    }

    static func describeFetch(_ response: DeviceHTTPClient.Response) -> String? {
        switch response.status {
        case 200: "\(response.body.count) bytes" + (response.header("Last-Modified").map { ", Last-Modified \($0)" } ?? "")
        case 304: "not modified: the device holds this version"
        default: nil
        }
    }

    static func describeListing(_ response: DeviceHTTPClient.Response) -> String? {
        switch response.status {
        case 204: return "nothing changed"
        case 200:
            let json = try? JSONValue.parse(response.body)
            let ids = json?["orderIdentifiers"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return "changed \(ids.isEmpty ? "(none)" : ids.joined(separator: ", "))"
                + (json?["lastModified"]?.stringValue.map { "; lastModified \($0)" } ?? "")
        default: return nil
        }
    }

    static func describe(_ document: OrderDocument, _ report: PackageReport) -> String {
        var text = "\(document.orderIdentifier ?? "?")"
        if let updated = document.fields["updatedAt"]?.stringValue { text += " updatedAt \(updated)" }
        if let status = document.fields["status"]?.stringValue { text += ", status \(status)" }
        text += report.chainChecked ? ", signature chains to the trusted root" : ", signature checked"
        if !report.warnings.isEmpty { text += ", \(report.warnings.count) warning\(report.warnings.count == 1 ? "" : "s")" }
        return text
    }

    /// Wallet's way of naming a failed task in a log message.
    static func task(
        _ name: String,
        _ key: OrderKey?,
        _ base: String,
        _ reason: String,
        extra: String? = nil
    )
        -> String
    {
        let subject = extra ?? key.map { "order type \($0.type), order identifier \($0.id)" } ?? ""
        return "\(name) task (\(subject); with web service url \(base)) encountered error: \(reason)"
    }

    static func fetchTask(_ key: OrderKey, _ base: String, since: String?, _ reason: String) -> String {
        task(
            "Get order",
            key,
            base,
            reason,
            extra: "order type \(key.type), order identifier \(key.id), if-modified-since \(since ?? "(null)")"
        )
    }

    static func addTask(_ key: OrderKey, _ base: String, _ reason: String) -> String {
        task("Add order", key, base, reason)
    }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }.joined()
    }
}
