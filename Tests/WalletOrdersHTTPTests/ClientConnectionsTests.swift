import Testing

@testable import WalletOrdersHTTP

/// The table of open connections per client on its own: the cap, and that it forgets a client with none open.
@Suite(.timeLimit(.minutes(5))) struct ClientConnectionsTests {
    @Test func aClientGetsUpToTheLimitAndIsForgottenOnceItsConnectionsClose() {
        let connections = ClientConnections(limit: 2)
        #expect(connections.opened("192.0.2.1"))
        #expect(connections.opened("192.0.2.1"))
        #expect(!connections.opened("192.0.2.1"))
        // Another client has an allowance of its own.
        #expect(connections.opened("2001:db8:0:0::/64"))
        #expect(connections.count(of: "192.0.2.1") == 2)
        connections.closed("192.0.2.1")
        #expect(connections.opened("192.0.2.1"))
        for _ in 0..<2 { connections.closed("192.0.2.1") }
        connections.closed("2001:db8:0:0::/64")
        #expect(connections.clients == 0)
        // A close with nothing counted changes nothing.
        connections.closed("192.0.2.9")
        #expect(connections.clients == 0)
    }
}
