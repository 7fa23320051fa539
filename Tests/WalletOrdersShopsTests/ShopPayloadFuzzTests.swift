import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersShops

/// Bodies from outside can never trap a mapper: random bytes, every fixture cut short, and fixtures whose values are
/// swapped for values of every other kind (huge numbers, negative ones, fractions, nulls, long and odd strings) each
/// give an update or an error, and every update a Wallet order the validator can read.
@Suite(.timeLimit(.minutes(5))) struct ShopPayloadFuzzTests {
    static let fixtures: [(ShopPlatform, String, String)] = [
        (.shopify, "orders/updated", "shopify/orders-create.json"), (.shopify, "fulfillments/update", "shopify/fulfillments-create.json"),
        (.shopify, "fulfillment_events/create", "shopify/fulfillment-events-in-transit.json"),
        (.woocommerce, "order.updated", "woocommerce/order-updated.json"), (.woocommerce, "order.deleted", "woocommerce/order-deleted.json"),
        (.ucp, "", "ucp/order.json"),
    ]

    /// Values of every kind a field might be swapped for.
    static let oddValues: [JSONValue] = [
        .null, .bool(true), .int(-1), .int(0), .int(Int.max), .int(Int.min), .double(1e300), .double(-0.5), .double(.nan),
        .string(""), .string("-1"), .string("1e9"), .string("99999999999999999999999999999999999"), .string("\u{202E}\u{0}\n"),
        .string(String(repeating: "x", count: 70_000)), .string("9999-12-31T23:59:59Z"), .string("javascript:alert(1)"),
        .array([]), .array([.null, .int(1)]), .object([:]), .object(["id": .int(1)]),
    ]

    /// A deterministic generator, so a failure names the seed that made it.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func map(_ platform: ShopPlatform, _ topic: String, _ body: [UInt8]) {
        guard let update = try? platform.update(topic: topic, body: body, context: ShopFixture.context) else { return }
        let document = update.applied(to: ShopFixture.serviceDocument("acme:fuzz"))
        // Whatever the payload held, what the mapping writes is what Wallet takes.
        let problems = document.validate().problems
        #expect(problems.isEmpty, "\(platform) \(topic): \(problems)")
    }

    @Test func randomBytesNeverTrap() {
        var random = Generator(state: 42)
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<512, using: &random)
            let body = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            for (platform, topic, _) in Self.fixtures { map(platform, topic, body) }
        }
    }

    @Test func everyFixtureCutShortNeverTraps() throws {
        for (platform, topic, path) in Self.fixtures {
            let body = try ShopFixture.bytes(path)
            for length in stride(from: 0, to: body.count, by: max(1, body.count / 400)) { map(platform, topic, Array(body.prefix(length))) }
        }
    }

    @Test func everyValueSwappedForAnOddOneNeverTrapsAndStaysValid() throws {
        var random = Generator(state: 7)
        for (platform, topic, path) in Self.fixtures {
            let original = try JSONValue.parse(Data(ShopFixture.bytes(path)))
            for _ in 0..<300 {
                var value = original
                for _ in 0..<Int.random(in: 1...4, using: &random) { value = swapOne(value, &random) }
                map(platform, topic, Array(value.serialized()))
            }
        }
    }

    /// `value` with one member somewhere inside it, picked at random, swapped for an odd value.
    private func swapOne(_ value: JSONValue, _ random: inout Generator) -> JSONValue {
        switch value {
        case .object(let members) where !members.isEmpty:
            let keys = members.keys.sorted()
            let key = keys[Int.random(in: 0..<keys.count, using: &random)]
            var changed = members
            let inner = members[key] ?? .null
            let descend = Bool.random(using: &random) && (inner.objectValue != nil || inner.arrayValue != nil)
            changed[key] = descend ? swapOne(inner, &random) : Self.oddValues.randomElement(using: &random)!
            return .object(changed)
        case .array(let elements) where !elements.isEmpty:
            var changed = elements
            let index = Int.random(in: 0..<elements.count, using: &random)
            changed[index] =
                Bool.random(using: &random) ? swapOne(elements[index], &random) : Self.oddValues.randomElement(using: &random)!
            return .array(changed)
        default:
            return Self.oddValues.randomElement(using: &random)!
        }
    }
}
