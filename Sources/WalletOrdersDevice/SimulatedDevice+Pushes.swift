import Foundation
import Synchronization
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage

/// What the device does with a push: it lists what changed and fetches each changed order, as Wallet does.
extension SimulatedDevice {
    /// Hands the device a push for its token on `topic` (an order type identifier). It returns at once: the
    /// device then asks each web service it holds orders of that type from which changed, and fetches them.
    public nonisolated func receivePush(topic: String) {
        pushes.yield(topic)
    }

    /// Stops taking pushes and ends every live watcher's stream.
    public nonisolated func stop() {
        pushes.finish()
        for connection in connections.withLock({ $0 }) { connection.cancel() }
        log.finish()
    }

    /// Keeps `task`, which feeds the device pushes, to cancel it when the device stops.
    nonisolated func keep(_ task: Task<Void, Never>) {
        connections.withLock { $0.append(task) }
    }

    func handlePush(topic: String) async {
        let services = Set(
            held.values.filter { $0.orderTypeIdentifier == topic && $0.isRegistered }
                .compactMap(\.webServiceURL)
        ).sorted()
        log.append(
            DeviceEvent(
                kind: .push,
                detail: services.isEmpty
                    ? "topic \(topic): the device holds no registered order of this type" : "topic \(topic)"
            )
        )
        for base in services {
            await refresh(type: topic, webServiceURL: base)
        }
    }

    /// Asks `webServiceURL` which orders of `type` changed since the device's tag, and fetches those it holds.
    func refresh(type: String, webServiceURL base: String) async {
        let service = ServiceKey(webServiceURL: base, type: type)
        let since = tags[service]
        let url = WebServicePath.registrations(base, device: identifier, type: type, since: since)
        let listed = { (message: String) in
            Self.task("Get updated orders", nil, base, message, extra: "order type \(type), ordersModifiedSince \(since ?? "(null)")")
        }
        guard let response = try? await request(.list, "GET", url, describe: Self.describeListing) else { return }
        switch response.status {
        case 204:
            return
        case 200:
            let json = try? JSONValue.parse(response.body)
            guard let identifiers = json?["orderIdentifiers"]?.arrayValue?.compactMap(\.stringValue),
                let lastModified = json?["lastModified"]?.stringValue
            else {
                log.append(DeviceEvent(kind: .refused, detail: "the listing is not {\"orderIdentifiers\": [...], \"lastModified\": \"...\"}"))
                await postLog(listed("Server response was malformed"), to: base)
                return
            }
            var complete = true
            for id in identifiers where held[OrderKey(type: type, id: id)] != nil {
                if await !update(OrderKey(type: type, id: id)) { complete = false }
            }
            // A fetch that got no answer is asked about again at the next push: the tag stays where it was.
            if complete { tags[service] = lastModified }
        default:
            await postLog(listed("Unexpected response code \(response.status)"), to: base)
        }
    }

    /// Fetches a newer version of `key` if there is one; answers false when it should be asked about again.
    func update(_ key: OrderKey) async -> Bool {
        guard let current = held[key], let base = current.webServiceURL else { return true }
        var headers = current.authenticationToken.map { [Self.authorization($0)] } ?? []
        if let lastModified = current.lastModified { headers.append(.init("If-Modified-Since", lastModified)) }
        if let etag = current.etag { headers.append(.init("If-None-Match", etag)) }
        guard
            let response = try? await request(
                .fetch,
                "GET",
                Self.orderURL(base, key),
                headers: headers,
                describe: Self.describeFetch
            )
        else { return false }
        switch response.status {
        case 304:
            return true
        case 200:
            // A refused package is not asked for again: its version stays refused until the next change.
            guard
                let accepted = try? await accept(
                    response.body,
                    for: key,
                    webServiceURL: base,
                    since: current.lastModified,
                    heldSince: current.updatedAt
                )
            else { return true }
            let (document, report) = accepted
            var order = current
            order.package = response.body
            order.order = document
            order.warnings = report.warnings
            order.lastModified = response.header("Last-Modified")
            order.etag = response.header("ETag")
            order.versions += 1
            if let token = document.authenticationToken { order.authenticationToken = token }
            held[key] = order
            return true
        case 500...:
            await postLog(Self.fetchTask(key, base, since: current.lastModified, "Unexpected response code \(response.status)"), to: base)
            return false
        default:
            await postLog(Self.fetchTask(key, base, since: current.lastModified, "Unexpected response code \(response.status)"), to: base)
            return true
        }
    }
}
