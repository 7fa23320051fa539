import WalletOrdersModel

/// Why a package could not be built.
public enum PackageError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The order breaks Apple's schema; every problem is listed.
    case invalidOrder([OrderProblem])
    /// A per-order asset cannot go into a package.
    case invalidAsset(path: String, problem: String)
    /// The template folder cannot be used.
    case template(String)
    /// The signing certificate, key or WWDR certificate cannot be used.
    case signingIdentity(String)
    /// The finished package is too large for Wallet.
    case tooLarge(bytes: Int, limit: Int)
    /// Signing or zipping failed.
    case failed(String)

    public var description: String {
        switch self {
        case .invalidOrder(let problems):
            "the order is not valid:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
        case .invalidAsset(let path, let problem): "asset \(path): \(problem)"
        case .template(let message): "template: \(message)"
        case .signingIdentity(let message): message
        case .tooLarge(let bytes, let limit):
            "the package is \(bytes) bytes; Wallet accepts packages below \(limit) bytes (5 MB): use smaller images"
        case .failed(let message): message
        }
    }
}
