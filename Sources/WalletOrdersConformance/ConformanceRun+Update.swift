import Foundation
import WalletOrdersAPNS
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersPackage

/// An update as a device lives it: the push, the listing that names the order, the fetch of the new version; then an
/// update that changes nothing, which should reach no device.
extension ConformanceRun {
    /// Variables the update commands get, so that one script serves several orders (never the token).
    var commandEnvironment: [String: String] {
        [
            "CONFORMANCE_ORDER_TYPE_IDENTIFIER": details.orderTypeIdentifier,
            "CONFORMANCE_ORDER_IDENTIFIER": details.orderIdentifier,
            "CONFORMANCE_WEB_SERVICE_URL": details.webServiceURL,
        ]
    }

    /// Runs `command`; answers why the rules after it cannot be judged when it failed.
    private func run(_ command: String, named name: String) async -> (failure: String?, duration: Duration) {
        let result = await ShellCommand(command: command, environment: commandEnvironment).run(timeout: configuration.pushDeadline)
        let output = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        notes.append(
            "--\(name) \(result.succeeded ? "exited 0" : result.summary) in \(Self.milliseconds(result.duration))"
                + (result.succeeded && !output.isEmpty ? ": \(EscapedText.excerpt(output))" : "")
        )
        return (result.succeeded ? nil : "the --\(name) command \(result.summary)", result.duration)
    }

    func checkUpdate() async {
        let before = (
            tag: tag,
            lastModified: settledLastModified ?? firstFetch?.header("Last-Modified"),
            updatedAt: firstOrder?.updatedAt
        )
        let start = ContinuousClock.now
        var failure: String?
        if let update = configuration.update {
            let (commandFailure, duration) = await run(update, named: "update")
            failure = commandFailure
            timings.command = duration
        }
        var arrival: PushWatch.Arrival?
        await judge(.pushArrives) {
            if let failure { return .skip(failure) }
            if let unregistered { return .skip(unregistered) }
            guard let watch else { return .skip("the local APNs is not listening") }
            arrival = await watch.firstArrival(after: start, within: configuration.pushDeadline)
            guard let arrival else {
                return .fail("no push for the registered token \(pushToken) within \(configuration.pushDeadline) of the update")
            }
            timings.push = arrival.instant - start
            let answer = arrival.push.status == 200 ? "200" : "\(arrival.push.status) \(arrival.push.reason?.rawValue ?? "")"
            return .pass("a push \(Self.milliseconds(arrival.instant - start)) after the update began (the local APNs answered \(answer))")
        }
        let push = arrival?.push
        await judge(.pushTopic) {
            guard let push else { return .skip("no push") }
            return push.topic == details.orderTypeIdentifier
                ? .pass("apns-topic: \(push.topic)") : .fail("apns-topic: \(push.topic.isEmpty ? "(none)" : push.topic)")
        }
        await judge(.pushPayload) {
            guard let push else { return .skip("no push") }
            let body = try? JSONValue.parse(Data(push.body.utf8))
            return body == .object([:]) ? .pass("body: \(push.body)") : .fail("body: \(EscapedText.excerpt(push.body))")
        }
        await judge(.pushNoAlert) {
            guard let push else { return .skip("no push") }
            let aps = (try? JSONValue.parse(Data(push.body.utf8)))?["aps"]
            let shown = ["alert", "badge", "sound"].filter { aps?[$0] != nil }
            let headers = "apns-push-type: \(push.pushType ?? "(none)"), apns-priority: \(push.priority ?? "(none)")"
            guard push.pushType == APNSRequest.pushType, push.priority == APNSRequest.priority, shown.isEmpty else {
                return .fail(headers + (shown.isEmpty ? "" : "; the body's aps holds \(shown.joined(separator: ", "))"))
            }
            return .pass(headers)
        }
        await judge(.pushAuthentication) {
            guard let arrival else { return .skip("no push") }
            return authentication(of: arrival)
        }
        await judge(.updateListed) {
            if let failure { return .skip(failure) }
            guard let previous = before.tag else { return .skip("no listing gave a lastModified before the update") }
            return await listsTheUpdate(since: previous, from: start)
        }
        await judge(.updateFetchNewer) {
            if let failure { return .skip(failure) }
            guard let old = before.updatedAt else { return .skip("the first package's order.json has no updatedAt") }
            return await fetchesNewer(than: old, lastModified: before.lastModified, from: start)
        }
    }

    /// Lists with the tag from before until the order is named (or the deadline passes).
    private func listsTheUpdate(since previous: String, from start: ContinuousClock.Instant) async -> Outcome {
        var listing = await list(since: previous)
        while !(listing.identifiers?.contains(details.orderIdentifier) ?? false),
            ContinuousClock.now - start < configuration.pushDeadline
        {
            try? await Task.sleep(for: .milliseconds(250))
            listing = await list(since: previous)
        }
        guard listing.status == 200, listing.identifiers?.contains(details.orderIdentifier) == true else {
            return .fail("ordersModifiedSince=\(previous) after the update: " + listing.answer.summary)
        }
        guard let next = listing.tag else { return .fail("→ 200 naming the order, with no lastModified") }
        updatedTag = next
        return next == previous
            ? .fail("→ 200 naming the order, but lastModified is still \(previous)")
            : .pass("ordersModifiedSince=\(previous) → 200 naming \(details.orderIdentifier), lastModified \(next)")
    }

    /// Fetches, as a device told of the update does, until the package is newer than `old` (or the deadline passes).
    private func fetchesNewer(than old: Date, lastModified: String?, from start: ContinuousClock.Instant) async -> Outcome {
        var headers = [Self.authorization(details.authenticationToken)]
        if let lastModified { headers.append(.init("If-Modified-Since", lastModified)) }
        // Told of the change (by the push or the listing), the service must serve it at once; otherwise it is given
        // until the deadline to apply the update.
        let toldOfChange = passed(.updateListed) || passed(.pushArrives)
        let patience = toldOfChange ? .seconds(2) : configuration.pushDeadline
        let first = ContinuousClock.now
        while true {
            let answer = await send("GET", orderURL, headers: headers)
            let entries = answer.status == 200 ? answer.response.flatMap { try? ZipArchive.read($0.body) } : nil
            let updatedAt = Self.orderDocument(in: entries)?.updatedAt
            if let updatedAt, updatedAt > old {
                timings.fetch = answer.instant - start
                return .pass(
                    "→ 200 with updatedAt \(RFC3339.format(updatedAt)) (was \(RFC3339.format(old))), "
                        + "\(Self.milliseconds(answer.instant - start)) after the update began"
                )
            }
            if ContinuousClock.now - first >= patience {
                let described = updatedAt.map { "→ 200 with updatedAt \(RFC3339.format($0)), not later than \(RFC3339.format(old))" }
                return .fail(
                    (lastModified.map { "If-Modified-Since: \($0): " } ?? "") + (described ?? answer.summary)
                )
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    /// Judges how a push authenticated: its provider token, or else its TLS client certificate.
    private func authentication(of arrival: PushWatch.Arrival) -> Outcome {
        let push = arrival.push
        guard let token = push.providerToken else {
            guard let der = push.clientCertificate, let certificate = try? Certificate(der) else {
                return .fail("neither a provider token (`authorization: bearer`) nor a TLS client certificate")
            }
            return clientCertificate(certificate)
        }
        guard let claims = ProviderTokenClaims(unverified: token) else {
            return .fail("the provider token is not an ES256 JWT with a key ID (kid), a team (iss) and a time (iat)")
        }
        let age = arrival.time.timeIntervalSince(claims.issuedAt)
        let described = "ES256, key ID \(claims.keyID), team \(claims.teamID), issued \(Int(age.rounded())) s before"
        if age > ProviderToken.lifetime { return .fail(described + ": older than an hour, which APNs refuses") }
        if age < -60 { return .fail(described + ": issued in the future") }
        guard let apns = configuration.apns, apns.publicKey != nil else {
            return .pass(described + " (its signature not checked: give --apns-key, --apns-key-id and --apns-team-id)")
        }
        if let keyID = apns.keyID, claims.keyID != keyID { return .fail(described + ": not key ID \(keyID)") }
        if let teamID = apns.teamID, claims.teamID != teamID { return .fail(described + ": not team \(teamID)") }
        guard push.keyID != nil else { return .fail(described + ": its signature does not verify with --apns-key") }
        return .pass(described + "; its signature verifies with --apns-key")
    }

    /// Judges a push's TLS client certificate: the Order Type ID certificate of the order type, issued by the WWDR
    /// certificate the package's signature carries (whose chain package.chain checked), as APNs would take it.
    private func clientCertificate(_ certificate: Certificate) -> Outcome {
        let subject = certificate.subjectDescription
        guard certificate.subjectUserID == details.orderTypeIdentifier else {
            return .fail("TLS client certificate authentication with \(subject), not the certificate of \(details.orderTypeIdentifier)")
        }
        guard signatureCertificates.contains(where: { certificate.isIssued(by: $0) }) else {
            return .fail(
                "TLS client certificate authentication with \(subject), not issued by the WWDR certificate the package's "
                    + "signature carries"
            )
        }
        return .pass("TLS client certificate authentication with the Order Type ID certificate: \(subject)")
    }

    func checkUnchangedUpdate() async {
        let ready = passed(.updateListed) || passed(.pushArrives)
        var failure: String? = ready ? nil : "the update before it was not seen"
        let start = ContinuousClock.now
        if ready, let command = configuration.unchangedUpdate {
            failure = await run(command, named: "unchanged-update").failure
        }
        await judge(.updateUnchangedNotPushed) {
            if let failure { return .skip(failure) }
            guard let watch else { return .skip("the local APNs is not listening") }
            if let arrival = await watch.firstArrival(after: start, within: configuration.quietPeriod) {
                return .fail("a push came \(Self.milliseconds(arrival.instant - start)) after the update that changed nothing")
            }
            return .pass("no push within \(configuration.quietPeriod)")
        }
        await judge(.updateUnchangedNotListed) {
            if let failure { return .skip(failure) }
            guard let updatedTag else { return .skip("no lastModified after the update") }
            let listing = await list(since: updatedTag)
            return listing.namesNothing
                ? .pass("ordersModifiedSince=\(updatedTag) → \(listing.status ?? 0)")
                : .fail("ordersModifiedSince=\(updatedTag) after the update that changed nothing: " + listing.answer.summary)
        }
    }
}
