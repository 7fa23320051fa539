import Foundation
import Synchronization
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage

/// The requests each step makes: registering, checking and keeping a package, posting to the log endpoint.
extension SimulatedDevice {
    /// Registers the device for `key`'s updates with its push token.
    func register(_ key: OrderKey) async {
        guard var order = held[key], let base = order.webServiceURL, let token = order.authenticationToken else { return }
        let body = JSONValue.object(["pushToken": .string(pushToken)]).serialized()
        guard
            let response = try? await request(
                .register,
                "POST",
                registrationURL(base, key),
                headers: [Self.authorization(token), .init("Content-Type", "application/json")],
                body: body,
                describe: { $0.status == 201 ? "registered" : $0.status == 200 ? "already registered" : nil }
            )
        else { return }
        order.isRegistered = response.status == 201 || response.status == 200
        held[key] = order
        if !order.isRegistered {
            await postLog(Self.task("Register", key, base, "Unexpected response code \(response.status)"), to: base)
        }
    }

    /// Checks a fetched package as Wallet does; refuses it (with a transcript entry and a log post) when it fails.
    /// `heldSince` is the `updatedAt` of the version the device holds: an older one is refused, as Wallet keeps the
    /// newest version.
    func accept(
        _ package: Data,
        for key: OrderKey,
        webServiceURL base: String,
        since: String?,
        heldSince: Date? = nil
    ) async throws -> (OrderDocument, PackageReport) {
        let report = PackageVerifier.verify(package, trustedRoots: trustedRoots, allowHTTPWebService: allowsHTTPWebService)
        var problems = report.problems
        let document = Self.orderDocument(in: package)
        if let document, report.orderTypeIdentifier != nil,
            document.orderTypeIdentifier != key.type || document.orderIdentifier != key.id
        {
            problems.append(
                "the package holds order \(document.orderTypeIdentifier ?? "?") / "
                    + "\(document.orderIdentifier ?? "?"), not the one asked for"
            )
        }
        if let heldSince, let fetched = document?.updatedAt, fetched < heldSince {
            problems.append(
                "its updatedAt \(RFC3339.format(fetched)) is older than the version the device holds "
                    + "(\(RFC3339.format(heldSince)))"
            )
        }
        guard problems.isEmpty, let document else {
            if problems.isEmpty { problems = ["order.json cannot be read"] }
            log.append(DeviceEvent(kind: .refused, detail: problems.joined(separator: "; ")))
            await postLog(
                Self.fetchTask(key, base, since: since, "Order package is invalid: \(problems.joined(separator: "; "))"),
                to: base
            )
            throw DeviceError.refusedPackage(problems)
        }
        log.append(DeviceEvent(kind: .verified, detail: Self.describe(document, report)))
        return (document, report)
    }

    /// Posts one message to `{webServiceURL}/v1/log`, as Wallet reports what went wrong with a web service.
    func postLog(_ message: String, to base: String) async {
        let line = "[\(RFC3339.format(Date()))] \(message)"
        let body = JSONValue.object(["logs": .array([.string(line)])]).serialized()
        _ = try? await request(
            .log,
            "POST",
            WebServicePath.log(base),
            headers: [.init("Content-Type", "application/json")],
            body: body,
            describe: { _ in message }
        )
    }

    /// Sends one request and records it; throws `DeviceError.unreachable` when no answer came.
    func request(
        _ kind: DeviceEvent.Kind,
        _ method: String,
        _ url: String,
        headers: [DeviceHTTPClient.HeaderField] = [],
        body: Data? = nil,
        describe: (DeviceHTTPClient.Response) -> String? = { _ in nil }
    ) async throws -> DeviceHTTPClient.Response {
        let start = ContinuousClock.now
        let time = Date()
        do {
            let response = try await client.send(method, url, headers: headers, body: body)
            log.append(
                DeviceEvent(
                    kind: kind,
                    time: time,
                    method: method,
                    url: url,
                    status: response.status,
                    milliseconds: Self.milliseconds(since: start),
                    detail: describe(response)
                )
            )
            return response
        } catch {
            log.append(
                DeviceEvent(
                    kind: kind,
                    time: time,
                    method: method,
                    url: url,
                    status: nil,
                    milliseconds: Self.milliseconds(since: start),
                    detail: "\(error)"
                )
            )
            throw DeviceError.unreachable(url: url, reason: "\(error)")
        }
    }
}
