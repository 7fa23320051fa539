import Foundation
import WalletOrdersDevice
import WalletOrdersModel

/// Who may fetch the order, and HTTP caching on the fetch: the token checks, Last-Modified, 304 and HEAD.
extension ConformanceRun {
    func checkAuthentication() async {
        await judge(.fetchWrongToken) {
            let answer = await send("GET", orderURL, headers: [Self.authorization(wrongToken)])
            return answer.status == 401 ? .pass("\(answer.method) \(answer.target) with another token → 401") : .fail(answer.summary)
        }
        await judge(.fetchNoToken) {
            let answer = await send("GET", orderURL)
            return answer.status == 401 ? .pass("\(answer.method) \(answer.target) without Authorization → 401") : .fail(answer.summary)
        }
        await judge(.fetchUnknownOrder) {
            let id = "\(details.orderIdentifier)-unknown-\(Self.randomHex(bytes: 4))"
            let url = WebServicePath.order(base, type: details.orderTypeIdentifier, id: id)
            let answer = await send("GET", url, headers: [Self.authorization(details.authenticationToken)])
            return answer.status == 401 ? .pass("\(answer.method) \(answer.target) → 401") : .fail(answer.summary)
        }
    }

    func checkCaching() async {
        let first = firstFetch
        let firstLastModified = first?.header("Last-Modified")
        await judge(.fetchLastModified) {
            guard let firstLastModified else { return .fail("the fetch's answer has no Last-Modified header") }
            return HTTPDate.parse(firstLastModified) != nil
                ? .pass("Last-Modified: \(firstLastModified)")
                : .fail("Last-Modified: \(firstLastModified) is not an HTTP-date (IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT)")
        }
        await judge(.fetchLastModifiedNotAfterDate) {
            guard let first, let text = firstLastModified, let lastModified = HTTPDate.parse(text) else {
                return .skip("no Last-Modified")
            }
            if let dateText = first.header("Date"), let date = HTTPDate.parse(dateText) {
                return lastModified <= date
                    ? .pass("Last-Modified \(text), Date \(dateText)")
                    : .fail("Last-Modified \(text) is later than the answer's Date \(dateText)")
            }
            // No usable Date: the kit's clock when the answer came, to the second and a second's leeway.
            let now = first.received.addingTimeInterval(1)
            return lastModified <= now
                ? .pass("Last-Modified \(text); no usable Date header, compared with the kit's clock")
                : .fail("Last-Modified \(text) is later than the kit's clock (\(RFC3339.format(first.received))); no usable Date header")
        }
        await judge(.fetchLastModifiedStable) { await lastModifiedSettles(from: first) }
        await judge(.fetchNotModified) {
            guard let lastModified = settledLastModified ?? firstLastModified else { return .skip("no Last-Modified") }
            let answer = await send(
                "GET",
                orderURL,
                headers: [Self.authorization(details.authenticationToken), .init("If-Modified-Since", lastModified)]
            )
            return answer.status == 304
                ? .pass("If-Modified-Since: \(lastModified) → 304")
                : .fail("If-Modified-Since: \(lastModified): " + answer.summary)
        }
        await judge(.fetchHead) {
            let answer = await send("HEAD", orderURL, headers: [Self.authorization(details.authenticationToken)])
            return answer.status == 200 ? .pass("HEAD \(answer.target) → 200") : .fail(answer.summary)
        }
    }

    /// Fetches again, more than a second after the fetch before, until two fetches in a row send the same
    /// Last-Modified, five fetches at most: a service may hold Last-Modified back for a moment after an update (so that
    /// it is never later than Date), but one that sends the time of the request never settles.
    private func lastModifiedSettles(from first: Answer?) async -> Outcome {
        guard var previous = first, var value = previous.header("Last-Modified") else { return .skip("no Last-Modified") }
        var seen = [value]
        for _ in 1...4 {
            let wait = (previous.instant + .milliseconds(1_500)) - ContinuousClock.now
            if wait > .zero { try? await Task.sleep(for: wait) }
            let next = await send("GET", orderURL, headers: [Self.authorization(details.authenticationToken)])
            guard next.status == 200, let nextValue = next.header("Last-Modified") else {
                return .fail("a later fetch: " + next.summary)
            }
            if nextValue == value {
                settledLastModified = nextValue
                return .pass(
                    seen.count == 1
                        ? "Last-Modified \(value) on two fetches 1.5 s apart"
                        : "Last-Modified settled on \(value) after \(seen.joined(separator: ", "))"
                )
            }
            seen.append(nextValue)
            (previous, value) = (next, nextValue)
        }
        settledLastModified = value
        return .fail("Last-Modified changed on every fetch of the unchanged order, 1.5 s apart: \(seen.joined(separator: ", "))")
    }
}
