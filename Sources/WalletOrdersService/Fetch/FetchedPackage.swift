import NIOCore
import WalletOrdersStore

/// An order's head with the signed package of that version, as the bytes a response sends.
public struct FetchedPackage: Sendable {
    public let head: OrderHead
    public let package: ByteBuffer
}
