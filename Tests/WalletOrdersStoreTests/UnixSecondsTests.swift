import Foundation
import Testing
import WalletOrdersStore

@Suite(.timeLimit(.minutes(5))) struct UnixSecondsTests {
    @Test func wholeSecondsRoundDownAndComeBack() {
        #expect(Date(timeIntervalSince1970: 1_795_342_530.9).unixSeconds == 1_795_342_530)
        #expect(Date(timeIntervalSince1970: -0.5).unixSeconds == -1)
        #expect(Date(unixSeconds: 1_795_342_530).unixSeconds == 1_795_342_530)
    }

    @Test func anyDateAtAllHasUnixSecondsClampedToWhatInt64HoldsAndNoneTraps() {
        let cases: [(Double, Int64)] = [
            (.greatestFiniteMagnitude, .max), (-.greatestFiniteMagnitude, .min),
            (.infinity, .max), (-.infinity, .min), (.nan, .min), (0x1p64, .max), (-0x1p64, .min),
            // The first second of the year 10000.
            (253_402_300_800, 253_402_300_800),
        ]
        for (seconds, expected) in cases {
            #expect(Date(timeIntervalSince1970: seconds).unixSeconds == expected, "\(seconds)")
        }
        // A Date keeps seconds since 2001 as a Double, so Int64.max and Int64.min seconds come back a few hundred
        // seconds off at most (a Double's spacing there is 2048), or clamped: near the bound either way, never a trap.
        for bound in [Int64.max, Int64.min] {
            let near = Date(timeIntervalSince1970: Double(bound)).unixSeconds
            #expect(near.signum() == bound.signum() && near.magnitude > bound.magnitude - 4_096, "\(near)")
            let back = Date(unixSeconds: bound).unixSeconds
            #expect(back.signum() == bound.signum() && back.magnitude > bound.magnitude - 4_096, "\(back)")
        }
    }
}
