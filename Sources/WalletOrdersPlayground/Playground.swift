import Foundation
import Synchronization
import WalletOrdersAPNSServer
import WalletOrdersCrypto
import WalletOrdersDevice
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// What `/playground` needs beside the service: who may open it, the credential its page calls the merchant API
/// with, and the simulated Wallet devices that live in the server process with the pushes the embedded local APNs
/// handed them.
///
/// The page's credential (`key`) is made at start, kept in memory only and never logged; the merchant API accepts
/// it beside the configured merchant keys, so the page never holds a merchant key. It is written into the page
/// only for those who may open the page: anyone in development, the admin key's holders otherwise.
public final class Playground: Sendable {
    /// Who may open the page.
    public enum Access: Sendable {
        /// Development (no order type configured): the page is open, as the development server is.
        case open
        /// Otherwise: behind the admin key, as `/admin` is.
        case adminKey
    }

    /// A push the embedded local APNs answered for a playground device's token, and when.
    struct PushRecord: Sendable {
        let time: Date
        let push: LocalAPNS.ReceivedPush
    }

    struct Device: Sendable {
        let device: SimulatedDevice
        let details: OrderDetails
    }

    private struct State {
        var apns: (apns: LocalAPNS, url: String)?
        var serviceURL: String?
        var devices: [String: Device] = [:]
        var order: [String] = []
        var pushes: [String: [PushRecord]] = [:]
    }

    /// The most simulated devices kept at once; adding one more stops the oldest.
    static let maxDevices = 20
    /// The most pushes kept per device.
    static let maxPushes = 200

    /// Who may open the page.
    public let access: Access
    /// The page's bearer credential for the merchant API and the playground's own calls: 256 random bits.
    public let key: String
    /// The roots the simulated devices trust; nil when the playground has no devices (a production service, whose
    /// pushes go to Apple's APNs, which knows nothing of a simulated device's token).
    let trustedRoots: [Certificate]?
    private let state = Mutex(State())

    /// A playground whose devices (when `trustedRoots` is given) trust packages chaining to `trustedRoots`.
    public init(access: Access, trustedRoots: [Certificate]?) {
        self.access = access
        self.trustedRoots = trustedRoots
        key = Random.token()
    }

    /// The merchant a production playground acts as: its orders are Wallet's `playground:…`, and no other
    /// merchant's order can be read or changed with the playground's key.
    public static let merchantSlug = "playground"
    /// What the playground's merchant may hold: enough to try things, too little to be a second shop.
    static let merchantLimits = MerchantLimits(requestsPerSecond: 10, maxOrders: 1_000, maxAssetBytes: 50 << 20)

    /// The playground of a service with order types configured, opened with `playground: true`: behind the admin
    /// key, its key speaking for merchant `playground` (added now when missing), never for another merchant.
    public static func production(service: OrderService) async throws -> Playground {
        let playground = Playground(access: .adminKey, trustedRoots: nil)
        let registry = MerchantRegistry(service: service)
        do {
            _ = try await registry.add(slug: merchantSlug, displayName: "Playground", limits: merchantLimits)
        } catch MerchantRegistryError.exists {
            // Made by an earlier start, or by the operator, whose limits stand.
        }
        service.merchants.admit(playground.key, for: merchantSlug)
        return playground
    }

    /// Hands the playground's devices the pushes `apns` (reached at `url`) accepts for their tokens.
    public func deliver(from apns: LocalAPNS, url: String) {
        state.withLock { $0.apns = (apns, url) }
    }

    /// Records a push the local APNs answered, when it is for a playground device's token.
    public func record(_ push: LocalAPNS.ReceivedPush) {
        let token = push.deviceToken.lowercased()
        state.withLock { state in
            guard var pushes = state.pushes[token] else { return }
            pushes.append(PushRecord(time: Date(), push: push))
            if pushes.count > Self.maxPushes { pushes.removeFirst() }
            state.pushes[token] = pushes
        }
    }

    /// Where the devices reach the service: the address it listens on (they live in its process).
    public func listening(host: String, port: Int) {
        let reachable = ["0.0.0.0", "::", "*", ""].contains(host) ? "127.0.0.1" : host.contains(":") ? "[\(host)]" : host
        state.withLock { $0.serviceURL = "http://\(reachable):\(port)" }
    }

    var hasDevices: Bool { trustedRoots != nil }
    var pushesReachDevices: Bool { state.withLock { $0.apns != nil } }

    /// A new simulated device that adds the order `details` names, as Wallet does after Apple Pay: fetch, check,
    /// register. Answers the device's identifier; a failed add still leaves the device, its transcript saying why.
    func addDevice(for details: OrderDetails) async throws -> String {
        guard let trustedRoots else { throw PlaygroundError.noDevices }
        let (apns, serviceURL) = state.withLock { ($0.apns?.apns, $0.serviceURL) }
        let device = try SimulatedDevice(trustedRoots: trustedRoots, allowsHTTPWebService: true)
        var details = details
        if let serviceURL { details.webServiceURL = serviceURL }
        let stopped = state.withLock { state -> [SimulatedDevice] in
            state.devices[device.identifier] = Device(device: device, details: details)
            state.order.append(device.identifier)
            state.pushes[device.pushToken] = []
            var stopped: [SimulatedDevice] = []
            while state.order.count > Self.maxDevices {
                let oldest = state.order.removeFirst()
                if let gone = state.devices.removeValue(forKey: oldest) {
                    state.pushes.removeValue(forKey: gone.device.pushToken)
                    stopped.append(gone.device)
                }
            }
            return stopped
        }
        for old in stopped { old.stop() }
        if let apns { device.connect(to: apns) }
        _ = try? await device.add(details)
        return device.identifier
    }

    func device(_ identifier: String) -> Device? {
        state.withLock { $0.devices[identifier] }
    }

    /// Every exchange of the device with the service and with the local APNs, in order.
    func transcript(of device: Device) -> [PlaygroundEntry] {
        let (pushes, apnsURL) = state.withLock { ($0.pushes[device.device.pushToken] ?? [], $0.apns?.url) }
        var held: String?
        var entries: [PlaygroundEntry] = []
        for event in device.device.transcript {
            entries.append(PlaygroundEntry(event: event, pushToken: device.device.pushToken, heldLastModified: held))
            // A refused version is not held: only a checked one's Last-Modified goes back as If-Modified-Since.
            if event.kind == .verified, let fetched = entries.dropLast().last(where: { $0.kind == "fetch" }) {
                held = fetched.lastModified ?? held
            }
        }
        entries += pushes.map { PlaygroundEntry(push: $0, apnsURL: apnsURL ?? "https://apns") }
        // Stable: an APNs answer and the device's taking of the push may share a millisecond.
        return entries.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    /// Stops every device (when the service stops).
    public func stop() {
        let devices = state.withLock { state -> [Device] in
            defer {
                state.devices.removeAll()
                state.order.removeAll()
                state.pushes.removeAll()
            }
            return Array(state.devices.values)
        }
        for device in devices { device.device.stop() }
    }
}

/// Why the playground refused a request.
enum PlaygroundError: Error {
    case noDevices
}
