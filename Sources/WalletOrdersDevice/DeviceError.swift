/// Why a simulated device could not add or remove an order; the transcript holds the details of each step.
public enum DeviceError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The orderDetails JSON lacks a field.
    case badOrderDetails(String)
    /// The certificates to trust could not be read.
    case badTrustedRoots(String)
    /// A request got no answer (connection refused, TLS failure, timeout).
    case unreachable(url: String, reason: String)
    /// The web service answered a status the device does not accept there.
    case unexpectedStatus(url: String, status: Int)
    /// The package failed Wallet's checks; each problem in a sentence.
    case refusedPackage([String])
    /// The device holds no such order.
    case unknownOrder(orderTypeIdentifier: String, orderIdentifier: String)

    public var description: String {
        switch self {
        case .badOrderDetails(let reason): reason
        case .badTrustedRoots(let reason): reason
        case .unreachable(let url, let reason): "\(url) did not answer: \(reason)"
        case .unexpectedStatus(let url, let status): "\(url) answered \(status)"
        case .refusedPackage(let problems): "the package was refused: \(problems.joined(separator: "; "))"
        case .unknownOrder(let type, let id): "the device holds no order \(type) / \(id)"
        }
    }
}
