import Foundation
import WalletOrdersDevice
import WalletOrdersModel

/// What a device does besides fetching: registering, asking which orders changed, logging, unregistering.
extension ConformanceRun {
    /// A listing's answer, read as Wallet reads it.
    struct Listing {
        let answer: Answer
        /// The identifiers it names; nil when the body is not `{"orderIdentifiers": [...], ...}`.
        let identifiers: [String]?
        /// `lastModified` as sent, of whatever JSON type.
        let lastModified: JSONValue?

        var status: Int? { answer.status }

        /// The tag to send back: the string, or the text of a number (to judge the other rules on their own).
        var tag: String? {
            switch lastModified {
            case .string(let text): text
            case .int(let number): String(number)
            case .double(let number): String(number)
            default: nil
            }
        }

        /// Whether the listing says nothing changed: 204, or 200 naming no order.
        var namesNothing: Bool { status == 204 || (status == 200 && identifiers?.isEmpty == true) }
    }

    func list(device: String? = nil, since tag: String?) async -> Listing {
        let answer = await send("GET", listingURL(device: device, since: tag), headers: listingHeaders)
        let json = answer.status == 200 ? answer.response.flatMap { try? JSONValue.parse($0.body) } : nil
        let identifiers = json?["orderIdentifiers"]?.arrayValue.map { $0.compactMap(\.stringValue) }
        return Listing(answer: answer, identifiers: identifiers, lastModified: json?["lastModified"])
    }

    /// Judges a listing that should name the order.
    func namesTheOrder(_ listing: Listing) -> Outcome {
        guard listing.status == 200 else { return .fail(listing.answer.summary) }
        guard let identifiers = listing.identifiers else {
            return .fail("the body is not {\"orderIdentifiers\": [...], \"lastModified\": \"...\"}: " + listing.answer.summary)
        }
        guard identifiers.contains(details.orderIdentifier) else {
            return .fail("→ 200 naming \(identifiers.isEmpty ? "no order" : identifiers.joined(separator: ", ")), not \(details.orderIdentifier)")
        }
        guard let lastModified = listing.lastModified else { return .fail("→ 200 with no lastModified: " + listing.answer.summary) }
        return .pass(
            "\(listing.answer.method) \(listing.answer.target) → 200 naming \(details.orderIdentifier), lastModified "
                + String(decoding: lastModified.serialized(), as: UTF8.self)
        )
    }

    func register(device: String, headers: [DeviceHTTPClient.HeaderField]) async -> Answer {
        let url = WebServicePath.registration(base, device: device, type: details.orderTypeIdentifier, id: details.orderIdentifier)
        let body = JSONValue.object(["pushToken": .string(pushToken)]).serialized()
        return await send("POST", url, headers: headers + [.init("Content-Type", "application/json")], body: body)
    }

    func checkRegistration() async {
        let token = Self.authorization(details.authenticationToken)
        let created = await register(device: device, headers: [token])
        unregistered = created.status == 201 || created.status == 200 ? nil : "the device could not register: " + created.summary
        await judge(.registerCreated) {
            created.status == 201 ? .pass("\(created.method) \(created.target) → 201") : .fail(created.summary)
        }
        await judge(.registerAgain) {
            let answer = await register(device: device, headers: [token])
            return answer.status == 200 ? .pass("the same registration again → 200") : .fail(answer.summary)
        }
        await judge(.registerWrongToken) {
            let other = Self.randomHex(bytes: 16)
            let wrong = await register(device: other, headers: [Self.authorization(wrongToken)])
            let none = await register(device: other, headers: [])
            var problems: [String] = []
            if wrong.status != 401 { problems.append("with another token: " + wrong.summary) }
            if none.status != 401 { problems.append("without Authorization: " + none.summary) }
            return problems.isEmpty ? .pass("another token → 401, no token → 401") : .fail(Self.list(problems))
        }
    }

    func checkListing() async {
        if let unregistered {
            for rule in [Rule.listingNoAuthorization, .listingNoTag, .listingEmptyTag, .listingLastModifiedString, .listingOwnTag] {
                await judge(rule) { .skip(unregistered) }
            }
            await judge(.listingUnknownDevice) { await unknownDevice() }
            return
        }
        var first = await list(since: nil)
        await judge(.listingNoAuthorization) {
            guard first.status == 401 || first.status == 403 else {
                return .pass("\(first.answer.method) \(first.answer.target) without Authorization → \(first.status.map(String.init) ?? "no answer")")
            }
            let refused = first.answer.summary
            listingHeaders = [Self.authorization(details.authenticationToken)]
            first = await list(since: nil)
            notes.append("The listing refused a request without Authorization; the kit sent the order's token on the other listings.")
            return .fail("\(refused); with the order's token → \(first.status.map(String.init) ?? "no answer")")
        }
        await judge(.listingNoTag) { namesTheOrder(first) }
        if first.status == 200 { tag = first.tag }
        let empty = await list(since: "")
        await judge(.listingEmptyTag) { namesTheOrder(empty) }
        if tag == nil, empty.status == 200 { tag = empty.tag }
        await judge(.listingLastModifiedString) {
            guard let listing = [first, empty].first(where: { $0.status == 200 && $0.lastModified != nil }),
                let lastModified = listing.lastModified
            else { return .fail("no listing answered 200 with a lastModified") }
            let text = String(decoding: lastModified.serialized(), as: UTF8.self)
            if case .string = lastModified { return .pass("lastModified \(text)") }
            return .fail("lastModified is a JSON \(lastModified.typeName): \(text)")
        }
        await judge(.listingOwnTag) {
            guard let tag else { return .skip("no listing gave a lastModified") }
            let listing = await list(since: tag)
            return listing.namesNothing
                ? .pass("ordersModifiedSince=\(tag) → \(listing.status ?? 0)")
                : .fail("ordersModifiedSince=\(tag), nothing changed: " + listing.answer.summary)
        }
        await judge(.listingUnknownDevice) { await unknownDevice() }
    }

    /// The form of the first listing that named the order: with no tag, or else with an empty one; nil when neither did.
    private var workingFirstListing: String?? {
        passed(.listingNoTag) ? .some(nil) : passed(.listingEmptyTag) ? .some("") : nil
    }

    private func unknownDevice() async -> Outcome {
        let listing = await list(device: Self.randomHex(bytes: 16), since: workingFirstListing ?? nil)
        return listing.namesNothing ? .pass("a device never registered → \(listing.status ?? 0)") : .fail(listing.answer.summary)
    }

    func checkLog() async {
        await judge(.logAccepts) {
            let line = "[\(RFC3339.format(Date()))] wallet-orders conformance: checking that /v1/log answers 200; nothing went wrong"
            let body = JSONValue.object(["logs": .array([.string(line)])]).serialized()
            let answer = await send("POST", WebServicePath.log(base), headers: [.init("Content-Type", "application/json")], body: body)
            return answer.status == 200 ? .pass("\(answer.method) \(answer.target) → 200") : .fail(answer.summary)
        }
    }

    func checkUnregistration() async {
        await judge(.unregisterOK) {
            if let unregistered { return .skip(unregistered) }
            let answer = await send("DELETE", registrationURL, headers: [Self.authorization(details.authenticationToken)])
            return answer.status == 200 ? .pass("\(answer.method) \(answer.target) → 200") : .fail(answer.summary)
        }
        await judge(.unregisterListing) {
            // The listing as it worked before: with no tag, or else with an empty one.
            guard let since = workingFirstListing else { return .skip("no listing named the order before (listing.noTag, listing.emptyTag)") }
            let listing = await list(since: since)
            return listing.namesNothing || (listing.status == 200 && listing.identifiers?.contains(details.orderIdentifier) == false)
                ? .pass("the listing afterwards → \(listing.status ?? 0)")
                : .fail("the listing after unregistering: " + listing.answer.summary)
        }
    }
}
